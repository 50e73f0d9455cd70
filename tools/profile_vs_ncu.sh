#!/usr/bin/env bash
# Checks `scibench run ... --profile` against Nsight Compute run by hand on the same
# launches: DRAM bytes per item and achieved occupancy, side by side.
# Usage: tools/profile_vs_ncu.sh KERNEL SIZE [scibench options, e.g. --param geometry=droplet]
# Needs a GPU, ncu on PATH (or SB_NCU) and build/scibench. Prints a small table; exit 1
# when the bytes differ by more than 5 % or the occupancy by more than 2 points.
set -euo pipefail
kernel=${1:?kernel}; size=${2:?size}; shift 2
sb=${SB:-build/scibench}
ncu=${SB_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$sb" run "$kernel" --backend cuda --size "$size" --reps 3 --quiet --profile --json "$tmp/p.json" "$@" > "$tmp/run.txt"
# By hand: the same child command the harness profiles, the profiler range set by the same variable,
# counted as the harness counted it: launch by launch, or as one range (a kernel whose --profile
# counts its repetition as one range, eri_brush: its one group is "range").
mode=(--profile-from-start off)
if python3 -c 'import json,sys; m=[b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name")=="median"][0]
p=m.get("profile") or {}; sys.exit(0 if [g["name"] for g in p.get("groups",[])]==["range"] else 1)' "$tmp/p.json"; then
    mode=(--replay-mode app-range)
fi
SB_PROFILE_RANGE=1 "$ncu" "${mode[@]}" --csv --page raw --print-units base \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
  "$sb" validate "$kernel" --backend cuda --size "$size" --reps 1 --warmup 1 --quiet "$@" > "$tmp/ncu.csv" 2> "$tmp/ncu.err" || true
python3 - "$tmp/p.json" "$tmp/ncu.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
med = [b for b in d["benchmarks"] if b.get("aggregate_name") == "median"][0]
p = med.get("profile")
if not p:
    print("no profile in the JSON:", med.get("profile_unavailable")); sys.exit(1)
rows = [r for r in csv.reader(l for l in open(sys.argv[2]) if not l.startswith("=="))]
h, data = rows[0], [r for r in rows[2:] if r and r[0]]
col = {n: h.index(n) for n in h}
num = lambda r, n: float(r[col[n]].replace(",", ""))
rd = sum(num(r, "dram__bytes_read.sum") for r in data); wr = sum(num(r, "dram__bytes_write.sum") for r in data)
t = [num(r, "gpu__time_duration.sum") for r in data]
occ = sum(num(r, "sm__warps_active.avg.pct_of_peak_sustained_active") * w for r, w in zip(data, t)) / sum(t)
items = p["items"]
mine_occ = sum(g["achieved_occupancy_pct"] * g["duration_s"] for g in p["groups"]) / sum(g["duration_s"] for g in p["groups"])
by_hand = (rd + wr) / items
print(f"{'':28s} {'scibench --profile':>20s} {'ncu by hand':>14s}")
print(f"{'launches':28s} {p['launches']:>20d} {len(data):>14d}")
print(f"{'DRAM bytes per item':28s} {p['bytes_per_item']:>20.3f} {by_hand:>14.3f}   diff {100*(p['bytes_per_item']/by_hand-1):+.2f} %")
print(f"{'achieved occupancy %':28s} {mine_occ:>20.2f} {occ:>14.2f}   diff {mine_occ-occ:+.2f} points")
ok = abs(p["bytes_per_item"] / by_hand - 1) <= 0.05 and abs(mine_occ - occ) <= 2
print("AGREE" if ok else "DISAGREE"); sys.exit(0 if ok else 1)
PY
