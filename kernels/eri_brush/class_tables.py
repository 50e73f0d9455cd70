"""eri_brush's per-class tables, drawn from result JSON for the README's
<!-- eri-class-tables: FILE ... --> markers (tools/readme_tables.py, make readme-tables).

tables(sb, files) gives two tables for the runs FILE ... (their median entries; either backend):
  - one row a case: functions, shell quartets, the J build's median time, the model's FP64 rate
    as a share of the FP64 FMA probe, the share of class time in classes with L < 5, and the
    screen's error bound;
  - one row a class: its time a build and, in brackets, its model FP64 rate as a share of the
    probe; the classes with an f shell summed in one row.
The probe is the FP64 peak `scibench table` (sb) divides the run by: the folder's stored one
where it is this machine's, else the run's own. A file that is missing or has no per-class
times: one line on stderr, exit 2."""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import sbresults as sr  # noqa: E402  (scibench table's rows)
MOLECULE = {"vitamin_c": "vitamin C"}
BASIS = {"cc-pvdz": "cc-pVDZ", "cc-pvtz": "cc-pVTZ", "def2-svp": "def2-SVP"}
L = {"s": 0, "p": 1, "d": 2, "f": 3}


def die(msg):
    print(f"eri class_tables: {msg}", file=sys.stderr)
    sys.exit(2)


def median_entry(path):
    try:
        d = json.load(open(os.path.join(ROOT, path)))
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")
    med = [b for b in d.get("benchmarks", []) if b.get("aggregate_name") == "median"]
    runs = [b for b in d.get("benchmarks", []) if b.get("run_type") == "iteration"]
    b = (med or runs or [None])[0]
    if not b or b.get("kernel") != "eri_brush" or not any(k.startswith("t_") and k != "t_setup" for k in b):
        die(f"{path}: not an eri_brush run with per-class times")
    return b


def probes(sb, files):
    """{file: the FP64 FMA peak its row divides by}, as `scibench table` chooses it (the folder's
    stored peaks where they are this machine's, else the run's own probe)."""
    out = {}
    for r in sr.table(sb, [os.path.join(ROOT, f) for f in files]):
        if not r["peak_fp64_flops"]:
            die(f"{r['file']}: no FP64 peak, stored or measured")
        out[os.path.realpath(r["file"])] = r["peak_fp64_flops"]
    return out


def label(b):
    p = b.get("params", {})
    mol = p.get("molecule", "cluster")
    name = f"{b['size']} waters" if mol == "cluster" else MOLECULE.get(mol, mol)
    text = f"{name} / {BASIS.get(p.get('basis', 'cc-pvdz'), p.get('basis'))}"
    if p.get("path") == "hgp":
        text += ", HGP below f"
    if p.get("pq_screen") not in (None, "1e-15"):
        text += f", pq_screen={p['pq_screen']}"
    return text


def classes(b):
    """(name, seconds a build, its model FLOP/s: the gflops_ counter is a rate) in the run's order."""
    out = []
    for k, t in b.items():
        if k.startswith("t_") and k != "t_setup" and len(k) == 6 and t is not None:
            c = k[2:]
            out.append((c, t, (b.get("gflops_" + c) or 0.0) * 1e9))
    return out


def show(c):
    return f"({c[0]}{c[1]}\\|{c[2]}{c[3]})"


def tables(sb, files):
    entries = [median_entry(f) for f in files]
    peak = probes(sb, files)
    runs = [(label(b), b, classes(b), peak[os.path.realpath(os.path.join(ROOT, f))]) for f, b in zip(files, entries)]
    head = ("| case | functions | shell quartets | J build | model FP64, % of probe "
            "| classes with L < 5, share of class time | screen_error_bound |\n"
            "|---|---:|---:|---:|---:|---:|---:|\n")
    rows = []
    for name, b, cl, pk in runs:
        total = sum(t for _, t, _ in cl)
        low = sum(t for c, t, _ in cl if sum(L[x] for x in c) < 5)
        fl = b.get("flops_per_second") or 0.0
        rows.append(f"| {name} | {int(b['basis_functions'])} | {b['shell_quartets']:.2e} | {b['real_time']:.1f} "
                    f"{b['time_unit']} | {fl / 1e12:.2f} TFLOP/s, {100 * fl / pk:.1f} % | {100 * low / total:.0f} % "
                    f"| {b['screen_error_bound']:.1e} Eh |\n")
    names = []
    for _, _, cl, _ in runs:
        names += [c for c, _, _ in cl if "f" not in c and c not in names]
    per = "| class | " + " | ".join(r[0] for r in runs) + " |\n|---|" + "---:|" * len(runs) + "\n"
    for c in names:
        cells = []
        for _, _, cl, pk in runs:
            m = [(t, fl) for n, t, fl in cl if n == c]
            cells.append(f"{m[0][0] * 1e3:.2f} ms ({100 * m[0][1] / pk:.0f} %)" if m and m[0][0] > 0 else "—")
        per += f"| {show(c)} | " + " | ".join(cells) + " |\n"
    nf = max(sum("f" in c for c, _, _ in cl) for _, _, cl, _ in runs)
    if nf:
        cells = []
        for _, _, cl, _ in runs:
            ft = [t for c, t, _ in cl if "f" in c]
            cells.append(f"{sum(ft) * 1e3:.2f} ms" if ft else "—")
        per += f"| {nf} classes with an f shell | " + " | ".join(cells) + " |\n"
    return head + "".join(rows) + "\n" + per
