#!/usr/bin/env bash
# tools/readme_tables.py (make readme-tables) on a scratch markdown file whose markers name the
# committed CI baseline: the table lands between the markers, the text around them stays, a
# second run changes nothing, --check tells a stale table, and broken markers fail with exit 2
# leaving the file as it was. The same for eri_brush's per-class tables (its class_tables.py draws them). Run from the repository root (make test does).
set -u
SB=${SB:-build/scibench}
export SB
tool="python3 tools/readme_tables.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

cat >"$tmp/doc.md" <<'EOF'
# A document
Text before; a marker inside a sentence, `<!-- scibench-table: ARGS -->`, is prose, not a table.
<!-- scibench-table: results/ci/lattice_mc.*.json -->
| stale | table |
<!-- /scibench-table -->
Text between.
<!-- scibench-table:
     results/ci/nlchains.openmp_simd.64.json
     results/ci/fullerene_ff.openmp_simd.50.json -->
<!-- /scibench-table -->
Text after.
EOF
cp "$tmp/doc.md" "$tmp/orig.md"

$tool --check "$tmp/doc.md" >/dev/null; rc=$?
[ $rc = 1 ] && cmp -s "$tmp/doc.md" "$tmp/orig.md" && ok "--check: stale tables, exit 1, file untouched" || bad "--check on stale tables: exit $rc"

$tool "$tmp/doc.md" >/dev/null || bad "first run failed"
grep -q '^| lattice_mc | openmp_simd | L=32 |' "$tmp/doc.md" && ok "lattice_mc row generated" || bad "no lattice_mc row"
grep -q '^| nlchains | openmp_simd |' "$tmp/doc.md" && grep -q '^| fullerene_ff | openmp_simd |' "$tmp/doc.md" &&
  ok "multi-line marker: both files" || bad "multi-line marker rows missing"
grep -q 'stale' "$tmp/doc.md" && bad "stale content kept" || ok "stale content replaced"
# the text outside the tables is as it was: drop the generated rows, compare with the original minus its stale row
grep -v '^|' "$tmp/doc.md" >"$tmp/outside.txt"
grep -v '^|' "$tmp/orig.md" >"$tmp/outside_orig.txt"
cmp -s "$tmp/outside.txt" "$tmp/outside_orig.txt" && ok "text outside the markers unchanged" || bad "text outside the markers changed"
[ "$(grep -c '^| kernel | backend |' "$tmp/doc.md")" = 2 ] && ok "one header per table" || bad "table headers: $(grep -c '^| kernel' "$tmp/doc.md")"

cp "$tmp/doc.md" "$tmp/once.md"
$tool "$tmp/doc.md" >/dev/null || bad "second run failed"
cmp -s "$tmp/doc.md" "$tmp/once.md" && ok "idempotent" || bad "second run changed the file"
$tool --check "$tmp/doc.md" >/dev/null && ok "--check: up to date, exit 0" || bad "--check on fresh tables"

printf 'a\n<!-- scibench-table: results/ci/lattice_mc.*.json -->\n| x |\n' >"$tmp/open.md"
cp "$tmp/open.md" "$tmp/open_orig.md"
$tool "$tmp/open.md" 2>"$tmp/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q 'open.md:2' "$tmp/err" && cmp -s "$tmp/open.md" "$tmp/open_orig.md" &&
  ok "marker without its end: exit 2, line named, file untouched" || bad "unclosed marker: exit $rc, $(cat "$tmp/err")"

printf '<!-- scibench-table: results/ci/nothing-*.json -->\n<!-- /scibench-table -->\n' >"$tmp/glob.md"
$tool "$tmp/glob.md" 2>"$tmp/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q "matches no file" "$tmp/err" && ok "a glob matching nothing: exit 2" || bad "empty glob: exit $rc"

printf '<!-- scibench-table: results/ci/absent.json -->\n<!-- /scibench-table -->\n' >"$tmp/missing.md"
$tool "$tmp/missing.md" 2>"$tmp/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q "absent.json" "$tmp/err" && ok "a missing file: exit 2 with scibench's message" || bad "missing file: exit $rc"

# eri_brush's per-class tables from a committed H200 run: taxol/cc-pVDZ, its (ss|ss) class at
# 7.57 TFLOP/s of the stored 33.4 TFLOP/s probe, 23 %
eri=$tool
taxol=results/h200/eri_brush.cuda.16.molecule-taxol.basis-cc-pvdz.json
printf 'before\n<!-- eri-class-tables: %s -->\n| stale |\n<!-- /eri-class-tables -->\nafter\n' "$taxol" >"$tmp/eri.md"
$eri --check "$tmp/eri.md" >/dev/null; rc=$?
[ $rc = 1 ] && ok "eri --check: a stale table, exit 1" || bad "eri --check on a stale table: exit $rc"
$eri "$tmp/eri.md" >/dev/null || bad "eri class tables: run failed"
grep -q '^| taxol / cc-pVDZ | 1123 | 1.47e+09 |' "$tmp/eri.md" && grep -q '^| (ss\\|ss) | [0-9.]* ms (23 %) |' "$tmp/eri.md" &&
  ! grep -q stale "$tmp/eri.md" && head -1 "$tmp/eri.md" | grep -q before && tail -1 "$tmp/eri.md" | grep -q after &&
  ok "eri class tables: the case row and the (ss|ss) share, text around kept" || bad "eri class tables: $(cat "$tmp/eri.md")"
cp "$tmp/eri.md" "$tmp/eri_once.md"
$eri "$tmp/eri.md" >/dev/null && cmp -s "$tmp/eri.md" "$tmp/eri_once.md" && $eri --check "$tmp/eri.md" >/dev/null &&
  ok "eri class tables: idempotent, --check exit 0" || bad "eri class tables: a second run changed the file"
lmc=$(ls results/ci/lattice_mc.openmp_simd.*.json | head -1)
printf '<!-- eri-class-tables: %s -->\n<!-- /eri-class-tables -->\n' "$lmc" >"$tmp/eri_other.md"
$eri "$tmp/eri_other.md" 2>"$tmp/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q "per-class times" "$tmp/err" && ok "eri class tables: another kernel's run, exit 2" ||
  bad "eri class tables on another kernel's run: exit $rc $(cat "$tmp/err")"
printf '<!-- eri-class-tables: %s -->\n| x |\n' "$taxol" >"$tmp/eri_open.md"
cp "$tmp/eri_open.md" "$tmp/eri_open_orig.md"
$eri "$tmp/eri_open.md" 2>/dev/null >/dev/null; rc=$?
[ $rc = 2 ] && cmp -s "$tmp/eri_open.md" "$tmp/eri_open_orig.md" && ok "eri marker without its end: exit 2, file untouched" ||
  bad "eri unclosed marker: exit $rc"

exit $fail
