#!/usr/bin/env bash
# make fuzz: each target's regression inputs once, then SECONDS of fuzzing from its corpus.
# Usage: bash tests/fuzz/run.sh BUILD SECONDS TARGET...
# New inputs go to BUILD/corpus/<target> (the committed corpus stays as it is); a crash, leak,
# timeout or broken invariant leaves BUILD/artifacts/<target>-* and fails the run. The last
# line of each target is libFuzzer's "#N DONE cov: .. ft: .. corp: .. exec/s: .." summary.
set -u
build=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for t in "$@"; do
    bin=$build/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: $bin missing (make fuzzers)"; fail=1; continue; }
    mkdir -p "$build/corpus/$t" "$build/artifacts"
    regress=("$here/regress/$t"/*)
    if [ -e "${regress[0]}" ]; then
        echo "== fuzz_$t: ${#regress[@]} regression inputs"
        "$bin" -close_fd_mask=2 "${regress[@]}" >"$build/$t.regress.log" 2>&1 || { fail=1; tail -30 "$build/$t.regress.log"; }
    fi
    echo "== fuzz_$t: ${secs} s"
    nice -n 15 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" "$here/corpus/$t" >"$build/$t.log" 2>&1
    rc=$?
    grep -E "^#[0-9]+[[:space:]]+DONE" "$build/$t.log" | tail -1
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$build/$t.log" | tr '\n' ' '
    echo
    if [ $rc -ne 0 ]; then
        fail=1
        echo "fuzz_$t: exit $rc; artifacts in $build/artifacts/, log $build/$t.log:"
        grep -E "ERROR|SUMMARY|invariant|Test unit written" "$build/$t.log" | head -20
    fi
done
exit $fail
