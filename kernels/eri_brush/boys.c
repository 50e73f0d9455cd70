/* The Boys function table (layout in boys.h), built once in long double from the series
 *   F_m(T) = e^{-T} sum_k (2T)^k / ((2m+1)(2m+3)...(2m+2k+1)),
 * whose terms are all positive (no cancellation), so each entry carries a relative error of
 * a few 1e-19 before the final rounding to double. */
#include <math.h>
#include <pthread.h>

#include "eri_brush/boys.h"

static double tab[ERI_BOYS_LEN];
static double dev[ERI_BOYS_DEV_LEN]; /* the GPU's layout of the same values (boys.h) */
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static long double boys_series(int m, long double T)
{
    long double term = 1.0L / (2 * m + 1), sum = term;
    for (int k = 1; term > 1e-22L * sum; k++) {
        term *= 2.0L * T / (2 * m + 2 * k + 1);
        sum += term;
    }
    return expl(-T) * sum;
}

/* Both tables from one long-double evaluation per grid point and m. */
static void tab_build(void)
{
    for (int i = 0; i < ERI_BOYS_NGRID; i++) {
        const long double T = (long double)i / (long double)ERI_BOYS_GRID_INV, eT = expl(-T);
        long double F[ERI_BOYS_NM];
        double *r = tab + (size_t)i * ERI_BOYS_ROW;
        for (int m = 0; m < ERI_BOYS_NM; m++) r[m] = (double)(F[m] = boys_series(m, T));
        r[ERI_BOYS_NM] = (double)eT;
        for (int m = 0; m <= ERI_BOYS_TABMMAX; m++) {
            double *d = dev + (size_t)m * ERI_BOYS_DSUB + (size_t)i * ERI_BOYS_DROW;
            long double fact = 1.0L;
            for (int k = 0; k < ERI_BOYS_NTAYLOR; k++) {
                if (k) fact *= k;
                d[k] = (double)(F[m + k] / fact);
            }
            d[ERI_BOYS_NTAYLOR] = (double)eT;
            d[ERI_BOYS_NTAYLOR + 1] = 0.0;
        }
    }
    double *inv = tab + ERI_BOYS_INV_OFF;
    inv[0] = 0.0;
    for (int m = 1; m < ERI_BOYS_NM; m++) inv[m] = 1.0 / (double)(2 * m - 1);
}

const double *eri_boys_table(void)
{
    pthread_once(&tab_once, tab_build);
    return tab;
}

size_t eri_boys_table_len(void) { return ERI_BOYS_LEN; }

const double *eri_boys_dev_table(void)
{
    pthread_once(&tab_once, tab_build);
    return dev;
}
