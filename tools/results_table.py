#!/usr/bin/env python3
"""Markdown results table for a kernel README, straight from committed JSON.
Usage: tools/results_table.py KERNEL DIR[=LABEL] ...   (stdlib only)"""
import glob, json, os, sys

def rows(kernel, d, label):
    for f in sorted(glob.glob(f"{d}/{kernel}.*.json")):
        j = json.load(open(f))
        med = next(b for b in j["benchmarks"] if b.get("aggregate_name") == "median")
        reps = sum(1 for b in j["benchmarks"] if b.get("run_type") == "iteration")
        launch = med.get("launch") or []
        if launch:
            l = launch[0]
            conf = f"{l['name']}: {l['block']} thr/block, {l['regs_per_thread']} regs, occupancy {l['occupancy'] * 100:.0f} %"
        elif med["backend"] == "reference":
            conf = "1 thread, scalar oracle"
        else:
            conf = label
        peaks = j["context"]["peaks"]
        bw = peaks.get("copy_bandwidth_Bps") or peaks.get("triad_bandwidth_Bps")
        kind = "copy" if "copy_bandwidth_Bps" in peaks else "triad"
        yield (med["backend"], med["params"].get("geometry", ""), med["size"], conf, med["real_time"],
               med["items_per_second"], med["bytes_per_second"] / 1e9, med["percent_peak_bandwidth"],
               f"{bw / 1e9:.0f} GB/s {kind}", reps, med["validation"]["passed"], f"{os.path.basename(d)}/{os.path.basename(f)}")

kernel, dirs = sys.argv[1], sys.argv[2:]
out = []
for spec in dirs:
    d, _, label = spec.partition("=")
    out += rows(kernel, d, label or "")
order = {"cuda": 0, "openmp_simd": 1, "reference": 2}
out.sort(key=lambda r: (order.get(r[0], 9), r[3], r[1], r[2]))
print("| backend | geometry | L | configuration | median time/rep | site updates/s | GB/s (compulsory model) | % of measured peak | reps | validation | JSON |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in out:
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.3f} ms | {r[5]:.3g} | {r[6]:.1f} | {r[7]:.1f} % of {r[8]} | {r[9]} "
          f"| {'PASSED' if r[10] else 'FAILED'} | `{r[11]}` |")
