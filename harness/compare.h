/* `scibench compare OLD NEW`: throughput ratios with a noise band and
 * validation changes, per (kernel, backend, size, params, seed). */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <stdio.h>

#define SB_COMPARE_USAGE \
    "compare OLD NEW [--threshold 0.10] [--format table|markdown|csv|json] [--normalise none|peak]"

/* Only checks the arguments (after "compare"): SB_OK or SB_EXIT_USAGE after one line. */
int sb_compare_check_args(int argc, char **argv);

/* argv holds the arguments after "compare". Writes the report to out and
 * returns the exit code: 0 no regression, 1 a regression or a validation
 * change or a benchmark error in NEW, 2 usage (one line on stderr). */
int sb_compare_main(int argc, char **argv, FILE *out);

#endif
