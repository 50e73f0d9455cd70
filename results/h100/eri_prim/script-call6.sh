#!/usr/bin/env bash
# OpenMP backend (primitive screening, default) beside libint2 at its default precision and at 0,
# same call: taxol/def2-SVP on 16 threads, benzene/cc-pVDZ on 16 and 1.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json $R/libint2; N=carry/new/scibench L=carry/new/eri_libint2
ERI() { local tag=$1; shift; timeout 200 $N run eri_brush --backend openmp_simd --quiet "$@" --json "$R/json/eri_brush.openmp_simd.16$tag.json" | grep -E "^(time|VALIDATION)|FAIL|rror"; }
LIB() { local m=$1 b=$2 th=$3 p=$4; timeout 250 $L bench --molecule $m --basis $b --threads $th --reps 1 --precision $p \
          --json $R/libint2/eri_brush.libint2.$m.$b.threads-$th.precision-$p.json | python3 -c \
          "import json,sys; d=json.load(sys.stdin); print('libint2', d['molecule'], d['basis'], d['threads'], 'thr precision', d['precision'], d['seconds_median'], 's ej', d['ej'])"; }
{
nvidia-smi --query-gpu=name --format=csv,noheader; $N info 2>&1 | grep -iE "fma|triad" | head -4
echo "== benzene openmp 16"; ERI .molecule-benzene.basis-cc-pvdz --reps 3 --param molecule=benzene
for p in 2.220446049250313e-16 0; do LIB benzene cc-pvdz 16 $p; done
echo "== benzene openmp 1"; OMP_NUM_THREADS=1 ERI .molecule-benzene.basis-cc-pvdz.threads-1 --reps 1 --warmup 0 --param molecule=benzene --param oracle=0
for p in 2.220446049250313e-16 0; do LIB benzene cc-pvdz 1 $p; done
echo "== taxol/def2-svp openmp 16"; ERI .molecule-taxol.basis-def2-svp --reps 1 --warmup 0 --param molecule=taxol --param basis=def2-svp --param oracle=1
LIB taxol def2-svp 16 2.220446049250313e-16
LIB taxol def2-svp 16 0
} 2>&1 | tee $R/log.txt
cp carry/eri_ps6.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
