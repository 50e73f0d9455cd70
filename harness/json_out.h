/* Results as Google Benchmark JSON (context + benchmarks[]), so its
 * compare.py and github-action-benchmark read them, plus scibench fields. */
#ifndef SB_JSON_OUT_H
#define SB_JSON_OUT_H

#include <jansson.h>

#include "hwinfo.h"
#include "runloop.h"

/* Before running: the path must name a file (not a directory), its name and length must
 * fit, and its directory must exist and take a new file (one is made there and removed).
 * SB_OK, or SB_EXIT_USAGE with a message naming the path. */
int sb_json_check_path(const char *path);

/* Writes a new temporary beside path (".<name>.XXXXXX", made exclusively, so no file of the
 * user's is ever replaced but path itself) and renames it onto path: never a partial file.
 * exe is argv[0]. SB_OK or SB_EXIT_RUNTIME with a message. */
int sb_json_write(const char *path, const sb_result *r, const sb_hwinfo *hw, const char *exe);

/* Any JSON document to path the same way (the temporary, the rename, the signals held). */
int sb_json_save(json_t *root, const char *path);

#endif
