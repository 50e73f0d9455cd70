#!/usr/bin/env python3
"""Regenerates the result tables of markdown files (make readme-tables).

A generated table sits between two marker lines (each at the start of its line):
    <!-- scibench-table: ARGS -->
    ... (replaced) ...
    <!-- /scibench-table -->
and becomes the output of `scibench table --format markdown ARGS`. ARGS are result
files, folders or globs, relative to the repository root; the opening marker may span
several lines. Running it twice changes nothing the second time. The same for
    <!-- eri-class-tables: FILES -->  ...  <!-- /eri-class-tables -->
whose tables eri_brush's class_tables.py draws from its runs' per-class counters.

Usage: tools/readme_tables.py [--check] [FILE.md ...]
  default files: README.md, kernels/*/README.md, results/README.md
  --check   change nothing; exit 1 when a table differs from what would be generated
  SB names the scibench binary (default build/scibench)
Exit: 0; 1 with --check when a table is out of date; 2 usage (a marker without its end,
a glob that matches no file, arguments scibench refuses), after one line on stderr."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "kernels", "eri_brush"))
import class_tables  # noqa: E402  (eri_brush's per-class tables)

# markers start a line: the same text inside a sentence (documenting them) is left alone
OPEN = re.compile(r"^[ \t]*<!-- (scibench-table|eri-class-tables):(.*?)-->", re.S | re.M)
CLOSE = {kind: re.compile(r"^[ \t]*<!-- /%s -->" % kind, re.M) for kind in ("scibench-table", "eri-class-tables")}


def die(msg):
    print(f"readme_tables: {msg}", file=sys.stderr)
    sys.exit(2)


def expand(args, where):
    """Globs to paths (sorted); options and plain paths pass as they are."""
    out = []
    for a in args:
        if a.startswith("--") or not glob.has_magic(a):
            out.append(a)
            continue
        hits = sorted(glob.glob(a, root_dir=ROOT))
        if not hits:
            die(f"{where}: '{a}' matches no file")
        out += hits
    return out


def generate(kind, sb, args, where):
    if kind == "eri-class-tables":
        return class_tables.tables(sb, expand(args, where))
    p = subprocess.run([sb, "table", "--format", "markdown"] + expand(args, where), cwd=ROOT, capture_output=True,
                       text=True)
    if p.returncode:
        die(f"{where}: scibench table {' '.join(args)}: {p.stderr.strip() or 'exit %d' % p.returncode}")
    return p.stdout


def regenerate(text, sb, name):
    """The text with every marked table regenerated."""
    out, pos = [], 0
    while True:
        m = OPEN.search(text, pos)
        if not m:
            return "".join(out) + text[pos:]
        where = f"{name}:{text.count(chr(10), 0, m.start()) + 1}"
        kind = m.group(1)
        close = CLOSE[kind].search(text, m.end())
        nxt = OPEN.search(text, m.end())
        if not close or (nxt and nxt.start() < close.start()):
            die(f"{where}: '<!-- {kind}: ... -->' has no '<!-- /{kind} -->' line before the next "
                "table or the end")
        end = close.start()
        args = m.group(2).split()
        if not args:
            die(f"{where}: the marker names no result file, folder or glob")
        out.append(text[pos:m.end()] + "\n" + generate(kind, sb, args, where))
        pos = end


def main(argv):
    check = "--check" in argv
    files = [a for a in argv if a != "--check"]
    if any(a.startswith("--") for a in files):
        die(f"unknown option {[a for a in files if a.startswith('--')][0]}; accepted: --check")
    if not files:
        files = [os.path.join(ROOT, f) for f in
                 ["README.md", *sorted(glob.glob("kernels/*/README.md", root_dir=ROOT)), "results/README.md"]
                 if os.path.exists(os.path.join(ROOT, f))]
    sb = os.environ.get("SB", "build/scibench")
    if not os.access(os.path.join(ROOT, sb), os.X_OK):
        die(f"{sb} is not an executable (run make first)")
    stale = 0
    for path in files:
        f = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path
        try:
            with open(path, encoding="utf-8") as fh:
                old = fh.read()
        except OSError as e:
            die(f"{f}: {e.strerror}")
        new = regenerate(old, os.path.join(ROOT, sb), f)
        if new == old:
            continue
        stale += 1
        if check:
            print(f"readme_tables: {f}: a generated table is out of date (make readme-tables)")
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(new)
            print(f"readme_tables: {f}: tables regenerated")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
