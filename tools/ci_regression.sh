#!/usr/bin/env bash
# make ci-regression: every kernel's CPU backend (openmp_simd) at its CI size, validated, then
# `scibench compare --normalise peak` against the committed baseline in results/ci/. It fails on
#   - a run that does not validate, or any validation change against the baseline;
#   - a drop of % of roofline (items/s over what the same run's measured STREAM triad / FMA
#     peaks allow, so the machine's speed cancels) of more than CI_THRESHOLD (default 0.5)
#     beyond the noise band, seen twice: a throughput regression is re-run once to confirm it.
# make ci-baseline (--update): refreshes results/ci/ from this machine instead, keeping for each
# kernel the quietest (smallest 3 MAD/median of its repetitions) of CI_TRIES (default 3) runs.
# Environment: SB (binary), CI_BASELINE (default results/ci), CI_THRESHOLD, CI_REPS (default 10).
set -u
. "$(dirname "$0")/sblib.sh"
baseline=${CI_BASELINE:-results/ci}
threshold=${CI_THRESHOLD:-0.5}
reps=${CI_REPS:-10}
tries=${CI_TRIES:-3}
update=0
[ "${1:-}" = "--update" ] && update=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_all DIR: each kernel's CPU backend at its CI size, JSON into DIR. Non-zero when one fails.
run_all() {
    local dir=$1 k size json rc fail=0
    mkdir -p "$dir"
    for k in $(sb_kernels); do
        if ! sb_kernel_has "$k" openmp_simd; then
            echo "ci-regression: $k has no openmp_simd backend: skipped"
            continue
        fi
        size=$(sb_kernel_field "$k" CI)
        json=$dir/$k.openmp_simd.$size.json
        "$SB" run "$k" --backend openmp_simd --size "$size" --reps "$reps" --quiet --json "$json" >"$dir/$k.log" 2>&1
        rc=$?
        echo "ci-regression: $k --size $size: exit $rc; $(grep -E "^(throughput|bandwidth) " "$dir/$k.log" | tr -s ' ' | paste -sd ';' -)"
        if [ $rc -ne 0 ]; then
            fail=1
            cat "$dir/$k.log"
            [ -f "$json" ] || echo "ci-regression: $k wrote no JSON (exit $rc)"
        fi
        rm -f "$dir/$k.log"
    done
    return $fail
}

# noise FILE: 3 MAD / median of the case's items/s (the "noise" column of `scibench table`).
noise() { "$SB" table "$1" | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "noise") c = i} NR == 2 {print $c + 0}'; }

echo "ci-regression: machine $("$SB" machine), $("$SB" --version | head -1)"
if [ $update = 1 ]; then
    for t in $(seq "$tries"); do
        run_all "$tmp/try$t" || { echo "ci-regression: a run failed; baseline $baseline left as it was"; exit 1; }
    done
    mkdir -p "$baseline"
    rm -f "$baseline"/*.json
    for f in "$tmp"/try1/*.json; do
        name=$(basename "$f") best=
        for t in $(seq "$tries"); do
            s=$(noise "$tmp/try$t/$name")
            if [ -z "$best" ] || awk -v a="$s" -v b="$bs" 'BEGIN{exit !(a < b)}'; then best=$tmp/try$t/$name bs=$s; fi
        done
        cp "$best" "$baseline/$name"
        echo "ci-regression: baseline $baseline/$name (noise $bs, the quietest of $tries runs)"
    done
    exit 0
fi
[ -d "$baseline" ] || { echo "ci-regression: no baseline $baseline; run 'make ci-baseline' and commit it"; exit 1; }
fail=0
run_all "$tmp/new" || fail=1
"$SB" compare --normalise peak --threshold "$threshold" "$baseline" "$tmp/new"
rc=$?
if [ $rc = 1 ] && "$SB" compare --format json --normalise peak --threshold "$threshold" "$baseline" "$tmp/new" \
    | grep -q '"validation_changes": 0,'; then
    echo "ci-regression: throughput regression only; running again to confirm"
    run_all "$tmp/again" || fail=1
    "$SB" compare --normalise peak --threshold "$threshold" "$baseline" "$tmp/again"
    rc=$?
fi
[ $rc = 0 ] || fail=1
if [ $fail = 0 ]; then echo "ci-regression: PASSED"; else echo "ci-regression: FAILED"; fi
exit $fail
