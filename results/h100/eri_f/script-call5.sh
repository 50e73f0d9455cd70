#!/usr/bin/env bash
# the same-call CUDA/OpenMP ratio on taxol/cc-pVDZ sampled again (9e22082 binaries, f shells in): CUDA, OpenMP, CUDA, OpenMP
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R; N=carry/new/scibench
{
$N info 2>&1 | grep -iE "fma|triad|cpu" | head -6
for round in 1 2; do
  echo "== cuda taxol round $round"
  timeout 120 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --param oracle=0 \
    --json $R/cuda-taxol-$round.json | grep -E "^time"
  echo "== openmp taxol round $round"
  timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz \
    --param oracle=0 --json $R/omp-taxol-$round.json | grep -E "^time"
done
} 2>&1 | tee $R/log.txt
cp carry/eri_ratio2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
