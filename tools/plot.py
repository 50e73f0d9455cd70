#!/usr/bin/env python3
"""make plot: pictures of the committed results, drawn by gnuplot (Debian gnuplot-nox).

  results/throughput.{svg,png}        items/s against size, one panel per kernel; a series
                                      per machine folder and backend (at most 8), each the
                                      case family with the most sizes there; bars: slowest
                                      and fastest repetition
  results/roofline-<folder>.{svg,png} one per machine: the headline case of each kernel and
                                      backend (tools/headline_cases.txt) at its modelled
                                      arithmetic intensity, labelled, under the measured
                                      roofs; --profile's measured intensity beside it
                                      where the JSON has one
Usage: tools/plot.py [RESULTS]   (default results; SB names the binary, default build/scibench)
A -mpi folder is drawn only for a machine no other folder shows (its single-rank runs).
Exit: 0, 2 usage (no gnuplot, no binary), 3 gnuplot failed."""
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbresults as sr  # noqa: E402

MAX_SERIES = 8
COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"]
BACKEND_COLOUR = {"cuda": "#009e73", "openmp_simd": "#0072b2", "reference": "#7f7f7f"}
WIDTH = 1100


def term(kind, w, h):
    if kind == "svg":
        return f"svg size {w},{h} dynamic noenhanced font 'sans,12' background rgb 'white'"
    return f"pngcairo size {w},{h} noenhanced font 'sans,11'"


def draw(script, name, results, w, h):
    ok = True
    for ext in ("svg", "png"):
        out = os.path.join(results, f"{name}.{ext}")
        p = subprocess.run(["gnuplot"], input=f"set terminal {term(ext, w, h)}\nset output '{out}'\n{script}",
                           capture_output=True, text=True)
        if p.returncode:
            print(f"plot: gnuplot failed on {out}:\n{p.stderr}", file=sys.stderr)
            ok = False
        else:
            print(f"plot: wrote {out}")
    return ok


def quote(s):
    """A gnuplot double-quoted string (a newline in s breaks the line there)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def eng(v, unit):
    for p, f in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= f:
            return f"{v / f:.3g} {p}{unit}"
    return f"{v:.3g} {unit}"


# ---- throughput against size ------------------------------------------------------------

def size_coupled(rows):
    """Parameters that change with the size and only with it (e.g. nlchains' copies, scaled
    so that each size holds the same work): left out when grouping a scan."""
    by_size = {}
    for r in rows:
        by_size.setdefault(r["size"], []).append(dict(kv.split("=", 1) for kv in r["case_params"].split(";") if kv))
    if len(by_size) < 2:
        return set()
    keys = {k for ps in by_size.values() for p in ps for k in p}
    coupled = set()
    for k in keys:
        vals = [{p.get(k) for p in ps} for ps in by_size.values()]
        if all(len(v) == 1 for v in vals) and len({next(iter(v)) for v in vals}) > 1 and \
                all(numeric(next(iter(v))) for v in vals):
            coupled.add(k)
    return coupled


def numeric(v):
    """An amount (copies=8192) or the default (None), which may scale with the size; a word
    (job=bsize) names another problem."""
    if v is None:
        return True
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def families(rows):
    """The rows grouped into scans: by parameters, the size-coupled ones aside; one row a size."""
    coupled = size_coupled(rows)
    groups = {}
    for r in rows:
        key = tuple(sorted(kv for kv in r["case_params"].split(";") if kv and kv.split("=", 1)[0] not in coupled))
        groups.setdefault(key, {})[r["size"]] = r
    return {k: [g[s] for s in sorted(g)] for k, g in groups.items()}


def pick(fams, headline, allowed=None):
    """The scan with the most sizes; ties go to the headline case's, then to the fewest
    parameters. allowed: only scans whose parameter names it holds."""
    hk = next((k for k, rows in fams.items() if headline in rows), None)
    keys = [k for k in fams if allowed is None or {kv.split("=", 1)[0] for kv in k} <= allowed]
    return fams[max(keys, key=lambda k: (len(fams[k]), k == hk, -len(k)))] if keys else []


def params_of(r):
    return dict(kv.split("=", 1) for kv in r["case_params"].split(";") if kv)


BACKEND_STYLE = {"cuda": ("pt 7", "dt 1"), "openmp_simd": ("pt 5", "dt 2"), "reference": ("pt 9", "dt 3")}


def throughput(folders, rows_of, heads_of, results, sb):
    """One panel per kernel; a series per machine folder (colour) and backend (point and dash).
    A series is its folder's family of cases with the most sizes. A series of one point is
    drawn only when the parameters it sets are ones the panel's longer series set too (an
    ensemble size, say), so that no other problem (a molecule instead of a water cluster) sits
    on the size axis."""
    order = list(sr.kernels(sb))
    kernels = sorted({r["kernel"] for f in folders for r in rows_of(f)},
                     key=lambda k: order.index(k) if k in order else len(order))
    colour = {f: COLOURS[i % len(COLOURS)] for i, f in enumerate(folders)}
    rank = {"cuda": 0, "openmp_simd": 1, "reference": 2}
    panels = []
    for k in kernels:
        series = []
        for f in folders:
            rows = [r for r in rows_of(f) if r["kernel"] == k and r["ranks"] == 1 and r["items_per_second"]]
            for b in sorted({r["backend"] for r in rows}, key=lambda b: rank.get(b, 9)):
                head = next((r for r in heads_of(f) if r["kernel"] == k and r["backend"] == b), None)
                fams = families([r for r in rows if r["backend"] == b])
                series.append((f, b, fams, head, pick(fams, head)))
        long_keys = {key for *_, rows in series if len(rows) > 1 for r in rows for key in params_of(r)}
        series = [(f, b, rows if len(rows) > 1 else pick(fams, head, long_keys)) for f, b, fams, head, rows in series]
        series = [s for s in series if s[2]]
        series.sort(key=lambda s: -len(s[2]))
        series = sorted(series[:MAX_SERIES], key=lambda s: (folders.index(s[0]), rank.get(s[1], 9)))
        panels.append((k, series))
    h_panel = 330
    s = ["set multiplot layout %d,1" % len(panels), "set logscale x 2", "set logscale y", "set grid",
         "set key at screen 0.74, graph 1 top left vertical Left reverse samplen 3 width 2", "set format y '%.0s%c'",
         "set lmargin 12", "set rmargin at screen 0.72", "set offsets graph 0.05, graph 0.05, graph 0.15, graph 0.15"]
    for k, series in panels:
        item = series[0][2][0]["item"] if series else "items"
        s.append(f"set title {quote(f'{k}: throughput against size')}")
        s.append(f"set xlabel {quote(sr.kernels(sb).get(k) or 'size')}")
        s.append(f"set ylabel {quote(item + '/s')}")
        plots = []
        for i, (f, b, rows) in enumerate(series):
            s.append(f"$s{i} << EOD\n" + "\n".join(
                f"{r['size']} {r['items_per_second']:.6g} {r['items_per_second_min'] or r['items_per_second']:.6g} "
                f"{r['items_per_second_max'] or r['items_per_second']:.6g}" for r in rows) + "\nEOD")
            pt, dt = BACKEND_STYLE.get(b, ("pt 13", "dt 4"))
            plots.append(f"$s{i} using 1:2:3:4 with yerrorlines lw 2 {pt} ps 1.1 {dt} lc rgb '{colour[f]}' "
                         f"title {quote(os.path.basename(f) + ' ' + b)}")
        s.append("plot " + ", ".join(plots) if plots else "plot NaN notitle")
    s.append("unset multiplot")
    return draw("\n".join(s), "throughput", results, WIDTH, h_panel * len(panels))


# ---- roofline ----------------------------------------------------------------------------

def place_labels(points, xr, yr, w, h, others=(), char_w=7.0, char_h=14.0):
    """Greedy label placement in screen pixels (log axes): right of the point if free, else
    above, below, left; the points and the other markers (x, y) are kept clear. Returns
    (dx, dy, align) character offsets for each point."""
    lx0, lx1, ly0, ly1 = math.log10(xr[0]), math.log10(xr[1]), math.log10(yr[0]), math.log10(yr[1])

    def px(x, y):
        return ((math.log10(x) - lx0) / (lx1 - lx0) * w * 0.8, (math.log10(y) - ly0) / (ly1 - ly0) * h * 0.75)

    boxes = [(px(x, y)[0] - 6, px(x, y)[1] - 6, px(x, y)[0] + 6, px(x, y)[1] + 6)
             for x, y in [(p[0], p[1]) for p in points] + list(others)]
    out = []
    for x, y, text in points:
        X, Y = px(x, y)
        tw = len(text) * char_w
        options = [(1, 0, "left"), (1, 1, "left"), (1, -1, "left"), (-1, 0, "right"), (1, 2, "left"), (1, -2, "left"),
                   (-1, 1, "right"), (-1, -1, "right")]
        chosen = options[0]
        for dx, dy, align in options:
            x0 = X + dx * char_w if align == "left" else X - char_w - tw
            y0 = Y + dy * char_h - char_h / 2
            box = (x0, y0, x0 + tw, y0 + char_h)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in boxes):
                chosen = (dx, dy, align)
                boxes.append(box)
                break
        else:
            x0 = X + char_w
            boxes.append((x0, Y - char_h / 2, x0 + tw, Y + char_h / 2))
        out.append(chosen)
    return out


def label_of(r, heads):
    """"kernel backend", with the parameter values where the folder shows the kernel and
    backend more than once (e.g. nlchains cuda toda)."""
    base = f"{r['kernel']} {r['backend']}" + (f" ({int(r['threads'])} thread{'s' if r['threads'] > 1 else ''})"
                                               if r.get("threads") else "")
    if sum(1 for q in heads if q["kernel"] == r["kernel"] and q["backend"] == r["backend"]) > 1 and r["case_params"]:
        base += " " + " ".join(kv.split("=", 1)[1] for kv in r["case_params"].split(";") if kv)
    return base


def roofline(folder, heads, results):
    rows = [r for r in heads if r["ranks"] == 1]
    pts, skipped = [], []
    for r in rows:
        bpi, fpi, fps = r["bytes_per_item"], r["flops_per_item"], r["flops_per_second"]
        if not (bpi and fpi and fps and bpi > 0 and fpi > 0):
            bw = r["bytes_per_second"] and r["peak_bandwidth_Bps"] and 100 * r["bytes_per_second"] / r["peak_bandwidth_Bps"]
            skipped.append(f"{r['kernel']} {r['backend']}" + (f" ({bw:.2g} % of {r['bw_kind']} bandwidth)" if bw else ""))
            continue
        meas = None
        if r.get("measured_bytes_per_item"):
            meas = (r.get("measured_flops_per_item") or fpi) / r["measured_bytes_per_item"]
        pts.append({"x": fpi / bpi, "y": fps, "meas": meas, "label": label_of(r, heads), "backend": r["backend"]})
    if not pts:
        print(f"plot: {folder}: no headline case with a flop and a byte model; no roofline")
        return True
    # the folder's stored peaks (peaks.json), what its tables divide by, where its rows have them;
    # else the highest of the runs' own probes
    roofs = {}
    for stored in (True, False):
        for r in rows:
            kind = r["bw_kind"]
            if not kind or bool(r.get("peaks_file")) != stored or (kind in roofs and roofs[kind]["stored"] != stored):
                continue
            roof = roofs.setdefault(kind, {"bw": 0, "fp64": 0, "fp32": 0, "stored": stored})
            roof["bw"] = max(roof["bw"], r["peak_bandwidth_Bps"] or 0)
            roof["fp64"] = max(roof["fp64"], r["peak_fp64_flops"] or 0)
            roof["fp32"] = max(roof["fp32"], r["peak_fp32_flops"] or 0)
    roofs = {k: r for k, r in roofs.items() if r["bw"] > 0 and r["fp64"] > 0}
    xs = [p["x"] for p in pts] + [p["meas"] for p in pts if p["meas"]]
    ys = [p["y"] for p in pts]
    xr = (min(xs + [r["fp64"] / r["bw"] for r in roofs.values()]) / 10,
          max(xs + [r["fp32"] / r["bw"] for r in roofs.values()]) * 10)
    yr = (min(ys + [r["bw"] * xr[0] for r in roofs.values()]) / 2,
          max(ys + [r["fp32"] for r in roofs.values()]) * 4)
    if skipped and ys:  # the note's lines at the bottom: the lowest point and its label sit above them
        f = 0.08 + 0.035 * ((len(skipped) - 1) // 2 + 1)
        lo = min(ys)
        yr = (min(yr[0], lo / (yr[1] / lo) ** (f / (1 - f))), yr[1])
    w, h = WIDTH, 760
    # the screen angle of a bandwidth roof (slope 1 in decades), for its label
    angle = math.degrees(math.atan((0.62 * h / math.log10(yr[1] / yr[0])) / (0.86 * w / math.log10(xr[1] / xr[0]))))
    name = os.path.basename(folder)
    s = ["set logscale xy", "set grid", "set format y '%.0s%c'", "set format x '%g'", "set samples 800",
         f"set xrange [{xr[0]:.4g}:{xr[1]:.4g}]", f"set yrange [{yr[0]:.4g}:{yr[1]:.4g}]",
         "set key outside below center horizontal samplen 3 width 1",
         "set xlabel 'arithmetic intensity: modelled flops / modelled bytes (FLOP/byte)'",
         "set ylabel 'achieved: modelled flops / median time (FLOP/s)'",
         f"set title {quote(f'roofline, {name}: ' + sr.describe(folder, sr.headline_files(folder)))}"]
    if skipped:  # two a line
        note = "no flop model, not drawn: " + ",\n".join(", ".join(skipped[i:i + 2]) for i in range(0, len(skipped), 2))
        s.append(f"set label {quote(note)} at graph 0.01, graph {0.03 + 0.035 * ((len(skipped) - 1) // 2):.3f} "
                 "left font ',9'")
    plots = []
    for kind, r in sorted(roofs.items()):
        dev = "GPU" if kind == "copy" else "CPU"
        bw, p64, p32 = r["bw"], r["fp64"], r["fp32"]
        col = "#444444" if dev == "GPU" else "#9467bd"
        src = "stored peaks.json" if r["stored"] else "highest of the runs' probes"
        plots.append(f"(x*{bw:.6g} < {p64:.6g} ? x*{bw:.6g} : {p64:.6g}) with lines lw 2 lc rgb '{col}' "
                     f"title {quote(f'{dev}: {kind} bandwidth, FP64 FMA (measured, {src})')}")
        plots.append(f"(x*{bw:.6g} < {p32:.6g} ? x*{bw:.6g} : {p32:.6g}) with lines lw 1 dt 2 lc rgb '{col}' "
                     f"title {quote(f'{dev}: FP32 FMA')}")
        for text, y in ((f"{dev} FP64 FMA {eng(p64, 'FLOP/s')}", p64), (f"{dev} FP32 FMA {eng(p32, 'FLOP/s')}", p32)):
            s.append(f"set label {quote(text)} at {xr[1] / 1.3:.4g}, {y * 1.2:.4g} right font ',9' tc rgb '{col}'")
        xb, bw_t = max(xr[0] * 1.4, p64 / bw / 12), eng(bw, "B/s")
        s.append(f"set label {quote(f'{dev} {kind} {bw_t}')} at {xb:.4g}, {bw * xb * 1.5:.4g} left "
                 f"rotate by {angle:.1f} font ',9' tc rgb '{col}'")
    offs = place_labels([(p["x"], p["y"], p["label"]) for p in pts], xr, yr, w, h,
                        [(p["meas"], p["y"]) for p in pts if p["meas"]])
    for p, (dx, dy, align) in zip(pts, offs):
        s.append(f"set label {quote(p['label'])} at {p['x']:.6g}, {p['y']:.6g} {align} offset {dx},{dy} font ',10'")
    for b in ("cuda", "openmp_simd", "reference"):
        mine = [p for p in pts if p["backend"] == b]
        if not mine:
            continue
        s.append(f"$m_{b} << EOD\n" + "\n".join(f"{p['x']:.6g} {p['y']:.6g}" for p in mine) + "\nEOD")
        plots.append(f"$m_{b} using 1:2 with points pt 7 ps 1.6 lc rgb '{BACKEND_COLOUR[b]}' title '{b}, modelled'")
        meas = [p for p in mine if p["meas"]]
        if meas:
            s.append(f"$p_{b} << EOD\n" + "\n".join(f"{p['x']:.6g} {p['y']:.6g} {p['meas'] - p['x']:.6g} 0"
                                                    for p in meas) + "\nEOD")
            plots.append(f"$p_{b} using 1:2:3:4 with vectors nohead dt 3 lc rgb '{BACKEND_COLOUR[b]}' notitle")
            plots.append(f"$p_{b} using ($1+$3):2 with points pt 6 ps 1.8 lw 2 lc rgb '{BACKEND_COLOUR[b]}' "
                         f"title '{b}, measured bytes (--profile)'")
    s.append("plot " + ", ".join(plots))
    return draw("\n".join(s), f"roofline-{name}", results, w, h)


def main(argv):
    results = argv[0] if argv else "results"
    sb = os.environ.get("SB", "build/scibench")
    if not shutil.which("gnuplot"):
        sr.fail("gnuplot not found (Debian: apt-get install gnuplot-nox)")
    if not os.access(sb, os.X_OK):
        sr.fail(f"{sb} is not an executable (run make first)")
    cache, heads = {}, {}

    def rows_of(f):
        if f not in cache:
            cache[f] = sr.table(sb, [f])
        return cache[f]

    def heads_of(f):
        if f not in heads:
            heads[f] = sr.table(sb, sr.headline_files(f))
        return heads[f]

    folders = sr.drawn_folders(results, rows_of)
    if not folders:
        print(f"plot: no result JSON under {results}/<machine>/; nothing drawn")
        return 0
    ok = throughput(folders, rows_of, heads_of, results, sb)
    for f in folders:
        ok = roofline(f, heads_of(f), results) and ok
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
