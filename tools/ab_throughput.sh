#!/usr/bin/env bash
# Throughput of two builds, or two settings of one build, on one case, alternating A B A B so
# that the machine's drift (clocks, neighbours, thermal state) falls on both sides alike.
# Usage: tools/ab_throughput.sh [-n ROUNDS] [-o DIR] A B -- KERNEL [scibench run options]
#   A, B   a scibench binary, optionally preceded by environment settings, comma-separated:
#          build/scibench   old/scibench   SB_ERI_JE_TEAM=0,build/scibench   OMP_NUM_THREADS=8,build/scibench
#   -n     rounds (default 3); -o: where the JSON go (default $OUT/ab, else /tmp/sb_ab):
#          DIR/a.<round>.json and DIR/b.<round>.json
# Prints each run's items/s, then per side the median over the rounds with its range, and the
# ratio B/A of the medians. Every run must pass its validation.
# Exit: 0, 1 a run failed validation, 2 usage, 3 a run error.
set -u
rounds=3 dir=${OUT:+$OUT/ab}
dir=${dir:-/tmp/sb_ab}
usage() { echo "ab_throughput: $1; usage: tools/ab_throughput.sh [-n ROUNDS] [-o DIR] A B -- KERNEL [run options]" >&2; exit 2; }
while getopts n:o: opt; do
  case $opt in
  n) [[ $OPTARG =~ ^[1-9][0-9]*$ ]] || usage "-n '$OPTARG' is not a round count (1 or more)"; rounds=$OPTARG ;;
  o) dir=$OPTARG ;;
  *) usage "unknown option" ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] && [ "$3" = -- ] || usage "needs A, B, '--' and a kernel"
side=("$1" "$2")
shift 3
mkdir -p "$dir" || exit 2
# split SPEC: env settings into ENVS[], the binary into BIN
split() {
  local IFS=, part
  ENVS=() BIN=
  for part in $1; do
    if [[ $part == *=* ]]; then ENVS+=("$part"); else BIN=$part; fi
  done
  [ -x "$BIN" ] || usage "'$1' names no executable binary"
}
for s in 0 1; do split "${side[$s]}"; done
rc=0
for ((r = 1; r <= rounds; r++)); do
  for s in 0 1; do
    split "${side[$s]}"
    tag=$([ $s = 0 ] && echo a || echo b)
    env "${ENVS[@]}" "$BIN" run "$@" --quiet --json "$dir/$tag.$r.json" >"$dir/$tag.$r.log" 2>&1
    e=$?
    printf '%s round %d: exit %d, %s\n' "${tag^^}" $r $e "$(grep -m1 '^throughput' "$dir/$tag.$r.log" | tr -s ' ')"
    [ $e = 0 ] || { [ $rc = 0 ] && rc=$e; }
  done
done
# median, min and max of the items/s over the rounds, per side (scibench table, column 8)
split "${side[1]}"
rm -f "$dir/medians"
for tag in a b; do
  "$BIN" table "$dir/$tag".*.json 2>/dev/null | tail -n +2 | cut -d, -f8 | sort -g |
    awk -v t="${tag^^}" '{v[NR] = $1} END {if (!NR) {print t ": no result"; exit}
      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%s: median %.4g items/s over %d rounds (%.4g .. %.4g)\n", t, m, NR, v[1], v[NR]; print m > "/dev/stderr"}' 2>>"$dir/medians"
done
awk 'NR == 1 {a = $1} NR == 2 {b = $1} END {if (a > 0 && NR == 2) printf "B/A: %.3f\n", b / a}' "$dir/medians"
rm -f "$dir/medians"
exit $rc
