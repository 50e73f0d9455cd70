#!/usr/bin/env bash
# Installs scibench's Debian build dependencies (when missing) and builds everything.
# Usage (root, or with sudo available): tools/setup.sh [make arguments, e.g. CUDA=0]
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(build-essential python3 libjansson-dev librandom123-dev libcmocka-dev libfftw3-dev hyperfine gnuplot-nox libint2-dev
      liblapacke-dev libopenblas-dev libopenblas-openmp-dev libgfortran-12-dev libnlopt-dev libopenmpi-dev openmpi-bin libpapi-dev libpfm4-dev
      clang libclang-rt-dev)  # clang + its runtimes: the libFuzzer targets (make fuzz)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The CUDA toolkit is not a Debian package here: use it where it is installed.
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
if command -v nvcc >/dev/null; then echo "setup: CUDA objects with $(nvcc --version | tail -1)"
else echo "setup: no nvcc found: building the CPU backends only (CUDA=0)"; fi
# NCCL (GPU data between MPI ranks): NCCL_HOME's, the toolkit's, or else the nvidia-nccl-cu13 wheel
if command -v nvcc >/dev/null; then
  cuda=$(dirname "$(dirname "$(command -v nvcc)")")
  if [ ! -e "${NCCL_HOME:-/nonexistent}/include/nccl.h" ] && [ ! -e "$cuda/include/nccl.h" ] &&
     ! python3 -c 'import nvidia.nccl' 2>/dev/null; then
    echo "setup: installing NCCL (the nvidia-nccl-cu13 wheel)"
    python3 -m pip install -q nvidia-nccl-cu13 || echo "setup: NCCL not installed: MPI runs stage GPU data through host memory"
  fi
fi
# One make for everything, so that -j keeps every core busy to the end: eri_brush's libint2
# reference tool first (one long C++ file; skipped where libint2-dev is absent), the binary,
# the tests.
make -j"$(nproc)" eri-libint2 all tests "$@"
