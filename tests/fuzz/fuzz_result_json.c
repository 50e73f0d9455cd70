/* Fuzz target: the result JSON reader behind `compare` and `table` (sb_rset_load and the
 * strict checks of result_check.c), then compare and table themselves on the file. The input
 * is the file; its length picks compare's output format and normalisation. */
#include <math.h>
#include <stdio.h>

#include "compare.h"
#include "fuzz_util.h"
#include "results.h"
#include "table.h"

static FILE *sink(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    FUZZ_ASSERT(f != NULL);
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"table", "markdown", "csv", "json"};
    const char *path = fuzz_file(data, size);
    sb_rset s;
    fuzz_errors_reset();
    int rc = sb_rset_load(path, 1, &s);
    fuzz_expect_one_line(rc);
    for (int i = 0; !rc && i < s.n; i++) {
        const sb_rrow *r = &s.row[i];
        FUZZ_ASSERT(r->nchecks >= 0 && r->nchecks <= SB_MAX_CHECKS);
        FUZZ_ASSERT(!r->verdict_split || !r->passed);
        FUZZ_ASSERT(sb_rrow_noise(r) >= 0);
        FUZZ_ASSERT(sb_rset_find(&s, r->key) == i); /* unique: one row per case */
    }
    sb_rset_free(&s);

    char *argv[] = {(char *)path, (char *)path, "--format", (char *)formats[size % 4], "--normalise",
                    size / 4 % 2 ? "peak" : "none"};
    fuzz_errors_reset();
    rc = sb_compare_main(6, argv, sink());
    FUZZ_ASSERT(rc >= 0 && rc <= 2);
    fuzz_expect_one_line(rc == 2);
    fuzz_errors_reset();
    rc = sb_table_main(1, argv, sink());
    fuzz_expect_one_line(rc);
    return 0;
}
