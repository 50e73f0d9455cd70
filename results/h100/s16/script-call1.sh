#!/usr/bin/env bash
# Sixteenth session, call 1: is the CPU site loop slowed by streams aliasing in the L1 (every
# stream of a tick at the same offset mod 4 KiB at L=256)? Baseline B = f8cdd5d (= 46970db code),
# R = lmc_rsqrt instead of 1/sqrtf, RP = R + sub-lattice/component padding, Q = RP + LMC_PROBE
# switches (bit 1 no site loop, 2 no Philox, 4 no draws loop, 8 no rotated copies; timing only).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
B=carry/x/B R1=carry/x/R RP=carry/x/RP Q=carry/x/Q
one() { local tag=$1 bin=$2 L=$3; shift 3
  timeout 200 $bin run lattice_mc --backend openmp_simd --size $L "$@" --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
{
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L1d|L2|L3|MHz|Flags" | cut -c1-200
for b in B R1 RP Q; do ${!b} --version | head -1; done
echo "== A/B/C at L=256, 16 threads, reps 5, four rounds"
for r in 1 2 3 4; do for v in B R1 RP; do one $v.256.$r ${!v} 256 --reps 5; done; done
echo "== sizes: B and RP at L = 252 254 258 128 130 64"
for L in 252 254 258 128 130 64; do for v in B RP; do one $v.$L ${!v} $L --reps 5; done; done
echo "== probe breakdown (Q), L=256, 16 threads"
for p in 0 1 2 4 8 6 14 15 0; do LMC_PROBE=$p one Q.p$p $Q 256 --reps 5; done
echo "== probe breakdown, 1 thread, L=128"
for p in 0 1 2 4 8 15; do OMP_NUM_THREADS=1 LMC_PROBE=$p one Q1.p$p $Q 128 --reps 3; done
echo "== 1 thread L=128: B R1 RP"
for v in B R1 RP B R1 RP; do OMP_NUM_THREADS=1 one $v.1t.128 ${!v} 128 --reps 3; done
} 2>&1 | tee $R/log.txt
cp carry/script-c1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
