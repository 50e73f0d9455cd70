#!/usr/bin/env bash
# Primitive-pair screening (prim_screen, default 1e-18): GPU tests, GPU validation against
# every libint2 reference, then taxol/cc-pVDZ: CUDA prim_screen=0 (the previous behaviour)
# against the default, alternating, and the OpenMP backend (default) in the same call.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "PASSED|FAIL|rror|prim"
for c in water.sto-3g water.6-31gs water.cc-pvdz water.def2-svp benzene.sto-3g benzene.cc-pvdz vitamin_c.cc-pvdz vitamin_c.def2-svp water.cc-pvtz water.def2-tzvp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  echo "== validate cuda $c"
  timeout 150 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b 2>&1 | grep -E "libint2|oracle J|VALIDATION|rror|FAIL" | head -12
done
echo "== validate cuda water.cc-pvdz cartesian"
timeout 150 $N validate eri_brush --backend cuda --param molecule=water --param basis=cc-pvdz --param cartesian=1 2>&1 | grep -E "libint2|VALIDATION|rror|FAIL" | head -8
for round in 1 2; do
  for ps in 0 1e-18; do
    echo "== cuda taxol/cc-pvdz prim_screen=$ps round $round"
    timeout 120 $N run eri_brush --backend cuda --reps 3 --param molecule=taxol --param basis=cc-pvdz --param oracle=4 --param prim_screen=$ps \
      --json $R/json/cuda.taxol.ps$ps.$round.json > $R/cuda-taxol-ps$ps.$round.txt 2>&1; grep -E "^time|VALIDATION|primitive|t_setup" $R/cuda-taxol-ps$ps.$round.txt
  done
  echo "== openmp taxol/cc-pvdz default round $round"
  timeout 200 $N run eri_brush --backend openmp_simd --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --param oracle=4 \
    --json $R/json/omp.taxol.$round.json > $R/omp-taxol.$round.txt 2>&1; grep -E "^time|VALIDATION|primitive" $R/omp-taxol.$round.txt
done
} 2>&1 | tee $R/log.txt
cp carry/eri_ps1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
