#!/usr/bin/env bash
# Runs on the GPU machine (the `device` tool), over builds made on the dev machine:
# GPU tests, the hardware report, each kernel's benchmark matrix, a hyperfine
# comparison of the backends and a CPU thread-scaling sweep. Everything lands in
# $OUT: log.txt and results.tgz (results/<machine>[-avx512]/... as committed).
# Prepare: make tests && make AVX512=1 BUILD=build-avx512 build-avx512/scibench
#          && ../shared/tools/device-deps.sh libgomp1 libcmocka0
# Call:    carry [".devdeps", "build", "build-avx512"]; bash tools/device_run.sh [KERNEL]
set -u
kernel=${1:-lattice_mc}
out=${OUT:-/tmp/sb_out}
export PATH=$PWD/.devdeps/usr/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.devdeps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# Thread placement moves the CPU's FMA peak by ~30% on this VM: pin, and record it.
export OMP_PROC_BIND=close OMP_PLACES=cores
sb=build/scibench
machine=$($sb machine)
res=$out/res/$machine res512=$out/res/$machine-avx512
mkdir -p "$res" "$res512"
exec > >(tee "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)|L3"
fail=0
for t in $(ls build/tests/gpu_* | grep -v "\.d$"); do echo "== $t"; SB_REQUIRE_GPU=1 "$t" || fail=1; done
$sb info || fail=1
# run SB DIR BACKEND SIZE TAG [args]: one case, JSON named as `make results` names it
run() {
  local bin=$1 dir=$2 backend=$3 size=$4 tag=$5; shift 5
  $bin run "$kernel" --backend "$backend" --size "$size" --quiet "$@" --json "$dir/$kernel.$backend.$size$tag.json" || fail=1
}
case $kernel in
lattice_mc)
  for L in 64 128 256; do run $sb "$res" cuda $L "" --reps 10; done
  run $sb "$res" cuda 128 .geometry-droplet --reps 10 --param geometry=droplet
  run $sb "$res" cuda 256 .geometry-droplet --reps 10 --param geometry=droplet
  for L in 64 128 256; do
    run $sb "$res" openmp_simd $L "" --reps 5
    [ -x build-avx512/scibench ] && run build-avx512/scibench "$res512" openmp_simd $L "" --reps 5
  done
  [ -x build-avx512/scibench ] && run build-avx512/scibench "$res512" openmp_simd 128 .geometry-droplet --reps 5 --param geometry=droplet
  run $sb "$res" reference 64 "" --reps 3
  echo "== CPU thread scaling, AVX-512 build, L=256 (site updates/s)"
  for n in 1 2 4 8 16; do
    printf 'threads %2d: ' $n
    OMP_NUM_THREADS=$n build-avx512/scibench run lattice_mc --backend openmp_simd --size 256 --reps 3 --quiet \
      | grep -E "^throughput" || fail=1
  done
  ;;
esac
echo "== hyperfine: whole processes, both backends"
bash tools/hf_compare.sh "$kernel" 128 && cp -r "results/$machine/hyperfine" "$res/" || fail=1
tar czf "$out/results.tgz" -C "$out/res" . && rm -rf "$out/res"
echo "device_run: fail=$fail"
exit $fail
