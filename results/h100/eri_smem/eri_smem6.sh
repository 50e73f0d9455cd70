#!/usr/bin/env bash
# gpu_eri_brush with test_jeng_smem (shared-memory vs register J-engine kernels, SB_ERI_JE_SMEM refused outside 5..8)
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/log.txt
SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | tee -a $R/log.txt
cp carry/eri_smem6.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
