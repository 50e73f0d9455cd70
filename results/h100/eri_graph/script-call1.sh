#!/usr/bin/env bash
# the build as one CUDA graph: GPU tests (test_graph), GPU libint2 validation, graph on/off
# alternating on the same binary for every results case.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams|graph|paths changed|rror"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.def2-svp water.cc-pvtz water.def2-tzvp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
echo "== SB_ERI_GRAPH=abc"; SB_ERI_GRAPH=abc $N run eri_brush --backend cuda --size 2 --quiet 2>&1 | head -2; echo "exit ${PIPESTATUS[0]}"
for round in 1 2; do
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz water4:cc-pvdz water16:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz water64:cc-pvdz taxol:cc-pvdz; do
  m=${mb%%:*} b=${mb#*:}; reps=5; case $m in taxol|vitamin_c) [ $b = cc-pvtz -o $m = taxol ] && reps=3;; esac
  if [ ${m#water} != $m ]; then args="--size ${m#water} --param basis=$b"; else args="--param molecule=$m --param basis=$b"; fi
  for g in 0 1; do
    echo "== round $round graph=$g $m/$b"; SB_ERI_GRAPH=$g timeout 150 $N run eri_brush --backend cuda --quiet --reps $reps $args --json $R/json/g$g.$m.$b.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
  done
done
done
} 2>&1 | tee $R/log.txt
cp carry/eri_graph1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
