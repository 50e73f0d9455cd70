/* One timer for every backend: CUDA events bracket GPU work on the legacy
 * default stream (host clocks would time only the launch), the monotonic
 * clock times CPU work. */
#ifndef SB_TIMING_H
#define SB_TIMING_H

#include "sb.h"
#include "sb_cuda.h"

typedef struct {
    sb_backend backend;
    sb_cuda_timer *events; /* CUDA only */
    double t0;
} sb_timer;

int sb_timer_init(sb_timer *t, sb_backend b);   /* SB_OK or SB_EXIT_RUNTIME */
int sb_timer_start(sb_timer *t);                /* SB_OK or SB_EXIT_RUNTIME */
double sb_timer_stop(sb_timer *t);              /* seconds; < 0 on error */
void sb_timer_free(sb_timer *t);

#endif
