#!/usr/bin/env bash
# Twelfth session: same-call CUDA / OpenMP-16 ratios of taxol/cc-pVDZ on another fresh machine,
# CUDA, then OpenMP 7b17f80 and the previous binary (946c9f7) alternating.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader; lscpu | grep "Model name"
$N --version | head -1
echo "== cuda taxol/cc-pvdz"
timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
for v in new.1 old.1 new.2; do
  case $v in old*) B=carry/new/scibench.old;; *) B=$N;; esac
  echo "== openmp $v taxol/cc-pvdz"
  timeout 200 $B run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$v.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
done
} 2>&1 | tee $R/log.txt
cp carry/$(basename "$0") $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
