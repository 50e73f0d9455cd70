#!/usr/bin/env bash
# Sixteenth session, call 3 (476450b): GPU tests (new: the batch's table and direct tensor passes),
# dfratom_scf batch runs after the run_lane/launch refactor, lattice_mc CPU A/B of the buffers
# allocated once (N = 476450b AVX-512) against B = f8cdd5d, CPU scaling of the probes and the kernel.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/ab $R/h100
B=carry/x/B N=carry/x/N C=carry/x/C
one() { local tag=$1 bin=$2 L=$3; shift 3
  timeout 200 $bin run lattice_mc --backend openmp_simd --size $L "$@" --json $R/ab/$tag.json > $R/ab/$tag.txt 2>&1
  echo "$tag rc $? $(grep -E '^throughput|^bandwidth' $R/ab/$tag.txt | tr -s ' ' | cut -d' ' -f2-3,6- | paste -sd';') $(grep -E 'VALIDATION (PASSED|FAILED)' $R/ab/$tag.txt)"; }
DFR() { local size=$1 tag=$2; shift 2; timeout 300 $C run dfratom_scf --backend cuda --size $size --quiet "$@" \
          --json "$R/h100/dfratom_scf.cuda.$size$tag.json" | grep -E "^(time|throughput|VALIDATION)|^  (energy |scf_it|batch_chunk|batch_tab|batch_best)|FAIL"; echo "rc $?"; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
for b in B N C; do ${!b} --version | head -1; done
echo "== gpu_dfratom_scf"; SB_REQUIRE_GPU=1 timeout 400 carry/x/gpu_dfratom_scf 2>&1 | grep -E "OK|PASS|FAIL|rror|skip|path|Ne K"
echo "== gpu_lattice_mc"; SB_REQUIRE_GPU=1 timeout 300 carry/x/gpu_lattice_mc 2>&1 | grep -E "OK|PASS|FAIL|rror|skip"
echo "== dfratom_scf batch on cuda"
DFR 16 .atom-Be.job-batch --reps 5 --param atom=Be --param job=batch --param batch_check=256
DFR 20 .atom-Ne.job-batch --reps 3 --param atom=Ne --param job=batch
echo "== lattice_mc cuda L=256"
timeout 200 $C run lattice_mc --backend cuda --size 256 --reps 10 | grep -E "^throughput|^bandwidth|^occupancy|VALIDATION (P|F)"
echo "== lattice_mc AVX-512 L=256 16 threads: B (f8cdd5d) / N (476450b), four rounds"
for r in 1 2 3 4; do for v in B N; do one $v.256.$r ${!v} 256 --reps 5; done; done
one N.256.droplet $N 128 --reps 5 --param geometry=droplet
echo "== probes (scibench info) by thread count, twice"
for r in 1 2; do for n in 1 2 4 8 16; do printf 'threads %2d: ' $n; OMP_NUM_THREADS=$n $N info 2>&1 | grep measured | tr -s ' '; done; done
echo "== lattice_mc N by thread count, L=256"
for n in 1 2 4 8 16; do OMP_NUM_THREADS=$n one N.t$n $N 256 --reps 3; done
} 2>&1 | tee $R/log.txt
cp carry/script-c3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
