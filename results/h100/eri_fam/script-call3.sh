#!/usr/bin/env bash
# Pair families, second build (a class's family quartets launched once; chunk budget
# SB_ERI_FAM_ACC): GPU tests, libint2 validations on the GPU, taxol/cc-pVDZ without families
# and with budgets 64/32/16/8 (per-class times), other cases with and without.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|famil"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz water.cc-pvtz benzene.cc-pvtz water.def2-svp; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
timeout 100 $N validate eri_brush --backend cuda --param molecule=water --param basis=cc-pvdz --param cartesian=1 > $R/val/water.cc-pvdz.cart.txt 2>&1
echo "== validate cuda water.cc-pvdz cartesian: $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/water.cc-pvdz.cart.txt)"
for v in fam0 acc64 acc32 acc16 acc8; do
  case $v in fam0) env="SB_ERI_FAMILY=0";; *) env="SB_ERI_FAM_ACC=${v#acc}";; esac
  echo "== $v taxol/cc-pvdz"
  env $env timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/$v.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
  python3 -c "import json,sys;d=json.load(open('$R/json/$v.taxol.json'));b=d['benchmarks'][0];print(' '.join('%s %.1f'%(k[2:],b[k]*1e3) for k in sorted(b) if k.startswith('t_')), ' trJD %.10f'%b['coulomb_energy_trJD'])" 2>&1 | tail -1
  command -v python3 >/dev/null || { grep -o '"t_[spd]*": [0-9.e+-]*' $R/json/$v.taxol.json | sort -u | tr "\n" " "; echo; }
done
for mb in benzene:cc-pvdz vitamin_c:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz; do
  m=${mb%%:*} b=${mb#*:}
  for v in fam0 fam1; do
    echo "== $v $m/$b"; SB_ERI_FAMILY=${v#fam} timeout 100 $N run eri_brush --backend cuda --quiet --reps 5 --param molecule=$m --param basis=$b 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
  done
done
for n in 16 64; do for v in fam0 fam1; do echo "== $v $n waters"; SB_ERI_FAMILY=${v#fam} timeout 100 $N run eri_brush --backend cuda --size $n --quiet --reps 3 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"; done; done
$N run eri_brush --backend cuda --quiet --reps 1 --param molecule=taxol --param basis=cc-pvdz 2>&1 | grep -iE "family|kernel  "
} 2>&1 | tee $R/log.txt
cp carry/eri_fam2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
