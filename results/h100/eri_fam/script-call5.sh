#!/usr/bin/env bash
# The CI build of 1296db9 (fresh clone, .ci/run) on the H100: GPU tests, four libint2
# validations on the GPU, taxol/cc-pVDZ with and without pair families.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R/val; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|famil"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz water.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for v in 0 1; do
  echo "== SB_ERI_FAMILY=$v taxol/cc-pvdz"
  SB_ERI_FAMILY=$v timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror|trJD"
done
} 2>&1 | tee $R/log.txt
cp carry/eri_fam5.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
