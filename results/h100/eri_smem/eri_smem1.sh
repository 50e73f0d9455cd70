#!/usr/bin/env bash
# J engine with R in shared memory (je_quartet_kernel_smem): GPU tests with the default and with
# every shared-memory kernel (SB_ERI_JE_SMEM=5), libint2 validation both ways, then taxol/cc-pVDZ
# and the cc-pVTZ cases per threshold L (0 = the register kernels), alternating with d4101b4.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench O=carry/old/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
for sm in 8 5; do
  echo "== gpu_eri_brush SB_ERI_JE_SMEM=$sm"; SB_ERI_JE_SMEM=$sm SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|rror"
  for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.def2-svp vitamin_c.cc-pvdz benzene.cc-pvtz water.def2-tzvp; do
    m=${c%%.*} b=${c#*.}
    SB_ERI_JE_SMEM=$sm timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.smem$sm.txt 2>&1
    echo "== validate cuda $c smem $sm: $(grep -c ' PASS ' $R/val/$c.smem$sm.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.smem$sm.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.smem$sm.txt)"
  done
done
SB_ERI_JE_SMEM=x timeout 20 $N run eri_brush --backend cuda --size 4 --reps 1 2>&1 | tail -1; echo "exit $?"
for round in 1 2; do
  for mb in taxol:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz; do
    m=${mb%%:*} b=${mb#*:}
    echo "== round $round old $m/$b"
    timeout 150 $O run eri_brush --backend cuda --quiet --reps 3 --param molecule=$m --param basis=$b --json $R/json/old.$m.$b.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
    for sm in 0 5 6 7 8; do
      echo "== round $round smem $sm $m/$b"
      SB_ERI_JE_SMEM=$sm timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=$m --param basis=$b --json $R/json/smem$sm.$m.$b.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
    done
  done
done
} 2>&1 | tee $R/log.txt
cp carry/eri_smem1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
