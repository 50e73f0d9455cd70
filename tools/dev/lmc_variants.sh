#!/usr/bin/env bash
# lattice_mc's CUDA sweep variants on one GPU: timed runs alternating variant by variant for
# ROUNDS rounds, then one --profile run each (Nsight Compute counters: measured DRAM bytes).
# Prints a table: site updates/s (median of each run's repetitions; the median and range over
# rounds), measured DRAM B/update, the fused slab used, validation, and lattice_checksum
# (every variant runs the same trajectory: the checksums must be equal).
# Builds nothing: runs $SB (default build/scibench) as built.
# Usage: tools/dev/lmc_variants.sh [SIZE [ROUNDS [VARIANT ...]]]
#   SIZE default 256, ROUNDS default 3 (0: the profile runs alone); a VARIANT is a comma-separated
#   --param list or 'off';
#   default variants: off fuse=slab fuse=slab_l2. Example: tools/dev/lmc_variants.sh 256 3 off fuse=slab,slab=1
# Env: REPS (default 10), PROFILE=0 skips the profile runs, OUT (default /tmp/lmc_variants): one JSON
#   per run and log.txt land there.
set -u
size=${1:-256}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(off fuse=slab fuse=slab_l2)
sb=${SB:-build/scibench}
out=${OUT:-/tmp/lmc_variants}
reps=${REPS:-10}
[ -x "$sb" ] || { echo "$0: $sb is not an executable (build first)" >&2; exit 2; }
mkdir -p "$out"
exec > >(tee "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>/dev/null
fail=0
# tag VARIANT: a file-name part; params VARIANT: its --param arguments
tag() { [ "$1" = off ] && echo off || echo "$1" | tr ',=' '._'; }
params() { [ "$1" = off ] && return; local IFS=,; for kv in $1; do printf -- '--param\n%s\n' "$kv"; done; }
run() { # run JSON [extra args...]: one case
  local json=$1 v=$2; shift 2
  mapfile -t p < <(params "$v")
  echo "== $v $*"
  "$sb" run lattice_mc --backend cuda --size "$size" --quiet "${p[@]}" "$@" --json "$json" > "$json.txt" 2>&1
  local rc=$?
  grep -E "^(time|throughput)|VALIDATION|FAIL|error|note" "$json.txt"
  [ $rc = 0 ] || { echo "FAILED (exit $rc): $v $*"; fail=1; }
}
for r in $(seq 1 "$rounds"); do
  for v in "${variants[@]}"; do run "$out/$(tag "$v").r$r.json" "$v" --reps "$reps"; done
done
if [ "${PROFILE:-1}" != 0 ]; then
  for v in "${variants[@]}"; do run "$out/$(tag "$v").profile.json" "$v" --reps 3 --profile; done
fi
python3 - "$out" "$rounds" "${variants[@]}" <<'PY' || fail=1
import json, os, statistics, sys
out, rounds, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def median_entry(path):
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return None
    b = [e for e in d["benchmarks"] if e.get("aggregate_name") == "median"]
    return b[0] if b else None
def tag(v):
    return "off" if v == "off" else v.replace(",", ".").replace("=", "_")
print("\n| variant | site updates/s, median of rounds | range over rounds | DRAM B/update (ncu) | slab planes | validation | lattice_checksum |")
print("|---|---|---|---|---|---|---|")
allsums = set()
for v in variants:
    runs = [median_entry(os.path.join(out, f"{tag(v)}.r{r}.json")) for r in range(1, rounds + 1)]
    runs = [e for e in runs if e]
    prof = median_entry(os.path.join(out, f"{tag(v)}.profile.json"))
    rates = [e["items_per_second"] for e in runs]
    med = f"{statistics.median(rates):.3e}" if rates else "-"
    rng = f"{min(rates):.3e} – {max(rates):.3e}" if rates else "-"
    p = prof.get("profile") if prof else None
    dram = f"{p['bytes_per_item']:.1f} B" if p and p.get("bytes_per_item") is not None else "-"
    slab = runs[0].get("fused_slab_planes", 0) if runs else "-"
    ok = "PASS" if runs and all(e.get("validation", {}).get("passed") for e in runs) else "FAIL"
    sums = sorted({e.get("lattice_checksum") for e in runs})
    print(f"| {v} | {med} | {rng} | {dram} | {slab} | {ok} | {', '.join(f'{s:.0f}' for s in sums)} |")
    allsums.update(sums)
if allsums:
    print(f"\nlattice_checksum over all timed runs: {'one value (same trajectory)' if len(allsums) == 1 else 'DIFFERENT values'}")
sys.exit(0 if len(allsums) <= 1 else 1)
PY
exit $fail
