/* Per-class flop model and path choice, from the flop counts the generator took of the code
 * it emitted (build/gen/eri_brush/eri_gen_info.h; the model is documented there). */
#include "eri_brush/eri.h"

#define ERI_GEN_INFO_TABLE
#include "eri_brush/eri_gen_info.h"

const eri_class_info *eri_class(int cls)
{
    return (cls >= 0 && cls < ERI_NCLASS) ? &eri_gen_class_info[cls] : NULL;
}

double eri_quartet_flops(int cls, int path, int nb, int nk, int pure)
{
    if (cls < 0 || cls >= ERI_NCLASS || path < 0 || path >= ERI_NPATH) return 0.0;
    const eri_class_info *c = &eri_gen_class_info[cls];
    double f = (double)nb * (double)nk * c->flops_prim[path] + c->flops_contr[path];
    return pure ? f + eri_gen_sph_flops[cls] : f;
}

int eri_path_choose(int cls, int nb, int nk, int forced)
{
    if (forced >= 0 && forced < ERI_NPATH) return forced;
    /* the transform is the same for both paths, so it cannot change the choice */
    const double hgp = eri_quartet_flops(cls, ERI_PATH_HGP, nb, nk, 0);
    const double md = eri_quartet_flops(cls, ERI_PATH_MD, nb, nk, 0);
    return md < hgp ? ERI_PATH_MD : ERI_PATH_HGP;
}
