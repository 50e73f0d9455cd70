/* fullerene_ff: the isomer counts of OEIS A007894 (data/A007894.txt), which setup checks a size
 * against and validation checks isomers=all by. */
#include <stdio.h>

#include "fullerene_ff/ffcase.h"

int ff_oeis_count(int N, long *count)
{
    char path[4096];
    if (sb_data_path("fullerene_ff", "A007894.txt", path, sizeof path)) return SB_EXIT_USAGE;
    FILE *f = fopen(path, "r");
    if (!f) {
        sb_error("fullerene_ff: cannot read %s (OEIS A007894, the isomer counts isomers=all is validated by)", path);
        return SB_EXIT_USAGE;
    }
    char line[256];
    long found = -1, last = 0;
    while (found < 0 && fgets(line, sizeof line, f)) {
        long n, a;
        if (line[0] == '#') continue;
        if (sscanf(line, "%ld %ld", &n, &a) == 2) {
            if (n == N) found = a;
            last = n > last ? n : last;
        }
    }
    fclose(f);
    if (found < 0) {
        sb_error("fullerene_ff: isomers=all at size %d has no isomer count to be validated by in %s (OEIS A007894 "
                 "and the Fullerene program, N <= %ld); accepted with isomers=all: N <= %ld, or isomers=M",
                 N, path, last, last);
        return SB_EXIT_USAGE;
    }
    *count = found;
    return SB_OK;
}
