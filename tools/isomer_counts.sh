#!/usr/bin/env bash
# Fullerene isomer counts of the fullerene_ff generator (ff_enumerate) against OEIS A007894
# (kernels/fullerene_ff/data/A007894.txt), for C_N with N = NMIN..NMAX, even.
# Usage: tools/isomer_counts.sh [NMAX [NMIN]]   (defaults 100 and 20; threads: OMP_NUM_THREADS)
# Prints N, the count, the OEIS value, the time and PASS/FAIL; exits 1 on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
nmax=${1:-100}
nmin=${2:-20}
data=kernels/fullerene_ff/data/A007894.txt
build=${BUILD:-build}
[[ $nmax =~ ^[0-9]+$ && $nmin =~ ^[0-9]+$ ]] || { echo "usage: $0 [NMAX [NMIN]]" >&2; exit 2; }

# The driver links the library like the Makefile links the tests (CUDA libraries when the
# library holds CUDA objects).
make -s -j"$(nproc)" "$build/libscibench.a" >&2
libs=(-ljansson -lfftw3 -lm)
if ar t "$build/libscibench.a" | grep -q '^sb_cuda.*\.o$'; then
  cuda=${CUDA_HOME:-/usr/local/cuda}
  libs+=(-L"$cuda/lib64" -lcufft -Wl,-rpath,"$cuda/lib64" -lcudart_static -ldl -lrt -lpthread -lstdc++)
fi
driver="$build/tools/isomer_counts"
mkdir -p "$build/tools"
${CC:-gcc} -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -Wall -Wextra -Werror -Iharness -Ikernels \
  -o "$driver" tools/isomer_counts.c "$build/libscibench.a" "${libs[@]}"

printf '%5s %10s %10s %10s  %s\n' N isomers OEIS 'time [s]' result
"$driver" "$nmin" "$nmax" | awk -v data="$data" '
  BEGIN { while ((getline line < data) > 0) if (line !~ /^#/) { split(line, f, " "); ref[f[1]] = f[2] } }
  { n = $1; got = $2; t = $3; total += t
    if (!(n in ref)) { res = "no reference"; want = "-" }
    else { want = ref[n]; res = (got == want) ? "PASS" : "FAIL"; if (res == "FAIL") bad++ }
    printf "%5d %10d %10s %10.3f  %s\n", n, got, want, t, res; fflush() }
  END { printf "total %.1f s; %d mismatch(es)\n", total, bad; exit bad ? 1 : 0 }'
