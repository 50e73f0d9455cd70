#ifndef LATTICE_MC_VALIDATE_H
#define LATTICE_MC_VALIDATE_H
#include "lattice_mc/lmc.h"
/* All three layers for a finished benchmark state `bench` on backend b. */
int lmc_validate_all(lmc *bench, sb_backend b, uint64_t seed, sb_validation *v, sb_counters *cs);
#endif
