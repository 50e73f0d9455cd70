#!/usr/bin/env bash
# Fourteenth session, call 7 (40f85a2): each chunk's SCF iterations in one parallel region, no
# enclosing region for one lane. Lanes 2 and 1 alternating: Xe K = 30 (GPU eigen-solves, batch_mem
# 8 and 24), Be, Ne; the OpenMP Be batch; the sequential baseline in the same call.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
sel() { grep -E "^(time|machine|  GPU)|batch_time|batch_scfs|batch_chunk|batch_engines_iter|batch_engines_ap|batch_conv|pyscf_dhf_dev|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local name=$1; shift; echo "== $name"; timeout 200 $N run dfratom_scf "$@" --json $R/json/$name.json > $R/$name.txt 2>&1; echo "rc $?"; sel < $R/$name.txt; }
X="--backend cuda --size 30 --param job=batch --param eigensolver=cusolver --warmup 0"
BE="--backend cuda --size 16 --param atom=Be --param job=batch --param eigensolver=cusolver"
NE="--backend cuda --size 20 --param atom=Ne --param job=batch --param eigensolver=cusolver"
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_dfratom_scf"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_dfratom_scf 2>&1 | grep -E "PASS|FAIL|OK|rror|batch"
for r in a b; do
  run xe.lanes2.$r $X --reps 2
  run xe.lanes1.$r $X --reps 2 --param batch_lanes=1
  run xe.lanes2.mem24.$r $X --reps 2 --param batch_mem=24
  run xe.lanes1.mem24.$r $X --reps 2 --param batch_mem=24 --param batch_lanes=1
done
run be.lanes2 $BE --reps 5
run be.lanes1 $BE --reps 5 --param batch_lanes=1
run ne.lanes2 $NE --reps 3
run ne.lanes1 $NE --reps 3 --param batch_lanes=1
run be.omp --backend openmp_simd --size 16 --param atom=Be --param job=batch --reps 3
run xe.lapack --backend cuda --size 30 --param job=batch --reps 1 --warmup 0
run xe.sequential --backend cuda --size 30 --param job=batch --param batch_engine=sequential --reps 1 --warmup 0
} 2>&1 | tee $R/log.txt
cp carry/script-call7.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
