/* Summary statistics of the per-repetition times. */
#ifndef SB_STATS_H
#define SB_STATS_H

typedef struct {
    int n;
    double median, min, max, mean;
    double stddev; /* sample standard deviation (n-1); 0 for n == 1 */
} sb_stats;

/* 0 on success; -1 for n < 1 or an allocation failure. x is not modified. */
int sb_stats_compute(const double *x, int n, sb_stats *out);

#endif
