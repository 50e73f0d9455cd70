#!/usr/bin/env bash
# Thirteenth session, call 4: the review mend (CUDA's class flops through fam_quartet_flops
# for one-member families too; same model): GPU tests, GPU libint2 validation of water and
# benzene, taxol/cc-pVDZ CUDA (model GFLOP per build must equal call 2's) and 16-core OpenMP
# alternating.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench
cu() { timeout 120 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.$1.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"; }
omp() { timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$1.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|famil"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for r in 1 2; do echo "== cuda r$r"; cu r$r; echo "== openmp r$r"; omp r$r; done
echo "== cuda r3"; cu r3
} 2>&1 | tee $R/log.txt
cp carry/script-call4.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
