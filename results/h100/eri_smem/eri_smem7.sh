#!/usr/bin/env bash
# review mend (je_launch_shape for both J-engine launch sites, test helpers; no change meant):
# GPU tests, four libint2 validations, taxol/cc-pVDZ timing and its launch report.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R/val; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|shared-memory"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.def2-svp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
echo "== taxol/cc-pvdz"; timeout 120 $N run eri_brush --backend cuda --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/taxol.json 2>&1 | grep -E "^time|eri_jeng|eri_hgp|VALIDATION (PASSED|FAILED)"
SB_ERI_JENG_BPS=20:2 timeout 60 $N run eri_brush --backend cuda --reps 1 --param molecule=benzene --param basis=cc-pvdz 2>&1 | grep -E "^time|eri_jeng|VALIDATION (PASSED|FAILED)"
} 2>&1 | tee $R/log.txt
cp carry/eri_smem7.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
