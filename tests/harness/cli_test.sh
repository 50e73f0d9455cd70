#!/usr/bin/env bash
# CLI integration test: every bad input exits 2 with one stderr line naming the
# bad value, prints nothing on stdout and creates no file; list/help exit 0.
# Usage: SB=build/scibench bash tests/harness/cli_test.sh
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

# run_cmd CMD...: as run_sb, for another command.
run_cmd() {
    local dir="$work/run"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && "$@" >"$work/out" 2>"$work/err")
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
# a bad --size quotes the kernel's own range (scibench list), never 1..2147483647
lmc_range=$("$SB" list | awk '/^  lattice_mc:/{k=1} k && /^    size/{for (i=1;i<=NF;i++){if ($i=="min") lo=$(i+1); if ($i=="max") hi=$(i+1)}; print lo+0 ".." hi+0; exit}')
expect_usage "--size -5 is out of range; accepted: $lmc_range for $K" run $K --size -5
expect_usage "--size 3000000000 is out of range; accepted: $lmc_range for $K" run $K --size 3000000000
expect_usage "--size '12abc' is not an integer; accepted: $lmc_range for $K" run $K --size 12abc
# --size 0 is the kernel's default, as documented
lmc_default=$("$SB" list | awk '/^  lattice_mc:/{k=1} k && /^    size/{for (i=1;i<=NF;i++) if ($i=="default") {print $(i+1)+0; exit}}')
run_sb validate $K --size 0 --quiet
if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -qE "^  size +$lmc_default "; then ok; else bad "validate $K --size 0: exit $rc, not the default size $lmc_default: $err"; fi
expect_usage "nonsense" run $K --param nonsense
expect_usage "=5" run $K --param =5
expect_usage "T=abc" run $K --param T=abc
expect_usage "T=nan" run $K --param T=nan
expect_usage "bogus_key" run $K --param bogus_key=1
expect_usage "bsize_max is not used with these settings; it applies as its help says: job=bsize" \
    validate dfratom_scf --size 8 --param bsize_max=30
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
# A destination that cannot take the file fails before anything runs: /proc (within a second),
# a name or a path too long, a path ending in '/'. The check leaves nothing behind.
t0=$(date +%s%N)
expect_usage "/proc/x.json: cannot create a file in /proc" run $K --json /proc/x.json
[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 1000 ] || bad "--json /proc/x.json took more than a second to refuse"
expect_usage "accepted: at most 255" run $K --json "$(printf 'n%.0s' $(seq 300)).json"
expect_usage "accepted: less than 4096" run $K --json "$(printf 'd/%.0s' $(seq 2100))x.json"
expect_usage "ends in '/'" run $K --json out/
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
expect_usage "fill=1000001 is out of range; accepted: an integer in [0, 1000000]" run $F --param fill=1000001
expect_usage "maxit=399 is out of range; accepted: an integer in [400, 100000000]" run $F --size 40 --param maxit=399
expect_usage "pipeline=5" run $F --param isomers=all --param pipeline=5
# Data a validation needs is read before the run: missing or unusable, exit 2 and no JSON
SB_DATA=/nonexistent expect_usage "A007894.txt not found under SB_DATA=/nonexistent" \
    run $F --param isomers=all --json out.json
expect_usage "accepted with isomers=all: N <= 120" run $F --size 122 --param isomers=all --json out.json
mkdir -p "$work/data/ref" && cp -r "$(dirname "$0")/../../kernels/eri_brush/data/molecules" \
    "$(dirname "$0")/../../kernels/eri_brush/data/basis" "$work/data/" && touch "$work/data/ref/FORMAT.md"
printf 'nbf 7\nnshell 5\nsum x\n' >"$work/data/ref/water.sto-3g.ref"
SB_DATA="$work/data" expect_usage "water.sto-3g.ref:3: malformed reference line" \
    validate eri_brush --param molecule=water --param basis=sto-3g --json out.json
# nlchains: the ranges end where this run's energy check still passes (README)
N=nlchains
expect_usage "alpha=0.85 is out of range; accepted: a number in [-0.8, 0.8]" run $N --param alpha=0.85
expect_usage "beta=-0.01 is out of range; accepted: a number in [0, 3]" run $N --param beta=-0.01
expect_usage "beta=8.5 is out of range; accepted: a number in [-4, 8]" run $N --param model=dnls --param beta=8.5
expect_usage "m=2.3 is out of range; accepted: a number in [0, 2.25]" run $N --param model=dnkg --param m=2.3
expect_usage "m=700 is out of range; accepted: a number in [0, 621]" run $N --param model=dnkg --param dt=0.01 --param m=700
expect_usage "dt=0.12 is out of range; accepted: a number in [1e-09, 0.11]" run $N --param model=dnkg --param dt=0.12
expect_usage "dt=0.19 is out of range; accepted: a number in [1e-09, 0.18]" run $N --param dt=0.19
expect_usage "dt=0.31 is out of range; accepted: a number in [1e-09, 0.3]" run $N --param model=dnls --param dt=0.31
expect_usage "energy=0.71 is out of range; accepted: a number in [1e-12, 0.7]" run $N --param model=dnls --param energy=0.71
# eri_brush: f shells have no generated code, so no store mode; g shells are not served
E=eri_brush
expect_usage "mode=store" run $E --param molecule=water --param basis=cc-pvtz --param mode=store
printf '****\nO 0\nG 1 1.00\n 1.0 1.0\n****\nH 0\nS 1 1.00\n 1.0 1.0\n****\n' >"$work/g.g94"
expect_usage "g shells" run $E --param molecule=water --param basis="$work/g.g94"
expect_usage "cc-pvqz" run $E --param basis=cc-pvqz
expect_usage "prim_screen=0.001" run $E --param prim_screen=0.001
expect_usage "prim_screen=-1" run $E --param prim_screen=-1
expect_usage "pq_screen=1e-11" run $E --param pq_screen=1e-11
expect_usage "pq_screen=-1" run $E --param pq_screen=-1
# dfratom_scf: open shells, unknown elements, impossible charges, untabulated nuclei
D=dfratom_scf
expect_usage "closed-shell" run $D --param atom=C
expect_usage "Qq" run $D --param atom=Qq
expect_usage "charge=2 is out of range; accepted: an integer in [0, 1]" run $D --param atom=He --param charge=2
expect_usage "A=" run $D --param atom=Li --param charge=1
expect_usage "job" run $D --param job=sweep
expect_usage "beta" run $D --param beta=0.5
# close ratios stall the SCF unless the s functions reach into the core
expect_usage "beta=1.49 is out of range; accepted: a number in [1.5, 4]" run $D --param beta=1.49
expect_usage "accepted below beta 1.8: s functions reaching 40 Z^2 = 640 bohr^-2" run $D --size 20 --param atom=Be --param beta=1.5
# np, nd, nf take the first exponents of the s sequence, which has SIZE; charge leaves an electron
expect_usage "np=9 is out of range; accepted: an integer in [1, 8]" run $D --size 8 --param atom=Ne --param np=9
expect_usage "charge=10 is out of range; accepted: an integer in [0, 9]" run $D --param atom=Ne --param charge=10
expect_usage "maxit=29 is out of range; accepted: an integer in [30, 10000]" run $D --param maxit=29
# job=bsize: a tolerance the optimised start basis misses, no reference for a nonrelativistic atom,
# a start too small for the occupied shells, a malformed reference; basis files that cannot be used
expect_usage "bsize_tol=1e-09" run $D --backend openmp_simd --param atom=He --param job=bsize \
    --param hamiltonian=schrodinger --param nucleus=point --param bsize_max=6 --param bsize_tol=1e-9 --param bsize_evals=10
expect_usage "no numerical HF limit for Mg" run $D --param atom=Mg --param job=bsize --param hamiltonian=schrodinger \
    --param nucleus=point
expect_usage "bsize_max=4" run $D --param atom=Xe --param job=bsize --param bsize_max=4
expect_usage "bsize_max=61 is out of range; accepted: an integer in [2, 60]" run $D --param atom=He --param job=bsize --param bsize_max=61
expect_usage "bsize_ref=-2.8x" run $D --param atom=He --param job=bsize --param bsize_ref=-2.8x
expect_usage "conflicts with" run $D --param atom=He --param basis=x.json --param alpha=0.1
expect_usage "cannot open" run $D --param atom=He --param basis="$work/none.json"
printf '{"atom": "Ne", "K": 10, "alpha": 0.1, "beta": 2, "gamma": 0, "delta": 0, "ranges": {"s": [1, 10]}}' >"$work/ne.json"
expect_usage '"p" must be' run $D --param atom=Ne --param basis="$work/ne.json"
printf '{"atom": "He", "K": 10, "alpha": 0.1, "beta": 2, "gamma": 0, "delta": 0, "ranges": {"s": [1, 10]}, "bsize_tol": 2}' >"$work/he_tol.json"
expect_usage '"bsize_tol"' run $D --param atom=He --param basis="$work/he_tol.json"
# Every field of a basis file is held to its parameter's range or choices (one case per kind of field)
he='"atom": "He", "K": 10, "alpha": 0.1, "beta": 2, "gamma": 0, "delta": 0, "ranges": {"s": [1, 10]}'
basis_case() { # NEEDLE JSON-FIELDS
    printf '{%s}' "$2" >"$work/he_field.json"
    expect_usage "$1" run $D --param atom=He --param basis="$work/he_field.json"
}
basis_case '"gamma" = -2 is out of range; accepted: a number in [-0.9, 100] (as --param gamma)' "${he/\"gamma\": 0/\"gamma\": -2}"
basis_case '"K" = 61 is out of range; accepted: an integer in [2, 60]' "${he/\"K\": 10/\"K\": 61}"
basis_case '"A" is not an integer' "$he, \"A\": 9.5"
basis_case '"c" = 10000 is out of range; accepted: a number in [10, 1000]' "$he, \"c\": 1e4"
basis_case '"hamiltonian" is "klein"; accepted: dirac, schrodinger' "$he, \"hamiltonian\": \"klein\""
basis_case '"nucleus" is not a string; accepted: point, gauss' "$he, \"nucleus\": 1"
basis_case '"format" is not "dfratom_scf basis 1"' "$he, \"format\": \"dfratom_scf basis 2\""
basis_case 'unknown field "gama"' "$he, \"gama\": 1"
basis_case '"ranges": "g" must be' "${he/\"s\": \[1, 10\]/\"s\": [1, 10], \"g\": [1, 2]}"
basis_case 'zeta_10 = 5.12 bohr^-2, not above zeta_9' "${he/\"gamma\": 0, \"delta\": 0/\"gamma\": -0.9, \"delta\": 100}"
# c: past 1000 the Dirac SCF cannot converge in double precision; Z >= c binds no point-nucleus 1s1/2
expect_usage "c=1e4 is out of range; accepted: a number in [10, 1000] (past 1000 the Dirac SCF's round-off" \
    run $D --param atom=He --param c=1e4
expect_usage "c=1e5 is out of range" run $D --param atom=Ne --param c=1e5
expect_usage "c=54 is not above Z = 54 of Xe" run $D --param c=54
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
dhf=$("$SB" validate $D --param atom=Be --param basis="$(dirname "$0")/../../kernels/dfratom_scf/data/bsize_be_dirac.basis.json" \
    --backend openmp_simd --quiet 2>&1)
if printf '%s\n' "$dhf" | grep -qE "^  dirac_fock_same_basis_pyscf .* PASS " &&
    printf '%s\n' "$dhf" | grep -qE "^  basis_file_energy .* PASS " && printf '%s' "$dhf" | grep -q "VALIDATION PASSED"; then
    ok
else
    bad "dfratom_scf basis=bsize_be_dirac.basis.json: no passing PySCF or basis-file check: $dhf"
fi
# The loosest gtol still validates: the I_h C60 check optimises its cage to 1e-5 at most
run_sb validate $F --size 40 --param isomers=8 --param oracle=2 --param gtol=1 --backend openmp_simd --quiet
if [ "$rc" -eq 0 ]; then ok; else bad "fullerene_ff gtol=1: exit $rc, expected 0: $(printf '%s' "$out" | grep FAIL)"; fi
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

# info: bad arguments; --json writes the machine's stored peaks over --runs processes, and the
# results of that folder are divided by them (table names the file).
expect_usage "--runs '0'" info --runs 0
expect_usage "unknown argument '--bogus'" info --bogus
expect_usage "/proc/p.json: cannot create a file in /proc" info --json /proc/p.json
run_sb info --runs 2 --json peaks.json
if [ "$rc" = 0 ] && python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); c = p["cpu"]
assert p["machine"] and c["model"] and c["fma_isa"], p
for k in ("triad_bandwidth_Bps", "fma_fp32_flops", "fma_fp64_flops"):
    assert c[k]["runs"] == 2 and 0 < c[k]["min"] <= c[k]["value"] <= c[k]["max"], (k, c[k])' "$work/run/peaks.json"; then
    cp "$work/run/peaks.json" "$work/peaks.json"
    (cd "$work/run" && "$SB" run $K --size 8 --reps 2 --warmup 0 --quiet --json r.json >/dev/null)
    "$SB" table "$work/run" | tail -1 | grep -q ",$work/run/peaks.json," && ok || bad "table: the run is not divided by the folder's peaks.json"
else
    bad "info --runs 2 --json peaks.json: exit $rc: $err"
fi

# --baseline (MPI efficiency): a one-rank JSON of the same kernel and backend, else exit 2
expect_usage "--baseline needs a file path" run $K --baseline ""
expect_usage "/nonexistent.json" run $K --baseline /nonexistent.json
expect_usage "is $K on openmp_simd, not nlchains" run nlchains --size 64 --baseline "$work/one-rank.json"
expect_usage "needs a value" run $K --baseline
# a forgotten value is not read as a file named like the next option; --opt=--x still is one
expect_usage "needs a value, got the option '--quiet'" run $K --json --quiet
expect_usage "needs a value, got the option '--reps=2'" run $K --size 8 --baseline --reps=2
expect_usage "needs a value, got the option '--runs'" info --json --runs 2

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

# ---- strict result files, interrupted runs, out of memory ---------------------------------
# compare and table refuse a malformed or inconsistent result file: exit 2, one line naming the
# file, the entry and the field. A repetition whose verdict disagrees with the aggregates makes
# the case FAILED (a validation change for compare).
expect_usage "unknown option '-'" run $K -
run_sb validate $K --size "${ci:-8}" --reps 3 --quiet --json r3.json
cp "$work/run/r3.json" "$work/r3.json" 2>/dev/null || bad "validate $K --reps 3 --json: no file (exit $rc: $err)"
# doctor NAME PYTHON: $work/NAME is r3.json after the statement PYTHON on its parsed JSON d
doctor() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); b = d["benchmarks"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$work/r3.json" "$work/$1" "$2"
}
printf '{"benchmarks":[{"name":1}]}\n' >"$work/name_int.json"
expect_usage "$work/name_int.json: benchmarks[0]: field \"name\" is the integer 1" compare "$work/name_int.json" "$work/name_int.json"
expect_usage "$work/name_int.json: benchmarks[0]: field \"name\"" table "$work/name_int.json"
doctor no_rate.json 'del b[2]["items_per_second"]'
expect_usage "no_rate.json: benchmarks[2] (\"$K/openmp_simd/${ci:-8}\"): field \"items_per_second\" is missing" \
    compare "$work/r3.json" "$work/no_rate.json"
expect_usage "field \"items_per_second\" is missing" table "$work/no_rate.json"
expect_usage "field \"items_per_second\" is missing" run $K --baseline "$work/no_rate.json"
doctor rate_text.json 'b[1]["items_per_second"] = "fast"'
expect_usage "benchmarks[1] (\"$K/openmp_simd/${ci:-8}\"): field \"items_per_second\" is the string \"fast\"" \
    compare "$work/rate_text.json" "$work/r3.json"
doctor slow_median.json 'b[3]["real_time"] *= 2'
expect_usage "benchmarks[3] (\"$K/openmp_simd/${ci:-8}_median\"): field \"real_time\"" compare "$work/r3.json" "$work/slow_median.json"
doctor two_reps.json 'del b[0]'
expect_usage "field \"repetitions\" is 3, but the case has 2 repetition entries" compare "$work/r3.json" "$work/two_reps.json"
doctor other_size.json 'b[4]["size"] = 16'
expect_usage "field \"size\" is the integer 16, but the integer ${ci:-8} in benchmarks[0]" compare "$work/r3.json" "$work/other_size.json"
doctor name_newline.json 'b[0]["name"] = "two\nlines"'
expect_usage "benchmarks[0] (\"two?lines\"): field \"name\" does not match" compare "$work/r3.json" "$work/name_newline.json"
# no case in common (another seed): exit 2, one line, not an OK verdict on nothing
doctor other_seed.json 'for e in b: e["seed"] = 2'
expect_usage "have no case in common: nothing compared" compare "$work/r3.json" "$work/other_seed.json"
# (a file as written before the validation moved to the median entry: in every entry)
doctor split.json 'v = next(e["validation"] for e in b if "validation" in e)
for e in b: e["validation"] = json.loads(json.dumps(v))
b[1]["validation"]["passed"] = False'
run_sb compare "$work/r3.json" "$work/split.json"
case "$rc:$out" in
    1:*"VALIDATION CHANGED"*"NEW entries disagree on the validation verdict (5 PASS, 1 FAIL"*) ok ;;
    *) bad "compare with a repetition whose verdict disagrees: exit $rc, expected 1 and a note: $out" ;;
esac
run_sb table "$work/split.json"
if [ "$rc" = 0 ] && printf '%s' "$out" | tail -1 | grep -q ',false,'; then ok; else bad "table split.json: exit $rc: $out"; fi

# Google Benchmark's own output (tests/data): Complexity() fits skipped, time-only entries compared
# by time, an errored entry a failure: exit 0 or 1, never 2 (usage).
gb=$(cd "$(dirname "$0")/.." && pwd)/data
run_sb compare "$gb/gbench_old.json" "$gb/gbench_new.json"
case "$rc:$err:$out" in
    "1::"*"FAIL (benchmark error)"*"skipped (complexity fit)"*) ok ;;
    *) bad "compare gbench_old gbench_new: exit $rc (expected 1, no stderr): $err" ;;
esac
run_sb compare "$gb/gbench_old.json" "$gb/gbench_old.json"
[ "$rc" = 0 ] && [ -z "$err" ] && ok || bad "compare gbench_old gbench_old: exit $rc (expected 0): $err"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["benchmarks"][-1]["error_occurred"] = "yes"
json.dump(d, open(sys.argv[2], "w"))' "$gb/gbench_new.json" "$work/gb_bad_error.json"
expect_usage "field \"error_occurred\" is the string \"yes\"; expected true or false" compare "$gb/gbench_old.json" "$work/gb_bad_error.json"

# The validation, the launches and the counters describe the case: once, in the median entry, so
# that a file grows by a repetition's times only (2000 repetitions of a tiny case).
run_sb run $K --size 4 --reps 2000 --warmup 0 --quiet --json big.json
if [ "$rc" = 0 ] && [ "$(grep -c '"validation"' "$work/run/big.json")" = 1 ] \
    && [ "$(($(stat -c %s "$work/run/big.json") / 2000))" -lt 1500 ]; then
    ok
else
    bad "run $K --reps 2000: exit $rc, $(grep -c '"validation"' "$work/run/big.json" 2>/dev/null) validation blocks, $(stat -c %s "$work/run/big.json" 2>/dev/null) bytes"
fi
# Committed results from before (the validation in every entry) still read.
"$SB" table "$(dirname "$0")/../../results" >/dev/null 2>"$work/err" && ok || bad "table results/: $(cat "$work/err")"

# make campaign (tools/campaign.sh): a tree with uncommitted changes is refused with one line
# (exit 2), dry runs too; on a clean tree a dry run prints the commands: the stored peaks, each
# case of the case list under its file name, cuda ones only with a GPU, then make report.
campaign=$(cd "$(dirname "$0")/../.." && pwd)/tools/campaign.sh
mkdir -p "$work/repo" "$work/cases"
git -C "$work/repo" init -q && git -C "$work/repo" -c user.email=t@t -c user.name=t commit --allow-empty -qm base
cp "$work/r3.json" "$work/cases/$K.openmp_simd.${ci:-8}.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for e in d["benchmarks"]: e["backend"] = "cuda"
json.dump(d, open(sys.argv[2], "w"))' "$work/r3.json" "$work/cases/$K.cuda.256.json" # a headline name: --profile
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for e in d["benchmarks"]: e["backend"], e["kernel"] = "cuda", "eri_brush"
json.dump(d, open(sys.argv[2], "w"))' "$work/r3.json" "$work/cases/eri_brush.cuda.16.molecule-taxol.basis-cc-pvdz.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for e in d["benchmarks"]: e["profile"] = {"tool": "PAPI 7.0.1.0", "kind": "cpu"}
json.dump(d, open(sys.argv[2], "w"))' "$work/r3.json" "$work/cases/$K.openmp_simd.profiled.json" # profiled before: again
: >"$work/repo/uncommitted.txt"
run_cmd bash "$campaign" --dry-run --repo "$work/repo" --from "$work/cases" --out "$work/new"
lines=$(printf '%s\n' "$err" | grep -c .)
case "$rc:$lines:$err:$out" in
    "2:1:campaign: the tree $work/repo has uncommitted changes"*":") ok ;;
    *) bad "campaign on a dirty tree: exit $rc (expected 2, one line, nothing run): $err $out" ;;
esac
rm "$work/repo/uncommitted.txt"
run_cmd bash "$campaign" --dry-run --repo "$work/repo" --from "$work/cases" --out "$work/new"
run_cuda="--backend cuda --size ${ci:-8} --seed 1 --reps 3 --quiet --profile --json $work/new/$K.cuda.256.json"
# eri_brush's headline is profiled like any other; its --profile counts it as one range
run_eri="env $SB run eri_brush --backend cuda"
if "$SB" list | grep -q "cuda .*not available"; then
    want_cuda="# skipped: $K cuda ${ci:-8}" want_eri="# skipped: eri_brush cuda"
else
    want_cuda=$run_cuda want_eri=$run_eri
fi
if [ "$rc" = 0 ] && [ ! -e "$work/new" ] && printf '%s\n' "$out" | grep -q -- "info --runs 5 --json $work/new/peaks.json" \
    && printf '%s\n' "$out" | grep -q -- "run $K --backend openmp_simd --size ${ci:-8} --seed 1 --reps 3 --quiet --json $work/new/$K.openmp_simd.${ci:-8}.json" \
    && printf '%s\n' "$out" | grep -qF -- "--quiet --profile --json $work/new/$K.openmp_simd.profiled.json" \
    && printf '%s\n' "$out" | grep -qF -- "$want_cuda" && printf '%s\n' "$out" | grep -qF -- "$want_eri" && printf '%s\n' "$out" | tail -1 | grep -qE "make -C $work/repo -o [^ ]+ report"; then
    ok
else
    bad "campaign --dry-run: exit $rc, or the commands are not the peaks, the cases and the report: $out $err"
fi
# A campaign in parts: --peak-runs 0 needs the peaks a first part stored; --no-report runs no report.
run_cmd bash "$campaign" --dry-run --repo "$work/repo" --from "$work/cases" --out "$work/new" --peak-runs 0
case "$rc:$(printf '%s\n' "$err" | grep -c .):$out" in
    "2:1:"*) ok ;;
    *) bad "campaign --peak-runs 0 without peaks.json: exit $rc (expected 2, one line): $err $out" ;;
esac
mkdir -p "$work/new" && echo '{}' >"$work/new/peaks.json"
run_cmd bash "$campaign" --dry-run --repo "$work/repo" --from "$work/cases" --out "$work/new" --peak-runs 0 --no-report
if [ "$rc" = 0 ] && ! printf '%s\n' "$out" | grep -q -- " info --runs" && ! printf '%s\n' "$out" | grep -q "make -C" \
    && printf '%s\n' "$out" | grep -q "peaks: kept $work/new/peaks.json"; then
    ok
else
    bad "campaign --peak-runs 0 --no-report: exit $rc, or it still probes or reports: $out $err"
fi
rm -rf "$work/new"

# SIGINT in the middle of a run: the process ends by the signal, no JSON, no temporary.
rm -rf "$work/run" && mkdir -p "$work/run"
(cd "$work/run" && timeout --preserve-status -s INT 2 "$SB" run $K --size 48 --reps 100000 --quiet --json int.json \
    >/dev/null 2>&1)
rc=$?
left=$(ls -A "$work/run")
if [ "$rc" = 130 ] && [ -z "$left" ]; then ok; else bad "SIGINT mid-run: exit $rc (expected 130), left: $left"; fi
# The writer's temporary is a new file of its own: a user's FILE.tmp (a file or a folder) is
# never touched, and nothing but FILE is left.
rm -rf "$work/run" && mkdir -p "$work/run/d.json.tmp" && printf 'mine\n' >"$work/run/f.json.tmp"
(cd "$work/run" && "$SB" validate $K --size "${ci:-8}" --quiet --json f.json >/dev/null 2>&1 &&
    "$SB" validate $K --size "${ci:-8}" --quiet --json d.json >/dev/null 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "$(cat "$work/run/f.json.tmp")" = mine ] && [ -d "$work/run/d.json.tmp" ] \
    && [ "$(ls -A "$work/run" | tr '\n' ' ')" = "d.json d.json.tmp f.json f.json.tmp " ]; then
    ok
else
    bad "--json beside a user's FILE.tmp: exit $rc, files: $(ls -A "$work/run" | tr '\n' ' ')"
fi
# SIGTERM while the JSON is written: held until the file is complete and renamed. The shim
# tests/harness/json_stall.c holds the writer at its rename() (the temporary complete, FILE not yet
# there) until this test opens the FIFO gate. (SIGTERM: a background job of a script ignores
# SIGINT.)
stall=${STALL_SO:-$(dirname "$SB")/tests/json_stall.so}
if [ -f "$stall" ]; then
    rm -rf "$work/run" "$work/ready" "$work/gate" && mkdir -p "$work/run" && mkfifo "$work/gate"
    LD_PRELOAD=$stall SB_STALL_READY=$work/ready SB_STALL_GATE=$work/gate ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
        "$SB" validate $K --size "${ci:-8}" --quiet --json "$work/run/w.json" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 600); do [ -s "$work/ready" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1; done
    tmp=$(cat "$work/ready" 2>/dev/null)
    kill -TERM $pid 2>/dev/null
    sleep 0.3
    kill -0 $pid 2>/dev/null && held=1 || held=0
    timeout 10 sh -c ': >"$1"' _ "$work/gate" # no reader (the run ended early): not waited for
    wait $pid
    rc=$?
    if [ "$held" = 1 ] && [ "$rc" = 143 ] && [ "$(dirname "$tmp")" = "$work/run" ] && [ "$(basename "$tmp")" != w.json.tmp ] \
        && [ "$(ls -A "$work/run")" = w.json ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))["benchmarks"][3]' "$work/run/w.json"; then
        ok
    else
        bad "SIGTERM during the JSON write: held $held, exit $rc (expected 143 after a complete write), temporary '$tmp', files: $(ls -A "$work/run")"
    fi
else
    echo "SKIP: SIGTERM during the JSON write: no $stall (make $stall)"
fi

# Host memory runs out (a 2 GB address-space limit): exit 3, one line, no JSON. Not under
# AddressSanitizer, whose shadow memory needs terabytes of address space.
if grep -qa "__asan_init" "$SB"; then
    echo "SKIP: out-of-memory cases (ulimit -v) under AddressSanitizer"
else
    # expect_oom NEEDLE ARGS...: as expect_usage, for exit 3
    expect_oom() {
        local needle=$1
        shift
        run_sb_limited "$@"
        local lines
        lines=$(printf '%s\n' "$err" | grep -c .)
        if [ "$rc" -ne 3 ] || [ "$lines" -ne 1 ] || [ -n "$files" ]; then
            bad "ulimit -v 2 GB, scibench $*: exit $rc (expected 3), $lines stderr lines, files '$files': $err"
            return
        fi
        case "$err" in
            "scibench: error: "*"$needle"*) ok ;;
            *) bad "ulimit -v 2 GB, scibench $*: stderr does not mention '$needle': $err" ;;
        esac
    }
    run_sb_limited() {
        rm -rf "$work/run" && mkdir -p "$work/run"
        (cd "$work/run" && ulimit -v 2000000 && OMP_NUM_THREADS=1 "$SB" "$@" >"$work/out" 2>"$work/err")
        rc=$?
        out=$(cat "$work/out") err=$(cat "$work/err") files=$(ls -A "$work/run")
    }
    expect_oom "out of memory" run lattice_mc --size 1024 --reps 1 --warmup 0 --quiet --json oom.json
    expect_oom "out of memory" run nlchains --size 4096 --param copies=65536 --reps 1 --warmup 0 --quiet --json oom.json
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
