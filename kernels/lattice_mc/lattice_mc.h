/* lattice_mc: Metropolis Monte Carlo of a nematic liquid crystal (Lebwohl–Lasher) */
#ifndef LATTICE_MC_H
#define LATTICE_MC_H
#include "sb.h"
extern const sb_kernel lattice_mc_kernel;
#endif
