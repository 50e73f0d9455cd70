#!/usr/bin/env bash
# Twelfth session: the digest with constant block sizes (OpenMP). CPU tests, OpenMP libint2
# validations (Cartesian water too: the Cartesian digest sizes), the OpenMP results rows
# (official JSON names), CUDA taxol/cc-pVDZ, then OpenMP-16 taxol/cc-pVDZ alternating the
# previous binary (946c9f7) and this one, with families (default), and this one without.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json $R/h100; N=carry/new/scibench O=carry/new/scibench.old
cls() { grep -o '"t_[spd]*": [0-9.e+-]*' $1 | sort -u | sed -E 's/"t_([spd]+)": ([0-9.e+-]+)/\1 \2/' | awk '{printf "%s %.1f  ", $1, $2*1e3}'; echo; }
row() { local size=$1 tag=$2; shift 2; timeout 200 $N run eri_brush --backend openmp_simd --size $size --quiet "$@" \
          --json $R/h100/eri_brush.openmp_simd.$size$tag.json 2>&1 | grep -E "^(time|VALIDATION (PASSED|FAILED))|rror"; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1; $O --version | head -1
for t in test_eri_openmp test_eri_families; do
  echo "== $t"; timeout 120 carry/new/$t 2>&1 | grep -E "PASSED|FAIL|rror"
done
for c in water.cc-pvdz.0 water.cc-pvdz.1 benzene.cc-pvdz.0 vitamin_c.cc-pvdz.0 benzene.cc-pvtz.0; do
  m=${c%%.*} r=${c#*.} b=${r%.*} cart=${r##*.}
  timeout 100 $N validate eri_brush --backend openmp_simd --param molecule=$m --param basis=$b --param cartesian=$cart > $R/val/openmp_simd.$c.txt 2>&1
  echo "== validate openmp_simd $c: $(grep -c ' PASS ' $R/val/openmp_simd.$c.txt) PASS, $(grep -c ' FAIL ' $R/val/openmp_simd.$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/openmp_simd.$c.txt)"
done
for mb in benzene:cc-pvdz vitamin_c:cc-pvdz benzene:cc-pvtz; do
  m=${mb%%:*} b=${mb#*:}; echo "== openmp row $m/$b"; row 16 .molecule-$m.basis-$b --reps 3 --param molecule=$m --param basis=$b
done
echo "== openmp row water 16"; row 16 "" --reps 3
echo "== openmp row vitamin_c/cc-pvtz"; row 16 .molecule-vitamin_c.basis-cc-pvtz --reps 1 --param molecule=vitamin_c --param basis=cc-pvtz
echo "== openmp row benzene/cc-pvdz 1 thread"; OMP_NUM_THREADS=1 row 16 .molecule-benzene.basis-cc-pvdz.threads-1 --reps 3 --param molecule=benzene --param basis=cc-pvdz
echo "== cuda taxol/cc-pvdz"
timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
for v in old.1 new.1 old.2 new.2 new0.1; do
  echo "== openmp $v taxol/cc-pvdz"
  case $v in old*) B=$O E="SB_ERI_FAMILY=1";; new0*) B=$N E="SB_ERI_FAMILY=0";; new*) B=$N E="SB_ERI_FAMILY=1";; esac
  env $E timeout 200 $B run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$v.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
  cls $R/json/omp.$v.taxol.json
done
cp $R/json/omp.new.1.taxol.json $R/h100/eri_brush.openmp_simd.16.molecule-taxol.basis-cc-pvdz.json
} 2>&1 | tee $R/log.txt
cp carry/script-call4.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
