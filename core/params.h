/* Harness-side parameter handling: the CLI fills sb_params, kernels read it
 * through the sb_param_* getters declared in sb.h. */
#ifndef SB_PARAMS_H
#define SB_PARAMS_H

#include "sb.h"

#define SB_DEFAULT_REPS 5
#define SB_DEFAULT_WARMUP 1
#define SB_DEFAULT_SEED 1
#define SB_MAX_REPS 100000
#define SB_MAX_WARMUP 100000

/* Defaults of a run: size 0 (kernel default), 5 reps, 1 warm-up, seed 1. */
void sb_params_init(sb_params *p);

/* Adds one "key=value" token (the argument of --param). SB_EXIT_USAGE with a
 * message for a missing '=', an empty key or value, a duplicate key, a key or
 * value too long, or more than SB_MAX_PARAMS keys. */
int sb_params_add(sb_params *p, const char *token);

/* Parameters of a run that every kernel accepts, read by the harness (runloop.c):
 * how GPU data moves between MPI ranks, and whether ranks may share a GPU. */
extern const sb_param_spec sb_run_params[];

/* After setup: the first key no getter asked for is an error naming the keys
 * the kernel accepts (its own and sb_run_params). */
int sb_params_check_unused(const struct sb_kernel *k, const sb_params *p);

/* The value given for key, or NULL; does not mark it used. */
const char *sb_params_value(const sb_params *p, const char *key);

/* Strict number parsing shared with the CLI: no leading space, no trailing
 * garbage, no empty string. 0 ok, -1 malformed, 1 does not fit the type. */
int sb_parse_long(const char *s, long *out);
int sb_parse_u64(const char *s, uint64_t *out);
/* Also rejects nan and inf (-1) and values that overflow a double (1). */
int sb_parse_double(const char *s, double *out);

#endif
