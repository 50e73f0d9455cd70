#!/usr/bin/env bash
# Thirteenth session, call 2: the committed build (3fa2ce8: family kernels' register targets
# per class). GPU tests; GPU libint2 validation of every shipped reference; taxol/cc-pVDZ
# with the per-class targets against SB_ERI_FAM_BLOCKS=0 (the previous code), alternating
# with 16-core OpenMP runs for same-call ratios; the results table's CUDA rows (official JSON
# names).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/h100 $R/json; N=carry/new/scibench
run() { local be=$1 size=$2 tag=$3; shift 3; timeout 200 $N run eri_brush --backend $be --size $size --quiet "$@" \
          --json $R/h100/eri_brush.$be.$size$tag.json 2>&1 | grep -E "^(time|VALIDATION (PASSED|FAILED))"; }
cls() { grep -o '"t_[spd]*": [0-9.e+-]*' $1 | sort -u | sed -E 's/"t_([spd]+)": ([0-9.e+-]+)/\1 \2/' | awk '{printf "%s %.2f  ", $1, $2*1e3}'; echo; }
cu() { local tag=$1; shift
  env "$@" timeout 120 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/cuda.$tag.json > $R/json/cuda.$tag.txt 2>&1
  echo "== cuda $tag ($*): $(grep -E '^time' $R/json/cuda.$tag.txt | head -1) $(grep -cE 'VALIDATION PASSED' $R/json/cuda.$tag.txt) passed $(grep -o 'trJD[^,]*' $R/json/cuda.$tag.json | head -1)"
  cls $R/json/cuda.$tag.json; }
omp() { echo "== openmp $1 taxol/cc-pvdz"
  timeout 200 $N run eri_brush --backend openmp_simd --quiet --reps 1 --warmup 0 --param molecule=taxol --param basis=cc-pvdz --json $R/json/omp.$1.taxol.json 2>&1 | grep -E "^(time|FLOP)|VALIDATION (PASSED|FAILED)|rror|trJD"; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|famil"
for c in water.sto-3g water.6-31gs water.cc-pvdz water.def2-svp benzene.sto-3g benzene.cc-pvdz vitamin_c.def2-svp vitamin_c.cc-pvdz water.cc-pvtz water.def2-tzvp benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
timeout 100 $N validate eri_brush --backend cuda --param molecule=water --param basis=cc-pvdz --param cartesian=1 > $R/val/water.cc-pvdz.cart.txt 2>&1
echo "== validate cuda water.cc-pvdz cartesian: $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/water.cc-pvdz.cart.txt)"
for round in 1 2; do
  cu tuned.r$round; cu blocks0.r$round SB_ERI_FAM_BLOCKS=0; omp r$round
done
for mb in benzene:cc-pvdz vitamin_c:def2-svp vitamin_c:cc-pvdz benzene:cc-pvtz vitamin_c:cc-pvtz taxol:cc-pvdz; do
  m=${mb%%:*} b=${mb#*:}; reps=5; [ $m = taxol -o $b = cc-pvtz -a $m = vitamin_c ] && reps=3
  echo "== cuda $m/$b"; run cuda 16 .molecule-$m.basis-$b --reps $reps --param molecule=$m --param basis=$b
done
for n in 4 16 64; do echo "== cuda water $n"; run cuda $n "" --reps 5; done
omp r3; cu tuned.r3
} 2>&1 | tee $R/log.txt
cp carry/script-call2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
