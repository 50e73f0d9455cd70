#!/usr/bin/env bash
# Runs on the GPU machine (the `device` tool), over a build made on the dev machine:
# GPU tests, the hardware report, then each kernel's benchmark matrix. Everything
# lands in $OUT: log.txt and results.tgz (JSON per case), fetched back by the tool.
# Usage: carry [".devdeps", "build"]; command: bash tools/device_run.sh [KERNEL]
set -u
kernel=${1:-lattice_mc}
out=${OUT:-/tmp/sb_out}
mkdir -p "$out/res"
export PATH=$PWD/.devdeps/usr/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.devdeps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# Thread placement moves the CPU's FMA peak by ~30% on this VM: pin, and record it.
export OMP_PROC_BIND=close OMP_PLACES=cores
sb=build/scibench
exec > >(tee "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)"
fail=0
for t in $(ls build/tests/gpu_* | grep -v "\.d$"); do echo "== $t"; SB_REQUIRE_GPU=1 "$t" || fail=1; done
$sb info || fail=1
case $kernel in
lattice_mc)
  for L in 64 128 256; do
    $sb run lattice_mc --backend cuda --size $L --reps 10 --quiet --json "$out/res/lattice_mc.cuda.$L.json" || fail=1
  done
  $sb run lattice_mc --backend cuda --size 128 --reps 10 --param geometry=droplet --quiet \
      --json "$out/res/lattice_mc.cuda.128.droplet.json" || fail=1
  for L in 64 128 256; do
    $sb run lattice_mc --backend openmp_simd --size $L --reps 5 --quiet --json "$out/res/lattice_mc.openmp_simd.$L.json" || fail=1
    # the device's Xeon has AVX-512: the same code built for x86-64-v4 (make AVX512=1 BUILD=build-avx512)
    [ -x build-avx512/scibench ] && { build-avx512/scibench run lattice_mc --backend openmp_simd --size $L --reps 5 --quiet \
        --json "$out/res/lattice_mc.openmp_simd-avx512.$L.json" || fail=1; }
  done
  $sb run lattice_mc --backend reference --size 64 --reps 3 --quiet --json "$out/res/lattice_mc.reference.64.json" || fail=1
  ;;
esac
tar czf "$out/results.tgz" -C "$out" res && rm -rf "$out/res"
echo "device_run: fail=$fail"
exit $fail
