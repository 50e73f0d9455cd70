#!/usr/bin/env bash
# f classes up to L = 8 at constant (la+lb, lc+ld) (new) against the generic kernel of 5be2252
# (base), alternating; GPU tests, libint2 validations and the result runs (JSON) of the new
# build, OpenMP in the same call for the ratios; taxol/cc-pVDZ unchanged.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 120 carry/new/gpu_eri_brush 2>&1 | grep -E "PASSED|FAIL|cc-pvtz|rror"
for c in water.cc-pvtz water.def2-tzvp benzene.cc-pvtz benzene.cc-pvdz; do
  m=${c%%.*} b=${c#*.}
  echo "== validate cuda $c (new)"
  timeout 150 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b 2>&1 | grep -E "libint2 J|oracle J|VALIDATION|rror"
done
for round in 1 2; do
  for v in base new; do
    X=carry/$v/scibench
    echo "== $v benzene/cc-pvtz round $round"
    timeout 60 $X run eri_brush --backend cuda --reps 5 --param molecule=benzene --param basis=cc-pvtz \
      --json $R/json/$v.benzene-cc-pvtz.$round.json > $R/$v-benzene-tz.$round.txt 2>&1; grep -E "^time|VALIDATION" $R/$v-benzene-tz.$round.txt
    echo "== $v vitamin C/cc-pvtz round $round"
    timeout 60 $X run eri_brush --backend cuda --reps 3 --param molecule=vitamin_c --param basis=cc-pvtz --param oracle=0 \
      --json $R/json/$v.vitc-cc-pvtz.$round.json > $R/$v-vitc-tz.$round.txt 2>&1; grep -E "^time|VALIDATION" $R/$v-vitc-tz.$round.txt
  done
done
echo "== openmp benzene/cc-pvtz"
timeout 100 $N run eri_brush --backend openmp_simd --reps 3 --param molecule=benzene --param basis=cc-pvtz \
  --json $R/json/omp.benzene-cc-pvtz.json > $R/omp-benzene-tz.txt 2>&1; grep -E "^time|VALIDATION" $R/omp-benzene-tz.txt
echo "== openmp vitamin C/cc-pvtz"
timeout 100 $N run eri_brush --backend openmp_simd --reps 1 --warmup 0 --param molecule=vitamin_c --param basis=cc-pvtz --param oracle=0 \
  --json $R/json/omp.vitc-cc-pvtz.json > $R/omp-vitc-tz.txt 2>&1; grep -E "^time|VALIDATION" $R/omp-vitc-tz.txt
echo "== new taxol/cc-pvdz"
timeout 60 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --param oracle=0 2>&1 | grep -E "^time|VALIDATION"
} 2>&1 | tee $R/log.txt
cp carry/eri_f4.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
