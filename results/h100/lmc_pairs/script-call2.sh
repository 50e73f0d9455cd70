#!/usr/bin/env bash
# Fifteenth session, call 2: AVX-512 builds of lattice_mc alternating, L=256, 16 threads:
# v0 = 8353248; v1 = + draws (direction, acceptance uniform) in a loop of their own ahead of
# the site loop; v2 = v1 + inline shifted-row copies, no integer division in the row setup.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
{
lscpu | grep -E "Model name|MHz"
carry/v2/scibench info 2>&1 | grep -E "measured|OpenMP|ISA"
for r in 1 2 3 4 5; do
  for v in new512 v1 v2; do
    printf '%s round %d: ' $v $r
    timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$v.$r.json > $R/ab/$v.$r.txt 2>&1
    echo "rc $? $(grep -E '^throughput|^bandwidth|VALIDATION (PASSED|FAILED)|lattice_checksum' $R/ab/$v.$r.txt | tr -s ' ' | paste -sd';')"
  done
done
echo "== one thread, L=128"
for v in new512 v2 new512 v2; do printf '%s: ' $v
  OMP_NUM_THREADS=1 timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 128 --reps 3 --quiet | grep -E "^throughput"; done
} 2>&1 | tee $R/log.txt
cp carry/script-lmc2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
