/* Work spread over MPI ranks (`make MPI=1`, then `mpirun -n R build/scibench run ...`).
 * Kernels call only these functions, never MPI itself: without MPI=1 the same calls
 * compile to a single rank (rank 0 of 1), so the serial binary is unchanged.
 * Every collective here adds its wall time to a communication clock, which the
 * harness reports as the communication share of a repetition. */
#ifndef SB_MPI_H
#define SB_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* main(): before and after everything else. Init reads argc/argv as MPI_Init does. */
void sb_mpi_init(int *argc, char ***argv);
void sb_mpi_finalize(void);

int sb_mpi_rank(void);
int sb_mpi_size(void);
int sb_mpi_local_rank(void); /* rank among the ranks on this host: picks the GPU */
int sb_mpi_local_size(void); /* ranks on this host */
int sb_mpi_hosts(void);      /* distinct hosts */
int sb_mpi_host_index(void); /* this rank's host, 0..hosts-1 */
/* Comma-separated host names, in rank order of first appearance (for the JSON). */
const char *sb_mpi_host_list(void);
const char *sb_mpi_library(void); /* "Open MPI v4.1.4, ..."; "none" without MPI */

/* [lo, hi) of n items for this rank: contiguous blocks, the first n % size ranks one longer. */
void sb_mpi_block(long n, long *lo, long *hi);

/* Collectives over all ranks (in place). They time themselves into the clock below. */
void sb_mpi_barrier(void);
void sb_mpi_sum(double *buf, long n);
void sb_mpi_sum_long(long *buf, long n);
void sb_mpi_max(double *buf, long n);
int sb_mpi_max_int(int v);
int sb_mpi_min_int(int v);
/* Every rank's `bytes` (any size per rank) concatenated in rank order into all
 * (of total size sum of counts), on every rank. counts may be NULL: then every rank's
 * contribution must have the same size. */
void sb_mpi_allgather(const void *mine, size_t bytes, void *all);
void sb_mpi_allgatherv(const void *mine, size_t bytes, void *all, const size_t *counts);
/* rank root's bytes into buf on every rank (host data, e.g. a GPU library's bootstrap id). */
void sb_mpi_bcast(void *buf, size_t bytes, int root);
/* Point to point, for halo exchange: start sends and receives, then wait for all of them. */
typedef struct {
    int n;
    void *req[8];
} sb_mpi_reqs;
void sb_mpi_isend(sb_mpi_reqs *r, const void *buf, size_t bytes, int peer, int tag);
void sb_mpi_irecv(sb_mpi_reqs *r, void *buf, size_t bytes, int peer, int tag);
void sb_mpi_waitall(sb_mpi_reqs *r);

/* A global work counter, for dynamic distribution: next() returns the counter's value
 * before adding `take`, atomically across ranks (MPI one-sided fetch-and-add on rank 0).
 * Collective create/free; reset() is collective too. */
typedef struct sb_mpi_counter sb_mpi_counter;
sb_mpi_counter *sb_mpi_counter_create(void);
long sb_mpi_counter_next(sb_mpi_counter *c, long take);
void sb_mpi_counter_reset(sb_mpi_counter *c);
void sb_mpi_counter_free(sb_mpi_counter *c);

/* Seconds this rank has spent inside the calls above since the last reset, and the bytes
 * it sent to other ranks (point to point and its own part of each reduction), including
 * what a GPU-to-GPU path reports through sb_mpi_comm_add_bytes. */
double sb_mpi_comm_seconds(void);
double sb_mpi_comm_bytes(void);
void sb_mpi_comm_add_bytes(double bytes);
void sb_mpi_comm_reset(void);

/* A runtime failure on one rank that the others cannot see: print, then end every rank. */
void sb_mpi_abort(int code);

#ifdef __cplusplus
}
#endif
#endif
