#!/usr/bin/env bash
# Fourteenth session, call 2: the table-only tensor kernel instance, the engines' iteration check
# by convergence ratio; GPU test; Xe K = 30 batches with host LAPACK (the check that failed in
# call 1) and with GPU eigen-solves at batch_mem 8 (default), 24 and 48 GiB (larger chunks).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
sel() { grep -E "^(time|machine|  GPU)|batch_time|batch_tab|batch_scfs|batch_chunk|batch_engines|batch_conv|dfr_[te]_kernel|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local name=$1; shift; echo "== $name"; timeout 200 $N run dfratom_scf "$@" --json $R/json/$name.json > $R/$name.txt 2>&1; echo "rc $?"; sel < $R/$name.txt; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_dfratom_scf"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_dfratom_scf 2>&1 | grep -E "PASS|FAIL|OK|rror|batch"
run xe30.batch.lapack --backend cuda --size 30 --param job=batch --reps 1 --warmup 0
run xe30.batch.cusolver --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --reps 1 --warmup 0
run xe30.batch.cusolver.mem24 --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --param batch_mem=24 --reps 1 --warmup 0
run xe30.batch.cusolver.mem48 --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --param batch_mem=48 --reps 1 --warmup 0
run xe30.batch.cusolver.r2 --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --reps 1 --warmup 0
run xe30.batch.cusolver.mem48.r2 --backend cuda --size 30 --param job=batch --param eigensolver=cusolver --param batch_mem=48 --reps 1 --warmup 0
run ne20.batch.cusolver --backend cuda --size 20 --param atom=Ne --param job=batch --param eigensolver=cusolver --reps 3
} 2>&1 | tee $R/log.txt
cp carry/script-call2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
