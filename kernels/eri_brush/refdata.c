/* eri_brush: reader of the libint2 reference files (format: data/ref/FORMAT.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/refdata.h"
#include "sb.h"

static int grow(void **p, long *cap, long need, size_t elem)
{
    if (need <= *cap) return 0;
    long n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return -1;
    *p = q, *cap = n;
    return 0;
}

static int scalar_key(eri_ref *r, const char *key, double v)
{
    struct {
        const char *k;
        double *dst;
    } keys[] = {{"screen", &r->screen}, {"seed", &r->seed}, {"nquartets", &r->nquartets},
                {"neris", &r->neris},   {"sum", &r->sum},   {"sum2", &r->sum2},
                {"ej", &r->ej},         {"jnorm", &r->jnorm}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i].k)) {
            *keys[i].dst = v;
            if (!strcmp(key, "sum")) r->has_sums = 1;
            if (!strcmp(key, "ej")) r->has_j = 1;
            return 1;
        }
    if (!strcmp(key, "nbf")) return r->nbf = (int)v, 1;
    if (!strcmp(key, "nshell")) return r->nshell = (int)v, 1;
    if (!strcmp(key, "pure")) return r->pure = (int)v, 1;
    return 0;
}

int eri_ref_read(const char *path, eri_ref *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (!f) {
        sb_error("eri_brush: cannot open the libint2 reference %s", path);
        return SB_EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, jcap = 0, bcap = 0, vcap = 0, jcap2 = 0, jcap3 = 0;
    int rc = SB_OK;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        char key[32];
        int used = 0;
        if (line[0] == '#') {
            if (!r->producer[0]) snprintf(r->producer, sizeof r->producer, "%.*s", (int)strcspn(line + 1, "\n"), line + 1);
            continue;
        }
        if (sscanf(line, "%31s%n", key, &used) != 1) continue;
        const char *rest = line + used;
        if (!strcmp(key, "molecule") || !strcmp(key, "basis")) continue;
        if (!strcmp(key, "j")) {
            int i, j;
            double v;
            if (sscanf(rest, "%d %d %lf", &i, &j, &v) != 3) goto bad;
            if (grow((void **)&r->ji, &jcap, r->nj + 1, sizeof(int)) ||
                grow((void **)&r->jj, &jcap2, r->nj + 1, sizeof(int)) ||
                grow((void **)&r->jv, &jcap3, r->nj + 1, sizeof(double)))
                goto oom;
            r->ji[r->nj] = i, r->jj[r->nj] = j, r->jv[r->nj] = v, r->nj++;
        } else if (!strcmp(key, "q")) {
            eri_ref_block b;
            int k;
            if (sscanf(rest, "%d %d %d %d %d%n", &b.s[0], &b.s[1], &b.s[2], &b.s[3], &b.n, &k) != 5 || b.n < 1)
                goto bad;
            rest += k;
            if (grow((void **)&r->blk, &bcap, r->nblock + 1, sizeof b) ||
                grow((void **)&r->vals, &vcap, r->nval + b.n, sizeof(double)))
                goto oom;
            b.v0 = r->nval;
            for (int i = 0; i < b.n; i++) {
                char *end;
                r->vals[r->nval++] = strtod(rest, &end);
                if (end == rest) goto bad;
                rest = end;
            }
            r->blk[r->nblock++] = b;
        } else {
            double v;
            if (sscanf(rest, "%lf", &v) != 1 || !scalar_key(r, key, v)) goto bad;
        }
        continue;
    bad:
        sb_error("%s:%ld: malformed reference line (see data/ref/FORMAT.md)", path, lineno);
        rc = SB_EXIT_USAGE;
        break;
    oom:
        sb_error("eri_brush: out of memory reading %s", path);
        rc = SB_EXIT_RUNTIME;
        break;
    }
    free(line);
    fclose(f);
    if (!rc && (r->nbf <= 0 || r->nshell <= 0)) {
        sb_error("%s: no nbf/nshell header", path);
        rc = SB_EXIT_USAGE;
    }
    if (rc) eri_ref_free(r);
    return rc;
}

void eri_ref_free(eri_ref *r)
{
    free(r->ji), free(r->jj), free(r->jv), free(r->blk), free(r->vals);
    memset(r, 0, sizeof *r);
}
