/* eri_brush OpenMP-SIMD backend: the chunk code of one class (openmp_simd.c has the design).
 * A class's chunk functions are compiled in the translation units of its L = la+lb+lc+ld (and
 * path, where the units split them): the generator writes build/gen/eri_brush/eri_cpu_L*.c,
 * which include this header and their classes' generated code and invoke the ERI_OMP_UNIT_*
 * macros below, so that make -j compiles the classes side by side; openmp_simd.c calls them
 * through the declarations. */
#ifndef ERI_OPENMP_SIMD_CLASS_H
#define ERI_OPENMP_SIMD_CLASS_H

#include "eri_brush/boys.h"
#include "eri_brush/digest.h"
#include "eri_brush/dispatch.h"
#include "eri_brush/eri.h"
#include "eri_brush/eri_gen_info.h"
#include "eri_brush/jengine_host.h"
#include "eri_brush/lanes.h"

#define OMP_MAXBLK (ERI_NCART(ERI_CODE_LMAX) * ERI_NCART(ERI_CODE_LMAX) * ERI_NCART(ERI_CODE_LMAX) * ERI_NCART(ERI_CODE_LMAX))

/* a thread's lane scratch: interleaved primitive pairs of ERI_W bras and kets, the blocks */
typedef struct {
    eri_primv *bra, *ket;    /* maxpp each */
    eri_primfv *fbra, *fket; /* maxfpp each (families) */
    eri_v out[OMP_MAXBLK];
} omp_lanes;

typedef struct {
    int seg; /* in the worklist, or (fam) in the family worklist */
    int fam;
    long q0, q1;
} omp_chunk;

typedef struct {
    int nt;
    long nchunk;
    omp_chunk *ch;
    int *seg_c0;     /* nseg + 1: first chunk of each segment */
    size_t nbf2;
    double **Mt;     /* per thread, own 64-byte aligned allocation: no shared lines */
    double **scr;    /* per thread: Cartesian and spherical block */
    omp_lanes **ln;  /* per thread */
    int maxpp;       /* most primitive pairs of any shell pair */
    double *tseg;    /* nt rows of tstride: thread-seconds per segment */
    size_t tstride;  /* nseg rounded up to whole 64-byte lines */
    eri_je_host *je; /* when a segment runs the J engine (path=jeng) */
    eri_families fams; /* maxmem 0: none (eri_families_prepare) */
    eri_worklist fw;   /* the family quartets */
    int maxfpp;        /* most primitive pairs of any family pair */
    int pure;          /* some shell is pure (the flop model's transform) */
    int fam_maxnt;     /* most VRR targets of a class that runs families (omp_fam_classes) */
    unsigned char famc[ERI_NCLASS]; /* the class runs its family quartets (omp_fam_classes) */
    eri_share split_share; /* the MPI share the chunks were cut for (split_shared: any) */
    int split_shared;
} omp_state;

typedef void (*omp_gen_fn)(const eri_prim *, int, const eri_prim *, int, const double *,
                           const double *, const double *, double *ERI_RESTRICT);
typedef void (*omp_sph_fn)(const double *, double *);
typedef void (*omp_genv_fn)(const eri_primv *, int, const eri_primv *, int, const eri_v *,
                            const eri_v *, const double *, eri_v *ERI_RESTRICT);
typedef void (*omp_genfv_fn)(const eri_primfv *, int, const eri_primfv *, int, int, int, int, int,
                             const eri_v *, const eri_v *, const double *, eri_v *ERI_RESTRICT);

/* A class (la lb|lc ld): a literal at every call site, so that block sizes are constants and
 * the digest's loops unroll (the generic loops were a sixth of the CPU time: perf, vitamin C). */
typedef struct {
    int la, lb, lc, ld;
} omp_shape;
#define OMP_HAS_D(c) ((c).la == 2 || (c).lc == 2)
#define OMP_NBLK(c) (ERI_NCART((c).la) * ERI_NCART((c).lb) * ERI_NCART((c).lc) * ERI_NCART((c).ld))

/* Whether the block of quartet (P|Q) goes through the spherical transform. */
static inline int omp_pure_pairs(const eri_batch *b, const eri_pair *P, const eri_pair *Q, int has_d)
{
    const eri_shell *sh = b->bas->sh;
    return has_d && (sh[P->a].pure | sh[P->b].pure | sh[Q->a].pure | sh[Q->b].pure);
}

static inline int omp_pure(const eri_batch *b, long i, int has_d)
{
    return omp_pure_pairs(b, &b->ps->pair[b->w->q[i].P], &b->ps->pair[b->w->q[i].Q], has_d);
}

/* The Cartesian block of quartet (P|Q) is in cart (or, store mode without a transform,
 * already in place): transform it where pure (omp_pure), then store it at dst (store mode)
 * or digest it into M; other: P and Q are different pairs. */
static inline __attribute__((always_inline)) void
omp_finish_pairs(const eri_batch *b, const eri_pair *P, const eri_pair *Q, int other, double *dst, int pure,
                 double *M, double *cart, double *sph, omp_sph_fn tosph, omp_shape cl)
{
    const eri_basis *bas = b->bas;
    const eri_shell *A = &bas->sh[P->a], *B = &bas->sh[P->b];
    const eri_shell *C = &bas->sh[Q->a], *D = &bas->sh[Q->b];
    const int store = b->mode == ERI_MODE_STORE;
    double *blk = cart;
    if (pure) {
        blk = store ? dst : sph;
        tosph(cart, blk);
    }
    if (store) return;
    /* The shells' sizes as constants: the transform (pure) makes every shell solid-harmonic,
     * and without it every shell is Cartesian (the two agree up to p). */
    const double fab = P->a == P->b ? 1.0 : 2.0, fcd = Q->a == Q->b ? 1.0 : 2.0;
    if (pure)
        eri_digest_block(blk, ERI_NSPH(cl.la), ERI_NSPH(cl.lb), ERI_NSPH(cl.lc), ERI_NSPH(cl.ld), A->bf0, B->bf0,
                         C->bf0, D->bf0, fab, fcd, other, b->D, bas->nbf, M);
    else
        eri_digest_block(blk, ERI_NCART(cl.la), ERI_NCART(cl.lb), ERI_NCART(cl.lc), ERI_NCART(cl.ld), A->bf0,
                         B->bf0, C->bf0, D->bf0, fab, fcd, other, b->D, bas->nbf, M);
}

/* The same for quartet i of the worklist. */
static inline __attribute__((always_inline)) void
omp_finish(const eri_batch *b, long i, int pure, double *M, double *cart, double *sph,
           omp_sph_fn tosph, omp_shape cl)
{
    const eri_worklist *w = b->w;
    omp_finish_pairs(b, &b->ps->pair[w->q[i].P], &b->ps->pair[w->q[i].Q], w->q[i].P != w->q[i].Q,
                     b->mode == ERI_MODE_STORE ? b->store + w->store_off[i] : NULL, pure, M, cart, sph, tosph, cl);
}

/* One chunk of one segment of class (la lb|lc ld). The class is a literal at every call
 * site (ERI_OMP_UNIT_MD below), so gen/sph inline and the block sizes are constants. */
static inline __attribute__((always_inline)) void
omp_run_quartets(const eri_batch *b, const eri_segment *sg, long q0, long q1, double *M,
                 double *cart, double *sph, omp_gen_fn gen, omp_sph_fn tosph, omp_shape cl)
{
    const eri_pairs *ps = b->ps;
    const eri_worklist *w = b->w;
    const int nb = sg->nb, nk = sg->nk, store = b->mode == ERI_MODE_STORE;
    for (long i = q0; i < q1; i++) {
        const eri_pair *P = &ps->pair[w->q[i].P], *Q = &ps->pair[w->q[i].Q];
        const int pure = omp_pure(b, i, OMP_HAS_D(cl));
        double *blk = store && !pure ? b->store + w->store_off[i] : cart;
        gen(ps->prim + P->pp0, nb, ps->prim + Q->pp0, nk, P->AB, Q->AB, b->boys, blk);
        omp_finish(b, i, pure, M, cart, sph, tosph, cl);
    }
}

/* The pairs' centre differences A - B (C - D) of the ERI_W lanes as vectors. */
static inline __attribute__((always_inline)) void omp_lanes_ab(const eri_pair *const *P, const eri_pair *const *Q,
                                                               eri_v *AB, eri_v *CD)
{
    for (int c = 0; c < 3; c++) {
#define OMP_AB(l) P[l]->AB[c]
#define OMP_CD(l) Q[l]->AB[c]
        AB[c] = ERI_VBUILD(OMP_AB);
        CD[c] = ERI_VBUILD(OMP_CD);
#undef OMP_AB
#undef OMP_CD
    }
}

/* What the lanes' q hold (eri_primv): the primitive-quartet screen in digest mode only, so that
 * store mode (the oracle's samples included) computes every primitive quartet. */
static inline double omp_pq_scale(const eri_batch *b, const eri_pairs *ps)
{
    return eri_pq_qscale(b->mode == ERI_MODE_DIGEST ? ps->pq_screen : 0.0);
}

/* The Cartesian blocks of the ERI_W quartets (P[l]|Q[l]) of pairs ps (HGP, nb and nk
 * primitive pairs) into ln->out: lane l's block at ((double *)ln->out)[n * ERI_W + l]. */
static inline __attribute__((always_inline)) void
omp_lanes_eval(const eri_batch *b, const eri_pairs *ps, const eri_pair *const *P, const eri_pair *const *Q, int nb,
           int nk, omp_lanes *ln, omp_genv_fn gen)
{
    const eri_prim *src[ERI_W];
    const double qs = omp_pq_scale(b, ps);
    for (int j = 0; j < nb; j++) {
        for (int l = 0; l < ERI_W; l++) src[l] = ps->prim + P[l]->pp0 + j;
        eri_primv_gather(ln->bra + j, src);
#define OMP_Q(l) ps->q[P[l]->pp0 + j] * qs
        ln->bra[j].q = ERI_VBUILD(OMP_Q);
#undef OMP_Q
    }
    for (int j = 0; j < nk; j++) {
        for (int l = 0; l < ERI_W; l++) src[l] = ps->prim + Q[l]->pp0 + j;
        eri_primv_gather(ln->ket + j, src);
#define OMP_Q(l) ps->q[Q[l]->pp0 + j] * qs
        ln->ket[j].q = ERI_VBUILD(OMP_Q);
#undef OMP_Q
    }
    eri_v AB[3], CD[3];
    omp_lanes_ab(P, Q, AB, CD);
    gen(ln->bra, nb, ln->ket, nk, AB, CD, b->boys, ln->out);
}

/* The same over ERI_W quartets at a time (HGP), then each lane's block in quartet order. */
static inline __attribute__((always_inline)) void
omp_run_lanes(const eri_batch *b, const eri_segment *sg, long q0, long q1, double *M,
              double *cart, double *sph, omp_lanes *ln, omp_genv_fn gen, omp_sph_fn tosph, omp_shape cl)
{
    const int nblk = OMP_NBLK(cl);
    const eri_pairs *ps = b->ps;
    const eri_worklist *w = b->w;
    for (long i0 = q0; i0 < q1; i0 += ERI_W) {
        const eri_pair *P[ERI_W], *Q[ERI_W];
        for (int l = 0; l < ERI_W; l++) {
            const long i = i0 + l < q1 ? i0 + l : q1 - 1;
            P[l] = &ps->pair[w->q[i].P];
            Q[l] = &ps->pair[w->q[i].Q];
        }
        omp_lanes_eval(b, ps, P, Q, sg->nb, sg->nk, ln, gen);
        const double *lanes = (const double *)ln->out;
        for (int l = 0; l < ERI_W && i0 + l < q1; l++) {
            const long i = i0 + l;
            const int pure = omp_pure(b, i, OMP_HAS_D(cl));
            double *blk = b->mode == ERI_MODE_STORE && !pure ? b->store + w->store_off[i] : cart;
            for (int n = 0; n < nblk; n++) blk[n] = lanes[(size_t)n * ERI_W + l];
            omp_finish(b, i, pure, M, cart, sph, tosph, cl);
        }
    }
}

/* The member counts of the bra and ket family pairs of segment sg of the family worklist;
 * returns their product. */
static inline int omp_fam_members(const omp_state *st, const eri_segment *sg, int *mb, int *mk)
{
    *mb = st->fams.ps.pair[st->fw.q[sg->q0].P].nmem, *mk = st->fams.ps.pair[st->fw.q[sg->q0].Q].nmem;
    return *mb * *mk;
}

/* dst[j] = the primitive pair j of family pair f[l] in lane l, with the members'
 * coefficients */
static inline void omp_fam_gather(const eri_batch *b, const eri_families *fs, const long *f, int n, int nmem,
                                  eri_primfv *dst)
{
    const eri_prim *src[ERI_W];
    const double qs = omp_pq_scale(b, &fs->ps);
    for (int j = 0; j < n; j++) {
        long pp[ERI_W];
        for (int l = 0; l < ERI_W; l++) {
            pp[l] = fs->ps.pair[f[l]].pp0 + j;
            src[l] = fs->ps.prim + pp[l];
        }
        eri_primv_gather(&dst[j].v, src);
#define OMP_Q(l) fs->ps.q[pp[l]] * qs
        dst[j].v.q = ERI_VBUILD(OMP_Q);
#undef OMP_Q
        for (int m = 0; m < nmem; m++) {
#define OMP_K(l) fs->K[ERI_FAM_MAXMEM * pp[l] + m]
            dst[j].Kf[m] = ERI_VBUILD(OMP_K);
#undef OMP_K
        }
    }
}

/* Family quartets q0..q1 of segment sg of the family worklist, ERI_W at a time: every
 * member quartet of a lane in one primitive loop (gen), then each one that the worklist
 * holds (above the screen; within one family each unordered pair of members once) is
 * transformed and digested as the ordinary quartet would be. Digest mode only. */
static inline __attribute__((always_inline)) void
omp_run_fam(const eri_batch *b, const omp_state *st, const eri_segment *sg, long q0, long q1, double *M,
            double *cart, double *sph, omp_lanes *ln, omp_genfv_fn gen, omp_genv_fn gen1, omp_sph_fn tosph,
            omp_shape cl)
{
    const int nblk = OMP_NBLK(cl);
    const eri_families *fs = &st->fams;
    const eri_worklist *fw = &st->fw;
    const int nb = sg->nb, nk = sg->nk;
    int mb, mk;
    const int one = omp_fam_members(st, sg, &mb, &mk) == 1;
    for (long i0 = q0; i0 < q1; i0 += ERI_W) {
        long P[ERI_W], Q[ERI_W];
        const eri_pair *FP[ERI_W], *FQ[ERI_W];
        for (int l = 0; l < ERI_W; l++) {
            const long i = i0 + l < q1 ? i0 + l : q1 - 1;
            P[l] = fw->q[i].P, Q[l] = fw->q[i].Q;
            FP[l] = &fs->ps.pair[P[l]], FQ[l] = &fs->ps.pair[Q[l]];
        }
        if (one) { /* a family of one a side is its pair unchanged: the one-pair code */
            omp_lanes_eval(b, &fs->ps, FP, FQ, nb, nk, ln, gen1);
        } else {
            omp_fam_gather(b, fs, P, nb, mb, ln->fbra);
            omp_fam_gather(b, fs, Q, nk, mk, ln->fket);
            eri_v AB[3], CD[3];
            omp_lanes_ab(FP, FQ, AB, CD);
            gen(ln->fbra, nb, ln->fket, nk, mb, mk, 0, 0, AB, CD, b->boys, ln->out);
        }
        const double *lanes = (const double *)ln->out;
        for (int l = 0; l < ERI_W && i0 + l < q1; l++) {
            const int *mp = fs->mem + ERI_FAM_MAXMEM * P[l], *mq = fs->mem + ERI_FAM_MAXMEM * Q[l];
            for (int i = 0; i < mb; i++)
                for (int j = 0; j < mk; j++) {
                    const eri_pair *A = &b->ps->pair[mp[i]], *B = &b->ps->pair[mq[j]];
                    if ((P[l] == Q[l] && i < j) || !(A->schwarz * B->schwarz >= fw->screen)) continue;
                    const double *src = lanes + (size_t)(i * mk + j) * nblk * ERI_W + l;
                    for (int n = 0; n < nblk; n++) cart[n] = src[(size_t)n * ERI_W];
                    omp_finish_pairs(b, A, B, mp[i] != mq[j], NULL, omp_pure_pairs(b, A, B, OMP_HAS_D(cl)), M, cart,
                                     sph, tosph, cl);
                }
        }
    }
}
/* One chunk of one segment of class (la lb|lc ld) on each path, and (families) of one family
 * segment: eri_omp_chunk_hgp_<la><lb><lc><ld>, eri_omp_chunk_md_..., eri_omp_fam_... */
#define ERI_OMP_CHUNK_FN(path, la, lb, lc, ld)                                                                 \
    void eri_omp_chunk_##path##_##la##lb##lc##ld(const eri_batch *b, const eri_segment *sg, long q0, long q1, \
                                                 double *M, double *cart, double *sph, omp_lanes *ln)
#define ERI_OMP_FAM_FN(la, lb, lc, ld)                                                                       \
    void eri_omp_fam_##la##lb##lc##ld(const eri_batch *b, const omp_state *st, const eri_segment *sg, long q0, \
                                      long q1, double *M, double *cart, double *sph, omp_lanes *ln)
#define ERI_OMP_DECL(cls, la, lb, lc, ld) ERI_OMP_CHUNK_FN(hgp, la, lb, lc, ld); ERI_OMP_CHUNK_FN(md, la, lb, lc, ld);
#define ERI_OMP_FAM_DECL(cls, la, lb, lc, ld, nt) ERI_OMP_FAM_FN(la, lb, lc, ld);
ERI_GEN_CLASSES(ERI_OMP_DECL)
ERI_GEN_FAM_CLASSES(ERI_OMP_FAM_DECL)
#undef ERI_OMP_DECL
#undef ERI_OMP_FAM_DECL

/* The definitions, in the class's units. The class is a literal, so gen/sph inline and the
 * block sizes are constants. The generated functions are named by their class, so a unit has
 * nothing to declare for a class (ERI_OMP_UNIT_CODE). */
#define ERI_OMP_UNIT_CODE(cls, la, lb, lc, ld)
#define ERI_OMP_UNIT_HGP(cls, la, lb, lc, ld)                                                                \
    ERI_OMP_CHUNK_FN(hgp, la, lb, lc, ld)                                                                    \
    {                                                                                                        \
        omp_run_lanes(b, sg, q0, q1, M, cart, sph, ln, ERI_GEN_FN(hgpv, la, lb, lc, ld),                     \
                      ERI_GEN_FN(sph, la, lb, lc, ld), (omp_shape){la, lb, lc, ld});                         \
    }
#define ERI_OMP_UNIT_MD(cls, la, lb, lc, ld)                                                                 \
    ERI_OMP_CHUNK_FN(md, la, lb, lc, ld)                                                                     \
    {                                                                                                        \
        (void)ln;                                                                                            \
        omp_run_quartets(b, sg, q0, q1, M, cart, sph, ERI_GEN_FN(md, la, lb, lc, ld),                        \
                         ERI_GEN_FN(sph, la, lb, lc, ld), (omp_shape){la, lb, lc, ld});                      \
    }
#define ERI_OMP_UNIT_FAM(cls, la, lb, lc, ld, nt)                                                            \
    ERI_OMP_FAM_FN(la, lb, lc, ld)                                                                           \
    {                                                                                                        \
        omp_run_fam(b, st, sg, q0, q1, M, cart, sph, ln, eri_hgpfv_##la##lb##lc##ld,                         \
                    ERI_GEN_FN(hgpv, la, lb, lc, ld), ERI_GEN_FN(sph, la, lb, lc, ld),                       \
                    (omp_shape){la, lb, lc, ld});                                                            \
    }

#endif
