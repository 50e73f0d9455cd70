#!/usr/bin/env bash
# class segments over 8 streams (default) against one stream (SB_ERI_STREAMS=1, the order of
# 981e8b1) and against no primitive screening (prim_screen=0, 8 streams), same binary,
# alternating per case; GPU tests; the CUDA result JSON from the default runs.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json $R/ab; N=carry/new/scibench
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams|per-class"
run() { # tag env size json args...
  local tag=$1 envs=$2 size=$3 js=$4; shift 4
  env $envs timeout 200 $N run eri_brush --backend cuda --size $size --quiet "$@" --json $js > $R/ab/$tag.txt 2>&1
  echo "$tag: $(grep -E '^time' $R/ab/$tag.txt | awk '{print $4, $5}') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"
}
for c in 4:cluster:cc-pvdz 16:cluster:cc-pvdz 16:benzene:cc-pvdz 16:vitamin_c:def2-svp 16:vitamin_c:cc-pvdz 16:benzene:cc-pvtz 16:vitamin_c:cc-pvtz 64:cluster:cc-pvdz 16:taxol:cc-pvdz; do
  IFS=: read n m b <<< "$c"
  reps=5; extra=""; [ $m = taxol ] && reps=3; [ $m = vitamin_c -a $b = cc-pvtz ] && { reps=3; extra="--param oracle=0"; }
  if [ $m = cluster ]; then tag=$n; js=$R/json/eri_brush.cuda.$n.json; else tag=$m.$b; js=$R/json/eri_brush.cuda.16.molecule-$m.basis-$b.json; fi
  echo "== $tag"
  for round in 1 2; do
    run $tag.s1.$round SB_ERI_STREAMS=1 $n $R/ab/$tag.s1.$round.json --reps $reps --param molecule=$m --param basis=$b $extra
    run $tag.ps0.$round SB_ERI_STREAMS=8 $n $R/ab/$tag.ps0.$round.json --reps $reps --param molecule=$m --param basis=$b --param prim_screen=0 $extra
    j=$R/ab/$tag.s8.$round.json; [ $round = 2 ] && j=$js
    run $tag.s8.$round SB_ERI_STREAMS=8 $n $j --reps $reps --param molecule=$m --param basis=$b $extra
  done
done
} 2>&1 | tee $R/log.txt
cp carry/eri_ps3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
