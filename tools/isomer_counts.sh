#!/usr/bin/env bash
# Fullerene isomer counts of the fullerene_ff generator (ff_enumerate) against OEIS A007894
# (kernels/fullerene_ff/data/A007894.txt), for C_N with N = NMIN..NMAX, even.
# Usage: tools/isomer_counts.sh [NMAX [NMIN]]   (defaults 100 and 20; threads: OMP_NUM_THREADS)
# Time on 2 cores: about 6 minutes for 20..100 (C100 alone 100 s and 1.2 GB); it grows
# about 1.3x per step of N beyond.
# Prints N, the count, the OEIS value, the time and PASS/FAIL; exits 1 on any mismatch.
# FF_COUNTS_PREBUILT=1 uses an existing $BUILD/tools/isomer_counts (a machine without a
# compiler, e.g. the GPU machine) instead of building it.
set -euo pipefail
cd "$(dirname "$0")/.."
nmax=${1:-100}
nmin=${2:-20}
data=${FF_COUNTS_DATA:-kernels/fullerene_ff/data/A007894.txt} # override: to see a FAIL
build=${BUILD:-build}
if ! [[ $nmax =~ ^[0-9]+$ && $nmin =~ ^[0-9]+$ ]] || ((nmin % 2 || nmax % 2 || nmin < 20 || nmin > nmax)); then
  echo "usage: $0 [NMAX [NMIN]]  (even, 20 <= NMIN <= NMAX; the data file goes to 120)" >&2
  exit 2
fi

driver="$build/tools/isomer_counts"
if [[ ${FF_COUNTS_PREBUILT:-0} == 1 ]]; then
  [[ -x $driver ]] || { echo "$0: FF_COUNTS_PREBUILT=1 but $driver does not exist" >&2; exit 2; }
else
  # The driver links the library like the Makefile links the tests (CUDA libraries when the
  # library holds CUDA objects).
  make -s -j"$(nproc)" "$build/libscibench.a" >&2
  libs=(-ljansson -lfftw3 -lm)
  if ar t "$build/libscibench.a" | grep -q '^sb_cuda.*\.o$'; then
    cuda=${CUDA_HOME:-/usr/local/cuda}
    libs+=(-L"$cuda/lib64" -lcufft -Wl,-rpath,"$cuda/lib64" -lcudart_static -ldl -lrt -lpthread -lstdc++)
  fi
  mkdir -p "$build/tools"
  ${CC:-gcc} -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -Wall -Wextra -Werror -Iharness -Ikernels \
    -o "$driver" tools/isomer_counts.c "$build/libscibench.a" "${libs[@]}"
fi

declare -A ref
while read -r n c _; do
  [[ -z $n || $n == \#* ]] || ref[$n]=$c
done <"$data"

printf '%5s %10s %10s %10s  %s\n' N isomers OEIS 'time [s]' result
bad=0
start=$(date +%s.%N)
shopt -s lastpipe # the loop below runs in this shell, so it can count the mismatches
"$driver" "$nmin" "$nmax" | while read -r n got t; do
  if [[ -z ${ref[$n]+set} ]]; then want=-; res="no reference"
  elif [[ $got == "${ref[$n]}" ]]; then want=${ref[$n]}; res=PASS
  else want=${ref[$n]}; res=FAIL; bad=$((bad + 1))
  fi
  printf '%5d %10d %10s %10.3f  %s\n' "$n" "$got" "$want" "$t" "$res"
done
awk -v a="$start" -v b="$(date +%s.%N)" -v bad="$bad" 'BEGIN { printf "total %.1f s (wall); %d mismatch(es)\n", b - a, bad }'
[[ $bad == 0 ]]
