#!/usr/bin/env bash
# Checks `scibench run ... --profile` against Nsight Compute run by hand on the same
# launches: DRAM bytes per item and achieved occupancy, side by side, and how far apart
# ncu's own runs by hand lie.
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
# counts each repetition as one range, eri_brush: its one group is "range"), over as many
# repetitions as it counted.
read -r range reps < <(python3 -c 'import json,sys; m=[b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name")=="median"][0]
p=m.get("profile") or {}; print(int([g["name"] for g in p.get("groups",[])]==["range"]), p.get("counted_repetitions", 1))' "$tmp/p.json")
mode=(--profile-from-start off)
[ "$range" = 1 ] && mode=(--replay-mode app-range)
# By hand RUNS times (SB_PVN_RUNS, default 3): the median is the reference, and the range is
# ncu's own repeatability on this case, which no agreement can be finer than.
runs=${SB_PVN_RUNS:-3}
for i in $(seq "$runs"); do
    SB_PROFILE_RANGE=1 "$ncu" "${mode[@]}" --csv --page raw --print-units base \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
      "$sb" validate "$kernel" --backend cuda --size "$size" --reps "$reps" --warmup 1 --quiet "$@" > "$tmp/ncu$i.csv" 2> "$tmp/ncu$i.err" || true
done
python3 - "$tmp/p.json" "$reps" "$tmp"/ncu*.csv <<'PY'
import csv, json, statistics, sys
d = json.load(open(sys.argv[1]))
med = [b for b in d["benchmarks"] if b.get("aggregate_name") == "median"][0]
p = med.get("profile")
if not p:
    print("no profile in the JSON:", med.get("profile_unavailable")); sys.exit(1)
reps = int(sys.argv[2])
items = p["items"] * reps  # by hand counts every repetition; --profile reports their mean
def by_hand(path):
    rows = [r for r in csv.reader(l for l in open(path) if not l.startswith("=="))]
    if not rows:
        print("ncu by hand gave no rows:", path); sys.exit(1)
    h, data = rows[0], [r for r in rows[2:] if r and r[0]]
    col = {n: h.index(n) for n in h}
    num = lambda r, n: float(r[col[n]].replace(",", ""))
    rd = sum(num(r, "dram__bytes_read.sum") for r in data); wr = sum(num(r, "dram__bytes_write.sum") for r in data)
    t = [num(r, "gpu__time_duration.sum") for r in data]
    occ = sum(num(r, "sm__warps_active.avg.pct_of_peak_sustained_active") * w for r, w in zip(data, t)) / sum(t)
    return len(data) / reps, rd / items, wr / items, occ
hand = [by_hand(f) for f in sys.argv[3:]]
launches = round(hand[0][0])
b = [rd + wr for _, rd, wr, _ in hand]
ref, occ = statistics.median(b), statistics.median(h[3] for h in hand)
mine_occ = sum(g["achieved_occupancy_pct"] * g["duration_s"] for g in p["groups"]) / sum(g["duration_s"] for g in p["groups"])
mine = p["bytes_per_item"]
print(f"{'':28s} {'scibench --profile':>20s} {'ncu by hand':>14s}")
print(f"{'repetitions counted':28s} {reps:>20d} {reps:>14d}")
print(f"{'launches per repetition':28s} {p['launches']:>20d} {launches:>14d}")
print(f"{'DRAM bytes per item':28s} {mine:>20.3f} {ref:>14.3f}   diff {100*(mine/ref-1):+.2f} %  (by hand: median of {len(b)} runs)")
print(f"{'  read':28s} {p['dram_read_bytes']/p['items']:>20.3f} {statistics.median(h[1] for h in hand):>14.3f}")
print(f"{'  written':28s} {p['dram_write_bytes']/p['items']:>20.3f} {statistics.median(h[2] for h in hand):>14.3f}")
print(f"{'achieved occupancy %':28s} {mine_occ:>20.2f} {occ:>14.2f}   diff {mine_occ-occ:+.2f} points")
lo, hi = min(b), max(b)
print(f"ncu by hand, run to run: {lo:.3f} to {hi:.3f} bytes per item ({100*(hi/lo-1):.1f} % apart)")
ok = abs(mine / ref - 1) <= 0.05 and abs(mine_occ - occ) <= 2
if ok: print("AGREE")
elif lo <= mine <= hi and abs(mine_occ - occ) <= 2:
    print("DISAGREE by more than 5 %, inside the range of ncu's own runs by hand")
else: print("DISAGREE")
sys.exit(0 if ok else 1)
PY
