#!/usr/bin/env bash
# Variant builds of kernels/lattice_mc/openmp_simd.c linked against the AVX512=1 gcc build.
set -euo pipefail
cd /work/main
B=build-avx512
INC="-Iharness -Ibackends/cuda -Ibackends/openmp_simd -Ikernels -I$B/gen"
COMMON="-std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -ffp-contract=off -fno-math-errno -fno-trapping-math -Wall -Wextra -Werror"
LIBS="-ljansson -lfftw3 -Wl,-Bstatic -llapacke -lopenblas -lgfortran -lquadmath -Wl,-Bdynamic -lnlopt -lpthread -lm"
out=/tmp/s17/x; mkdir -p $out
cp $B/scibench $out/N
v() { local tag=$1 cc=$2 omp=$3; shift 3
  $cc -O3 -g $COMMON $INC "$@" -c kernels/lattice_mc/openmp_simd.c -o /tmp/s17/$tag.o
  gcc -O3 -g -o $out/$tag $B/obj/harness/main.o /tmp/s17/$tag.o $B/libscibench.a $LIBS $omp; }
v S gcc -lgomp -march=sapphirerapids -mprefer-vector-width=512
v U gcc -lgomp -march=x86-64-v4 -funroll-loops
v C clang "-L/usr/lib/llvm-14/lib -lomp" -march=x86-64-v4 -mprefer-vector-width=512
v C1 clang "-L/usr/lib/llvm-14/lib -lomp" -march=x86-64-v4 -mprefer-vector-width=512 -mllvm -force-vector-interleave=1
ls -la $out
