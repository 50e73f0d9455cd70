#!/usr/bin/env bash
# Pair families (families.c, eri_hgpf_*), first check: GPU tests, libint2 validations on the
# GPU, taxol/cc-pVDZ with and without families (per-class times), 2 rounds.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|famil"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz vitamin_c.def2-svp water.cc-pvtz benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for round in 1 2; do
  for v in fam0 fam1; do
    echo "== round $round $v taxol/cc-pvdz"
    SB_ERI_FAMILY=${v#fam} timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/$v.taxol.r$round.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror"
    grep -o '"t_[spd]*": [0-9.e+-]*' $R/json/$v.taxol.r$round.json | sort -u | tr '\n' ' '; echo
  done
done
for mb in benzene:cc-pvdz vitamin_c:cc-pvdz benzene:cc-pvtz; do
  m=${mb%%:*} b=${mb#*:}
  for v in fam0 fam1; do
    echo "== $v $m/$b"; SB_ERI_FAMILY=${v#fam} timeout 100 $N run eri_brush --backend cuda --quiet --reps 5 --param molecule=$m --param basis=$b 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
  done
done
for v in fam0 fam1; do echo "== $v 64 waters"; SB_ERI_FAMILY=${v#fam} timeout 100 $N run eri_brush --backend cuda --size 64 --quiet --reps 3 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"; done
$N run eri_brush --backend cuda --quiet --reps 1 --param molecule=taxol --param basis=cc-pvdz 2>&1 | grep -iE "family|occupancy"
} 2>&1 | tee $R/log.txt
cp carry/eri_fam1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
