#!/usr/bin/env bash
# Twelfth session: same-call CUDA / OpenMP-16 ratios of taxol/cc-pVDZ on a fresh machine
# (this VM's CPU speed moves between calls), CUDA and OpenMP alternating, 7b17f80.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader; lscpu | grep "Model name"
$N --version | head -1
for r in 1 2; do
  echo "== cuda.$r taxol/cc-pvdz"
  timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.$r.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
  echo "== openmp.$r taxol/cc-pvdz"
  timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$r.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
done
} 2>&1 | tee $R/log.txt
cp carry/$(basename "$0") $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
