/* nlchains: an initial state read from a file (--param init_file).
 *
 * C x N records of two native doubles (q, p) -- (Re psi, Im psi) for dnls -- chain-major,
 * exactly 16 C N bytes, every value finite. The dumps use the same format. Under MPI a rank
 * reads its own chains, copy0 .. copy0 + copies - 1 of copies_total. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nlchains/nlc.h"

int nlc_read_init_file(const nlc_config *cfg, double *q, double *p)
{
    const char *path = cfg->init_file;
    const long N = cfg->N, C = cfg->copies;
    const long Ctot = cfg->copies_total ? cfg->copies_total : C;
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sb_error("nlchains: --param init_file=%s: %s", path, strerror(errno));
        return SB_EXIT_USAGE;
    }
    /* a pipe or a directory has no size to check against */
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        sb_error("nlchains: --param init_file=%s is not a regular file", path);
        return SB_EXIT_USAGE;
    }
    const long want = 16 * N * Ctot;
    if ((long)st.st_size != want || fseek(f, 16 * N * cfg->copy0, SEEK_SET) != 0) {
        fclose(f);
        sb_error("nlchains: --param init_file=%s has %lld bytes; copies=%ld x N=%ld x (q,p) doubles need %ld",
                 path, (long long)st.st_size, Ctot, N, want);
        return SB_EXIT_USAGE;
    }
    double rec[2];
    for (long i = 0; i < N * C; i++) {
        if (fread(rec, sizeof rec, 1, f) != 1) {
            fclose(f);
            sb_error("nlchains: --param init_file=%s: read error at record %ld", path, i);
            return SB_EXIT_USAGE;
        }
        if (!isfinite(rec[0]) || !isfinite(rec[1])) {
            fclose(f);
            sb_error("nlchains: --param init_file=%s: non-finite value at chain %ld, site %ld", path,
                     cfg->copy0 + i / N, i % N);
            return SB_EXIT_USAGE;
        }
        q[i] = rec[0], p[i] = rec[1];
    }
    fclose(f);
    return SB_OK;
}
