#!/usr/bin/env bash
# make compare KERNEL=k SIZE=n [BACKENDS="openmp_simd cuda"] [RUNS=10] [WARMUP=2] [ARGS=...]
# Times whole `scibench run` processes of each backend with hyperfine, side by side;
# JSON and markdown go to results/<machine>/hyperfine/<kernel>.<size>[.<params>].{json,md}.
set -u
. "$(dirname "$0")/sblib.sh"
kernel=$1 size=${2:-}
shift 2
runs=${RUNS:-10} warmup=${WARMUP:-2}
command -v hyperfine >/dev/null || { echo "compare: hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
[ "$runs" -ge 10 ] 2>/dev/null || { echo "compare: RUNS=$runs; at least 10 runs" >&2; exit 2; }
[ -n "$size" ] || size=$(sb_kernel_field "$kernel" default)
[ -n "$size" ] || { echo "compare: unknown kernel '$kernel'; see '$SB list'" >&2; exit 2; }
backends=${BACKENDS:-}
if [ -z "$backends" ]; then
    for b in openmp_simd cuda; do
        if sb_kernel_has "$kernel" $b && sb_backend_here $b; then backends+=" $b"; fi
    done
    sb_backend_here cuda || echo "compare: cuda not available here; timing ${backends# } only" >&2
fi
machine=$("$SB" machine) || exit 2
dir=results/$machine/hyperfine
base=$dir/$kernel.$size$(sb_tag "$@")
mkdir -p "$dir"
cmds=()
for b in $backends; do cmds+=(-n "$b" "$SB run $kernel --backend $b --size $size --quiet $*"); done
hyperfine --warmup "$warmup" --runs "$runs" --export-json "$base.json" --export-markdown "$base.md" "${cmds[@]}" || exit $?
echo
cat "$base.md"
echo "compare: wrote $base.json and $base.md"
