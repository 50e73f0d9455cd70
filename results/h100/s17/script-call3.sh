#!/usr/bin/env bash
# Seventeenth session, call 3: gpu_dfratom_scf at 9b761da (the Kr/Ne tensor-path fixture moved
# into tests/dfr_util.h; the tests' assertions unchanged).
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs:/usr/local/cuda/lib64
R=$OUT/r; mkdir -p $R
{ date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  SB_REQUIRE_GPU=1 timeout 400 carry/x/gpu_dfratom_scf; echo "rc $?"; date; } 2>&1 | tee $R/log.txt
cp carry/script-c3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
