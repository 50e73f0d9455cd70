#!/usr/bin/env bash
# Fourteenth session, call 1: the batch tensors read from per-candidate tables of elementary
# radial integrals (dfr_etab). GPU test, the Xe K = 30 batch (GPU and host eigen-solves), Be and
# Ne batches, the sequential baseline again (the direct path's dfr_rk was refactored), and the
# single-SCF direct build (job=fock, job=scf) to show it unchanged.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
sel() { grep -E "^(time|machine|  GPU)|batch_time|batch_tab|batch_scfs|batch_chunk|batch_engines|batch_conv|dfr_[te]_kernel|dfr_g_kernel|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local name=$1; shift; echo "== $name"; timeout 200 $N run dfratom_scf "$@" --json $R/json/$name.json > $R/$name.txt 2>&1; echo "rc $?"; sel < $R/$name.txt; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_dfratom_scf"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_dfratom_scf 2>&1 | grep -E "PASS|FAIL|OK|rror|batch"
run xe30.batch.cusolver --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --reps 1 --warmup 0
run xe30.batch.lapack --backend cuda --size 30 --param job=batch --reps 1 --warmup 0
run be16.batch.cusolver --backend cuda --size 16 --param atom=Be --param job=batch --param eigensolver=cusolver --reps 5
run ne20.batch.cusolver --backend cuda --size 20 --param atom=Ne --param job=batch --param eigensolver=cusolver --reps 3
run xe30.fock --backend cuda --size 30 --param job=fock --reps 10
run xe30.scf --backend cuda --size 30 --reps 3
run be16.batch.omp --backend openmp_simd --size 16 --param atom=Be --param job=batch --reps 1 --warmup 0
run xe30.batch.sequential --backend cuda --size 30 --param job=batch --param batch_engine=sequential --reps 1 --warmup 0
run xe30.batch.cusolver.r2 --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --reps 1 --warmup 0
} 2>&1 | tee $R/log.txt
cp carry/script-call1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
