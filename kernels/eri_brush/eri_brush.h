/* eri_brush: two-electron repulsion integrals over contracted Gaussians, BRUSH-style
 * generated code per shell-quartet class (Rak's thesis, ch. 4), validated against libint2 */
#ifndef ERI_BRUSH_H
#define ERI_BRUSH_H
#include "sb.h"
extern const sb_kernel eri_brush_kernel;
#endif
