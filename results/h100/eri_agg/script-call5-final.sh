#!/usr/bin/env bash
# 989f3dd on the H100: GPU tests, the GPU libint2 validation of every shipped reference, the
# results table's CUDA and OpenMP rows (official JSON names), OpenMP taxol before and after the
# CUDA runs; then J-engine caps tried by SB_ERI_JENG_BPS (L >= 6 uncapped, L = 5 capped at 3).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/h100 $R/jbps; N=carry/new/scibench
run() { local be=$1 size=$2 tag=$3; shift 3; timeout 200 $N run eri_brush --backend $be --size $size --quiet "$@" \
          --json $R/h100/eri_brush.$be.$size$tag.json 2>&1 | grep -E "^(time|VALIDATION (PASSED|FAILED))"; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams"
for c in water.sto-3g water.6-31gs water.cc-pvdz water.def2-svp benzene.sto-3g benzene.cc-pvdz vitamin_c.def2-svp vitamin_c.cc-pvdz water.cc-pvtz water.def2-tzvp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
timeout 100 $N validate eri_brush --backend cuda --param molecule=water --param basis=cc-pvdz --param cartesian=1 > $R/val/water.cc-pvdz.cart.txt 2>&1
echo "== validate cuda water.cc-pvdz cartesian: $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/water.cc-pvdz.cart.txt)"
echo "== openmp taxol/cc-pvdz, before"; run openmp_simd 16 .molecule-taxol.basis-cc-pvdz.before --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz taxol:cc-pvdz; do
  m=${mb%%:*} b=${mb#*:}; reps=5; [ $m = taxol -o $b = cc-pvtz -a $m = vitamin_c ] && reps=3
  echo "== cuda $m/$b"; run cuda 16 .molecule-$m.basis-$b --reps $reps --param molecule=$m --param basis=$b
done
for n in 4 16 64; do echo "== cuda water $n"; run cuda $n "" --reps 5; done
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz; do
  m=${mb%%:*} b=${mb#*:}; reps=3; [ $b = cc-pvtz -a $m = vitamin_c ] && reps=1
  echo "== openmp $m/$b"; run openmp_simd 16 .molecule-$m.basis-$b --reps $reps --param molecule=$m --param basis=$b
done
echo "== openmp water 16"; run openmp_simd 16 "" --reps 3
echo "== openmp taxol/cc-pvdz, after"; run openmp_simd 16 .molecule-taxol.basis-cc-pvdz --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz
for round in 1 2; do
  for v in default jl6uncap jl5cap; do
    env=""; case $v in jl6uncap) env="SB_ERI_JENG_BPS=14:0,17:0,18:0,19:0,20:0";; jl5cap) env="SB_ERI_JENG_BPS=12:3,13:3,16:3";; esac
    echo "== round $round J-engine caps $v, taxol"
    env $env timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/jbps/$v.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|error"
  done
done
} 2>&1 | tee $R/log.txt
cp carry/eri_agg5.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
