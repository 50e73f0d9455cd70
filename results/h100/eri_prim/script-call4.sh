#!/usr/bin/env bash
# segments at their blocks-per-SM cap keep stream 0, every other segment fans out: default (8
# streams) against 16 streams and against prim_screen=0 (8 streams), alternating per case; the
# CUDA result JSON from the default runs; OpenMP with and without primitive screening.
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
    run $tag.ps0.$round SB_ERI_STREAMS=8 cuda $n $R/ab/$tag.ps0.$round.json --reps $reps --param molecule=$m --param basis=$b --param prim_screen=0 $extra
    run $tag.s16.$round SB_ERI_STREAMS=16 cuda $n $R/ab/$tag.s16.$round.json --reps $reps --param molecule=$m --param basis=$b $extra
    j=$R/ab/$tag.s8.$round.json; [ $round = 2 ] && j=$js
    run $tag.s8.$round SB_ERI_STREAMS=8 cuda $n $j --reps $reps --param molecule=$m --param basis=$b $extra
  done
done
echo "== 64 waters"
run 64.ps0 SB_ERI_STREAMS=8 cuda 64 $R/ab/64.ps0.json --reps 5 --param prim_screen=0
run 64.s8 SB_ERI_STREAMS=8 cuda 64 $R/json/eri_brush.cuda.64.json --reps 5
echo "== taxol"
run taxol.ps0 SB_ERI_STREAMS=8 cuda 16 $R/ab/taxol.ps0.json --reps 3 --param molecule=taxol --param prim_screen=0
run taxol.s8 SB_ERI_STREAMS=8 cuda 16 $R/json/eri_brush.cuda.16.molecule-taxol.basis-cc-pvdz.json --reps 3 --param molecule=taxol
echo "== openmp benzene, 16 threads and 1"
run omp.benzene.ps0 OMP_NUM_THREADS=16 openmp_simd 16 $R/ab/omp.benzene.ps0.json --reps 3 --param molecule=benzene --param prim_screen=0
run omp.benzene OMP_NUM_THREADS=16 openmp_simd 16 $R/ab/omp.benzene.json --reps 3 --param molecule=benzene
run omp1.benzene.ps0 OMP_NUM_THREADS=1 openmp_simd 16 $R/ab/omp1.benzene.ps0.json --reps 1 --warmup 0 --param molecule=benzene --param oracle=0 --param prim_screen=0
run omp1.benzene OMP_NUM_THREADS=1 openmp_simd 16 $R/ab/omp1.benzene.json --reps 1 --warmup 0 --param molecule=benzene --param oracle=0
echo "== openmp taxol"
run omp.taxol OMP_NUM_THREADS=16 openmp_simd 16 $R/ab/omp.taxol.json --reps 1 --warmup 0 --param molecule=taxol --param oracle=1
run omp.taxol.ps0 OMP_NUM_THREADS=16 openmp_simd 16 $R/ab/omp.taxol.ps0.json --reps 1 --warmup 0 --param molecule=taxol --param oracle=1 --param prim_screen=0
} 2>&1 | tee $R/log.txt
cp carry/eri_ps4.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
