#!/usr/bin/env python3
"""Sweep every numeric parameter of the kernels over its accepted range and validate each value.

    tools/param_sweep.py [--sb build/scibench] [--kernel K ...] [--param KEY ...]
                         [--backend openmp_simd] [--timeout 900] [--points 7] [--markdown FILE]

The ranges come from the binary, not from this file: `scibench list` names the kernels and their
parameters, and a run with a malformed value (KEY=?) makes the parameter's own getter print the
range it accepts ("accepted: a number in [lo, hi]", "an integer in [lo, hi]", "lo..hi", and for
a pair "A:B with both in [lo, hi]" or "with lo <= A <= B <= hi"). A parameter whose answer names
no numeric range (a choice, a file, a name) is not swept. Every value is one `scibench validate` (one repetition, no warm-up) at a small size, in
each setting where the parameter has an effect (CONTEXTS: the job, model or geometry that reads
it), under a time limit. Each value is reported as
    PASS     exit 0: validated
    FAIL     exit 1: a validation check failed (the failing checks are named)
    REFUSED  exit 2: a usage error at that value (the accepted range is wrong about it)
    ERROR    exit 3: a runtime error
    TIMEOUT  the time limit passed
The points: both ends, the middle (geometric where the range is positive and spans a factor 10
or more), and a grid in between: logarithmic on such a range, from 1 (integers) or 1e-6 of the
top up on one that starts at 0, by decades on either side of 0 on one that crosses it; integers
rounded. A parameter whose accepted values are a set within its range (SETS) is run at them.
The runs work in a scratch folder, so that what they write (dump=, bsize_out=) goes with it. Exit 0 when every value passed.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time

# Base settings per kernel: small sizes, so that a sweep runs on 2 cores.
BASE = {
    "lattice_mc": ["--size", "16"],
    "nlchains": ["--size", "64", "--param", "copies=64", "--param", "steps=20", "--param", "batch=10"],
    "fullerene_ff": ["--size", "40", "--param", "isomers=32", "--param", "oracle=4"],
    "eri_brush": ["--param", "molecule=water", "--param", "basis=sto-3g"],
    "dfratom_scf": ["--size", "8", "--param", "atom=Be"],
}
# Settings in which a parameter has an effect (each is swept in every one listed), and smaller
# ones where its top end costs most; a parameter not listed is swept in the base settings
# alone. A setting replaces the base's value of the same key (size= replaces --size), and the
# value swept replaces a setting's (bsize_max swept in the bsize setting).
CONTEXTS = {
    ("lattice_mc", "sweeps"): [["size=8"]],  # cost: the top ends at the smallest sizes
    ("nlchains", "steps"): [["size=8", "copies=1"]],
    ("nlchains", "copies"): [["size=8", "steps=1", "batch=1"]],
    ("dfratom_scf", "batch"): [["size=4", "atom=He", "job=batch", "batch_check=2"]],
    ("dfratom_scf", "bsopt_scan"): [["size=4", "atom=He", "job=bsopt", "bsopt_evals=6"]],
    ("dfratom_scf", "bsopt_starts"): [["size=4", "atom=He", "job=bsopt", "bsopt_evals=6"]],
    ("lattice_mc", "W"): [["geometry=droplet"]],
    ("lattice_mc", "T"): [[], ["geometry=droplet"]],
    ("lattice_mc", "field"): [[], ["geometry=droplet"]],
    ("lattice_mc", "slab"): [["fuse=slab"]],
    ("nlchains", "alpha"): [["model=fput"], ["model=toda"]],
    ("nlchains", "beta"): [["model=fput"], ["model=dnkg"], ["model=dnls"]],
    ("nlchains", "m"): [["model=dnkg"]],
    ("nlchains", "dt"): [["model=fput"], ["model=toda"], ["model=dnkg"], ["model=dnls"]],
    ("nlchains", "energy"): [["model=fput"], ["model=toda"], ["model=dnkg"], ["model=dnls"]],
    ("nlchains", "entropy_limit"): [["collect=sync"]],
    ("fullerene_ff", "fill"): [["isomers=4"]],
    ("eri_brush", "screen"): [[], ["mode=store"]],
    ("dfratom_scf", "c"): [["atom=He"], ["atom=Be"]],  # Z < c: Ne from 10.5 (tests/kernels/dfratom_scf/test_dfratom_scf.c)
    ("dfratom_scf", "charge"): [["atom=Ne"]],
    ("dfratom_scf", "beta"): [["size=25"]],  # below 1.8 the s functions must reach 40 Z^2: Be from K = 25
    ("dfratom_scf", "np"): [["atom=Ne"]],
    ("dfratom_scf", "nd"): [["atom=Kr"]],
    ("dfratom_scf", "nf"): [["atom=Yb"]],
}
DFR_JOB = {
    "bsize": ["job=bsize", "atom=He", "hamiltonian=schrodinger", "nucleus=point", "bsize_max=8", "bsize_ref=large",
              "bsize_evals=10", "bsize_tol=1e-3"],
    "batch": ["job=batch", "batch=4", "batch_check=2"],
    "bsopt": ["job=bsopt", "bsopt_evals=6"],
}


# Parameters whose accepted values are a set within the range, with the set in that setting.
SETS = {
    ("dfratom_scf", "charge"): ("the closed shells of Ne", ["0", "6", "8", "9"]),
    ("dfratom_scf", "bsize_stall"): ("0 or 8 .. 10000", ["0", "8", "12", "40", "316", "10000"]),
    ("nlchains", "alpha", "model=toda"): ("!= 0", None),
}
# Parameters a CPU sweep cannot exercise: what they do happens elsewhere.
NOT_HERE = {
    ("lattice_mc", "slab"): "cuda only (fuse=slab)",
    ("dfratom_scf", "batch_lanes"): "cuda only",
    ("fullerene_ff", "mpi_chunk"): "under mpirun only (several ranks)",
}


def contexts(kernel, key):
    if (kernel, key) in CONTEXTS:
        return CONTEXTS[(kernel, key)]
    if kernel == "dfratom_scf":
        for prefix, ctx in (("bsize_", "bsize"), ("batch", "batch"), ("bsopt_", "bsopt")):
            if key.startswith(prefix):
                return [DFR_JOB[ctx]]
    return [[]]


def sb_list(sb):
    """{kernel: [param keys]} from `scibench list`."""
    out = subprocess.run([sb, "list"], capture_output=True, text=True, check=True).stdout
    kernels, cur, in_params = {}, None, False
    for line in out.splitlines():
        m = re.match(r"^  (\w+): ", line)
        if m:
            cur, in_params = m.group(1), False
            kernels[cur] = []
            continue
        if line.startswith("backends on this machine"):
            cur = None
        if cur and line.strip().startswith("params (--param"):
            in_params = True
            continue
        m = re.match(r"^      (\S+)\s+default", line)
        if cur and in_params and m:
            kernels[cur].append(m.group(1))
    return kernels


def args_with(kernel, ctx, key=None, value=None):
    base = list(BASE[kernel])
    over = dict(kv.split("=", 1) for kv in ctx)
    if key is not None:
        over[key] = value
    out, seen = [], set()
    i = 0
    while i < len(base):  # base --param k=v, unless the context or the sweep sets k
        if base[i] == "--param":
            k = base[i + 1].split("=", 1)[0]
            if k not in over:
                out += base[i:i + 2]
            i += 2
        else:
            out.append(base[i])
            i += 1
    for k, v in over.items():
        if k == "size":
            out = [a for j, a in enumerate(out) if a != "--size" and (j == 0 or out[j - 1] != "--size")]
            out += ["--size", v]
        elif k not in seen:
            out += ["--param", f"{k}={v}"]
            seen.add(k)
    return out


NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
SCRATCH = None  # the runs' working folder: whatever a run writes (dump=, bsize_out=) lands there


def accepted_range(sb, kernel, key, backend, ctx):
    """(lo, hi, integer, pair, err) from the error a malformed value draws in setting ctx; lo
    None: no numeric range. pair: None for one number, "any" for A:B with both in the range,
    "ordered" for A <= B."""
    try:  # a string parameter takes "?" and runs: in a scratch folder, stopped soon
        r = subprocess.run([sb, "run", kernel, "--backend", backend, "--reps", "1", "--warmup", "0"] +
                           args_with(kernel, ctx, key, "?"), capture_output=True, text=True, timeout=60, cwd=SCRATCH)
        err = r.stderr.strip()
    except subprocess.TimeoutExpired:
        err = "(no error within 60 s)"
    m = re.search(rf"\w+:\w+ with both in \[({NUM}), ({NUM})\]", err)
    if m:
        return float(m.group(1)), float(m.group(2)), False, "any", err
    m = re.search(rf"with ({NUM}) <= \w+ <= \w+ <= ({NUM})", err)
    if m:
        return float(m.group(1)), float(m.group(2)), True, "ordered", err
    m = re.search(rf"accepted:.*?(a number|an integer) in \[({NUM}), ({NUM})\]", err)
    if m:
        return float(m.group(2)), float(m.group(3)), m.group(1) == "an integer", None, err
    m = re.search(rf"(an? (?:integer|number))? ?({NUM}) ?\.\. ?({NUM})", err)
    if m:
        return float(m.group(2)), float(m.group(3)), "integer" in (m.group(1) or "integer"), None, err
    return None, None, None, None, err


def pairs(pts, ordered):
    """A:B values over the points: both ends in every combination, the middle with itself and
    with each end, and neighbours of the grid"""
    lo, hi, mid = pts[0], pts[-1], pts[len(pts) // 2]
    cand = [(lo, hi), (lo, lo), (hi, hi), (mid, mid), (lo, mid), (mid, hi), (hi, lo), (mid, lo)]
    cand += [(pts[i], pts[i + 1]) for i in range(len(pts) - 1)]
    out = []
    for a, b in cand:
        if (ordered and a > b) or (a, b) in out:
            continue
        out.append((a, b))
    return out


def decades(side, count):
    """count powers of ten below |side|, with its sign"""
    top = math.floor(math.log10(abs(side)))
    if 10.0 ** top >= abs(side):
        top -= 1
    return [math.copysign(10.0 ** d, side) for d in range(top, top - count, -1)]


def log_grid(lo, hi, n):
    return [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]


def points(lo, hi, integer, n):
    pts = {lo, hi}
    if lo > 0 and hi / lo >= 10:
        pts.update(log_grid(lo, hi, n - 1))
        pts.add(math.sqrt(lo * hi))
    elif lo > 0 or hi <= 0:
        pts.update(lo + (hi - lo) * i / (n - 1) for i in range(n))
    elif lo == 0:  # 0, the middle, and a logarithmic grid up to hi
        bottom = 1.0 if integer else hi * 1e-6
        pts.update(log_grid(bottom, hi, n - 1) if hi > bottom else [])
        pts.add(hi / 2)
    else:  # crosses 0: 0, the middle, and decades on each side
        pts.update({0.0, (lo + hi) / 2})
        pts.update(decades(hi, max(2, (n - 3) // 2 + 1)))
        pts.update(decades(lo, max(2, (n - 3) // 2 + 1)))
    if integer:
        pts = {float(round(p)) for p in pts}
    out = {}
    for p in sorted(p for p in pts if lo <= p <= hi):
        out.setdefault(fmt(p, integer), p)
    return list(out.values())


def fmt(v, integer):
    return str(int(v)) if integer else f"{v:.6g}"


def run_value(sb, kernel, backend, key, value, ctx, timeout):
    cmd = [sb, "validate", kernel, "--backend", backend, "--quiet"] + args_with(kernel, ctx, key, value)
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=SCRATCH)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", time.time() - t0, f"over {timeout} s"
    dt = time.time() - t0
    status = {0: "PASS", 1: "FAIL", 2: "REFUSED", 3: "ERROR"}.get(r.returncode, f"EXIT{r.returncode}")
    why = ""
    if status == "FAIL":
        why = "; ".join(re.split(r"\s{2,}", l.strip())[0] for l in r.stdout.splitlines() if re.search(r"\sFAIL\s", l))
    elif status != "PASS":
        why = (r.stderr.strip().splitlines() or [""])[-1][:200]
    return status, dt, why


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sb", default="build/scibench")
    ap.add_argument("--kernel", action="append")
    ap.add_argument("--param", action="append", help="only these keys")
    ap.add_argument("--backend", default="openmp_simd")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--points", type=int, default=7)
    ap.add_argument("--markdown", help="also write the summary table (Markdown) to this file")
    a = ap.parse_args()
    global SCRATCH
    scratch = tempfile.TemporaryDirectory(prefix="param_sweep.")
    SCRATCH = scratch.name
    a.sb = os.path.abspath(a.sb)
    ks = sb_list(a.sb)
    rows, summary, bad = [], [], 0
    for kernel in a.kernel or ks:
        for key in ks[kernel]:
            if a.param and key not in a.param:
                continue
            if (kernel, key) in NOT_HERE:
                print(f"{kernel:13} {key:14} not swept: {NOT_HERE[(kernel, key)]}", flush=True)
                summary.append((kernel, key, "", "", "", f"not swept: {NOT_HERE[(kernel, key)]}"))
                continue
            ranges = []
            for ctx in contexts(kernel, key):  # each setting's own range (nlchains: per model)
                tally = {}
                lo, hi, integer, pair, err = accepted_range(a.sb, kernel, key, a.backend, ctx)
                if lo is None:
                    print(f"{kernel:13} {key:14} not swept: no numeric range ({err[:120]})", flush=True)
                    break
                pts = points(lo, hi, integer, a.points)
                values = [fmt(p, integer) for p in pts]
                if pair:
                    values = [f"{fmt(x, integer)}:{fmt(y, integer)}" for x, y in pairs(pts, pair == "ordered")]
                rng = f"{fmt(lo, integer)} .. {fmt(hi, integer)}"
                subset = SETS.get((kernel, key)) or SETS.get((kernel, key, " ".join(ctx)))
                if subset:  # the accepted values are a set within the range
                    rng += f", {subset[0]}"
                    values = subset[1] or [v for v in values if float(v) != 0.0]
                if pair:
                    rng = f"A:B, {'A <= B, ' if pair == 'ordered' else ''}both {rng}"
                ranges.append((rng, ", ".join(values), " ".join(ctx) or "base", tally))
                for v in values:
                    status, dt, why = run_value(a.sb, kernel, a.backend, key, v, ctx, a.timeout)
                    tally[status] = tally.get(status, 0) + 1
                    bad += status != "PASS"
                    where = " ".join(ctx)
                    print(f"{kernel:13} {key:14} {v:>14} {where:40} {status:8} {dt:7.1f} s  {why}", flush=True)
                    rows.append((kernel, key, v, where, status, dt, why))
            if not ranges:
                continue
            def told(ts):
                total = {}
                for t in ts:
                    for st, n in t.items():
                        total[st] = total.get(st, 0) + n
                return ", ".join(f"{n} {st}" for st, n in sorted(total.items()))
            if len({(r[0], r[1]) for r in ranges}) == 1:  # one row, unless the settings' ranges differ
                summary.append((kernel, key, ranges[0][0], ranges[0][1], " / ".join(r[2] for r in ranges),
                                told(r[3] for r in ranges)))
            else:
                summary += [(kernel, key, r[0], r[1], r[2], told([r[3]])) for r in ranges]
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| kernel | parameter | range | points | settings | result |\n|---|---|---|---|---|---|\n")
            for s in summary:
                f.write("| " + " | ".join(s) + " |\n")
    print(f"{len(rows)} runs, {bad} not PASS")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
