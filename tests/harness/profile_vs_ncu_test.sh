#!/usr/bin/env bash
# --profile against Nsight Compute run by hand (tools/profile_vs_ncu.sh) for every kernel on the
# GPU: DRAM bytes per item within 5 %, achieved occupancy within 2 points. A GPU test: without a
# GPU or ncu it skips with the reason, unless SB_REQUIRE_GPU=1 (make test-gpu), where that fails.
# Usage: SB=build/scibench bash tests/harness/profile_vs_ncu_test.sh
set -uo pipefail
SB=${SB:-build/scibench}
here=$(cd "$(dirname "$0")/../.." && pwd)
ncu=${SB_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
skip() {
    if [ "${SB_REQUIRE_GPU:-0}" = 1 ]; then echo "profile_vs_ncu_test: FAIL: SB_REQUIRE_GPU is set but $1"; exit 1; fi
    echo "profile_vs_ncu_test: SKIP: $1"; exit 0
}
[ -x "$ncu" ] || skip "no ncu ($ncu)"
"$SB" info 2>/dev/null | grep -q "^GPU .*not available" && skip "no GPU"
fail=0
# each kernel at a size whose repetition profiles in seconds, and the repetitions --profile
# counts (SB_PROFILE_REPS): dfratom_scf's DRAM writes, its L2-resident local memory written
# back, lie 8 % apart over three runs of one repetition by hand, 3 % over sixteen
while read -r reps kernel size opts; do
    [ -z "$kernel" ] && continue
    out=$(SB="$SB" SB_NCU="$ncu" SB_PROFILE_REPS="$reps" bash "$here/tools/profile_vs_ncu.sh" "$kernel" "$size" $opts 2>&1); rc=$?
    if [ "$rc" = 0 ]; then echo "  ok   $kernel $size $opts (SB_PROFILE_REPS=$reps)"
    else echo "  FAIL $kernel $size $opts (SB_PROFILE_REPS=$reps, exit $rc)"; fail=1; fi
    printf '%s\n' "$out" | sed 's/^/       /'
done <<'CASES'
1 lattice_mc 256
1 nlchains 1024 --param copies=4096 --param steps=200
1 fullerene_ff 200
1 eri_brush 4
16 dfratom_scf 30 --param atom=Xe --param job=fock
CASES
[ "$fail" = 0 ] && echo "profile_vs_ncu_test: all agree" || echo "profile_vs_ncu_test: FAILED"
exit "$fail"
