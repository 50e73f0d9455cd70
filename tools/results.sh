#!/usr/bin/env bash
# make results KERNEL=k BACKEND=b SIZE=n [ARGS='--reps 10 --param ...']
# One `scibench run` whose JSON goes to results/<machine>/<kernel>.<backend>.<size>[.<params>].json.
set -u
. "$(dirname "$0")/sblib.sh"
kernel=$1 backend=$2 size=${3:-}
shift 3
[ -n "$size" ] || size=$(sb_kernel_field "$kernel" default)
[ -n "$size" ] || { echo "results: unknown kernel '$kernel'; see '$SB list'" >&2; exit 2; }
machine=$("$SB" machine) || exit 2
mkdir -p "results/$machine"
out="results/$machine/$kernel.$backend.$size$(sb_tag "$@").json"
"$SB" run "$kernel" --backend "$backend" --size "$size" "$@" --json "$out"
rc=$?
[ $rc -le 1 ] && echo "results: wrote $out (exit $rc)"
exit $rc
