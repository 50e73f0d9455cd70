#!/usr/bin/env bash
# The review mend 1942f08 (je_add_team takes its bra runs from warp_runs_of),
# built by the CI script on a fresh clone: GPU tests, four libint2 validations on the GPU,
# taxol/cc-pVDZ with one and two lanes a quartet.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|lanes"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz water.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for v in team0 new; do
  env=""; [ $v = team0 ] && env="SB_ERI_JE_TEAM=0"
  echo "== $v taxol/cc-pvdz"
  env $env timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/$v.taxol.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
  grep -o '"t_d[dp]d[dp]": [0-9.e+-]*' $R/json/$v.taxol.json | sort -u | tr '\n' ' '; echo
done
$N run eri_brush --backend cuda --quiet --reps 1 --param molecule=taxol --param basis=cc-pvdz 2>&1 | grep -iE "team"
} 2>&1 | tee $R/log.txt
cp carry/eri_team7.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
