/* The core's diagnostics (sb_error, sb_progress in sb.h): what the application and the MPI
 * layer tell them. Nothing here reaches up: the MPI layer hands its rank down. */
#ifndef SB_MESSAGES_H
#define SB_MESSAGES_H

/* After MPI starts: errors then name the rank, and only rank 0 shows progress. */
void sb_messages_set_rank(int rank, int size);
/* A command reports its first error only: what follows it (allocations after a failed one, a
 * teardown after a failed launch) is its consequence, not news. main sets it; the unit tests,
 * which call the harness directly, keep every message. */
void sb_errors_first_only(void);

#endif
