#!/usr/bin/env bash
# Thirteenth session, call 1: register targets of the CUDA family kernels (SB_ERI_FAM_BLOCKS,
# every class at once; per-class times from SB_ERI_SEGTIMES) at chunk budgets 64 and 32,
# SB_ERI_FAM_BLOCKS=0 is the previous build's code (the baseline), GPU libint2 validations, and
# OpenMP-16 taxol in the same call.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench O=carry/new/scibench.old
cls() { grep -o '"t_[spd]*": [0-9.e+-]*' $1 | sort -u | sed -E 's/"t_([spd]+)": ([0-9.e+-]+)/\1 \2/' | awk '{printf "%s %.2f  ", $1, $2*1e3}'; echo; }
cu() { local tag=$1 bin=$2; shift 2
  env "$@" SB_ERI_SEGTIMES=1 timeout 120 $bin run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.$tag.json > $R/json/cuda.$tag.txt 2>&1
  echo "== cuda $tag ($*): $(grep -E '^time' $R/json/cuda.$tag.txt | head -1) $(grep -cE 'VALIDATION PASSED' $R/json/cuda.$tag.txt) passed $(grep -o 'trJD[^,]*' $R/json/cuda.$tag.json | head -1)"
  grep 'family kernel' $R/json/cuda.$tag.txt | sort -u; grep -i 'error' $R/json/cuda.$tag.txt | head -3
  cls $R/json/cuda.$tag.json; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
# GPU tests: call 2 (the final binary; one binary fits a call)

for acc in 64 32; do for nb in 0 3 4 5 6 8; do cu b$nb.a$acc $N SB_ERI_FAM_BLOCKS=$nb SB_ERI_FAM_ACC=$acc; done; done
cu b0.a64.again $N SB_ERI_FAM_BLOCKS=0

for c in water.cc-pvdz.0 water.cc-pvdz.1 benzene.cc-pvdz.0 vitamin_c.cc-pvdz.0; do
  m=${c%%.*} r=${c#*.} b=${r%.*} cart=${r##*.}
  for nb in 0 8; do
  SB_ERI_FAM_BLOCKS=$nb timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b --param cartesian=$cart > $R/val/cuda.$c.b$nb.txt 2>&1
  echo "== validate cuda $c blocks $nb: $(grep -c ' PASS ' $R/val/cuda.$c.b$nb.txt) PASS, $(grep -c ' FAIL ' $R/val/cuda.$c.b$nb.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/cuda.$c.b$nb.txt)"
  done
done
for v in 1 2; do
  echo "== openmp $v taxol/cc-pvdz"
  timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$v.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"
  cu after-omp$v $N
done
} 2>&1 | tee $R/log.txt
cp carry/script-call1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
