/* The harness's side of an MPI run: failures, per-rank numbers, the baseline. */
#ifndef SB_MPI_RESULT_H
#define SB_MPI_RESULT_H

#include "runloop.h"

/* rc of a step that one rank may fail alone: with several ranks a failure ends them all
 * (after its message), since the others may be waiting in a collective. */
int sb_mpi_alone(int rc);
/* Collective: per-rank medians and items, the communication share, the check that
 * every rank validated, the baseline (--baseline) into r->mpi. own, comm, bytes: this
 * rank's repetition times, time in MPI calls and bytes sent to other ranks. */
int sb_mpi_gather_result(sb_case *c, const double *own, const double *comm, const double *bytes, sb_result *r);
/* Collective: distinct (host, device) pairs over the ranks; 1 for a single rank. */
int sb_mpi_count_devices(int device);
/* Reads --baseline before the run: a usage error when unreadable or of another case. */
int sb_mpi_read_baseline(const char *path, const sb_kernel *k, sb_backend b, double *rate);

#endif
