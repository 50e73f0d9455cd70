#!/usr/bin/env bash
# Sixteenth session, call 2: are the 16 vCPUs 16 cores or 8 cores with two hardware threads
# each? FMA and triad probes (scibench info) and lattice_mc at L=256 with threads pinned to
# chosen vCPUs. B = f8cdd5d AVX-512 build (= the code of 46970db).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close
R=$OUT/r; mkdir -p $R/ab
B=carry/x/B
probe() { printf '%-40s ' "$*"; env "$@" $B info 2>&1 | grep -E "measured" | tr -s ' '; }
lmc() { local tag=$1; shift
  env "$@" timeout 200 $B run lattice_mc --backend openmp_simd --size 256 --reps 5 --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
{
grep -m1 -E "^model\s*:" /proc/cpuinfo; grep -m1 -E "^stepping" /proc/cpuinfo; grep -m1 -E "^cpu MHz" /proc/cpuinfo
grep -m1 -o -E "avx512_fp16|amx_tile" /proc/cpuinfo | sort -u | paste -sd' '
lscpu -e
cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>&1
echo "== probes"
probe OMP_NUM_THREADS=1 OMP_PLACES={0}
probe OMP_NUM_THREADS=2 OMP_PLACES={0},{1}
probe OMP_NUM_THREADS=2 OMP_PLACES={0},{8}
probe OMP_NUM_THREADS=2 OMP_PLACES={0},{2}
probe OMP_NUM_THREADS=8 OMP_PLACES={0},{1},{2},{3},{4},{5},{6},{7}
probe OMP_NUM_THREADS=8 OMP_PLACES={0},{2},{4},{6},{8},{10},{12},{14}
probe OMP_NUM_THREADS=8 OMP_PLACES={8},{9},{10},{11},{12},{13},{14},{15}
probe OMP_NUM_THREADS=16 OMP_PLACES=cores
probe OMP_NUM_THREADS=1 OMP_PLACES={0}
probe OMP_NUM_THREADS=2 OMP_PLACES={0},{1}
probe OMP_NUM_THREADS=2 OMP_PLACES={0},{8}
echo "== lattice_mc L=256 AVX-512"
for r in 1 2; do
lmc t16.$r OMP_NUM_THREADS=16 OMP_PLACES=cores
lmc t8lo.$r OMP_NUM_THREADS=8 OMP_PLACES={0},{1},{2},{3},{4},{5},{6},{7}
lmc t8ev.$r OMP_NUM_THREADS=8 OMP_PLACES={0},{2},{4},{6},{8},{10},{12},{14}
lmc t8hi.$r OMP_NUM_THREADS=8 OMP_PLACES={8},{9},{10},{11},{12},{13},{14},{15}
lmc t2a.$r OMP_NUM_THREADS=2 OMP_PLACES={0},{1}
lmc t2b.$r OMP_NUM_THREADS=2 OMP_PLACES={0},{8}
lmc t1.$r OMP_NUM_THREADS=1 OMP_PLACES={0}
done
} 2>&1 | tee $R/log.txt
cp carry/script-c2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
