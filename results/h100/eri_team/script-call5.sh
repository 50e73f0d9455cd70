#!/usr/bin/env bash
# Same-call ratio CUDA / 16-core OpenMP on taxol/cc-pVDZ at 8fff353, twice in alternation
# (CUDA 3 reps, OpenMP one timed build, CUDA, OpenMP), JSON kept under json/.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
T="--param molecule=taxol --param basis=cc-pvdz"
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
for round in 1 2; do
  echo "== round $round cuda taxol/cc-pvdz"
  timeout 150 $N run eri_brush --backend cuda --size 16 --quiet --reps 3 $T --json $R/json/cuda.taxol.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
  echo "== round $round openmp_simd 16 threads taxol/cc-pvdz"
  timeout 200 $N run eri_brush --backend openmp_simd --size 16 --quiet --reps 1 --warmup 0 $T --json $R/json/openmp.taxol.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
done
} 2>&1 | tee $R/log.txt
cp carry/eri_team5.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
