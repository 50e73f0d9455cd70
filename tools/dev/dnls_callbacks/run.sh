#!/usr/bin/env bash
# Builds bench.cu on the GPU machine (static cuFFT for the legacy callbacks, the LTO
# callbacks as a fatbin; cuFFT's JIT needs nvJitLink: the static one, else the shared one)
# and runs it at N = 1024 (C = 8192), N = 64 and N = 8192 (~8.4M sites each).
# Run from the repository root: bash tools/dev/dnls_callbacks/run.sh [OUTDIR]
set -u
d=tools/dev/dnls_callbacks o=${1:-/tmp/dnls_cb}
mkdir -p "$o"
NV="nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -Werror all-warnings"
$NV -rdc=true -fatbin -gencode arch=compute_90,code=lto_90 -o "$o/lto.fatbin" $d/lto.cu || exit 1
for jit in -lnvJitLink_static -lnvJitLink; do
  echo "== link: -lcufft_static -lculibos $jit"
  $NV -rdc=true -o "$o/bench" $d/bench.cu -lcufft_static -lculibos $jit 2>&1 | tail -5 && [ -x "$o/bench" ] && break
done
[ -x "$o/bench" ] || exit 1
nvcc --version | tail -1
for nc in "1024 8192" "64 131072" "8192 1024"; do "$o/bench" $nc "$o/lto.fatbin" || exit 1; done
