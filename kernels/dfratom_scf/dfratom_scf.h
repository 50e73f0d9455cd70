/* dfratom_scf: relativistic Dirac-Fock SCF of closed-shell atoms in well-tempered Gaussian
 * bases (DFRATOM / CUDAProphet) */
#ifndef DFRATOM_SCF_H
#define DFRATOM_SCF_H
#include "sb.h"
extern const sb_kernel dfratom_scf_kernel;
#endif
