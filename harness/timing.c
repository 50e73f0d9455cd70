#include <stddef.h>

#include "sb_omp.h"
#include "timing.h"

int sb_timer_init(sb_timer *t, sb_backend b)
{
    t->backend = b;
    t->events = NULL;
    t->t0 = 0;
    if (b != SB_BACKEND_CUDA) return SB_OK;
    t->events = sb_cuda_timer_create();
    if (!t->events) {
        sb_error("could not create CUDA event timer");
        return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}

int sb_timer_start(sb_timer *t)
{
    if (t->events) return sb_cuda_timer_start(t->events) == 0 ? SB_OK : SB_EXIT_RUNTIME;
    t->t0 = sb_clock_seconds();
    return SB_OK;
}

double sb_timer_stop(sb_timer *t)
{
    if (t->events) return sb_cuda_timer_stop(t->events);
    return sb_clock_seconds() - t->t0;
}

void sb_timer_free(sb_timer *t)
{
    if (t->events) sb_cuda_timer_destroy(t->events);
    t->events = NULL;
}
