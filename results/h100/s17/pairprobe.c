/* FMA throughput with threads pinned to the vCPUs named on the command line:
 * pairprobe 0,8 -> GFLOP/s (FP32, AVX-512) of two threads on vCPUs 0 and 8.
 * Two threads on sibling hyperthreads share one core's FMA ports and read about
 * the same as one thread; on two cores they read about twice as much. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NCH = 16 };
static volatile int go;
static double secs(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

typedef struct { int cpu; double flops, dt; } job;

static void *run(void *p)
{
    job *j = p;
    cpu_set_t s; CPU_ZERO(&s); CPU_SET(j->cpu, &s);
    if (pthread_setaffinity_np(pthread_self(), sizeof s, &s)) { fprintf(stderr, "cannot pin to %d\n", j->cpu); exit(2); }
    while (!go) ;
    __m512 a[NCH], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < NCH; i++) a[i] = _mm512_set1_ps((float)i);
    const long iters = 100000000;
    double t0 = secs();
    for (long it = 0; it < iters; it++)
        for (int i = 0; i < NCH; i++) a[i] = _mm512_fmadd_ps(a[i], m, c);
    j->dt = secs() - t0;
    __m512 s2 = a[0];
    for (int i = 1; i < NCH; i++) s2 = _mm512_add_ps(s2, a[i]);
    float o[16]; _mm512_storeu_ps(o, s2);
    j->flops = 2.0 * 16 * NCH * (double)iters + (o[0] == 12345.0f);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: pairprobe CPU[,CPU...]\n"); return 2; }
    job js[64]; pthread_t th[64]; int n = 0;
    for (char *t = strtok(argv[1], ","); t && n < 64; t = strtok(NULL, ",")) js[n++].cpu = atoi(t);
    for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, run, &js[i]);
    go = 1;
    double tot = 0.0, tmax = 0.0;
    for (int i = 0; i < n; i++) { pthread_join(th[i], NULL); tot += js[i].flops; if (js[i].dt > tmax) tmax = js[i].dt; }
    printf("%d threads: %.1f GFLOP/s FP32 (slowest thread %.3f s)\n", n, tot / tmax * 1e-9, tmax);
    return 0;
}
