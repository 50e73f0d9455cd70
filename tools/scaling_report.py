#!/usr/bin/env python3
"""Scale-out from the MPI result folders (results/<machine>-mpi/, written by make scaling-mpi).

  tools/scaling_report.py plot [RESULTS]    results/scaling-<folder>.{svg,png}: parallel efficiency
                                            against the GPU count, a line per case (gnuplot)
  tools/scaling_report.py table [RESULTS]   markdown: each case's time and efficiency on 1, 2, 4, ...
                                            GPUs, with the data path; flags an efficiency under
                                            50 % and a case slower on more GPUs than on fewer
  tools/scaling_report.py model [RESULTS]   markdown: the efficiency predicted past one host from
                                            the measured one-rank times and bytes sent a repetition
  tools/scaling_report.py readme [RESULTS]  both into README.md between <!-- scaling-report: table -->
                                            (or model) and <!-- /scaling-report --> (make readme-tables)

The model (README, "Past one host"): one GPU a host, every message crossing a link of bandwidth
B and latency a. A repetition on N hosts takes T1/N x (1 + o) + the exposed communication, where
T1 is the one-rank time and o the on-host overhead measured on 2 GPUs through NCCL (what is not
the transfer: packing, the edge planes' ticks, the deal's imbalance). lattice_mc sends one halo
message each way per half sweep, 2 x sweeps a repetition, hidden behind the interior planes'
ticks of that half sweep: exposed max(0, a + m/B - t_half) each. eri_brush sums J over the ranks
once a repetition, after the build: a ring all-reduce, 2(N-1)/N S/B + 2(N-1)a. nlchains sums
its mode energies (kilobytes) the same way. fullerene_ff and dfratom_scf move nothing a
repetition that the model could charge (a shared work counter); dfratom_scf's bsopt starts are
dealt whole, so N hosts beyond the starts idle: at most starts / N.
The check: B of the host-staged path is calibrated on lattice_mc (its halo, overlapped) and the
host-staged eri_brush all-reduce predicted with it, on the same host.
Exit: 0, 2 usage or no MPI folder."""
import glob
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import draw as plot_draw  # noqa: E402  (gnuplot to .svg and .png, as make plot draws)

NAME = re.compile(r"^(?P<kernel>[a-z_]+)\.(?P<backend>[a-z_]+)\.(?P<tag>.+)\.ranks-(?P<ranks>\d+)\.json$")
LINKS = (25e9, 50e9)
LATENCY = 2e-6
HOSTS = (2, 4, 8, 16, 32, 64)
SWEEPS = 10  # lattice_mc's sweeps a repetition (its default)


def fail(msg):
    print(f"scaling_report: {msg}", file=sys.stderr)
    sys.exit(2)


def median_entry(d):
    for b in d.get("benchmarks", []):
        if b.get("aggregate_name") == "median":
            return b
    return None


def load(results):
    """{folder: {(kernel, tag): {ranks: row}}} of every -mpi folder."""
    out = {}
    for folder in sorted(glob.glob(os.path.join(results, "*-mpi"))):
        cases = {}
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            m = NAME.match(os.path.basename(path))
            if not m:
                continue
            d = json.load(open(path))
            b = median_entry(d)
            if b is None:
                continue
            row = {"time": b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]],
                   "eff": b.get("parallel_efficiency"), "bytes": b.get("comm_bytes_per_rep") or 0.0,
                   "comm": d["context"].get("mpi", {}).get("comm", "none"), "size": b.get("size"),
                   "params": b.get("params") or {},
                   "commit": d["context"].get("git_commit", "?")}
            cases.setdefault((m["kernel"], m["tag"]), {})[int(m["ranks"])] = row
        if cases:
            out[folder] = cases
    if not out:
        fail(f"no MPI result folder (<machine>-mpi) under {results}")
    return out


def base_of(kernel, tag, cases):
    """The one-rank row a case's efficiency is against (weak cases: the strong one-rank run)."""
    one = cases.get((kernel, tag), {}).get(1)
    if one:
        return one
    strong = re.sub(r"^weak", "strong", re.sub(r"-host$", "", tag))
    return cases.get((kernel, strong), {}).get(1) or cases.get((kernel, re.sub(r"-host$", "", tag)), {}).get(1)


def table(data):
    md = []
    for folder, cases in data.items():
        counts = sorted({r for rows in cases.values() for r in rows})
        md += [f"### {os.path.basename(folder)}", "",
               "| kernel | case | data path | " + " | ".join(f"{r} GPU{'s' if r > 1 else ''}" for r in counts) + " |",
               "|---|---|---|" + "---:|" * len(counts)]
        flags = []
        for (kernel, tag), rows in sorted(cases.items()):
            cells = []
            for r in counts:
                x = rows.get(r)
                if not x:
                    cells.append("")
                    continue
                cell = f"{x['time'] * 1e3:.4g} ms"
                if r > 1 and x["eff"] is not None:
                    cell += f", {100 * x['eff']:.1f} %"
                    if x["eff"] < 0.5:
                        cell += " ⚠"
                        flags.append(f"{kernel} {tag} on {r} GPUs: efficiency {100 * x['eff']:.1f} % (under 50 %)")
                cells.append(cell)
            strong = not tag.startswith("weak")
            prev = None
            for r in counts:
                x = rows.get(r)
                if x and prev and strong and x["time"] > prev[1]["time"]:
                    flags.append(f"{kernel} {tag}: slower on {r} GPUs ({x['time'] * 1e3:.4g} ms) than on {prev[0]} "
                                 f"({prev[1]['time'] * 1e3:.4g} ms)")
                if x:
                    prev = (r, x)
            path = sorted({x["comm"] for r, x in rows.items() if r > 1}) or ["none"]
            md.append(f"| {kernel} | {tag} | {', '.join(path)} | " + " | ".join(cells) + " |")
        md += [""] + ([f"- **flag:** {f}" for f in flags] if flags else ["No case under 50 %, none slower on more GPUs."])
        md.append("")
    return "\n".join(md)


def overhead(cases, kernel, tag):
    """o: the on-host overhead on 2 GPUs through NCCL (0 when not measured)."""
    rows = cases.get((kernel, tag), {})
    two, one = rows.get(2), base_of(kernel, tag, cases)
    if not two or not one or two["comm"] != "nccl" or not two["eff"]:
        return 0.0
    return max(0.0, 1.0 / two["eff"] - 1.0)


def predict(kernel, tag, one, two, n, bw, lat, o):
    """Efficiency on n hosts (one GPU each) of a case, from its one-rank time and the bytes a rank
    sent a repetition on 2 GPUs."""
    t1 = one["time"]
    weak = tag.startswith("weak")
    compute = (t1 if weak else t1 / n) * (1 + o)
    if kernel == "lattice_mc":
        msgs = 2 * SWEEPS
        m = two["bytes"] / msgs  # one halo message a half sweep
        half = compute / msgs
        exposed = msgs * max(0.0, lat + m / bw - half)
    elif kernel in ("eri_brush", "nlchains"):
        s = two["bytes"]  # the buffer summed (bytes counted once a reduction)
        exposed = 2 * (n - 1) / n * s / bw + 2 * (n - 1) * lat
    elif kernel == "dfratom_scf":
        o = 0.0  # 2 ranks measured above 100 %: the one-rank repetitions spread 10 %
        compute = (t1 if weak else t1 / n)
        exposed = 0.0
    else:
        exposed = 0.0
    t = compute + exposed
    eff = (t1 / t) if weak else (t1 / (n * t))
    if kernel == "dfratom_scf" and one["params"].get("job") == "bsopt":
        starts = int(one["params"].get("bsopt_starts", "1"))
        eff *= min(starts, n) / n  # the starts are dealt whole: ranks beyond them idle
    return eff


def model(data):
    md = []
    for folder, cases in data.items():
        md += [f"### {os.path.basename(folder)}: predicted efficiency on N hosts, one GPU each", "",
               "| kernel | case | o (2 GPUs) | bytes a rank sends a rep | link | " +
               " | ".join(f"N={n}" for n in HOSTS) + " |", "|---|---|---:|---:|---|" + "---:|" * len(HOSTS)]
        for (kernel, tag), rows in sorted(cases.items()):
            if tag.endswith("-host") or 2 not in rows or rows[2]["comm"] in ("none", "mpi"):
                continue
            one = base_of(kernel, tag, cases)
            if not one:
                continue
            o = overhead(cases, kernel, tag)
            for bw in LINKS:
                cells = [f"{100 * predict(kernel, tag, one, rows[2], n, bw, LATENCY, o):.0f} %" for n in HOSTS]
                md.append(f"| {kernel} | {tag} | {100 * o:.1f} % | {rows[2]['bytes'] / 1e6:.3g} MB | "
                          f"{bw / 1e9:.0f} GB/s, {LATENCY * 1e6:.0f} µs | " + " | ".join(cells) + " |")
        md.append("")
        md += check(cases)
    return "\n".join(md)


def check(cases):
    """B of the host-staged path from lattice_mc's halo, then eri_brush's host all-reduce predicted."""
    lh = next(((t, r) for (k, t), rows in cases.items() if k == "lattice_mc" and t.endswith("-host")
               for r in rows), None)
    eh = next(((t, r) for (k, t), rows in cases.items() if k == "eri_brush" and t.endswith("-host")
               for r in rows), None)
    if not lh or not eh:
        return []
    ltag, lr = lh
    etag, er = eh
    lhost, lnccl = cases[("lattice_mc", ltag)][lr], cases.get(("lattice_mc", ltag[:-5]), {}).get(lr)
    ehost, enccl = cases[("eri_brush", etag)][er], cases.get(("eri_brush", etag[:-5]), {}).get(er)
    if not lnccl or not enccl:
        return []
    msgs = 2 * SWEEPS
    m = lhost["bytes"] / msgs
    half = lnccl["time"] / msgs
    per_msg = (lhost["time"] - lnccl["time"]) / msgs + half  # exposed + hidden = the transfer
    bw = m / per_msg
    s = ehost["bytes"]
    pred = 2 * (er - 1) / er * s / bw
    meas = ehost["time"] - enccl["time"]
    return ["Check against the host-staged path on this host: lattice_mc's halo "
            f"({m / 1e6:.3g} MB a message, {lr} ranks) took {per_msg * 1e3:.3g} ms a message through host memory, "
            f"B = {bw / 1e9:.3g} GB/s; with that B the model gives eri_brush's host-staged sum of J "
            f"({s / 1e6:.3g} MB, {er} ranks) {pred * 1e3:.3g} ms a repetition beyond NCCL's, measured "
            f"{meas * 1e3:.3g} ms ({100 * (pred - meas) / meas:+.0f} %).", ""]


def plot(data, results):
    if not shutil.which("gnuplot"):
        fail("gnuplot not found (apt-get install gnuplot-nox)")
    ok = True
    for folder, cases in data.items():
        name = f"scaling-{os.path.basename(folder)}"
        series = [(k, t, rows) for (k, t), rows in sorted(cases.items()) if any(r > 1 for r in rows)]
        counts = sorted({r for _, _, rows in series for r in rows})
        dat = []
        for k, t, rows in series:
            base = base_of(k, t, cases)
            pts = [(1, 1.0)] if base is not None else []  # a weak case's one GPU: its strong one-rank run
            pts += [(r, rows[r]["eff"]) for r in sorted(rows) if r > 1]
            dat.append("\n".join(f"{r} {100 * e:.3f}" for r, e in pts if e is not None))
        script = (f"set title 'parallel efficiency, {os.path.basename(folder)}'\nset xlabel 'GPUs (MPI ranks)'\n"
                  f"set ylabel 'efficiency (%)'\nset yrange [0:120]\nset xtics ({', '.join(str(c) for c in counts)})\n"
                  "set logscale x 2\nset grid\nset key outside right\n"
                  "set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb 'red'\n"
                  "plot " + ", ".join(f"'-' with linespoints lw 2 title '{k} {t}'" for k, t, _ in series) + "\n"
                  + "\n".join(d + "\ne" for d in dat) + "\n")
        ok = plot_draw(script, name, results, 900, 500) and ok
    return 0 if ok else 3


def readme(data, path="README.md"):
    """The tables of the machine whose -mpi folder has the most GPU counts, between the markers."""
    folder = max(data, key=lambda f: (len({r for rows in data[f].values() for r in rows}), f))
    one = {folder: data[folder]}
    text = open(path, encoding="utf-8").read()
    for what, body in (("table", table(one).split("\n", 2)[2]), ("model", model(one).split("\n", 2)[2])):
        pat = re.compile(r"(<!-- scaling-report: %s -->\n).*?(<!-- /scaling-report -->)" % what, re.S)
        if not pat.search(text):
            fail(f"{path}: no <!-- scaling-report: {what} --> ... <!-- /scaling-report --> markers")
        text = pat.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text)
    open(path, "w", encoding="utf-8").write(text)
    print(f"scaling_report: {path}: tables of {os.path.basename(folder)}")
    return 0


def main(argv):
    if not argv or argv[0] not in ("plot", "table", "model", "readme"):
        fail("usage: tools/scaling_report.py plot|table|model|readme [RESULTS]")
    results = argv[1] if len(argv) > 1 else "results"
    data = load(results)
    if argv[0] == "plot":
        return plot(data, results)
    if argv[0] == "readme":
        return readme(data)
    print(table(data) if argv[0] == "table" else model(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
