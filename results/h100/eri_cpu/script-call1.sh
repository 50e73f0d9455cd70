#!/usr/bin/env bash
# OpenMP backend: digest without the 800-byte zeroing per quartet, 4x4 transposed loads of the
# primitive pairs and Boys rows (AVX2 lanes). Old (989f3dd) / new alternating on the CPU side;
# libint2 at its default precision beside it (taxol/def2-SVP 16 threads, benzene 16 and 1);
# taxol/cc-pVDZ OpenMP and CUDA for the GPU ratio.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json $R/libint2; N=carry/new/scibench O=carry/old/scibench L=carry/new/eri_libint2
ERI() { local v=$1 tag=$2; shift 2; local B=$O; [ $v = new ] && B=$N
        timeout 200 $B run eri_brush --backend openmp_simd --quiet "$@" --json "$R/json/$v.eri_brush.openmp_simd.16$tag.json" | grep -E "^(time|VALIDATION)|FAIL|rror"; }
LIB() { local m=$1 b=$2 th=$3 p=2.220446049250313e-16; timeout 250 $L bench --molecule $m --basis $b --threads $th --reps 1 --precision $p \
          --json $R/libint2/eri_brush.libint2.$m.$b.threads-$th.precision-$p.json | python3 -c \
          "import json,sys; d=json.load(sys.stdin); print('libint2', d['molecule'], d['basis'], d['threads'], 'thr precision', d['precision'], d['seconds_median'], 's ej', d['ej'])"; }
{
nvidia-smi --query-gpu=name --format=csv,noheader; $N info 2>&1 | grep -iE "fma|triad" | head -4
for round in 1 2; do
  for v in old new; do
    echo "== round $round $v benzene/cc-pvdz 16 thr"; ERI $v .molecule-benzene.basis-cc-pvdz.r$round --reps 5 --param molecule=benzene
    echo "== round $round $v benzene/cc-pvdz 1 thr"; OMP_NUM_THREADS=1 ERI $v .molecule-benzene.basis-cc-pvdz.threads-1.r$round --reps 1 --warmup 0 --param molecule=benzene --param oracle=0
    echo "== round $round $v vitamin_c/def2-svp 1 thr"; OMP_NUM_THREADS=1 ERI $v .molecule-vitamin_c.basis-def2-svp.threads-1.r$round --reps 1 --warmup 0 --param molecule=vitamin_c --param basis=def2-svp --param oracle=0
  done
done
echo "== libint2 benzene 16 and 1"; LIB benzene cc-pvdz 16; LIB benzene cc-pvdz 1
echo "== old taxol/def2-svp 16"; ERI old .molecule-taxol.basis-def2-svp --reps 1 --warmup 0 --param molecule=taxol --param basis=def2-svp --param oracle=1
echo "== new taxol/def2-svp 16"; ERI new .molecule-taxol.basis-def2-svp --reps 1 --warmup 0 --param molecule=taxol --param basis=def2-svp --param oracle=1
echo "== libint2 taxol/def2-svp 16"; LIB taxol def2-svp 16
echo "== new taxol/cc-pvdz 16"; ERI new .molecule-taxol.basis-cc-pvdz --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz
echo "== cuda taxol/cc-pvdz"; timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/new.eri_brush.cuda.16.molecule-taxol.basis-cc-pvdz.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)"
} 2>&1 | tee $R/log.txt
cp carry/eri_cpu1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
