#!/usr/bin/env bash
# Fifteenth session, call 6 (f8cdd5d, final): GPU tests and the lattice_mc matrix as device_run.sh
# names it (cuda, openmp_simd default and AVX-512 builds, reference); six more AVX-512 runs at
# L=256 and three at L=64 for the spread; thread scaling.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/h100 $R/h100-avx512 $R/ab
N=carry/fin/scibench A=carry/fin512/scibench
sel() { grep -E "^(time|throughput|bandwidth|occupancy|machine)|acceptance_rate|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local bin=$1 dir=$2 backend=$3 size=$4 tag=$5; shift 5
  echo "== $bin $backend $size$tag $*"
  timeout 300 $bin run lattice_mc --backend $backend --size $size "$@" --json $R/$dir/lattice_mc.$backend.$size$tag.json > $R/$dir/lattice_mc.$backend.$size$tag.txt 2>&1
  echo "rc $?"; sel < $R/$dir/lattice_mc.$backend.$size$tag.txt; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L3|MHz"
$N --version | head -1; $A --version | head -1
echo "== gpu_lattice_mc"; SB_REQUIRE_GPU=1 timeout 300 carry/fin/gpu_lattice_mc 2>&1 | grep -E "OK|PASS|FAIL|rror|skip"
echo "== test_lattice_mc (CPU, AVX2 build)"; timeout 300 carry/fin/test_lattice_mc 2>&1 | grep -E "PASSED|FAILED|rror"
$N info 2>&1 | tail -25
echo "== AVX-512, L=256, 16 threads, six runs"
for r in 1 2 3 4 5 6; do
  for v in A; do
    b=${!v}
    printf '%s round %d: ' $v $r
    timeout 200 $b run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$v.$r.json > $R/ab/$v.$r.txt 2>&1
    echo "rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$v.$r.txt | tr -s ' ' | paste -sd';')"
  done
done
echo "== L=64"
for v in A A A; do printf '%s: ' $v; ${!v} run lattice_mc --backend openmp_simd --size 64 --reps 5 --quiet | grep -E "^throughput"; done
for L in 64 128 256; do run $N h100 cuda $L "" --reps 10; done
run $N h100 cuda 128 .geometry-droplet --reps 10 --param geometry=droplet
run $N h100 cuda 256 .geometry-droplet --reps 10 --param geometry=droplet
for L in 64 128 256; do
  run $N h100 openmp_simd $L "" --reps 5
  run $A h100-avx512 openmp_simd $L "" --reps 5
done
run $A h100-avx512 openmp_simd 128 .geometry-droplet --reps 5 --param geometry=droplet
run $N h100 reference 64 "" --reps 3
echo "== CPU thread scaling, AVX-512 build, L=256"
for n in 1 2 4 8 16; do printf 'threads %2d: ' $n
  OMP_NUM_THREADS=$n $A run lattice_mc --backend openmp_simd --size 256 --reps 3 --quiet | grep -E "^throughput"; done
} 2>&1 | tee $R/log.txt
cp carry/script-lmc6.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
