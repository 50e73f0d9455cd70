/* fullerene_ff generator: reading isomers from a file (ff_read_spirals).
 *
 * One isomer per line: 12 whitespace-separated 1-based pentagon positions, strictly
 * ascending, each in 1..F, and the spiral must close into a fullerene C_N; '#' starts a
 * comment, blank lines are skipped. The first bad line stops the read with one message
 * naming file:line and what is wrong. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/spiral_internal.h"

/* Parses one line (comment already cut). 0: a spiral in *s; 1: nothing on the line;
 * -1: error, message printed. */
static int parse_line(const char *path, long lineno, char *line, int N, ff_spiral *s)
{
    const int F = ff_faces(N);
    int n = 0;
    char *p = line;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || (*end && !isspace((unsigned char)*end))) {
            char *tok_end = p;
            while (*tok_end && !isspace((unsigned char)*tok_end)) tok_end++;
            sb_error("%s:%ld: '%.*s' is not a pentagon position (an integer 1..%d)", path, lineno,
                     (int)(tok_end - p > 40 ? 40 : tok_end - p), p, F);
            return -1;
        }
        if (n == 12) {
            sb_error("%s:%ld: more than 12 pentagon positions", path, lineno);
            return -1;
        }
        if (errno == ERANGE || v < 1 || v > F) {
            sb_error("%s:%ld: pentagon position %.*s out of range 1..%d (C%d has %d faces)", path, lineno,
                     (int)(end - p > 40 ? 40 : end - p), p, F, N, F);
            return -1;
        }
        if (n > 0 && v - 1 <= s->pent[n - 1]) {
            sb_error("%s:%ld: pentagon positions must be strictly ascending (%ld after %d)", path, lineno, v,
                     s->pent[n - 1] + 1);
            return -1;
        }
        s->pent[n++] = (uint16_t)(v - 1);
        p = end;
    }
    if (n == 0) return 1;
    if (n < 12) {
        sb_error("%s:%ld: %d pentagon position%s, expected 12", path, lineno, n, n == 1 ? "" : "s");
        return -1;
    }
    uint16_t dual[6 * FF_MAX_F];
    if (ff_windup_faces(F, s->pent, dual) != 0) {
        sb_error("%s:%ld: the spiral does not close into a fullerene C%d", path, lineno, N);
        return -1;
    }
    return 0;
}

int ff_read_spirals(const char *path, int N, ff_spiral **out, long *count)
{
    if (out) *out = NULL;
    if (count) *count = 0;
    if (!path || !out || !count) {
        sb_error("fullerene_ff: ff_read_spirals needs a path and outputs");
        return SB_EXIT_USAGE;
    }
    if (!ff_valid_n(N)) {
        sb_error("fullerene_ff: no fullerene C%d: N must be even, %d..%d, and not 22", N, FF_MIN_N, FF_MAX_N);
        return SB_EXIT_USAGE;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        sb_error("%s: cannot open: %s", path, strerror(errno));
        return SB_EXIT_USAGE;
    }
    char *line = NULL;
    size_t linecap = 0;
    ssize_t len;
    long lineno = 0, n = 0, cap = 0;
    ff_spiral *list = NULL;
    int rc = SB_OK;
    errno = 0;
    while ((len = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            sb_error("%s:%ld: contains a NUL byte", path, lineno);
            rc = SB_EXIT_USAGE;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        ff_spiral s;
        const int r = parse_line(path, lineno, line, N, &s);
        if (r < 0) {
            rc = SB_EXIT_USAGE;
            break;
        }
        if (r > 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            ff_spiral *p = realloc(list, (size_t)cap * sizeof *p);
            if (!p) {
                sb_error("%s:%ld: out of memory", path, lineno);
                rc = SB_EXIT_RUNTIME;
                break;
            }
            list = p;
        }
        list[n++] = s;
    }
    if (rc == SB_OK && ferror(f)) {
        sb_error("%s: read error after line %ld: %s", path, lineno, strerror(errno));
        rc = SB_EXIT_USAGE;
    }
    if (rc == SB_OK && n == 0) {
        sb_error("%s: no spirals (expected lines of 12 pentagon positions)", path);
        rc = SB_EXIT_USAGE;
    }
    free(line);
    fclose(f);
    if (rc != SB_OK) {
        free(list);
        return rc;
    }
    *out = list;
    *count = n;
    return SB_OK;
}
