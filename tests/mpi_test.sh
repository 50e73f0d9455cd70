#!/usr/bin/env bash
# MPI distribution test (a build made with `make MPI=1`): every kernel at its CI size on the
# CPU backend, once on 1 rank and once on 2 ranks, and the physics counters must agree: exactly
# where the ranks compute the same numbers in the same order, to the stated relative
# tolerance where only the order of a sum over ranks differs. Usage: SB=build-mpi/scibench bash tests/mpi_test.sh
set -uo pipefail
SB=${SB:-build-mpi/scibench}
RANKS=${RANKS:-2}
# CI runs as root in a container: Open MPI refuses root unless told, and has no network.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

if ! "$SB" --version >/dev/null 2>&1; then echo "mpi_test: $SB does not run" >&2; exit 1; fi
if ! command -v mpirun >/dev/null; then echo "mpi_test: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; fi

# compare NAME FILE1 FILE2 "counter:tol ..." ; tol 0 = exact
compare() {
  python3 - "$@" <<'PY'
import json, sys
name, f1, f2, spec = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def median(path):
    d = json.load(open(path))
    for b in d["benchmarks"]:
        if b.get("aggregate_name") == "median":
            return b, d["context"]["mpi"]["ranks"]
    sys.exit(f"{path}: no median entry")
a, ra = median(f1)
b, rb = median(f2)
bad = 0
for item in spec.split():
    key, tol = item.rsplit(":", 1)
    tol = float(tol)
    if key not in a or key not in b:
        print(f"  FAIL {name}: counter {key} missing"); bad = 1; continue
    x, y = a[key], b[key]
    ok = x == y if tol == 0 else abs(x - y) <= tol * max(abs(x), abs(y), 1e-300)
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: {key} {ra} rank(s) {x!r}  {rb} ranks {y!r}  ({'exact' if tol == 0 else f'rel {tol:g}'})")
    bad |= not ok
for side, r in ((a, ra), (b, rb)):
    v = side["validation"]
    if not v["passed"] or not v["checks"]:
        print(f"  FAIL {name}: the {r}-rank run's validation failed"); bad = 1
if rb > 1 and not any(c["name"] == "ranks_passing_validation" for c in b["validation"]["checks"]):
    print(f"  FAIL {name}: the {rb}-rank run did not check every rank"); bad = 1
sys.exit(bad)
PY
}

# case NAME "scibench args" "counter:tol ..."
case_() {
  local name=$1 args=$2 spec=$3
  echo "== $name: 1 vs $RANKS ranks"
  # shellcheck disable=SC2086
  if ! mpirun -n 1 "$SB" run $args --quiet --reps 2 --warmup 1 --json "$tmp/$name.1.json" >"$tmp/$name.1.log" 2>&1; then
    echo "  FAIL $name: 1 rank exited non-zero"; tail -5 "$tmp/$name.1.log"; fail=1; return
  fi
  # shellcheck disable=SC2086
  if ! mpirun -n "$RANKS" "$SB" run $args --quiet --reps 2 --warmup 1 --json "$tmp/$name.$RANKS.json" \
       --baseline "$tmp/$name.1.json" >"$tmp/$name.$RANKS.log" 2>&1; then
    echo "  FAIL $name: $RANKS ranks exited non-zero"; tail -5 "$tmp/$name.$RANKS.log"; fail=1; return
  fi
  grep -E "^MPI|^  (per rank|communication|efficiency)" "$tmp/$name.$RANKS.log" | sed 's/^/  /'
  compare "$name" "$tmp/$name.1.json" "$tmp/$name.$RANKS.json" "$spec" || fail=1
}

case_ lattice_mc_bulk "lattice_mc --size 32" \
  "lattice_checksum:0 accepted_moves:0 energy_per_site:0 order_parameter_S:0 acceptance_rate:0"
case_ lattice_mc_droplet "lattice_mc --size 32 --param geometry=droplet" \
  "lattice_checksum:0 accepted_moves:0 energy_per_site:0 order_parameter_S:0 acceptance_rate:0"
case_ nlchains_fput "nlchains --size 64 --param copies=64 --param steps=200 --param batch=100" \
  "energy_per_site:1e-14 entropy_info:1e-13 entropy_wt:1e-13 steps_total:0 mode_energy_collections:0"
# dnls steps through FFTW_MEASURE plans, which each process picks by timing: two runs (on any
# rank count) may use different FFT algorithms and differ by ~1e-12 after 100 steps
case_ nlchains_dnls "nlchains --size 64 --param model=dnls --param copies=63 --param steps=100" \
  "energy_per_site:1e-11 norm_per_site:1e-11 entropy_info:1e-11"
case_ fullerene_ff "fullerene_ff --size 50 --param isomers=all" \
  "isomers:0 converged_fraction:0 cg_iterations_mean:0 evaluations_mean:0 energy_mean:0"
case_ eri_brush "eri_brush --size 4" "coulomb_energy_trJD:1e-12 shell_quartets:0"
case_ dfratom_scf_bsopt "dfratom_scf --size 12 --param atom=Be --param job=bsopt --param bsopt_starts=3 --param bsopt_evals=12" \
  "bsopt_energy:0 bsopt_alpha:0 bsopt_beta:0 bsopt_scfs:0 bsopt_best_start:0 bsopt_fock_builds:0"
# job=bsize deals each step's candidates to the ranks; the padding groups are the step's, so every
# candidate's optimisation is the same on any number of ranks
case_ dfratom_scf_bsize "dfratom_scf --param atom=He --param job=bsize --param hamiltonian=schrodinger --param nucleus=point \
  --param bsize_max=10 --param bsize_tol=1e-4 --param bsize_evals=20 --param bsize_groups=2" \
  "bsize_energy:0 bsize_alpha:0 bsize_s_last:0 bsize_scfs:0 bsize_fock_builds:0 bsize_rounds:0"

# bad input under mpirun: one line from rank 0, exit 2, on every rank alike
echo "== bad input under mpirun"
out=$(mpirun -n "$RANKS" "$SB" run nlchains --size 64 --param copies=1 --quiet 2>&1); rc=$?
n=$(grep -c "copies=1 is fewer than" <<<"$out")
if [ "$rc" -ne 2 ] || [ "$n" -ne 1 ]; then echo "  FAIL copies < ranks: exit $rc, $n error lines"; echo "$out" | tail -3; fail=1
else echo "  ok   copies < ranks: exit 2, one error line"; fi
out=$(mpirun -n "$RANKS" "$SB" run lattice_mc --size 30 --quiet 2>&1); rc=$?
if [ "$rc" -ne 2 ]; then echo "  FAIL lattice_mc L=30 on $RANKS ranks: exit $rc"; echo "$out" | tail -3; fail=1
else echo "  ok   lattice_mc L not divisible by 2 x ranks: exit 2"; fi
out=$("$SB" run nlchains --size 64 --baseline /nonexistent.json --quiet 2>&1); rc=$?
if [ "$rc" -ne 2 ]; then echo "  FAIL --baseline missing file: exit $rc"; fail=1; else echo "  ok   --baseline of a missing file: exit 2"; fi

[ "$fail" = 0 ] && echo "mpi_test: all passed" || echo "mpi_test: FAILED"
exit "$fail"
