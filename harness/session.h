/* One `scibench run` or `validate` of a known kernel, from argument checks to
 * exit code; separate from the registry so tests can drive a fake kernel. */
#ifndef SB_SESSION_H
#define SB_SESSION_H

#include <stdio.h>

#include "sb.h"

typedef struct {
    int validate_only; /* skip the peak probes and the roofline lines */
    int profile;       /* --profile: counters of untimed repetitions after the timed ones (one, or
                        * SB_PROFILE_REPS on the GPU) */
    const char *exe;   /* argv[0], recorded in the JSON context */
    FILE *out;         /* the human report; stdout for the CLI */
} sb_session_opts;

/* Checks the JSON path before running anything, runs, prints the report,
 * writes the JSON. Returns the process exit code: 0 validated, 1 validation
 * failed, 2 usage, 3 runtime error. */
int sb_session_run(const sb_kernel *k, sb_backend b, sb_params *p, const sb_session_opts *o);

#endif
