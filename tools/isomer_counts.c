/* Driver of tools/isomer_counts.sh: for N = NMIN, NMIN+2, .., NMAX prints one line
 * "N isomers seconds" (ff_enumerate, OpenMP threads as OMP_NUM_THREADS says). The script
 * compares the counts with OEIS A007894. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "fullerene_ff/ff.h"

int main(int argc, char **argv)
{
    const int nmin = argc > 1 ? atoi(argv[1]) : FF_MIN_N, nmax = argc > 2 ? atoi(argv[2]) : 100;
    if (argc > 3 || nmin < FF_MIN_N || nmax > FF_MAX_N || nmin > nmax || nmin % 2 || nmax % 2) {
        fprintf(stderr, "usage: %s [NMIN [NMAX]]  (even, %d <= NMIN <= NMAX <= %d)\n", argv[0], FF_MIN_N, FF_MAX_N);
        return SB_EXIT_USAGE;
    }
    for (int N = nmin; N <= nmax; N += 2) {
        const double t0 = omp_get_wtime();
        const long n = ff_enumerate(N, NULL, 0);
        const double t = omp_get_wtime() - t0;
        if (n < 0) {
            fprintf(stderr, "isomer_counts: C%d: enumeration failed (out of memory)\n", N);
            return SB_EXIT_RUNTIME;
        }
        printf("%d %ld %.3f\n", N, n, t);
        fflush(stdout);
    }
    return SB_OK;
}
