/* fullerene_ff: the fullerene isomer pipeline (spiral -> dual -> Tutte -> sphere -> force-field
 * optimisation), one isomer per block in lockstep, after Dornonville de la Cour's thesis */
#ifndef FULLERENE_FF_H
#define FULLERENE_FF_H
#include "sb.h"
extern const sb_kernel fullerene_ff_kernel;
#endif
