/* Per-class flop model and path choice, from the flop counts the generator took of the code
 * it emitted (build/gen/eri_brush/eri_gen_info.h; the model is documented there). */
#include "eri_brush/eri.h"
#include "eri_brush/jengine.h"

#define ERI_GEN_INFO_TABLE
#include "eri_brush/eri_gen_info.h"

const eri_class_info *eri_class(int cls)
{
    return (cls >= 0 && cls < ERI_NCLASS) ? &eri_gen_class_info[cls] : NULL;
}

double eri_quartet_flops(int cls, int path, int nb, int nk, int pure)
{
    if (cls < 0 || cls >= ERI_NCLASS) return 0.0;
    const eri_class_info *c = &eri_gen_class_info[cls];
    if (path == ERI_PATH_JENG) return (double)nb * (double)nk * eri_je_flops_prim(c->la + c->lb, c->lc + c->ld);
    if (path < 0 || path >= ERI_NPATH) return 0.0;
    double f = (double)nb * (double)nk * c->flops_prim[path] + c->flops_contr[path];
    return pure ? f + eri_gen_sph_flops[cls] : f;
}

int eri_path_choose(int cls, int nb, int nk, int forced)
{
    if ((forced >= 0 && forced < ERI_NPATH) || forced == ERI_PATH_JENG) return forced;
    /* the transform is the same for both paths, so it cannot change the choice */
    const double hgp = eri_quartet_flops(cls, ERI_PATH_HGP, nb, nk, 0);
    const double md = eri_quartet_flops(cls, ERI_PATH_MD, nb, nk, 0);
    return md < hgp ? ERI_PATH_MD : ERI_PATH_HGP;
}

/* The flop model does not order the J engine against HGP: per flop the J engine runs 2-10x
 * slower on the low classes (an atomicAdd / a potential update per primitive quartet, scalar
 * code on the CPU), and the HGP kernels of the high classes run far below their usual rate
 * (stack frames of 1-35 KB). So the switch is measured: with the J engine the classes with
 * L >= 6 were faster on both backends and every lower class slower (results/h100/eri_jeng/:
 * H100 taxol/cc-pVDZ per class, ms, HGP -> J engine: (dp|dp) 41.7 -> 24.0, (dd|pp) 18.9 ->
 * 10.8, (dd|ds) 12.5 -> 11.5, (dd|dp) 69.8 -> 7.1, (dd|dd) 12.1 -> 0.69, while (dp|pp) 47.3
 * -> 64.9 and (ps|ss) 146 -> 760; 16-core OpenMP benzene/cc-pVDZ 0.24-0.88x for L >= 6,
 * 1.1-2.8x below). */
int eri_path_digest_jeng(int cls)
{
    const eri_class_info *c = eri_class(cls);
    return c && c->la + c->lb + c->lc + c->ld >= ERI_JENG_LMIN;
}
