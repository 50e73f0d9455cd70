#!/usr/bin/env bash
# Fourteenth session, call 3 (64226a4): the results rows of the tabulated batch. GPU test; Xe K = 30
# batches (GPU eigen-solves at batch_mem 8 and 24 GiB, host LAPACK), the sequential baseline,
# Be and Ne batches, the OpenMP batched Be row.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
sel() { grep -E "^(time|machine|  GPU)|batch_time|batch_tab|batch_scfs|batch_chunk|batch_engines|batch_conv|pyscf|dfr_[te]_kernel|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local name=$1; shift; echo "== $name"; timeout 200 $N run dfratom_scf "$@" --json $R/json/$name.json > $R/$name.txt 2>&1; echo "rc $?"; sel < $R/$name.txt; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_dfratom_scf"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_dfratom_scf 2>&1 | grep -E "PASS|FAIL|OK|rror|batch"
run dfratom_scf.cuda.30.job-batch.eigensolver-cusolver --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --reps 3 --warmup 0
run dfratom_scf.cuda.30.job-batch.eigensolver-cusolver.batch_mem-24 --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --param batch_mem=24 --reps 3 --warmup 0
run dfratom_scf.cuda.30.job-batch --backend cuda --size 30 --param job=batch --reps 1 --warmup 0
run dfratom_scf.cuda.30.job-batch.batch_engine-sequential --backend cuda --size 30 --param job=batch --param batch_engine=sequential --reps 1 --warmup 0
run dfratom_scf.cuda.16.atom-Be.job-batch.eigensolver-cusolver --backend cuda --size 16 --param atom=Be --param job=batch --param eigensolver=cusolver --reps 5
run dfratom_scf.cuda.20.atom-Ne.job-batch.eigensolver-cusolver --backend cuda --size 20 --param atom=Ne --param job=batch --param eigensolver=cusolver --reps 3
run dfratom_scf.openmp_simd.16.atom-Be.job-batch --backend openmp_simd --size 16 --param atom=Be --param job=batch --reps 3
} 2>&1 | tee $R/log.txt
cp carry/script-call3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
