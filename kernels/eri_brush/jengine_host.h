/* The C backends' J engine (jengine.c; the arithmetic is jengine.h): shared Hermite densities,
 * per-thread potentials summed in thread order, so that M is bit-for-bit reproducible at a
 * given thread count as with the other paths. Opaque, so that the OpenMP backend does not
 * depend on jengine.h. */
#ifndef ERI_JENGINE_HOST_H
#define ERI_JENGINE_HOST_H

#include "eri_brush/eri.h"

typedef struct eri_je_host eri_je_host;
/* Whether any segment of the batch's worklist runs the J engine (digest mode). */
int eri_je_used(const eri_batch *b);
/* For nt threads; NULL when out of memory. */
eri_je_host *eri_je_host_new(const eri_batch *b, int nt);
void eri_je_host_free(eri_je_host *jh);
/* Inside a parallel region of nt threads, every thread t calls: zero its potentials, then the
 * densities of all pairs (omp for; the caller's barrier follows before any quartet). */
void eri_je_host_begin(eri_je_host *jh, const eri_batch *b, int t);
/* Quartets q0..q1 of segment sg (path jeng) into thread t's potentials. */
void eri_je_host_quartets(const eri_je_host *jh, const eri_batch *b, const eri_segment *sg, long q0, long q1, int t);
/* Inside the parallel region after every quartet and a barrier: the potentials summed in
 * thread order, then each pair's block added into M (thread t's own copy of M). */
void eri_je_host_end(eri_je_host *jh, const eri_batch *b, double *M);

#endif
