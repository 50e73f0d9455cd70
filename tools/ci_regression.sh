#!/usr/bin/env bash
# make ci-regression: every kernel's CPU backend (openmp_simd) at its CI size, validated,
# then `scibench compare --normalise peak` against the committed baseline in results/ci/.
#   fails on any validation change, and on a drop of % of roofline (throughput over the same
#   run's measured STREAM triad / FMA peaks) of more than CI_THRESHOLD (default 0.5) beyond noise.
# make ci-baseline (--update): refreshes results/ci/ from this machine instead.
# Environment: SB (binary), CI_BASELINE (default results/ci), CI_THRESHOLD, CI_REPS (default 10).
set -u
. "$(dirname "$0")/sblib.sh"
baseline=${CI_BASELINE:-results/ci}
threshold=${CI_THRESHOLD:-0.5}
reps=${CI_REPS:-10}
update=0
[ "${1:-}" = "--update" ] && update=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
echo "ci-regression: machine $("$SB" machine), $("$SB" --version | head -1)"
for k in $(sb_kernels); do
    if ! sb_kernel_has "$k" openmp_simd; then
        echo "ci-regression: $k has no openmp_simd backend: skipped"
        continue
    fi
    size=$(sb_kernel_field "$k" CI)
    json=$tmp/$k.openmp_simd.$size.json
    "$SB" run "$k" --backend openmp_simd --size "$size" --reps "$reps" --quiet --json "$json" >"$tmp/$k.log" 2>&1
    rc=$?
    summary=$(grep -E "^(throughput|bandwidth) " "$tmp/$k.log" | tr -s ' ' | paste -sd ';' -)
    echo "ci-regression: $k --size $size: exit $rc; $summary"
    if [ $rc -ne 0 ]; then
        fail=1
        cat "$tmp/$k.log"
        [ -f "$json" ] || echo "ci-regression: $k wrote no JSON (exit $rc)"
    fi
done
if [ $update = 1 ]; then
    [ $fail = 0 ] || { echo "ci-regression: a run failed; baseline $baseline left as it was"; exit 1; }
    mkdir -p "$baseline"
    rm -f "$baseline"/*.json
    cp "$tmp"/*.json "$baseline"/
    echo "ci-regression: baseline refreshed:" "$baseline"/*.json
    exit 0
fi
[ -d "$baseline" ] || { echo "ci-regression: no baseline $baseline; run 'make ci-baseline' and commit it"; exit 1; }
"$SB" compare --normalise peak --threshold "$threshold" "$baseline" "$tmp" || fail=1
if [ $fail = 0 ]; then echo "ci-regression: PASSED"; else echo "ci-regression: FAILED"; fi
exit $fail
