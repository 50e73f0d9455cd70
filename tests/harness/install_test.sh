#!/usr/bin/env bash
# `make install` end to end: the installed binary, run from / (no source tree in reach),
# finds its data beside itself, also after the installed tree is moved; SB_DATA overrides
# it, and a wrong SB_DATA is an error (exit 2), never a fallback.
# Usage: BUILD=build bash tests/harness/install_test.sh   (run from the repository root; make test does)
set -u
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if ! $MAKE -s --no-print-directory install BUILD="$BUILD" PREFIX="$work/p" >"$work/make.log" 2>&1; then
  cat "$work/make.log"
  echo "install_test: make install failed"
  exit 1
fi
for f in bin/scibench share/scibench/fullerene_ff/A007894.txt share/scibench/eri_brush/basis/cc-pvdz.g94 \
  share/scibench/eri_brush/ref/FORMAT.md; do
  [ -e "$work/p/$f" ] && ok || bad "make install did not install $f"
done

# sb PREFIX ARGS...: the installed binary under PREFIX, run from /; sets rc, out, err.
sb() {
  local prefix=$1
  shift
  (cd / && "$prefix/bin/scibench" "$@" >"$work/out" 2>"$work/err")
  rc=$?
  out=$(cat "$work/out")
  err=$(cat "$work/err")
}
# passes WHAT NEEDLE: exit 0, VALIDATION PASSED, and a line with NEEDLE and PASS (the check
# that needs the data file ran and passed).
passes() {
  if [ "$rc" -ne 0 ]; then bad "$1: exit $rc (stderr: $err)"; return; fi
  if ! printf '%s\n' "$out" | grep -q "VALIDATION PASSED"; then bad "$1: no VALIDATION PASSED"; return; fi
  if ! printf '%s\n' "$out" | grep "$2" | grep -q PASS; then bad "$1: no passing '$2' check: $out"; return; fi
  ok
}

ff=(run fullerene_ff --backend openmp_simd --size 60 --param isomers=all --reps 1 --quiet)
eri=(validate eri_brush --backend openmp_simd --param molecule=water --param basis=sto-3g --quiet)
sb "$work/p" "${ff[@]}"
passes "installed fullerene_ff C60 (OEIS A007894 data)" "isomer count C_N"
sb "$work/p" "${eri[@]}"
passes "installed eri_brush water/STO-3G (xyz, basis and libint2 reference data)" "libint2"

# relocatable: the binary looks beside itself, not at the prefix it was installed to
mv "$work/p" "$work/moved"
sb "$work/moved" run fullerene_ff --backend openmp_simd --size 40 --param isomers=all --reps 1 --quiet
passes "moved installation, fullerene_ff" "isomer count C_N"

# SB_DATA: an installed share/scibench works; a wrong one is a usage error naming it
export SB_DATA="$work/moved/share/scibench"
sb "$work/moved" "${eri[@]}"
passes "SB_DATA=<prefix>/share/scibench, eri_brush" "libint2"
export SB_DATA=/nonexistent
sb "$work/moved" "${eri[@]}"
if [ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "SB_DATA=/nonexistent"; then ok; else
  bad "SB_DATA=/nonexistent: exit $rc, expected 2 and an error naming it (stderr: $err)"
fi
unset SB_DATA

echo "install_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
