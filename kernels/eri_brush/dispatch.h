/* eri_brush: one switch over the generated classes, for C and CUDA backends alike.
 *
 * The generated functions are named by their class's four angular momenta, so a runtime
 * class index must become a compile-time name somewhere; this is that place. Usage:
 *
 *   #define ERI_CLASS_CASE(la, lb, lc, ld)  ...statement, la..ld are literal digits...
 *   #define ERI_CLASS_DEFAULT               ...statement for an unknown class...
 *   ERI_CLASS_SWITCH(cls)
 *
 * Inside ERI_CLASS_CASE, ERI_GEN_FN(hgp, la, lb, lc, ld) names eri_hgp_<la><lb><lc><ld>
 * (likewise md, sph), and ERI_GEN_ID(la, lb, lc, ld) pastes the digits for names of the
 * backend's own per-class functions or templates. */
#ifndef ERI_DISPATCH_H
#define ERI_DISPATCH_H

#include "eri_brush/eri_gen_info.h"

#define ERI_GEN_FN(kind, la, lb, lc, ld) eri_##kind##_##la##lb##lc##ld
#define ERI_GEN_ID(la, lb, lc, ld) la##lb##lc##ld

#define ERI_CLASS_CASE_(cls, la, lb, lc, ld) \
    case cls: {                              \
        ERI_CLASS_CASE(la, lb, lc, ld);      \
    } break;

#define ERI_CLASS_SWITCH(cls_expr)                 \
    switch (cls_expr) {                            \
        ERI_GEN_CLASSES(ERI_CLASS_CASE_)           \
    default: {                                     \
        ERI_CLASS_DEFAULT;                         \
    } break;                                       \
    }

#endif
