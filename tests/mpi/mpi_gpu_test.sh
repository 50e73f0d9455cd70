#!/usr/bin/env bash
# MPI on GPUs (an MPI build on a host with RANKS GPUs, `make test-mpi-gpu RANKS=2`): every
# kernel's cuda backend on 1 rank and on RANKS ranks, the ranks' GPU data moving through NCCL
# (and lattice_mc's halo also host-staged), with the physics counters compared exactly where
# the ranks compute the same numbers in the same order and to the stated relative tolerance
# where only the order of a sum over ranks differs; then the failures: NCCL asked for where it
# is missing, ranks sharing a GPU unasked, and a transfer failing mid-run.
# NCCL: NCCL_HOME, or the build's, or the nvidia-nccl-cu13 wheel of python3 (found here).
set -uo pipefail
SB=${SB:-build/scibench-mpi}
RANKS=${RANKS:-2}
if [ -z "${NCCL_HOME:-}" ]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null) && export NCCL_HOME
fi
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
source "$(dirname "$0")/mpi_lib.sh"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${gpus:-0}" -lt "$RANKS" ]; then
  echo "mpi_gpu_test: $RANKS ranks need $RANKS GPUs, this host has ${gpus:-0}" >&2
  exit 1
fi
C="--backend cuda --param comm=nccl"
# L = 64 splits into 2 R slabs of whole plane pairs for R = 2 and 4
case_ lattice_mc_bulk "lattice_mc $C --size 64" \
  "lattice_checksum:0 accepted_moves:0 energy_per_site:0 order_parameter_S:0 acceptance_rate:0" nccl
case_ lattice_mc_droplet "lattice_mc $C --size 64 --param geometry=droplet" \
  "lattice_checksum:0 accepted_moves:0 energy_per_site:0 order_parameter_S:0 acceptance_rate:0" nccl
case_ lattice_mc_host "lattice_mc --backend cuda --param comm=host --size 64" \
  "lattice_checksum:0 accepted_moves:0 energy_per_site:0 order_parameter_S:0 acceptance_rate:0" host
case_ nlchains_fput "nlchains $C --size 64 --param copies=256 --param steps=200 --param batch=100" \
  "energy_per_site:1e-14 entropy_info:1e-13 entropy_wt:1e-13 steps_total:0 mode_energy_collections:0" nccl
case_ fullerene_ff "fullerene_ff $C --size 50 --param isomers=all" \
  "isomers:0 converged_fraction:0 cg_iterations_mean:0 evaluations_mean:0 energy_mean:0" nccl
# J[D] summed over the ranks on the GPUs: the same integrals, added in another order
case_ eri_brush "eri_brush $C --param molecule=benzene --param basis=cc-pvdz" \
  "coulomb_energy_trJD:1e-12 shell_quartets:0 shell_quartets_digested:0" nccl
case_ eri_brush_host "eri_brush --backend cuda --param comm=host --param molecule=benzene --param basis=cc-pvdz" \
  "coulomb_energy_trJD:1e-12 shell_quartets:0 shell_quartets_digested:0" host

echo "== failures under mpirun"
L="run lattice_mc --backend cuda --size 64 --quiet --reps 2"
expect "comm=nccl where NCCL is missing" 2 "comm=nccl: libnccl.so.2 not found" \
  env NCCL_HOME=/nonexistent mpirun -n "$RANKS" -x NCCL_HOME "$SB" $L --param comm=nccl
expect "comm=auto where NCCL is missing: host-staged" 0 "" \
  env NCCL_HOME=/nonexistent mpirun -n "$RANKS" -x NCCL_HOME "$SB" $L
expect "ranks sharing one GPU unasked" 2 "share_gpu=1" \
  mpirun -n "$RANKS" -x SB_CUDA_DEVICE=0 "$SB" $L
expect "ranks sharing one GPU, asked: host-staged" 0 "" \
  mpirun -n "$RANKS" -x SB_CUDA_DEVICE=0 "$SB" $L --param share_gpu=1
expect "a transfer failing mid-run" 3 "injected by SB_COMM_FAIL_AFTER" \
  mpirun -n "$RANKS" -x SB_COMM_FAIL_AFTER=5 "$SB" $L --param comm=nccl

[ "$fail" = 0 ] && echo "mpi_gpu_test: all passed on $RANKS ranks" || echo "mpi_gpu_test: FAILED on $RANKS ranks"
exit "$fail"
