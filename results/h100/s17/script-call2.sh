#!/usr/bin/env bash
# Seventeenth session, call 2: a shorter dependency chain in the site update (P: physics.h with
# the bonds from t -+ r n scaled by 1/t2 after the sum, so no division waits before the bonds;
# the six bonds in two chains of three; exp by Estrin's scheme), gcc (P) and clang 14 (PC),
# against 54dd11c with gcc (N) and clang (C). AVX-512, L = 256, 16 threads; then 1 thread.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
one() { local tag=$1 bin=$2 L=$3; shift 3
  timeout 200 $bin run lattice_mc --backend openmp_simd --size $L "$@" --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
gpu() { local tag=$1 bin=$2; shift 2
  timeout 200 $bin run lattice_mc --backend cuda --size 256 --reps 10 --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
{
date
echo "== L=256, 16 threads, reps 5, six rounds"
for r in 1 2 3 4 5 6; do for v in N C P PC; do one $v.256.$r carry/x/$v 256 --reps 5; done; done
echo "== 1 thread, L=128, reps 3, three rounds"
for r in 1 2 3; do for v in N C P PC; do OMP_NUM_THREADS=1 one $v.1t.128.$r carry/x/$v 128 --reps 3; done; done
echo "== P droplet 128, P and N at 64"
one P.128.droplet carry/x/P 128 --reps 5 --param geometry=droplet
for v in N P; do one $v.64 carry/x/$v 64 --reps 5; done
date
} 2>&1 | tee $R/log.txt
cp carry/script-c2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
