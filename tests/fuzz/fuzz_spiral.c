/* Fuzz target: fullerene_ff's spiral list reader (ff_read_spirals). Input byte 0 picks C_N
 * (valid sizes and a few invalid ones); the rest is the file. Every spiral it accepts must
 * wind up into C_N. */
#include <stdlib.h>

#include "fuzz_util.h"
#include "fullerene_ff/spiral_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int sizes[16] = {20, 24, 26, 28, 30, 36, 40, 50, 60, 70, 80, 100, 22, 21, 400, 402};
    if (size < 1) return 0;
    const int N = sizes[data[0] % 16], F = ff_faces(N);
    ff_spiral *list = NULL;
    long n = -1;
    fuzz_errors_reset();
    int rc = ff_read_spirals(fuzz_file(data + 1, size - 1), N, &list, &n);
    fuzz_expect_one_line(rc);
    if (rc) {
        FUZZ_ASSERT(!list && n == 0);
        return 0;
    }
    FUZZ_ASSERT(list && n >= 1);
    uint16_t *dual = malloc(6 * (size_t)F * sizeof *dual);
    FUZZ_ASSERT(dual != NULL);
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 12; k++) FUZZ_ASSERT(list[i].pent[k] < F && (k == 0 || list[i].pent[k] > list[i].pent[k - 1]));
        FUZZ_ASSERT(ff_windup(N, &list[i], dual) == 0);
    }
    free(dual);
    free(list);
    return 0;
}
