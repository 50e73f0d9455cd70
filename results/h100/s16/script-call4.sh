#!/usr/bin/env bash
# Sixteenth session, call 4: the draws computed 16 sites at a time straight from the Philox words
# (F, 476450b + fused row draws) against N = 476450b and B = f8cdd5d; AVX-512, L = 256.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab
B=carry/x/B N=carry/x/N F=carry/x/F
one() { local tag=$1 bin=$2 L=$3; shift 3
  timeout 200 $bin run lattice_mc --backend openmp_simd --size $L "$@" --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
{
for b in B N F; do ${!b} --version | head -1; done
echo "== 16 threads, L=256, reps 5, five rounds"
for r in 1 2 3 4 5; do for v in B N F; do one $v.256.$r ${!v} 256 --reps 5; done; done
echo "== 1 thread, L=128, reps 3, three rounds"
for r in 1 2 3; do for v in B N F; do OMP_NUM_THREADS=1 one $v.1t.128.$r ${!v} 128 --reps 3; done; done
echo "== F droplet 128, F 64"
one F.128.droplet $F 128 --reps 5 --param geometry=droplet
for v in B F; do one $v.64 ${!v} 64 --reps 5; done
} 2>&1 | tee $R/log.txt
cp carry/script-c4.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
