#!/usr/bin/env bash
# MPI runs on the GPU machine: each kernel on 1 rank (the baseline) and on R ranks, with the
# parallel efficiency against the baseline (--baseline). Each rank takes local rank mod the GPU
# count: on nvidia-h200-x2 a GPU each, on a one-GPU machine R ranks share it (MPS is not used);
# the CPU runs give each rank OMP_THREADS threads.
# JSON and the log land in $OUT (res/<machine>-mpi/, log-<what>.txt).
# Prepare here (Open MPI's runtime is not on that machine; it is relocated with OPAL_PREFIX):
#   make build/scibench-mpi
#   ../shared/tools/device-deps.sh libgomp1 libcmocka0 libnlopt0 openmpi-bin openmpi-common libopenmpi3 \
#     libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 \
#     ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libmunge2 libnuma1
#   tar czf carry/mpi.tgz build/scibench-mpi .devdeps
# There:  tar xzf carry/mpi.tgz && bash tools/device_mpi.sh gpu|cpu [KERNEL ...]
set -u
what=${1:-gpu}; shift
kernels=${*:-lattice_mc nlchains fullerene_ff eri_brush dfratom_scf}
out=${OUT:-/tmp/sb_out}
dd=$PWD/.devdeps/usr
export PATH=$dd/bin:$PATH LD_LIBRARY_PATH=$dd/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export OPAL_PREFIX=$dd OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# the machine's own PMIx plugins do not fit the carried PMIx: keep their load errors quiet
export PMIX_MCA_pcompress_base_silence_warning=1 PMIX_MCA_mca_base_component_show_load_errors=0
export OMPI_MCA_mca_base_component_show_load_errors=0
# dpkg -x does not run Debian's alternatives: name the launcher
for t in mpirun mpiexec; do [ -e "$dd/bin/$t" ] || ln -s "$t.openmpi" "$dd/bin/$t"; done
# OpenBLAS (linked statically) starts a thread per core in every rank: with several ranks on a
# host they oversubscribe it (dfratom_scf's small LAPACK calls ran 3x slower); one each.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
R=${RANKS:-2}
sb=${SB:-build/scibench-mpi}
machine=$($sb machine)
res=$out/res/$machine-mpi
mkdir -p "$res"
exec > >(tee "$out/log-$what.txt") 2>&1
mpirun --version | head -1
nvidia-smi -L
nvidia-smi topo -m || true
fail=0
# pair BACKEND TAG "1-rank args" "R-rank args" [BASE_TAG]: baseline, then R ranks against it;
# with BASE_TAG, that pair's baseline is this one's too (the same one-rank case, run once, so
# that results/<machine>-mpi/ holds each case once)
pair() {
  local backend=$1 tag=$2 one=$3 many=$4
  local base="$res/$kernel.$backend.${5:-$tag}.ranks-1.json" json="$res/$kernel.$backend.$tag.ranks-$R.json"
  echo "== $kernel $backend $tag: 1 rank [$one] vs $R ranks [$many]"
  # shellcheck disable=SC2086
  [ -n "${5:-}" ] || mpirun -n 1 $bind "$sb" run "$kernel" --backend "$backend" --quiet $one --json "$base" \
    | grep -E "^(throughput|time per)" || fail=1
  # shellcheck disable=SC2086
  mpirun -n "$R" $bind "$sb" run "$kernel" --backend "$backend" --quiet $many --json "$json" --baseline "$base" \
    | grep -E "^(throughput|time per|MPI|  per rank|  communication|  efficiency|VALIDATION)" || fail=1
  # the same problem on both sides: the physics must agree (exactly where the ranks do the same arithmetic)
  [ "$one" = "$many" ] || return 0
  python3 - "$base" "$json" <<'PY' || fail=1
import json, sys
keys = ["lattice_checksum", "accepted_moves", "energy_per_site", "order_parameter_S", "entropy_info",
        "energy_mean", "evaluations_mean", "coulomb_energy_trJD", "bsopt_energy", "bsopt_alpha", "bsopt_scfs"]
med = [next(b for b in json.load(open(f))["benchmarks"] if b.get("aggregate_name") == "median") for f in sys.argv[1:]]
bad = 0
for k in keys:
    if k in med[0] and k in med[1]:
        x, y = med[0][k], med[1][k]
        rel = abs(x - y) / max(abs(x), 1e-300)
        print(f"  same problem: {k} 1 rank {x!r}  many {y!r}  rel diff {rel:.1e}")
        bad |= rel > 1e-12
sys.exit(bad)
PY
}
if [ "$what" = gpu ]; then
  bind="--bind-to none"
  for kernel in $kernels; do
  case $kernel in
  lattice_mc)
    # the issue's weak bar is 512^3 per GPU: 644^3 / 2 = 1.335e8 sites a rank (512^3 = 1.342e8;
    # the lattice is cubic and L must divide by 2R); efficiency compares site updates/s per GPU
    pair cuda strong-512 "--size 512 --reps 10" "--size 512 --reps 10"
    pair cuda weak-512-644 "--size 512 --reps 10" "--size 644 --reps 10" strong-512
    pair cuda droplet-512 "--size 512 --reps 5 --param geometry=droplet" "--size 512 --reps 5 --param geometry=droplet" ;;
  nlchains)
    pair cuda weak-1024 "--size 1024 --reps 5 --param copies=8192" "--size 1024 --reps 5 --param copies=16384" ;;
  fullerene_ff)
    pair cuda weak-200 "--size 200 --reps 3 --param isomers=10000" "--size 200 --reps 3 --param isomers=20000" ;;
  eri_brush)
    pair cuda strong-taxol "--reps 2 --param molecule=taxol --param basis=cc-pvdz" \
      "--reps 2 --param molecule=taxol --param basis=cc-pvdz" ;;
  dfratom_scf)
    pair cuda bsopt-Be-16 "--size 16 --reps 2 --param atom=Be --param job=bsopt --param bsopt_starts=4" \
      "--size 16 --reps 2 --param atom=Be --param job=bsopt --param bsopt_starts=4" ;;
  esac
  done
else
  # CPU: OMP_THREADS threads per rank on both sides, so the ranks add cores
  export OMP_NUM_THREADS=${OMP_THREADS:-8} OMP_PROC_BIND=false
  bind="--bind-to none"
  for kernel in $kernels; do
  case $kernel in
  lattice_mc) pair openmp_simd strong-128 "--size 128 --reps 5" "--size 128 --reps 5" ;;
  nlchains) pair openmp_simd weak-1024 "--size 1024 --reps 3 --param copies=1024" "--size 1024 --reps 3 --param copies=2048" ;;
  fullerene_ff) pair openmp_simd strong-60-all "--size 60 --reps 3 --param isomers=all" "--size 60 --reps 3 --param isomers=all" ;;
  eri_brush) pair openmp_simd strong-16 "--size 16 --reps 3" "--size 16 --reps 3" ;;
  dfratom_scf)
    pair openmp_simd bsopt-Be-16 "--size 16 --reps 2 --param atom=Be --param job=bsopt --param bsopt_starts=4" \
      "--size 16 --reps 2 --param atom=Be --param job=bsopt --param bsopt_starts=4" ;;
  esac
  done
fi
echo "device_mpi: $what done, fail=$fail"
# one archive: the device tool brings back only a few files per call
tar czf "$out/res-$what.tgz" -C "$out" res
exit $fail
