#!/usr/bin/env bash
# review mend (seg_stream, test batch_init; no change meant): GPU tests, GPU validation, timings.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams|graph|paths changed|rror"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.def2-svp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for mb in benzene:cc-pvdz benzene:cc-pvtz taxol:cc-pvdz; do
  m=${mb%%:*} b=${mb#*:}; reps=5; [ $m = taxol ] && reps=3
  echo "== $m/$b"; timeout 120 $N run eri_brush --backend cuda --quiet --reps $reps --param molecule=$m --param basis=$b 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
done
} 2>&1 | tee $R/log.txt
cp carry/eri_mend3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
