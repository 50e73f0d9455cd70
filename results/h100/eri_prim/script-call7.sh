#!/usr/bin/env bash
# review mend (eri_pair_class_l on the device, SB_ERI_STREAMS parsed with the other overrides,
# primitive sort without a global): GPU tests, GPU validation, timings against call 5.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.def2-svp water.cc-pvtz water.def2-tzvp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
echo "== SB_ERI_STREAMS=abc"; SB_ERI_STREAMS=abc $N run eri_brush --backend cuda --size 2 --quiet 2>&1 | head -2; echo "exit ${PIPESTATUS[0]}"
for mb in benzene:cc-pvdz benzene:cc-pvtz taxol:cc-pvdz; do
  m=${mb%%:*} b=${mb#*:}; reps=5; [ $m = taxol ] && reps=3
  echo "== $m/$b"; timeout 120 $N run eri_brush --backend cuda --quiet --reps $reps --param molecule=$m --param basis=$b 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
done
} 2>&1 | tee $R/log.txt
cp carry/eri_ps7.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
