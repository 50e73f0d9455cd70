#!/usr/bin/env bash
# eri_brush against every shipped libint2 reference (kernels/eri_brush/data/ref/*.ref): one
# `scibench validate` per molecule and basis (".cart" files: Cartesian functions), one line each.
# Usage: tools/eri_validate_refs.sh [BACKEND [LOGDIR]]   (default cuda; LOGDIR keeps each full report)
#        ERI_LIMIT=seconds bounds one validation (default 150).
# Exit: 0 all passed, 1 a validation failed or timed out, 2 usage.
set -u
. "$(dirname "$0")/sblib.sh"
backend=${1:-cuda} logs=${2:-}
case $backend in cuda | openmp_simd | reference) ;; *) echo "eri_validate_refs: backend '$backend'; accepted: cuda, openmp_simd, reference" >&2; exit 2 ;; esac
[ -z "$logs" ] || mkdir -p "$logs" || exit 2
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
fail=0
for ref in kernels/eri_brush/data/ref/*.ref; do
  c=$(basename "$ref" .ref) cart=0
  [ "${c%.cart}" != "$c" ] && { cart=1; c=${c%.cart}; }
  m=${c%%.*} b=${c#*.}
  timeout "${ERI_LIMIT:-150}" "$SB" validate eri_brush --backend "$backend" --quiet --param molecule="$m" \
    --param basis="$b" --param cartesian=$cart >"$tmp" 2>&1
  rc=$?
  [ -z "$logs" ] || cp "$tmp" "$logs/$(basename "$ref" .ref).txt"
  printf '%-24s %3d checks passed, %d failed, exit %d: %s\n' "$(basename "$ref" .ref)" "$(grep -c ' PASS ' "$tmp")" \
    "$(grep -c ' FAIL ' "$tmp")" "$rc" "$(grep -oE 'VALIDATION (PASSED|FAILED)' "$tmp" || echo 'no verdict')"
  [ $rc = 0 ] || fail=1
done
exit $fail
