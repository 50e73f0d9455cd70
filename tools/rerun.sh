#!/usr/bin/env bash
# make rerun FROM=results/h200 TO=/tmp/new [ARGS='--reps 10']
# Runs again every case found in FROM (kernel, backend, size, params, seed, read back with
# `scibench table`) on this machine, JSON into TO, named as `make results` names them; then
# `scibench compare FROM TO` gives the verdict. A CPU case its file records on part of the
# machine runs on as many OpenMP threads again; an MPI case (several ranks) needs mpirun and is
# listed, not run. Exit: 0, or the first failing run's code.
set -u
. "$(dirname "$0")/sblib.sh"
from=$1 to=$2
shift 2
[ -n "$from" ] && [ -n "$to" ] || { echo "rerun: usage: make rerun FROM=results/<machine> TO=<new folder>" >&2; exit 2; }
mkdir -p "$to" || exit 2
"$SB" table "$from" >"$to/.cases.csv" || exit 2
rc=0
# Columns (scibench table): 2 kernel, 3 backend, 4 size, 6 seed, 26 ranks, 27 the params away
# from the kernel's defaults (k=v;k=v), 33 threads (set only for a run on part of the machine).
# Quoted fields: none expected.
while IFS=, read -r -a f; do
    kernel=${f[1]} backend=${f[2]} size=${f[3]} seed=${f[5]} ranks=${f[25]:-1} params=${f[26]:-} threads=${f[32]:-}
    if [ "$ranks" -gt 1 ]; then
        echo "rerun: $kernel --backend $backend --size $size on $ranks ranks: not run (make MPI=1, then mpirun -n $ranks)"
        continue
    fi
    # only the params away from the defaults: a default the file echoes symbolically ("50*N")
    # is the kernel's own again; the file name carries them, as make results names it
    args=()
    IFS=';' read -r -a kv <<<"$params"
    for p in "${kv[@]}"; do args+=(--param "$p"); done
    out="$to/$kernel.$backend.$size$(sb_tag "${args[@]}")${threads:+.threads-$threads}.json"
    [ "$seed" != 1 ] && out=${out%.json}.seed$seed.json
    echo "rerun: $kernel --backend $backend --size $size${args[*]:+ ${args[*]}} --seed $seed${threads:+ on $threads threads} -> $out"
    env ${threads:+OMP_NUM_THREADS=$threads} "$SB" run "$kernel" --backend "$backend" --size "$size" --seed "$seed" \
        "${args[@]}" --quiet "$@" --json "$out" >/dev/null
    r=$?
    [ $r = 0 ] || { echo "rerun: exit $r"; [ $rc = 0 ] && rc=$r; }
done < <(tail -n +2 "$to/.cases.csv" | grep -v '"')
rm -f "$to/.cases.csv"
exit $rc
