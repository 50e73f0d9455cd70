/* Small numeric helpers shared by the tests. */
#ifndef SB_TESTS_TEST_UTIL_H
#define SB_TESTS_TEST_UTIL_H

#include <math.h>
#include <stddef.h>

static inline double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* max |x - y|; a NaN anywhere makes it NaN, so a tolerance check on it fails */
static inline double max_diff(const double *x, const double *y, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(x[i] - y[i]);
        if (!(d <= m)) m = d;
    }
    return m;
}
#endif
