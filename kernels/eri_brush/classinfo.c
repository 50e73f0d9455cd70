/* Per-class flop model and path choice, from the flop counts the generator took of the code
 * it emitted (build/gen/eri_brush/eri_gen_info.h; the model is documented there). */
#include <pthread.h>

#include "eri_brush/eri.h"

#define ERI_GEN_INFO_TABLE
#include "eri_brush/eri_gen_info.h"

/* The generated classes as the generator counted them, then the ones without code (f
 * shells), numbered the same way: angular momenta only. */
static eri_class_info all_classes[ERI_NCLASS];
static pthread_once_t all_once = PTHREAD_ONCE_INIT;

static void all_init(void)
{
    for (int pb = 0; pb < ERI_NPAIRCLASS; pb++)
        for (int pk = 0; pk <= pb; pk++) {
            const int cls = eri_quartet_class(pb, pk);
            int la, lb, lc, ld;
            eri_pair_class_l(pb, &la, &lb);
            eri_pair_class_l(pk, &lc, &ld);
            all_classes[cls] = eri_class_has_code(cls) ? eri_gen_class_info[cls]
                                                       : (eri_class_info){la, lb, lc, ld, {0, 0}, {0, 0}};
        }
}

const eri_class_info *eri_class(int cls)
{
    if (cls < 0 || cls >= ERI_NCLASS) return NULL;
    pthread_once(&all_once, all_init);
    return &all_classes[cls];
}

double eri_quartet_flops(int cls, int path, int nb, int nk, int pure)
{
    const eri_class_info *c = eri_class(cls);
    if (!c) return 0.0;
    if (path == ERI_PATH_JENG) return (double)nb * (double)nk * eri_je_flops_prim(c->la + c->lb, c->lc + c->ld);
    if (path < 0 || path >= ERI_NPATH || !eri_class_has_code(cls)) return 0.0;
    double f = (double)nb * (double)nk * c->flops_prim[path] + c->flops_contr[path];
    return pure ? f + eri_gen_sph_flops[cls] : f;
}

int eri_fam_targets(int cls)
{
    switch (cls) {
#define ERI_FAM_NT(c, la, lb, lc, ld, nt) \
    case c:                               \
        return nt;
        ERI_GEN_FAM_CLASSES(ERI_FAM_NT)
#undef ERI_FAM_NT
    default:
        return 0;
    }
}

double eri_fam_quartet_flops(int cls, int mb, int mk, int cb, int ck, int nb, int nk, int pure)
{
    const double nt = eri_fam_targets(cls);
    if (nt == 0 || cb < 1 || ck < 1) return 0.0;
    if (mb == 1 && mk == 1) return eri_quartet_flops(cls, ERI_PATH_HGP, nb, nk, pure); /* the one-pair code runs */
    const double prim = eri_class(cls)->flops_prim[ERI_PATH_HGP];
    const double chunk = (double)nb * nk * (prim - nt + 2 * nt * cb) + (double)nk * 2 * nt * cb * ck +
                         cb * ck * eri_quartet_flops(cls, ERI_PATH_HGP, 0, 0, pure);
    return chunk * ((mb + cb - 1) / cb) * ((mk + ck - 1) / ck);
}

int eri_path_choose(int cls, int nb, int nk, int forced)
{
    if (!eri_class_has_code(cls)) return ERI_PATH_JENG;
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
 * L >= 6 were faster on both backends and every lower class slower (H100 taxol/cc-pVDZ per class, ms, HGP -> J engine: (dp|dp) 41.7 -> 24.0, (dd|pp) 18.9 ->
 * 10.8, (dd|ds) 12.5 -> 11.5, (dd|dp) 69.8 -> 7.1, (dd|dd) 12.1 -> 0.69, while (dp|pp) 47.3
 * -> 64.9 and (ps|ss) 146 -> 760; 16-core OpenMP benzene/cc-pVDZ 0.24-0.88x for L >= 6,
 * 1.1-2.8x below). On the GPU the J engine's bra-side potential adds were 32 same-address
 * atomics a warp; summed over the warp first (cuda.cu, add_bra), the L = 5 classes became
 * faster there too (taxol/cc-pVDZ, ms, HGP -> J engine, in one device run: (dp|pp) 36.9 -> 17.3, (dp|ds) 25.2 -> 21.2, (dd|ps) 9.5 uncapped ->
 * 6.4), while L = 4 stayed slower ((pp|pp) 10.6 -> 18.6, (ds|pp) 18.1 -> 51.6, (dd|ss) 3.7 ->
 * 5.2). So CUDA starts at ERI_JENG_LMIN_CUDA = 5. The classes without generated code have
 * only the J engine. */
int eri_path_digest_jeng(int cls, int lmin)
{
    const eri_class_info *c = eri_class(cls);
    return c && (!eri_class_has_code(cls) || c->la + c->lb + c->lc + c->ld >= lmin);
}

/* The J engine's flops a primitive quartet, beside the generated paths' (the same model). */
/* Counted as in the generated code's model (eri_gen_info.h): +, -, * are 1, a multiply-add
 * 2, the reciprocal square root ERI_GEN_FLOPS_SQRT, 1/(p+q) ERI_GEN_FLOPS_DIV. */
double eri_je_flops_prim(int lab, int lcd)
{
    const int L = lab + lcd, nb = ERI_NHERM(lab), nk = ERI_NHERM(lcd);
    double f = 1 + ERI_GEN_FLOPS_SQRT + ERI_GEN_FLOPS_DIV; /* p+q, spq, ipq */
    f += 2 + 2 + 3 + 6 + ERI_GEN_FLOPS_BOYS(L) + 1;      /* alpha, s, P-Q, T, Boys, -2 alpha */
    f += 2.0 * (L + 1);                                  /* a2^n F_n */
    for (int n = L - 1; n >= 0; n--)                     /* R: X R + (t-1) R */
        for (int k = L - n; k >= 1; k--)
            for (int t = k; t >= 0; t--)
                for (int u = k - t; u >= 0; u--) {
                    const int c = t > 0 ? t : u > 0 ? u : k - t - u;
                    f += c > 1 ? 3 : 1;
                }
    f += 2.0 * nb * nk + 2.0 * nb; /* W: multiply-adds, then s w into W */
    f += 2.0 * nb * nk + 2.0 * nk; /* V (P != Q; counted always), then f_ab s V */
    return f;
}
