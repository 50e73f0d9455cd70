#!/usr/bin/env bash
# make scaling KERNEL=k BACKEND=b SIZES="32 64 128" [RUNS=10] [WARMUP=2] [ARGS=...]
# hyperfine's parameter scan over sizes: whole `scibench run` processes, one per size;
# JSON and markdown go to results/<machine>/hyperfine/<kernel>.<backend>.scaling[.<params>].{json,md}.
set -u
. "$(dirname "$0")/sblib.sh"
kernel=$1 backend=$2 sizes=$3
shift 3
runs=${RUNS:-10} warmup=${WARMUP:-2}
command -v hyperfine >/dev/null || { echo "scaling: hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
[ "$runs" -ge 10 ] 2>/dev/null || { echo "scaling: RUNS=$runs; at least 10 runs" >&2; exit 2; }
[ -n "$sizes" ] || { echo "scaling: SIZES is empty, e.g. SIZES=\"32 64 128\"" >&2; exit 2; }
machine=$("$SB" machine) || exit 2
dir=results/$machine/hyperfine
base=$dir/$kernel.$backend.scaling$(sb_tag "$@")
mkdir -p "$dir"
list=$(printf '%s' "$sizes" | tr -s ' ' ',' | sed 's/^,//; s/,$//')
hyperfine --warmup "$warmup" --runs "$runs" -L size "$list" -n "$backend size={size}" \
    --export-json "$base.json" --export-markdown "$base.md" \
    "$SB run $kernel --backend $backend --size {size} --quiet $*" || exit $?
echo
cat "$base.md"
echo "scaling: wrote $base.json and $base.md"
