"""Reading committed results for tools/plot.py and tools/report.py (stdlib only).

Rows come from `scibench table` (CSV), so the pictures and the report read the
JSON exactly as `scibench compare` does. A machine folder is results/<name>/;
results/ci/ is the CI baseline, not a machine. Headline cases (one per kernel
and backend, what the report tables and the rooflines show) are named in
tools/headline_cases.txt."""
import csv
import fnmatch
import io
import json
import os
import subprocess
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
HEADLINE_LIST = os.path.join(TOOLS, "headline_cases.txt")


def fail(msg, code=2):
    print(f"{os.path.basename(sys.argv[0])}: {msg}", file=sys.stderr)
    sys.exit(code)


def scibench(sb, args):
    """stdout of `sb args...`; exits with scibench's code (and its message) on failure."""
    p = subprocess.run([sb] + args, capture_output=True, text=True)
    if p.returncode:
        fail(f"{sb} {' '.join(args[:3])} ...: {p.stderr.strip() or 'exit %d' % p.returncode}", p.returncode)
    return p.stdout


def table(sb, paths):
    """Rows of `scibench table PATHS` as dicts; numbers as float (None when empty)."""
    if not paths:
        return []
    rows = list(csv.DictReader(io.StringIO(scibench(sb, ["table"] + list(paths)))))
    text = {"machine", "kernel", "backend", "params", "case_params", "seed", "item", "bw_kind", "passed", "commit",
            "file", "profile_tool", "error", "peaks_file", "fma_isa"}
    for r in rows:
        for k, v in r.items():
            if k not in text:
                try:
                    r[k] = float(v) if v != "" else None
                except ValueError:
                    r[k] = None
        r["size"] = int(r["size"]) if r["size"] is not None else None
        r["ranks"] = int(r.get("ranks") or 1)
    return rows


PEAKS_FILE = "peaks.json"  # a machine folder's stored peaks (scibench info --json), not a result


def result_files(folder):
    """The result JSON directly in a machine folder: as `scibench table` reads a folder, without
    the JSON that is no result (stored peaks, basis sets, compute-sanitizer's summary)."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(".json") and n not in (PEAKS_FILE, "compute-sanitizer.json")
                  and not n.endswith(".basis.json"))


def commit_counts(rows):
    """{commit: rows it wrote}, most rows first."""
    count = {}
    for r in rows:
        count[r["commit"]] = count.get(r["commit"], 0) + 1
    return dict(sorted(count.items(), key=lambda kv: (-kv[1], kv[0])))


def commits(rows):
    """(the commits of the rows, most results first; how many rows a -dirty build wrote)."""
    count = commit_counts(rows)
    return list(count), sum(n for c, n in count.items() if c.endswith("-dirty"))


def commit_note(rows):
    """One line on the commits a folder's results come from; flags a folder that mixes commits or
    holds results of a -dirty build (a folder should be one clean commit: make campaign)."""
    cs, dirty = commits(rows)
    if not cs:
        return "No results."
    if len(cs) == 1 and not dirty:
        return f"Results of commit `{cs[0]}`, one clean build."
    parts = []
    if len(cs) > 1:
        shown = ", ".join(f"`{c}`" for c in cs[:6]) + (", ..." if len(cs) > 6 else "")
        parts.append(f"**mixes {len(cs)} commits** ({shown})")
    if dirty:
        parts.append(f"**{dirty} result{'s' if dirty != 1 else ''} of a -dirty build** (uncommitted changes)")
    return "Warning: this folder " + " and holds ".join(parts) + ": not one clean build; `make campaign` regenerates it."


def peaks_note(folder):
    """One line on what the folder's percentages divide by."""
    path = os.path.join(folder, PEAKS_FILE)
    if not os.path.exists(path):
        return "Peaks: each run's own probes (no stored `peaks.json`)."
    with open(path) as fh:
        p = json.load(fh)
    out = []
    for side, keys in (("cpu", ("triad_bandwidth_Bps", "fma_fp64_flops")), ("gpu", ("copy_bandwidth_Bps", "fma_fp64_flops"))):
        d = p.get(side)
        if not d:
            continue
        spread = max(d[k]["relative_spread"] for k in keys if k in d)
        out.append(f"{side.upper()} over {d[keys[0]]['runs']} runs, spread up to {100 * spread:.1f} %")
    return f"Peaks: the stored `peaks.json` (commit `{p.get('git_commit', '?')}`; " + "; ".join(out) + ")."


def machine_folders(results):
    """results/<machine>/ folders holding result JSON, the CI baseline left out; folders of
    MPI runs (<machine>-mpi) after the others."""
    out = []
    for d in sorted(os.listdir(results)):
        p = os.path.join(results, d)
        if d == "ci" or not os.path.isdir(p):
            continue
        if result_files(p):
            out.append(p)
    return sorted(out, key=lambda p: (p.endswith("-mpi"), p))


def headline_patterns():
    """Each headline line: its file-name patterns in order of preference."""
    lines = []
    with open(HEADLINE_LIST) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                lines.append(words)
    return lines


def headline_files(folder):
    """The headline case files present in a machine folder, one per line of the list at most."""
    names = [os.path.basename(f) for f in result_files(folder)]
    out = []
    for alternatives in headline_patterns():
        for pattern in alternatives:
            hit = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
            if hit:
                out.append(os.path.join(folder, hit[0]))
                break
    return out


def describe(folder, files):
    """One line on the hardware the runs in files used: the GPU of CUDA runs, the CPU (cores,
    build) of the others."""
    gpus, cpus, archs = [], [], []
    for f in files:
        with open(f) as fh:
            j = json.load(fh)
        c = j.get("context") or {}
        cuda = any(b.get("backend") == "cuda" for b in j.get("benchmarks", []))
        g = (c.get("gpu") or {}).get("name")
        cpu = c.get("cpu") or {}
        if cuda:
            if g and g not in gpus:
                gpus.append(g)
        elif cpu.get("model"):
            d = f"{cpu['model'].strip()}, {cpu.get('logical_cpus', '?')} logical CPUs"
            if d not in cpus:
                cpus.append(d)
        if not cuda and c.get("arch") and c["arch"] not in archs:
            archs.append(c["arch"])
    parts = gpus + cpus + ([f"CPU code built for {', '.join(archs)}"] if archs else [])
    return "; ".join(parts) or "no context recorded"


def drawn_folders(results, rows_of):
    """Machine folders worth a picture: every folder but a -mpi one whose machines another
    folder already shows (its single-rank runs would repeat that machine)."""
    seen, out = set(), []
    for folder in machine_folders(results):
        machines = {r["machine"] for r in rows_of(folder)}
        if not machines:
            continue
        if folder.endswith("-mpi") and machines <= seen:
            continue
        seen |= machines
        out.append(folder)
    return out


_KERNELS = {}


def kernels(sb):
    """{kernel: its size's meaning}, in the order `scibench list` gives (the registry's)."""
    if not _KERNELS:
        cur = None
        for line in scibench(sb, ["list"]).splitlines():
            if line.startswith("backends on this machine"):
                break
            if line.startswith("  ") and not line.startswith("   ") and ":" in line:
                cur = line.split(":", 1)[0].strip()
                _KERNELS[cur] = ""
            elif cur and line.startswith("    size "):
                _KERNELS[cur] = line[len("    size "):].strip().rsplit(": default", 1)[0]
    return _KERNELS
