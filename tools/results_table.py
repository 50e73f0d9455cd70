#!/usr/bin/env python3
"""Markdown results table for a kernel README, straight from committed JSON.
Usage: tools/results_table.py KERNEL DIR[=LABEL] ...   (stdlib only)
The case column lists the params that differ from the kernel's defaults
(`scibench list`); LABEL describes CPU runs from that folder."""
import glob, json, os, re, subprocess, sys

def defaults(kernel):
    out = subprocess.run(["build/scibench", "list"], capture_output=True, text=True).stdout
    d, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^  (\w+): ", line)
        if m:
            cur = m.group(1)
        m = re.match(r"^      (\w+)\s+default (\S+)", line)
        if m and cur == kernel:
            d[m.group(1)] = "" if m.group(2) == "unset" else m.group(2)
    return d

def rows(kernel, d, label, dflt):
    for f in sorted(glob.glob(f"{d}/{kernel}.*.json")):
        j = json.load(open(f))
        med = next(b for b in j["benchmarks"] if b.get("aggregate_name") == "median")
        reps = sum(1 for b in j["benchmarks"] if b.get("run_type") == "iteration")
        case = " ".join(f"{k}={v}" for k, v in sorted(med["params"].items()) if v != dflt.get(k, v)) or "defaults"
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
        flops = med.get("flops_per_second")
        fl = f"{flops / 1e9:.0f} GFLOP/s = {med['percent_peak_flops']:.1f} %" if flops else "—"
        yield (med["backend"], case, med["size"], conf, med["real_time"], med["items_per_second"],
               f"{med['bytes_per_second'] / 1e9:.1f} GB/s = {med['percent_peak_bandwidth']:.1f} % of {bw / 1e9:.0f} {kind}",
               fl, reps, med["validation"]["passed"], f"{os.path.basename(d)}/{os.path.basename(f)}", med["item"])

kernel, dirs = sys.argv[1], sys.argv[2:]
dflt = defaults(kernel)
out = []
for spec in dirs:
    d, _, label = spec.partition("=")
    out += rows(kernel, d, label or "", dflt)
order = {"cuda": 0, "openmp_simd": 1, "reference": 2}
out.sort(key=lambda r: (order.get(r[0], 9), r[3] if r[0] != "cuda" else "", r[1], r[2]))
item = out[0][11] if out else "items"
print(f"| backend | case | size | configuration | median time/rep | {item}/s | bandwidth (model), % of measured peak "
      "| FP64 rate, % of measured FMA peak | reps | validation | JSON |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in out:
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.3f} ms | {r[5]:.3g} | {r[6]} | {r[7]} | {r[8]} "
          f"| {'PASSED' if r[9] else 'FAILED'} | `{r[10]}` |")
