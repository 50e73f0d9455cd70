#!/usr/bin/env bash
# default 32 streams against 16 and 64 (SB_ERI_STREAMS), alternating per case; the CUDA result
# JSON from the default runs; taxol on CUDA (default and 8 streams) and OpenMP in the same call.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json $R/ab; N=carry/new/scibench
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS|streams|per-class"
run() { # tag env backend size json args...
  local tag=$1 envs=$2 be=$3 size=$4 js=$5; shift 5
  env $envs timeout 200 $N run eri_brush --backend $be --size $size --quiet "$@" --json $js > $R/ab/$tag.txt 2>&1
  echo "$tag: $(grep -E '^time' $R/ab/$tag.txt | awk '{print $4, $5}') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"
}
for c in 4:cluster:cc-pvdz 16:cluster:cc-pvdz 16:benzene:cc-pvdz 16:vitamin_c:def2-svp 16:vitamin_c:cc-pvdz 16:benzene:cc-pvtz 16:vitamin_c:cc-pvtz; do
  IFS=: read n m b <<< "$c"
  reps=5; extra=""; [ $m = vitamin_c -a $b = cc-pvtz ] && { reps=3; extra="--param oracle=0"; }
  if [ $m = cluster ]; then tag=$n; js=$R/json/eri_brush.cuda.$n.json; else tag=$m.$b; js=$R/json/eri_brush.cuda.16.molecule-$m.basis-$b.json; fi
  echo "== $tag"
  for round in 1 2; do
    run $tag.s16.$round SB_ERI_STREAMS=16 cuda $n $R/ab/$tag.s16.$round.json --reps $reps --param molecule=$m --param basis=$b $extra
    run $tag.s64.$round SB_ERI_STREAMS=64 cuda $n $R/ab/$tag.s64.$round.json --reps $reps --param molecule=$m --param basis=$b $extra
    j=$R/ab/$tag.def.$round.json; [ $round = 2 ] && j=$js
    run $tag.def.$round "" cuda $n $j --reps $reps --param molecule=$m --param basis=$b $extra
  done
done
echo "== 64 waters"; run 64.def "" cuda 64 $R/json/eri_brush.cuda.64.json --reps 5
echo "== taxol"
run taxol.s8 SB_ERI_STREAMS=8 cuda 16 $R/ab/taxol.s8.json --reps 3 --param molecule=taxol
run taxol.def "" cuda 16 $R/json/eri_brush.cuda.16.molecule-taxol.basis-cc-pvdz.json --reps 3 --param molecule=taxol
run omp.taxol OMP_NUM_THREADS=16 openmp_simd 16 $R/json/eri_brush.openmp_simd.16.molecule-taxol.basis-cc-pvdz.json --reps 1 --warmup 0 --param molecule=taxol --param oracle=1
} 2>&1 | tee $R/log.txt
cp carry/eri_ps5.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
