/* Strict reading of result JSON before `compare`, `table` or `--baseline` use it:
 * every entry's required fields and their types, and within each case of a scibench file
 * the agreement of its repetition rows with its median/min/max aggregates. */
#ifndef SB_RESULT_CHECK_H
#define SB_RESULT_CHECK_H

#include <jansson.h>

/* SB_OK, or SB_EXIT_USAGE after one line naming the file, the entry (benchmarks[i] and its
 * name) and the field. Validation verdicts that disagree between a case's entries are not an
 * error here: the reader counts such a case as FAILED. */
int sb_result_check(const char *path, json_t *root);

/* The validation verdict of one entry: its "passed" and every check's "pass" together.
 * 1 PASS, 0 FAIL, -1 the entry has no validation object; *self_split = 1 when "passed"
 * disagrees with its own checks. */
int sb_entry_verdict(json_t *entry, int *self_split);

#endif
