#!/usr/bin/env bash
# Pair families on the OpenMP backend (omp_run_fam, eri_hgpfv_*) and the behaviour-neutral
# CUDA clean-ups: GPU tests, the CPU tests of both family paths, whole-J libint2 validations
# on both backends, CUDA taxol/cc-pVDZ, then OpenMP-16 taxol/cc-pVDZ without/with families.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench
cls() { grep -o '"t_[spd]*": [0-9.e+-]*' $1 | sort -u | sed -E 's/"t_([spd]+)": ([0-9.e+-]+)/\1 \2/' | awk '{printf "%s %.1f  ", $1, $2*1e3}'; echo; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)|Thread"
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|famil"
for t in test_eri_openmp test_eri_families; do
  echo "== $t"; timeout 120 carry/new/$t 2>&1 | grep -E "PASS|FAIL|rror|famil|skip"
done
for be in openmp_simd cuda; do
  for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz benzene.cc-pvtz; do
    m=${c%%.*} b=${c#*.}
    timeout 100 $N validate eri_brush --backend $be --param molecule=$m --param basis=$b > $R/val/$be.$c.txt 2>&1
    echo "== validate $be $c: $(grep -c ' PASS ' $R/val/$be.$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$be.$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$be.$c.txt)"
  done
done
timeout 100 $N validate eri_brush --backend openmp_simd --param molecule=water --param basis=cc-pvdz --param cartesian=1 > $R/val/openmp.water.cc-pvdz.cart.txt 2>&1
echo "== validate openmp_simd water.cc-pvdz cartesian: $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/openmp.water.cc-pvdz.cart.txt)"
echo "== cuda taxol/cc-pvdz"
timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
cls $R/json/cuda.taxol.json
for v in fam0 fam1; do
  echo "== openmp $v taxol/cc-pvdz"
  SB_ERI_FAMILY=${v#fam} timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$v.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
  cls $R/json/omp.$v.taxol.json
done
} 2>&1 | tee $R/log.txt
cp carry/script-call1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
