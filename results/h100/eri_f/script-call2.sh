#!/usr/bin/env bash
# f shells at 5be2252 (results run): GPU tests, libint2 validation of cc-pVTZ / def2-TZVP on the
# GPU and the 16-core CPU, taxol/cc-pVDZ against its 0.790 s of the earlier calls, benzene and
# vitamin C in cc-pVTZ timed on both backends, taxol/cc-pVTZ (expected: the quartet list does not fit).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; nproc
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 120 carry/new/gpu_eri_brush 2>&1 | grep -E "PASSED|FAIL|engine|cc-pvtz|rel\)|rror"
for be in cuda openmp_simd; do
  for c in water.cc-pvtz water.def2-tzvp benzene.cc-pvtz benzene.cc-pvdz; do
    m=${c%%.*} b=${c#*.}
    echo "== validate $be $c"
    timeout 150 $N validate eri_brush --backend $be --param molecule=$m --param basis=$b 2>&1 | grep -E "libint2 (J|tr|integ|sum)|oracle|symm|VALIDATION|rror"
  done
done
echo "== cuda taxol/cc-pvdz (0.790 s in the calls at 360ab49)"
timeout 60 $N run eri_brush --backend cuda --quiet --reps 5 --param molecule=taxol --param basis=cc-pvdz --param oracle=0 \
  --json $R/json/eri_brush.cuda.taxol-cc-pvdz.json 2>&1 | grep -E "^time|rror|VALIDATION"
echo "== cuda benzene/cc-pvtz"
timeout 90 $N run eri_brush --backend cuda --reps 5 --param molecule=benzene --param basis=cc-pvtz \
  --json $R/json/eri_brush.cuda.benzene-cc-pvtz.json > $R/cuda-benzene-tz.txt 2>&1; grep -E "^time|rror|VALIDATION|items|t_f" $R/cuda-benzene-tz.txt | head -40
echo "== openmp benzene/cc-pvtz"
timeout 150 $N run eri_brush --backend openmp_simd --reps 3 --param molecule=benzene --param basis=cc-pvtz \
  --json $R/json/eri_brush.openmp_simd.benzene-cc-pvtz.json > $R/omp-benzene-tz.txt 2>&1; grep -E "^time|rror|VALIDATION|items" $R/omp-benzene-tz.txt
echo "== vitamin C / cc-pVTZ, cuda then openmp"
timeout 90 $N run eri_brush --backend cuda --reps 3 --param molecule=vitamin_c --param basis=cc-pvtz --param oracle=0 \
  --json $R/json/eri_brush.cuda.vitc-cc-pvtz.json > $R/cuda-vitc-tz.txt 2>&1; grep -E "^time|throughput|rror|VALIDATION" $R/cuda-vitc-tz.txt
timeout 150 $N run eri_brush --backend openmp_simd --reps 1 --warmup 0 --param molecule=vitamin_c --param basis=cc-pvtz --param oracle=0 \
  --json $R/json/eri_brush.openmp_simd.vitc-cc-pvtz.json > $R/omp-vitc-tz.txt 2>&1; grep -E "^time|throughput|rror|VALIDATION" $R/omp-vitc-tz.txt
echo "== cuda taxol/cc-pvtz"
timeout 200 $N run eri_brush --backend cuda --reps 2 --warmup 1 --param molecule=taxol --param basis=cc-pvtz --param oracle=0 \
  --json $R/json/eri_brush.cuda.taxol-cc-pvtz.json > $R/cuda-taxol-tz.txt 2>&1; grep -E "^time|rror|VALIDATION|quartets" $R/cuda-taxol-tz.txt
} 2>&1 | tee $R/log.txt
cp carry/eri_f2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
