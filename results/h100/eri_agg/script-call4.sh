#!/usr/bin/env bash
# no HGP caps below L = 6 and the J engine from L = 5 on the GPU, against c5fc7b4 (old):
# GPU tests, GPU validation, A/B alternating; OpenMP taxol for the ratio.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench; O=carry/old/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.def2-svp water.cc-pvtz water.def2-tzvp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for round in 1 2; do
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz water4:cc-pvdz water16:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz water64:cc-pvdz taxol:cc-pvdz; do
  m=${mb%%:*} b=${mb#*:}; reps=5; case $m in taxol|vitamin_c) [ $b = cc-pvtz -o $m = taxol ] && reps=3;; esac
  if [ ${m#water} != $m ]; then args="--size ${m#water} --param basis=$b"; else args="--param molecule=$m --param basis=$b"; fi
  for v in old new; do
    B=$O; [ $v = new ] && B=$N
    echo "== round $round $v $m/$b"; timeout 150 $B run eri_brush --backend cuda --quiet --reps $reps $args --json $R/json/$v.$m.$b.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
  done
done
done
echo "== old + SB_ERI_BPS uncapped, taxol"; SB_ERI_BPS="2:0,3:0,4:0,5:0,7:0,8:0:0,9:0:0,10:0,11:0,12:0:0,13:0:0,15:0:0,16:0" timeout 150 $O run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/olduncap.taxol.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
echo "== openmp taxol/cc-pvdz (new binary)"; timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.taxol.json 2>&1 | grep -E "^time|VALIDATION"
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz water16:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz; do
  m=${mb%%:*} b=${mb#*:}
  if [ ${m#water} != $m ]; then args="--size ${m#water} --param basis=$b"; else args="--param molecule=$m --param basis=$b"; fi
  reps=3; [ $b = cc-pvtz -a $m = vitamin_c ] && reps=1
  echo "== openmp $m/$b"; timeout 100 $N run eri_brush --backend openmp_simd --quiet --reps $reps $args --json $R/json/omp.$m.$b.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
done
echo "== cuda taxol after openmp (new)"; timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/new.taxol.after.json 2>&1 | grep -E "^time|VALIDATION"
} 2>&1 | tee $R/log.txt
cp carry/eri_agg4.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
