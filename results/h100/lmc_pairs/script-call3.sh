#!/usr/bin/env bash
# Fifteenth session, call 3: AVX-512 builds of lattice_mc alternating, L=256, 16 threads:
# v0 = 8353248; v2 = + draws loop, inline rotations, no division (call 2); v3 = v2 + site loops of R = 512/h
# rows (one loop over several contiguous rows), L = 256 and 64.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
{
lscpu | grep -E "Model name|MHz"
carry/v2/scibench info 2>&1 | grep -E "measured|OpenMP|ISA"
for r in 1 2 3 4 5 6; do
  for v in new512 v2 v3; do
    printf '%s round %d: ' $v $r
    timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$v.$r.json > $R/ab/$v.$r.txt 2>&1
    echo "rc $? $(grep -E '^throughput|^bandwidth|VALIDATION (PASSED|FAILED)|lattice_checksum' $R/ab/$v.$r.txt | tr -s ' ' | paste -sd';')"
  done
done
echo "== L=64, 16 threads"
for v in new512 v2 v3 new512 v2 v3; do printf '%s: ' $v
  timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 64 --reps 5 --quiet | grep -E "^throughput"; done
echo "== one thread, L=128"
for v in v2 v3 v2 v3; do printf '%s: ' $v
  OMP_NUM_THREADS=1 timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 128 --reps 3 --quiet | grep -E "^throughput"; done
} 2>&1 | tee $R/log.txt
cp carry/script-lmc3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
