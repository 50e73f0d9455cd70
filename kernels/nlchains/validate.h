#ifndef NLCHAINS_VALIDATE_H
#define NLCHAINS_VALIDATE_H
#include "nlchains/nlc.h"

/* What the kernel recorded at upload of the benchmark state (host, double). */
typedef struct {
    double H0;    /* total energy of the ensemble */
    double P0;    /* total momentum sum p (fput, toda) */
    double norm0; /* sum |psi|^2 (dnls) */
} nlc_start;

double nlc_total_momentum(const nlc *m);
void nlc_record_start(const nlc *m, nlc_start *s);

/* All three layers for the finished benchmark state `bench` (downloaded) on backend b. */
int nlc_validate_all(nlc *bench, const nlc_start *s0, sb_backend b, sb_validation *v, sb_counters *cs);

/* Pieces, for the tests: each adds its checks to v. */
int nlc_check_invariants(const nlc_config *base, sb_backend b, sb_validation *v, sb_counters *cs);
int nlc_check_exact_limits(const nlc_config *base, sb_backend b, sb_validation *v, sb_counters *cs);
int nlc_check_oracle(const nlc_config *base, sb_backend b, sb_validation *v);
#endif
