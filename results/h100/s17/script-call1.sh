#!/usr/bin/env bash
# Seventeenth session, call 1. (a) Which vCPUs share a core: FMA throughput of threads pinned
# to vCPU pairs {0,k}. (b) lattice_mc, AVX-512, L = 256, 16 threads: compiler variants of
# kernels/lattice_mc/openmp_simd.c at 54dd11c, alternating: N = gcc 12 -march=x86-64-v4 (the
# AVX512=1 build), S = gcc -march=sapphirerapids -mprefer-vector-width=512, U = N + -funroll-loops,
# C = clang 14 -march=x86-64-v4 -mprefer-vector-width=512 (libomp), C1 = C without interleaving.
# (c) N on 8 threads (vCPUs 0-7) against 16.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
P=carry/x/pairprobe
one() { local tag=$1 bin=$2 L=$3; shift 3
  timeout 200 $bin run lattice_mc --backend openmp_simd --size $L "$@" --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
{
date; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|NUMA node0"
cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list /sys/devices/system/cpu/cpu0/topology/core_id 2>&1
echo "== (a) pinned FMA probe, two passes"
for pass in 1 2; do
  echo "-- pass $pass"; echo -n "{0}: "; $P 0
  for k in $(seq 1 15); do echo -n "{0,$k}: "; $P 0,$k; done
  echo -n "{0-7}: "; $P 0,1,2,3,4,5,6,7
  echo -n "{8-15}: "; $P 8,9,10,11,12,13,14,15
  echo -n "{0-15}: "; $P 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
done
echo "== (b) L=256, 16 threads, reps 5, five rounds"
for r in 1 2 3 4 5; do for v in N S U C C1; do one $v.256.$r carry/x/$v 256 --reps 5; done; done
echo "== (c) N on 8 threads (vCPUs 0-7) and 16, three rounds"
for r in 1 2 3; do
  OMP_NUM_THREADS=8 one N8.256.$r carry/x/N 256 --reps 5
  one N16.256.$r carry/x/N 256 --reps 5
done
date
} 2>&1 | tee $R/log.txt
cp carry/script-c1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
