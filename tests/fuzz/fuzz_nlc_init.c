/* Fuzz target: nlchains' initial-state file (nlc_read_init_file): its size against the
 * ensemble shape, this rank's share of it, and the values. Input bytes 0..2 pick N (8..15
 * sites), the chains C (1..4) and, with bit 0 of byte 2, an MPI-style share (copy0 of
 * copies_total); the rest is the file. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nlchains/nlc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    nlc_config cfg = {.N = 8 + data[0] % 8, .copies = 1 + data[1] % 4};
    if (data[2] & 1) {
        cfg.copies_total = cfg.copies + (data[2] >> 1) % 3;
        cfg.copy0 = (data[2] >> 3) % (cfg.copies_total - cfg.copies + 1);
    }
    cfg.init_file = fuzz_file(data + 3, size - 3);
    const size_t n = (size_t)cfg.N * (size_t)cfg.copies;
    double *q = malloc(2 * n * sizeof *q);
    FUZZ_ASSERT(q != NULL);
    double *p = q + n;
    fuzz_errors_reset();
    int rc = nlc_read_init_file(&cfg, q, p);
    fuzz_expect_one_line(rc);
    if (!rc) {
        const long total = cfg.copies_total ? cfg.copies_total : cfg.copies;
        FUZZ_ASSERT(size - 3 == 16 * (size_t)cfg.N * (size_t)total);
        for (size_t i = 0; i < n; i++) FUZZ_ASSERT(isfinite(q[i]) && isfinite(p[i]));
    }
    free(q);
    return 0;
}
