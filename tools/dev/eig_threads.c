/* Generalised symmetric eigen-solves (LAPACKE dsygvd, the SCF's Roothaan step) from T OpenMP
 * threads at once, each on problems of its own: how the solves scale with the threads for
 * whichever OpenBLAS this is linked with (dfratom_scf's batched engine runs its candidates'
 * host steps so). Build against one OpenBLAS at a time, e.g.
 *   gcc -O2 -fopenmp tools/dev/eig_threads.c -o eig_pthread \
 *       /usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.a \
 *       /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.a -llapacke -lgfortran -lpthread -lm
 * Usage: eig_threads DIM SOLVES_PER_THREAD THREADS... */
#include <lapacke.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void openblas_set_num_threads(int n);

/* A symmetric, B symmetric positive definite (diagonally dominant), from a seed */
static void problem(int n, unsigned seed, double *A, double *B)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i) {
            seed = seed * 1103515245u + 12345u;
            const double a = (double)(seed >> 8) / 16777216.0 - 0.5;
            seed = seed * 1103515245u + 12345u;
            const double b = 0.1 * ((double)(seed >> 8) / 16777216.0 - 0.5);
            A[i + (long)j * n] = A[j + (long)i * n] = a;
            B[i + (long)j * n] = B[j + (long)i * n] = i == j ? 1.0 + n * 0.1 : b;
        }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s DIM SOLVES_PER_THREAD THREADS...\n", argv[0]);
        return 2;
    }
    const int n = atoi(argv[1]), per = atoi(argv[2]);
    openblas_set_num_threads(1); /* as the batched engine sets it around its parallel loop */
    double base = 0.0;
    for (int a = 3; a < argc; ++a) {
        const int T = atoi(argv[a]);
        int bad = 0;
        const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(T) reduction(+ : bad)
        {
            double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n), *w = malloc(sizeof(double) * n);
            for (int k = 0; k < per; ++k) {
                problem(n, 1000u * omp_get_thread_num() + k, A, B);
                bad += LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', n, A, n, B, n, w) != 0;
            }
            free(A), free(B), free(w);
        }
        const double dt = omp_get_wtime() - t0, rate = T * per / dt;
        if (a == 3) base = rate / T;
        printf("dim %d, %d threads: %.0f solves/s, %.2fx one thread's rate x threads%s\n", n, T, rate,
               rate / (base * T), bad ? " (FAILED SOLVES)" : "");
    }
    return 0;
}
