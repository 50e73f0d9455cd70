#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts a copy: callers keep their times in repetition order. */
static int median_of(const double *x, int n, double *out)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) return -1;
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *out = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return 0;
}

int sb_stats_compute(const double *x, int n, sb_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || median_of(x, n, &out->median)) return -1;
    double sum = 0, lo = x[0], hi = x[0];
    for (int i = 0; i < n; i++) {
        sum += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double mean = sum / n, ss = 0;
    for (int i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    out->n = n;
    out->min = lo;
    out->max = hi;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    return 0;
}
