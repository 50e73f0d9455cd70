#!/usr/bin/env python3
"""The one-way rule (docs/DESIGN.md: layers) held against the code.

docs/layers.json names the parts of the project (folders), the arrows the design allows between
them ("arrows": A may include B) and the ones it forbids ("never", with the reason). This script
reads every #include of every C, C++ and CUDA file in those parts, resolves it the way the
Makefile's -I folders do, and fails (exit 1) on:
  - an include from one part into another that "never" forbids, straight or through parts;
  - an include between two parts that no arrow allows (the design document and this file are
    then out of date with the code, or the code broke the layering).
Usage: python3 tools/check_layers.py [--verbose]"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = (".c", ".h", ".cu", ".cuh", ".cpp", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_dirs():
    """The -I folders of the Makefile's CFLAGS (build-output folders left out)."""
    text = open(os.path.join(ROOT, "Makefile")).read()
    dirs = []
    for d in re.findall(r"-I(\S+)", text):
        if "$" not in d and d not in dirs and os.path.isdir(os.path.join(ROOT, d)):
            dirs.append(d)
    return dirs


def part_of(path, parts):
    """The part whose longest folder holds path (None: on no part)."""
    best, blen = None, -1
    for name, spec in parts.items():
        for p in spec["is"]:
            if (path == p or (p.endswith("/") and path.startswith(p))) and len(p) > blen:
                best, blen = name, len(p)
    return best


def main():
    verbose = "--verbose" in sys.argv[1:]
    board = json.load(open(os.path.join(ROOT, "docs", "layers.json")))
    parts = board["parts"]
    allowed = {(a[0], a[1]) for a in board.get("arrows", [])}
    never = {(n[0], n[1]): n[2] for n in board.get("never", [])}
    dirs = include_dirs()
    edges = {}  # (part, part) -> [(file, included file)]
    unresolved = 0
    for spec in parts.values():
        for top in spec["is"]:
            for base, _, files in os.walk(os.path.join(ROOT, top)):
                for f in sorted(files):
                    if not f.endswith(SOURCE):
                        continue
                    src = os.path.relpath(os.path.join(base, f), ROOT)
                    a = part_of(src, parts)
                    for inc in INCLUDE.findall(open(os.path.join(ROOT, src), errors="replace").read()):
                        cands = [os.path.join(os.path.dirname(src), inc)] + [os.path.join(d, inc) for d in dirs]
                        hit = next((os.path.normpath(c) for c in cands if os.path.isfile(os.path.join(ROOT, c))), None)
                        if hit is None:
                            unresolved += 1  # a generated header (build/gen) or a system one in quotes
                            continue
                        b = part_of(hit, parts)
                        if b and b != a:
                            edges.setdefault((a, b), []).append((src, hit))
    bad = 0
    for (a, b), pairs in sorted(edges.items()):
        if (a, b) not in allowed:
            bad += 1
            print(f"check_layers: {a} -> {b} is no arrow of docs/layers.json: {pairs[0][0]} includes {pairs[0][1]}"
                  + (f" (and {len(pairs) - 1} more)" if len(pairs) > 1 else ""))
    # a never broken through other parts: reach over the include graph of parts
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    for (a, b), why in sorted(never.items()):
        seen, todo = set(), [a]
        while todo:
            for n in graph.get(todo.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        if b in seen:
            bad += 1
            how = edges.get((a, b), [("through other parts", "")])[0]
            print(f"check_layers: never {a} -> {b} ({why}) is broken: {how[0]} {how[1]}".rstrip())
    if verbose:
        for (a, b), pairs in sorted(edges.items()):
            print(f"  {a} -> {b}: {len(pairs)} includes")
        print(f"  {unresolved} includes resolved to no file of the tree (generated or system headers)")
    n = sum(len(p) for p in edges.values())
    print(f"check_layers: {n} includes between {len(parts)} parts, {len(never)} rules: "
          + ("all kept" if not bad else f"{bad} broken"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
