#!/usr/bin/env bash
# Fifteenth session, call 5: AVX-512 builds alternating, 16 threads: fin512 = 46686f6 (two
# plane-fused half sweeps a sweep) and v5 = the same + one z wavefront a sweep (24 instead of
# 36 B an update from memory); L = 256, 128, 64; one thread at L = 256.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
{
lscpu | grep -E "Model name|MHz"
carry/v5/scibench info 2>&1 | grep -E "measured|OpenMP|ISA"
for r in 1 2 3 4 5 6; do
  for v in fin512 v5; do
    printf '%s round %d: ' $v $r
    timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$v.$r.json > $R/ab/$v.$r.txt 2>&1
    echo "rc $? $(grep -E '^throughput|^bandwidth|VALIDATION (PASSED|FAILED)|lattice_checksum' $R/ab/$v.$r.txt | tr -s ' ' | paste -sd';')"
  done
done
for L in 128 64; do echo "== L=$L, 16 threads"
for v in fin512 v5 fin512 v5 fin512 v5; do printf '%s: ' $v
  timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size $L --reps 5 --quiet | grep -E "^throughput"; done; done
echo "== droplet L=256"
for v in fin512 v5 fin512 v5; do printf '%s: ' $v
  timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 3 --quiet --param geometry=droplet | grep -E "^throughput|FAIL"; done
echo "== one thread, L=256"
for v in fin512 v5 fin512 v5; do printf '%s: ' $v
  OMP_NUM_THREADS=1 timeout 200 carry/$v/scibench run lattice_mc --backend openmp_simd --size 256 --reps 3 --quiet | grep -E "^throughput"; done
} 2>&1 | tee $R/log.txt
cp carry/script-lmc5.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
