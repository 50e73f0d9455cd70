#!/usr/bin/env bash
# Fifteenth session, call 8: v6 = f8cdd5d + the acceptance test as dE < tau, tau = -ln(u)/beta
# computed with the draws (no exponential in the site loop). GPU test and CUDA runs of v6;
# AVX-512 A/B alternating with f8cdd5d (fin512), L = 256 and 64, 16 threads.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
{
carry/v6/scibench info 2>&1 | grep -E "measured|OpenMP|ISA"
echo "== gpu_lattice_mc (v6)"; SB_REQUIRE_GPU=1 timeout 300 carry/v6/gpu_lattice_mc 2>&1 | grep -E "OK|PASS|FAIL|rror|skip"
for g in bulk droplet; do echo "== cuda 256 $g (v6)"; timeout 200 carry/v6/scibench-cuda run lattice_mc --backend cuda --size 256 --reps 10 --param geometry=$g > $R/cuda.$g.txt 2>&1; echo "rc $?"; grep -E "^throughput|^bandwidth|VALIDATION (PASSED|FAILED)|FAIL|acceptance" $R/cuda.$g.txt; done
for r in 1 2 3 4 5 6; do
  for v in fin512 v6; do
    printf '%s round %d: ' $v $r
    timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$v.$r.json > $R/ab/$v.$r.txt 2>&1
    echo "rc $? $(grep -E '^throughput|^bandwidth|VALIDATION (PASSED|FAILED)' $R/ab/$v.$r.txt | tr -s ' ' | paste -sd';')"
  done
done
echo "== L=64, 16 threads"
for v in fin512 v6 fin512 v6 fin512 v6; do printf '%s: ' $v
  timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 64 --reps 5 --quiet | grep -E "^throughput"; done
echo "== one thread, L=256"
for v in fin512 v6 fin512 v6; do printf '%s: ' $v
  OMP_NUM_THREADS=1 timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 3 --quiet | grep -E "^throughput"; done
} 2>&1 | tee $R/log.txt
cp carry/script-lmc8.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
