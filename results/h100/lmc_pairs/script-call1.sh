#!/usr/bin/env bash
# Fifteenth session, call 1 (8353248): lattice_mc with paired Philox, shuffle-port high words,
# ((n'-n).m)((n'+n).m) bonds. GPU tests and the CUDA matrix; CPU A/B against 21e53e1
# (old512) alternating, AVX-512 builds, L=256, 16 threads; the CPU matrix as device_run.sh names it.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/h100 $R/h100-avx512 $R/ab
N=carry/new/scibench A=carry/new512/scibench O=carry/old512/scibench
sel() { grep -E "^(time|throughput|bandwidth|occupancy|machine)|acceptance_rate|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local bin=$1 dir=$2 backend=$3 size=$4 tag=$5; shift 5
  echo "== $bin $backend $size$tag $*"
  timeout 300 $bin run lattice_mc --backend $backend --size $size "$@" --json $R/$dir/lattice_mc.$backend.$size$tag.json > $R/$dir/lattice_mc.$backend.$size$tag.txt 2>&1
  echo "rc $?"; sel < $R/$dir/lattice_mc.$backend.$size$tag.txt; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L3|MHz"
$N --version | head -1; $A --version | head -1; $O --version | head -1
echo "== gpu_lattice_mc"; SB_REQUIRE_GPU=1 timeout 300 carry/new/gpu_lattice_mc 2>&1 | grep -E "OK|PASS|FAIL|rror|skip"
echo "== test_lattice_mc (CPU, AVX2 build)"; timeout 300 carry/new/test_lattice_mc 2>&1 | grep -E "PASSED|FAILED|rror"
$N info 2>&1 | tail -25
echo "== A/B AVX-512, L=256, 16 threads: old (21e53e1) and new (8353248) alternating"
for r in 1 2 3 4; do
  for v in O A; do
    b=${!v}
    printf '%s round %d: ' $v $r
    timeout 200 $b run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$v.$r.json > $R/ab/$v.$r.txt 2>&1
    echo "rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$v.$r.txt | tr -s ' ' | paste -sd';')"
  done
done
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
cp carry/script-lmc1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
