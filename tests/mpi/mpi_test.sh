#!/usr/bin/env bash
# MPI distribution test (a build made with `make MPI=1`): every kernel at its CI size on the
# CPU backend, once on 1 rank and once on 2 ranks, and the physics counters must agree: exactly
# where the ranks compute the same numbers in the same order, to the stated relative
# tolerance where only the order of a sum over ranks differs. Usage: SB=build-mpi/scibench bash tests/mpi/mpi_test.sh
set -uo pipefail
SB=${SB:-build-mpi/scibench}
RANKS=${RANKS:-2}
source "$(dirname "$0")/mpi_lib.sh"

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
case_ eri_brush "eri_brush --size 4" "coulomb_energy_trJD:1e-12 shell_quartets:0 shell_quartets_digested:0"
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
expect "comm=nccl on the CPU backend" 2 "needs --backend cuda" mpirun -n "$RANKS" "$SB" run lattice_mc --size 32 --param comm=nccl --quiet
expect "comm=host on the CPU backend" 0 "" mpirun -n "$RANKS" "$SB" run lattice_mc --size 32 --param comm=host --quiet --reps 1

[ "$fail" = 0 ] && echo "mpi_test: all passed" || echo "mpi_test: FAILED"
exit "$fail"
