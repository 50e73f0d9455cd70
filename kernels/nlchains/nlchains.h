/* nlchains: symplectic 6th-order integration of ensembles of nonlinear chains
 * (FPUT, Toda, discrete nonlinear Klein-Gordon, discrete NLS), energy per normal mode by FFT */
#ifndef NLCHAINS_H
#define NLCHAINS_H
#include "sb.h"
extern const sb_kernel nlchains_kernel;
#endif
