#!/usr/bin/env bash
# make scaling-mpi: every kernel's cuda backend on 1, 2, 4, ... GPUs of this host (one MPI rank
# a GPU), strong and weak scaling, JSON into results/<machine>-mpi/ with parallel_efficiency
# against the one-rank run of the same case; then lattice_mc and eri_brush host-staged
# (--param comm=host) beside NCCL on the largest count, for the README's comparison.
# Environment: SB (an MPI build, default build/scibench-mpi), GPUS (most ranks, default all
# GPUs), KERNELS (default all five), RESULTS (default results), MPIRUN_ARGS.
# NCCL: NCCL_HOME, the build's, or the nvidia-nccl-cu13 wheel of python3 (found here).
set -u
SB=${SB:-build/scibench-mpi}
if [ -z "${NCCL_HOME:-}" ]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null) && export NCCL_HOME
fi
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
# OpenBLAS (linked statically) starts a thread per core in every rank; ranks would oversubscribe
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
gpus=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "${gpus:-0}" -ge 1 ] || { echo "scaling_mpi: no GPU on this host" >&2; exit 2; }
counts=1
for ((r = 2; r <= gpus; r *= 2)); do counts="$counts $r"; done
out=${RESULTS:-results}/$("$SB" machine)-mpi
mkdir -p "$out"
fail=0
# lattice_mc weak: 512^3 sites a GPU as a cube whose L divides by 2R (644^3 = 1.995 x 512^3, 816^3 = 4.05 x)
weak=([2]=644 [4]=816 [8]=1024)
echo "scaling_mpi: $SB on GPU counts $counts into $out"

# one KERNEL TAG R BASE args...: R ranks, JSON $out/KERNEL.cuda.TAG.ranks-R.json; BASE names the
# one-rank JSON of the same problem per GPU (weak) or in all (strong) for the efficiency
one() {
  local kernel=$1 tag=$2 r=$3 base=$4
  shift 4
  local json="$out/$kernel.cuda.$tag.ranks-$r.json" b=()
  [ "$r" -gt 1 ] && b=(--baseline "$out/$kernel.cuda.$base.ranks-1.json")
  echo "== $kernel $tag on $r GPU(s): $*"
  # shellcheck disable=SC2086
  timeout "${CASE_LIMIT:-300}" mpirun -n "$r" --bind-to none ${MPIRUN_ARGS:-} "$SB" run "$kernel" --backend cuda \
    --quiet "$@" --json "$json" "${b[@]}" | grep -E "^(time per|throughput|  efficiency|  communication|  data between|VALIDATION)" \
    || { echo "   FAILED"; fail=1; }
}

for kernel in ${KERNELS:-lattice_mc nlchains fullerene_ff eri_brush dfratom_scf}; do
  for r in $counts; do
    case $kernel in
    lattice_mc)
      one lattice_mc strong-512 "$r" strong-512 --size 512 --reps 10
      [ "$r" -gt 1 ] && one lattice_mc weak-512 "$r" strong-512 --size "${weak[$r]}" --reps 10
      one lattice_mc droplet-512 "$r" droplet-512 --size 512 --reps 5 --param geometry=droplet ;;
    nlchains) one nlchains weak-1024 "$r" weak-1024 --size 1024 --reps 5 --param copies=$((8192 * r)) ;;
    fullerene_ff) one fullerene_ff weak-200 "$r" weak-200 --size 200 --reps 3 --param isomers=$((10000 * r)) ;;
    eri_brush) one eri_brush strong-taxol "$r" strong-taxol --reps 5 --param molecule=taxol --param basis=cc-pvdz ;;
    dfratom_scf) one dfratom_scf bsopt-Be-16 "$r" bsopt-Be-16 --size 16 --reps 2 --param atom=Be --param job=bsopt \
                   --param bsopt_starts=4 ;;
    esac
  done
done
# host-staged against NCCL, on the most GPUs
last=${counts##* }
if [ "$last" -gt 1 ]; then
  for kernel in ${KERNELS:-lattice_mc eri_brush}; do
    case $kernel in
    lattice_mc) one lattice_mc weak-512-host "$last" strong-512 --size "${weak[$last]}" --reps 10 --param comm=host ;;
    eri_brush) one eri_brush strong-taxol-host "$last" strong-taxol --reps 5 --param molecule=taxol --param basis=cc-pvdz \
                 --param comm=host ;;
    esac
  done
fi
echo "scaling_mpi: done, fail=$fail"
exit $fail
