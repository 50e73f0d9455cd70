#!/usr/bin/env bash
# results at 981e8b1 (primitive-pair screening, default prim_screen=1e-18): GPU tests, GPU
# validation against every libint2 reference (all check lines kept), the results table (CUDA
# and OpenMP, same call), libint2 at its default precision and at 0 beside the OpenMP backend.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json $R/libint2 $R/val; N=carry/new/scibench L=carry/new/eri_libint2
ERI() { local be=$1 size=$2 tag=$3; shift 3; timeout 200 $N run eri_brush --backend $be --size $size --quiet "$@" \
          --json "$R/json/eri_brush.$be.$size$tag.json" | grep -E "^(time|VALIDATION)|FAIL|rror"; }
LIB() { local m=$1 b=$2 th=$3 p=$4; timeout 200 $L bench --molecule $m --basis $b --threads $th --reps 1 --precision $p \
          --json $R/libint2/eri_brush.libint2.$m.$b.threads-$th.precision-$p.json | python3 -c \
          "import json,sys; d=json.load(sys.stdin); print('libint2', d['molecule'], d['basis'], d['threads'], 'thr precision', d['precision'], d['seconds_median'], 's ej', d['ej'])"; }
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 150 carry/new/gpu_eri_brush 2>&1 | grep -E "OK|FAIL|PASS"
for c in water.sto-3g.0 water.6-31gs.0 water.cc-pvdz.0 water.cc-pvdz.1 water.def2-svp.0 benzene.sto-3g.0 benzene.cc-pvdz.0 \
         vitamin_c.def2-svp.0 vitamin_c.cc-pvdz.0 water.cc-pvtz.0 water.def2-tzvp.0 benzene.cc-pvtz.0; do
  IFS=. read m bs ca <<< "$c"
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$bs --param cartesian=$ca > $R/val/$c.txt 2>&1
  echo "== validate cuda $m/$bs cartesian=$ca: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
echo "== cuda taxol/cc-pvdz"; ERI cuda 16 .molecule-taxol.basis-cc-pvdz --reps 3 --param molecule=taxol --param basis=cc-pvdz
echo "== openmp taxol/cc-pvdz"
ERI openmp_simd 16 .molecule-taxol.basis-cc-pvdz --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --param oracle=1
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz benzene:cc-pvtz; do
  m=${mb%%:*} bs=${mb#*:}
  echo "== $m/$bs cuda"; ERI cuda 16 .molecule-$m.basis-$bs --reps 5 --param molecule=$m --param basis=$bs
  echo "== $m/$bs openmp 16"; ERI openmp_simd 16 .molecule-$m.basis-$bs --reps 3 --param molecule=$m --param basis=$bs
done
echo "== vitamin_c/cc-pvtz cuda"; ERI cuda 16 .molecule-vitamin_c.basis-cc-pvtz --reps 3 --param molecule=vitamin_c --param basis=cc-pvtz --param oracle=0
echo "== vitamin_c/cc-pvtz openmp 16"; ERI openmp_simd 16 .molecule-vitamin_c.basis-cc-pvtz --reps 1 --warmup 0 --param molecule=vitamin_c --param basis=cc-pvtz --param oracle=0
for n in 4 16 64; do echo "== cuda $n waters"; ERI cuda $n "" --reps 5; done
echo "== openmp 16 waters"; ERI openmp_simd 16 "" --reps 3
echo "== benzene openmp 1 thread"
OMP_NUM_THREADS=1 ERI openmp_simd 16 .molecule-benzene.basis-cc-pvdz.threads-1 --reps 1 --warmup 0 --param molecule=benzene --param oracle=0
echo "== vitamin_c/def2-svp openmp 1 thread"
OMP_NUM_THREADS=1 ERI openmp_simd 16 .molecule-vitamin_c.basis-def2-svp.threads-1 --reps 1 --warmup 0 --param molecule=vitamin_c \
  --param basis=def2-svp --param oracle=0
for th in 16 1; do for p in 2.220446049250313e-16 0; do echo "== libint2 benzene $th threads precision $p"; LIB benzene cc-pvdz $th $p; done; done
echo "== libint2 vitamin_c/def2-svp 16 threads"; LIB vitamin_c def2-svp 16 2.220446049250313e-16
echo "== openmp taxol/def2-svp"
ERI openmp_simd 16 .molecule-taxol.basis-def2-svp --reps 1 --warmup 0 --param molecule=taxol --param basis=def2-svp --param oracle=1
echo "== libint2 taxol/def2-svp 16 threads"; LIB taxol def2-svp 16 2.220446049250313e-16
} 2>&1 | tee $R/log.txt
cp carry/eri_ps2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
