#!/usr/bin/env bash
# CLI integration test: every bad input exits 2 with one stderr line naming the
# bad value, prints nothing on stdout and creates no file; list/help exit 0.
# Usage: SB=build/scibench bash tests/cli_test.sh
set -u
SB=${SB:-build/scibench}
SB=$(cd "$(dirname "$SB")" && pwd)/$(basename "$SB")
[ -x "$SB" ] || { echo "cli_test: $SB is not an executable (run make first)"; exit 1; }

pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Runs scibench in an empty scratch directory; sets rc, out, err and files (what it left behind).
run_sb() {
    local dir="$work/run"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && "$SB" "$@" >"$work/out" 2>"$work/err")
    rc=$?
    out=$(cat "$work/out")
    err=$(cat "$work/err")
    files=$(ls -A "$dir")
}

# expect_usage NEEDLE ARGS...: exit 2, one line on stderr containing NEEDLE, nothing else.
expect_usage() {
    local needle=$1
    shift
    run_sb "$@"
    local what="scibench $*"
    local lines
    lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$rc" -ne 2 ]; then bad "$what: exit $rc, expected 2 (stderr: $err)"; return; fi
    if [ "$lines" -ne 1 ]; then bad "$what: $lines stderr lines, expected 1: $err"; return; fi
    case "$err" in
        "scibench: error: "*"$needle"*) ;;
        *) bad "$what: stderr does not mention '$needle': $err"; return ;;
    esac
    if [ -n "$out" ]; then bad "$what: wrote to stdout: $out"; return; fi
    if [ -n "$files" ]; then bad "$what: created files: $files"; return; fi
    ok
}

# expect_ok NEEDLE ARGS...: exit 0 and NEEDLE on stdout.
expect_ok() {
    local needle=$1
    shift
    run_sb "$@"
    if [ "$rc" -ne 0 ]; then bad "scibench $*: exit $rc, expected 0 (stderr: $err)"; return; fi
    case "$out" in
        *"$needle"*) ok ;;
        *) bad "scibench $*: stdout lacks '$needle'" ;;
    esac
}

K=lattice_mc
expect_usage "no command"
expect_usage "frobnicate" frobnicate
expect_usage "nope" run nope
expect_usage "nope" validate nope --size 8
expect_usage "run needs a KERNEL" run
expect_usage "extra" run $K extra
expect_usage "foo" run $K --backend foo
expect_usage "foo" run $K --backend=foo
expect_usage "99999999" run $K --size 99999999
expect_usage "12abc" run $K --size 12abc
expect_usage "nonsense" run $K --param nonsense
expect_usage "=5" run $K --param =5
expect_usage "T=abc" run $K --param T=abc
expect_usage "T=nan" run $K --param T=nan
expect_usage "bogus_key" run $K --param bogus_key=1
expect_usage "T given twice" run $K --param T=1 --param T=2
expect_usage "abc" run $K --reps abc
expect_usage "--reps 0" run $K --reps 0
expect_usage "100001" run $K --reps=100001
expect_usage "-5" run $K --warmup -5
expect_usage "-1" run $K --seed -1
expect_usage "--reps" run $K --reps
expect_usage "--bogus" run $K --bogus
expect_usage "--quiet" run $K --quiet=yes
expect_usage "extra" list extra
expect_usage "/nonexistent/dir/x.json" run $K --json /nonexistent/dir/x.json
[ -e /nonexistent/dir/x.json ] && bad "/nonexistent/dir/x.json was created"
mkdir -p "$work/adir"
expect_usage "$work/adir" run $K --json "$work/adir"
# A usage error found after the JSON path check still leaves no file behind.
expect_usage "bogus_key" run $K --param bogus_key=1 --json out.json
expect_usage "99999999" validate $K --size 99999999 --json out.json

# fullerene_ff: C_N must exist; isomer sources are exclusive
F=fullerene_ff
expect_usage "size 61" run $F --size 61
expect_usage "size 22" run $F --size 22
expect_usage "isomers=abc" run $F --param isomers=abc
expect_usage "isomers=0" run $F --param isomers=0
expect_usage "/nonexistent/s.txt" run $F --param spirals=/nonexistent/s.txt
expect_usage "not both" run $F --param isomers=5 --param spirals=/nonexistent/s.txt
expect_usage "fill=-1" run $F --param fill=-1
expect_usage "pipeline=5" run $F --param isomers=all --param pipeline=5
# eri_brush: f shells have no generated code, so no store mode; g shells are not served
E=eri_brush
expect_usage "mode=store" run $E --param molecule=water --param basis=cc-pvtz --param mode=store
printf '****\nO 0\nG 1 1.00\n 1.0 1.0\n****\nH 0\nS 1 1.00\n 1.0 1.0\n****\n' >"$work/g.g94"
expect_usage "g shells" run $E --param molecule=water --param basis="$work/g.g94"
expect_usage "cc-pvqz" run $E --param basis=cc-pvqz
expect_usage "prim_screen=0.001" run $E --param prim_screen=0.001
expect_usage "prim_screen=-1" run $E --param prim_screen=-1
# dfratom_scf: open shells, unknown elements, impossible charges, untabulated nuclei
D=dfratom_scf
expect_usage "closed-shell" run $D --param atom=C
expect_usage "Qq" run $D --param atom=Qq
expect_usage "leaves 0 electrons" run $D --param atom=He --param charge=2
expect_usage "A=" run $D --param atom=Li --param charge=1
expect_usage "job" run $D --param job=sweep
expect_usage "beta" run $D --param beta=0.5
# job=bsize: a tolerance the optimised start basis misses, no reference for a nonrelativistic atom,
# a start too small for the occupied shells, a malformed reference; basis files that cannot be used
expect_usage "bsize_tol=1e-09" run $D --backend openmp_simd --param atom=He --param job=bsize \
    --param hamiltonian=schrodinger --param nucleus=point --param bsize_max=6 --param bsize_tol=1e-9 --param bsize_evals=10
expect_usage "no numerical HF limit for Mg" run $D --param atom=Mg --param job=bsize --param hamiltonian=schrodinger \
    --param nucleus=point
expect_usage "bsize_max=4" run $D --param atom=Xe --param job=bsize --param bsize_max=4
expect_usage "bsize_ref=-2.8x" run $D --param atom=He --param job=bsize --param bsize_ref=-2.8x
expect_usage "conflicts with" run $D --param atom=He --param basis=x.json --param alpha=0.1
expect_usage "cannot open" run $D --param atom=He --param basis="$work/none.json"
printf '{"atom": "Ne", "K": 10, "alpha": 0.1, "beta": 2, "gamma": 0, "delta": 0, "ranges": {"s": [1, 10]}}' >"$work/ne.json"
expect_usage '"p" must be' run $D --param atom=Ne --param basis="$work/ne.json"
# eigensolver=cusolver needs the cuda backend: refused elsewhere, never silently ignored
expect_usage "eigensolver=bogus" run $D --param eigensolver=bogus
expect_usage "eigensolver=cusolver" run $D --param eigensolver=cusolver --backend openmp_simd
expect_usage "eigensolver=cusolver" run $D --param eigensolver=cusolver --backend reference
# dfratom_scf: a run in a basis that PySCF solved (data/pyscf_dhf.tsv) is checked against it and
# passes; the same atom in another basis (beta) has no reference and gets no such check.
dhf=$("$SB" validate $D --size 16 --param atom=Be --backend openmp_simd --quiet 2>&1)
if printf '%s\n' "$dhf" | grep -qE "^  dirac_fock_same_basis_pyscf .* PASS " && printf '%s' "$dhf" | grep -q "VALIDATION PASSED"; then
    ok
else
    bad "dfratom_scf Be K=16: no passing dirac_fock_same_basis_pyscf check: $dhf"
fi
dhf=$("$SB" validate $D --size 16 --param atom=Be --param beta=2.5 --backend openmp_simd --quiet 2>&1)
if printf '%s' "$dhf" | grep -q "VALIDATION PASSED" && ! printf '%s' "$dhf" | grep -q dirac_fock_same_basis_pyscf; then
    ok
else
    bad "dfratom_scf Be K=16 beta=2.5: matched a PySCF row of another basis, or failed: $dhf"
fi
# A basis job=bsize wrote (Be, Dirac, s(1:22) of a K = 30 sequence with gamma and delta), read back by
# job=scf: its recorded energy repeats, and PySCF's energy in it (data/pyscf_dhf_ranges.tsv) is met.
dhf=$("$SB" validate $D --param atom=Be --param basis="$(dirname "$0")/../kernels/dfratom_scf/data/bsize_be_dirac.basis.json" \
    --backend openmp_simd --quiet 2>&1)
if printf '%s\n' "$dhf" | grep -qE "^  dirac_fock_same_basis_pyscf .* PASS " &&
    printf '%s\n' "$dhf" | grep -qE "^  basis_file_energy .* PASS " && printf '%s' "$dhf" | grep -q "VALIDATION PASSED"; then
    ok
else
    bad "dfratom_scf basis=bsize_be_dirac.basis.json: no passing PySCF or basis-file check: $dhf"
fi
# The pipeline changes the timing, never the isomers or their results.
plain=$("$SB" run $F --size 70 --param isomers=64 --backend openmp_simd --quiet 2>&1 | grep -E "energy_mean|isomers per rep")
piped=$("$SB" run $F --size 70 --param isomers=64 --param pipeline=16 --backend openmp_simd --quiet 2>&1 | grep -E "energy_mean|isomers per rep")
if [ -n "$plain" ] && [ "$(printf '%s' "$plain" | grep -o 'energy_mean.*')" = "$(printf '%s' "$piped" | grep -o 'energy_mean.*')" ]; then
    ok
else
    bad "fullerene_ff pipeline=16 changed the results: '$plain' vs '$piped'"
fi

# The cuda backend either runs or refuses with exit 2; never falls back.
if "$SB" list 2>/dev/null | grep -q "cuda .*not available"; then
    expect_usage "cuda" run $K --backend cuda
fi

expect_ok "lattice_mc" list
expect_ok "exit codes" --help
expect_ok "exit codes" help
expect_ok "scibench" --version

# One real validation at the CI size, with JSON: exit 0, a complete file, no leftovers.
ci=$("$SB" list | grep -o 'CI [0-9]*' | head -1 | cut -d' ' -f2)
run_sb validate $K --size "${ci:-8}" --quiet --json v.json
if [ "$rc" -eq 0 ] && [ "$files" = "v.json" ] && grep -q '"passed": true' "$work/run/v.json" \
    && printf '%s' "$out" | grep -q "VALIDATION PASSED"; then
    ok
else
    bad "validate $K --size ${ci:-8} --json v.json: exit $rc, files '$files', stderr: $err"
fi
cp "$work/run/v.json" "$work/one-rank.json" 2>/dev/null

# --baseline (MPI efficiency): a one-rank JSON of the same kernel and backend, else exit 2
expect_usage "--baseline needs a file path" run $K --baseline ""
expect_usage "/nonexistent.json" run $K --baseline /nonexistent.json
expect_usage "is $K on openmp_simd, not nlchains" run nlchains --size 64 --baseline "$work/one-rank.json"
expect_usage "needs a value" run $K --baseline

# --profile: a flag; where counters cannot be read, one PROFILE line, the normal results
# and exit 0 (a run where they can be read is checked by tests/gpu_profile and on the device)
expect_usage "takes no value" run $K --profile=1
run_sb run $K --size "${ci:-8}" --reps 1 --quiet --profile --json p.json
if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q "VALIDATION PASSED" && [ "$files" = "p.json" ] \
    && [ "$(printf '%s\n' "$out" | grep -c '^PROFILE')" -eq 1 ]; then
    if printf '%s' "$out" | grep -q "^PROFILE  *no hardware counters here: "; then
        grep -q '"profile_unavailable"' "$work/run/p.json" && ok || bad "--profile without counters: no profile_unavailable in the JSON"
    else
        grep -q '"profile": {' "$work/run/p.json" && ok || bad "--profile with counters: no profile object in the JSON"
    fi
else
    bad "run $K --profile: exit $rc, files '$files', stderr: $err"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
