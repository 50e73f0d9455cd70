/* eri_brush OpenMP-SIMD backend: the worklist's quartets over threads, one generated class
 * function per quartet.
 *
 * Work split: each segment is cut into chunks of about equal modelled cost (flop model of
 * the segment's path), and chunk g of the whole list goes to thread g mod T. A static
 * cyclic split rather than a dynamic one because the digest sums into per-thread M copies:
 * with a fixed chunk -> thread map every thread adds the same terms in the same order, so
 * M is bit-for-bit reproducible from run to run at a given thread count (dynamic
 * scheduling would reorder the additions). Many chunks per thread, interleaved over all
 * classes, keep the threads balanced without a scheduler. The per-thread copies are summed
 * in thread order, rows split over threads. Store mode writes disjoint slices, so its
 * blocks go straight to their place in b->store.
 *
 * Each class gets its own chunk loop with the generated function inlined, so the loop
 * body is straight-line code of fixed shape; nb and nk are the same for every quartet of
 * a segment. HGP segments run ERI_W quartets at a time, one per SIMD lane (lanes.h): their
 * primitive pairs are copied lane-interleaved, eri_hgpv_* computes the ERI_W Cartesian
 * blocks, and each lane's block then goes through the scalar spherical transform and
 * digest in quartet order, so M is the sum of the same terms in the same order as one
 * quartet at a time (the lanes are bit-identical to eri_hgp_*). A chunk whose length is not
 * a multiple of ERI_W repeats its last quartet in the spare lanes and drops their blocks.
 *
 * Pair families (eri_families, digest mode): a class whose pairs share primitives runs its
 * family quartets instead of its segments, ERI_W at a time in lanes, all member quartets of
 * a family quartet in one primitive loop (eri_hgpfv_*); each member quartet above the screen
 * is then transformed and digested as the ordinary quartet would be. The class's family
 * chunks hang from its first segment in the worklist, which takes their time.
 *
 * Per-class times without barriers: each thread adds the time of its own chunks to its row
 * of per-segment thread-seconds, and segment k is given the share of the loop's wall time
 * that its thread-seconds have. A barrier after each segment (the first design) made every
 * segment wait for its slowest chunk: with ~200 segments, many of them a chunk or two, that
 * serialised the tail of each one and capped 16 threads at 2.8-3.7x one thread. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/boys.h"
#include "eri_brush/digest.h"
#include "eri_brush/dispatch.h"
#include "eri_brush/eri.h"
#include "eri_brush/eri_gen_code.h"
#include "eri_brush/eri_gen_famv.h"
#include "eri_brush/eri_gen_info.h"
#include "eri_brush/eri_gen_vec.h"
#include "eri_brush/jengine_host.h"
#include "eri_brush/lanes.h"
#include "sb.h"
#include "sb_omp.h"

#define OMP_MAXBLK (ERI_NCART(ERI_CODE_LMAX) * ERI_NCART(ERI_CODE_LMAX) * ERI_NCART(ERI_CODE_LMAX) * ERI_NCART(ERI_CODE_LMAX))
#define OMP_CHUNKS_PER_THREAD 48 /* enough to average the cost model's errors out */

typedef struct {
    int seg; /* in the worklist, or (fam) in the family worklist */
    int fam;
    long q0, q1;
} omp_chunk;

/* a thread's lane scratch: interleaved primitive pairs of ERI_W bras and kets, the blocks */
typedef struct {
    eri_primv *bra, *ket;    /* maxpp each */
    eri_primfv *fbra, *fket; /* maxfpp each (families) */
    eri_v out[OMP_MAXBLK];
} omp_lanes;

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
 * site (see OMP_CLASS below), so gen/sph inline and the block sizes are constants. */
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

/* The Cartesian blocks of the ERI_W quartets (P[l]|Q[l]) of pairs ps (HGP, nb and nk
 * primitive pairs) into ln->out: lane l's block at ((double *)ln->out)[n * ERI_W + l]. */
static inline __attribute__((always_inline)) void
omp_lanes_eval(const eri_batch *b, const eri_pairs *ps, const eri_pair *const *P, const eri_pair *const *Q, int nb,
           int nk, omp_lanes *ln, omp_genv_fn gen)
{
    const eri_prim *src[ERI_W];
    for (int j = 0; j < nb; j++) {
        for (int l = 0; l < ERI_W; l++) src[l] = ps->prim + P[l]->pp0 + j;
        eri_primv_gather(ln->bra + j, src);
    }
    for (int j = 0; j < nk; j++) {
        for (int l = 0; l < ERI_W; l++) src[l] = ps->prim + Q[l]->pp0 + j;
        eri_primv_gather(ln->ket + j, src);
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
static inline void omp_fam_gather(const eri_families *fs, const long *f, int n, int nmem, eri_primfv *dst)
{
    const eri_prim *src[ERI_W];
    for (int j = 0; j < n; j++) {
        long pp[ERI_W];
        for (int l = 0; l < ERI_W; l++) {
            pp[l] = fs->ps.pair[f[l]].pp0 + j;
            src[l] = fs->ps.prim + pp[l];
        }
        eri_primv_gather(&dst[j].v, src);
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
            omp_fam_gather(fs, P, nb, mb, ln->fbra);
            omp_fam_gather(fs, Q, nk, mk, ln->fket);
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

#define OMP_FAM_CLASS(cls, la, lb, lc, ld, nt)                                                      \
    static void omp_fam_##la##lb##lc##ld(const eri_batch *b, const omp_state *st, const eri_segment *sg, \
                                         long q0, long q1, double *M, double *cart, double *sph,    \
                                         omp_lanes *ln)                                             \
    {                                                                                               \
        omp_run_fam(b, st, sg, q0, q1, M, cart, sph, ln, eri_hgpfv_##la##lb##lc##ld,                \
                    ERI_GEN_FN(hgpv, la, lb, lc, ld), ERI_GEN_FN(sph, la, lb, lc, ld),              \
                    (omp_shape){la, lb, lc, ld});                                                   \
    }
ERI_GEN_FAM_CLASSES(OMP_FAM_CLASS)
#undef OMP_FAM_CLASS

#define OMP_CLASS(cls, la, lb, lc, ld)                                                         \
    static void omp_chunk_##la##lb##lc##ld(const eri_batch *b, const eri_segment *sg, long q0, \
                                           long q1, double *M, double *cart, double *sph,      \
                                           omp_lanes *ln)                                      \
    {                                                                                          \
        const omp_shape cl = {la, lb, lc, ld};                                                 \
        if (sg->path == ERI_PATH_MD)                                                           \
            omp_run_quartets(b, sg, q0, q1, M, cart, sph, ERI_GEN_FN(md, la, lb, lc, ld),      \
                             ERI_GEN_FN(sph, la, lb, lc, ld), cl);                             \
        else                                                                                   \
            omp_run_lanes(b, sg, q0, q1, M, cart, sph, ln, ERI_GEN_FN(hgpv, la, lb, lc, ld),   \
                          ERI_GEN_FN(sph, la, lb, lc, ld), cl);                                \
    }
ERI_GEN_CLASSES(OMP_CLASS)
#undef OMP_CLASS

static int omp_chunk_run(const eri_batch *b, const omp_state *st, const omp_chunk *c, int t, double *M,
                         double *scr, omp_lanes *ln)
{
    if (c->fam) {
        const eri_segment *sg = &st->fw.seg[c->seg];
        switch (sg->cls) {
#define OMP_FAM_CASE(cls, la, lb, lc, ld, nt)                                                        \
    case cls:                                                                                        \
        omp_fam_##la##lb##lc##ld(b, st, sg, c->q0, c->q1, M, scr, scr + OMP_MAXBLK, ln);             \
        return 1;
            ERI_GEN_FAM_CLASSES(OMP_FAM_CASE)
#undef OMP_FAM_CASE
        default:
            return 0;
        }
    }
    const eri_segment *sg = &b->w->seg[c->seg];
    if (sg->path == ERI_PATH_JENG) {
        if (!st->je) return 0; /* store mode: the J engine forms no integrals */
        eri_je_host_quartets(st->je, b, sg, c->q0, c->q1, t);
        return 1;
    }
    double *cart = scr, *sph = scr + OMP_MAXBLK;
    int ok = 1;
#define ERI_CLASS_CASE(la, lb, lc, ld) omp_chunk_##la##lb##lc##ld(b, sg, c->q0, c->q1, M, cart, sph, ln)
#define ERI_CLASS_DEFAULT ok = 0
    ERI_CLASS_SWITCH(sg->cls)
#undef ERI_CLASS_CASE
#undef ERI_CLASS_DEFAULT
    return ok;
}

/* ---- work split ------------------------------------------------------------------- */
/* Model flops of one quartet of segment sg (fam: of the family worklist). */
static double omp_cost(const omp_state *st, const eri_segment *sg, int fam, int pure)
{
    if (!fam) return eri_quartet_flops(sg->cls, sg->path, sg->nb, sg->nk, pure);
    int mb, mk;
    omp_fam_members(st, sg, &mb, &mk);
    return eri_fam_quartet_flops(sg->cls, mb, mk, mb, mk, sg->nb, sg->nk, pure);
}

/* Which classes run their family quartets: those with family code of at most
 * OMP_FAM_MAXNT VRR targets whose family segments have several members somewhere, whose
 * blocks fit the lane scratch, and whose segments in the worklist are all HGP (a forced path
 * keeps the class's own code). Why the cap: measured on the H100 machine's 16 cores,
 * taxol/cc-pVDZ (results/h100/eri_ompfam/), s per class one pair at a time -> as families.
 * Call 1, all members through the family code: (ss|ss) 4.89 -> 2.88, (ps|ss) 11.43 -> 9.49,
 * (ds|ss) 3.81 -> 3.10 (1, 3 and 6 targets) and slower above 9: (pp|ps) 6.50 -> 7.90, (ds|ps)
 * 6.07 -> 6.73, (dp|ps) 4.69 -> 6.27, (ds|pp) 2.10 -> 3.02 (27, 18, 48, 54 targets). Call 3,
 * one-member segments through the one-pair code: the whole build 46.69 s without, 42.53 s
 * with this cap, 40.17 s with every class (SB_ERI_FAM_MAXNT=64), where (pp|ps) and (dp|ps)
 * still lost (4.48 -> 5.06, 2.99 -> 3.33); a second run at the cap took 39.35 s. So the cap
 * stays where no class lost. (Builds with families run fewer model flops a second because each
 * member quartet is still digested on its own, which the model does not count: perf, twelfth
 * session; the family kernel of the small classes runs at the one-pair rate.) */
#define OMP_FAM_MAXNT 9 /* SB_ERI_FAM_MAXNT overrides it */
static void omp_fam_classes(const eri_batch *b, omp_state *st)
{
    if (st->fams.maxmem < 2) return;
    unsigned char multi[ERI_NCLASS] = {0}, fits[ERI_NCLASS];
    memset(fits, 1, sizeof fits);
    for (int k = 0; k < st->fw.nseg; k++) {
        const eri_segment *sg = &st->fw.seg[k];
        const eri_class_info *ci = eri_class(sg->cls);
        int mb, mk;
        const int mm = omp_fam_members(st, sg, &mb, &mk);
        multi[sg->cls] |= mm > 1;
        fits[sg->cls] &= (long)mm * ERI_NCART(ci->la) * ERI_NCART(ci->lb) * ERI_NCART(ci->lc) * ERI_NCART(ci->ld) <=
                         OMP_MAXBLK;
    }
    for (int c = 0; c < ERI_NCLASS; c++)
        st->famc[c] = eri_fam_targets(c) > 0 && eri_fam_targets(c) <= st->fam_maxnt && multi[c] && fits[c];
    for (int k = 0; k < b->w->nseg; k++) st->famc[b->w->seg[k].cls] &= b->w->seg[k].path == ERI_PATH_HGP;
}

/* The run's segments in the order the threads take them: the worklist's, a family class's
 * family segments in place of its first segment and none for its others. u[n] = {segment,
 * fam, worklist segment that takes the time}; returns n. */
typedef struct {
    int seg, fam, wseg;
} omp_unit;
static int omp_units(const eri_batch *b, const omp_state *st, omp_unit *u)
{
    unsigned char seen[ERI_NCLASS] = {0};
    int n = 0;
    for (int k = 0; k < b->w->nseg; k++) {
        const int cls = b->w->seg[k].cls;
        if (!st->famc[cls]) {
            u[n++] = (omp_unit){k, 0, k};
        } else if (!seen[cls]) {
            seen[cls] = 1;
            for (int j = 0; j < st->fw.nseg; j++)
                if (st->fw.seg[j].cls == cls) u[n++] = (omp_unit){j, 1, k};
        }
    }
    return n;
}

static int omp_split(const eri_batch *b, omp_state *st)
{
    const eri_worklist *w = b->w;
    const int pure = st->pure;
    omp_fam_classes(b, st);
    omp_unit *u = malloc(sizeof *u * (size_t)(w->nseg + st->fw.nseg + 1));
    st->seg_c0 = malloc(sizeof(int) * (size_t)(w->nseg + 1));
    if (!u || !st->seg_c0) {
        free(u);
        return SB_EXIT_RUNTIME;
    }
    const int nu = omp_units(b, st, u);
    double total = 0;
    for (int k = 0; k < nu; k++) {
        const eri_segment *sg = u[k].fam ? &st->fw.seg[u[k].seg] : &w->seg[u[k].seg];
        total += (double)(sg->q1 - sg->q0) * omp_cost(st, sg, u[k].fam, pure);
    }
    const double target = total / ((double)st->nt * OMP_CHUNKS_PER_THREAD) + 1.0;
    long n = 0;
    /* two passes: count, then fill; a worklist segment's chunks are those of its units */
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int k = 0, j = 0; k < w->nseg; k++) {
            if (pass) st->seg_c0[k] = (int)n;
            for (; j < nu && u[j].wseg == k; j++) {
                const eri_segment *sg = u[j].fam ? &st->fw.seg[u[j].seg] : &w->seg[u[j].seg];
                const long nq = sg->q1 - sg->q0;
                long nc = (long)((double)nq * omp_cost(st, sg, u[j].fam, pure) / target) + 1;
                if (nc > nq) nc = nq > 0 ? nq : 1;
                for (long c = 0; c < nc; c++, n++)
                    if (pass) st->ch[n] = (omp_chunk){u[j].seg, u[j].fam, sg->q0 + nq * c / nc, sg->q0 + nq * (c + 1) / nc};
            }
        }
        if (!pass) {
            st->ch = malloc(sizeof *st->ch * (size_t)(n ? n : 1));
            if (!st->ch) {
                free(u);
                return SB_EXIT_RUNTIME;
            }
        }
    }
    free(u);
    st->seg_c0[w->nseg] = (int)n;
    st->nchunk = n;
    return SB_OK;
}

/* ---- ops --------------------------------------------------------------------------- */
static void omp_release(eri_batch *b)
{
    omp_state *st = b->dev;
    if (!st) return;
    for (int t = 0; t < st->nt; t++) {
        if (st->Mt) sb_aligned_free(st->Mt[t]);
        if (st->scr) sb_aligned_free(st->scr[t]);
        if (st->ln) sb_aligned_free(st->ln[t]);
    }
    free(st->Mt);
    free(st->scr);
    free(st->ln);
    free(st->ch);
    free(st->seg_c0);
    sb_aligned_free(st->tseg);
    eri_je_host_free(st->je);
    eri_families_free(&st->fams);
    eri_worklist_free(&st->fw);
    free(st);
    b->dev = NULL;
}

static int omp_prepare(eri_batch *b)
{
    omp_state *st = calloc(1, sizeof *st);
    if (!st) return SB_EXIT_RUNTIME;
    b->dev = st;
    st->nt = omp_get_max_threads();
    b->threads = st->nt;
    st->nbf2 = (size_t)b->bas->nbf * (size_t)b->bas->nbf;
    st->Mt = calloc((size_t)st->nt, sizeof *st->Mt);
    st->scr = calloc((size_t)st->nt, sizeof *st->scr);
    st->ln = calloc((size_t)st->nt, sizeof *st->ln);
    for (long k = 0; k < b->ps->npair; k++)
        if (b->ps->pair[k].npp > st->maxpp) st->maxpp = b->ps->pair[k].npp;
    for (int s = 0; s < b->bas->nshell; s++) st->pure |= b->bas->sh[s].pure;
    const char *ev = getenv("SB_ERI_FAM_MAXNT");
    char *end = NULL;
    const long maxnt = ev ? strtol(ev, &end, 10) : OMP_FAM_MAXNT;
    int rc = SB_OK;
    if (ev && (end == ev || *end || maxnt < 0 || maxnt > 64)) {
        sb_error("eri_brush openmp_simd: SB_ERI_FAM_MAXNT='%s': expected 0..64, the most VRR targets of a class that "
                 "runs pair families (default %d)",
                 ev, OMP_FAM_MAXNT);
        rc = SB_EXIT_USAGE;
    }
    st->fam_maxnt = (int)maxnt;
    if (!rc) rc = eri_families_prepare(b, "openmp_simd", &st->fams, &st->fw);
    if (rc) {
        omp_release(b);
        return rc;
    }
    for (long k = 0; k < st->fams.ps.npair; k++)
        if (st->fams.ps.pair[k].npp > st->maxfpp) st->maxfpp = st->fams.ps.pair[k].npp;
    st->tstride = ((size_t)b->w->nseg + 7) & ~(size_t)7;
    st->tseg = sb_aligned_alloc(sizeof(double) * st->tstride * (size_t)st->nt + 64);
    if (!st->Mt || !st->scr || !st->ln || !st->tseg || omp_split(b, st)) goto oom;
    int fail = 0;
    /* each thread allocates (and first touches) its own buffers */
#pragma omp parallel num_threads(st->nt) reduction(| : fail)
    {
        const int t = omp_get_thread_num();
        st->scr[t] = sb_aligned_alloc(2 * OMP_MAXBLK * sizeof(double));
        /* one allocation: the block array first (its alignment), then bras and kets, then the
         * families' */
        /* families of one a side use bra and ket too */
        const size_t nfv = (size_t)st->maxfpp, npv = (size_t)(st->maxpp > st->maxfpp ? st->maxpp : st->maxfpp) + 1;
        st->ln[t] = sb_aligned_alloc(sizeof(omp_lanes) + 2 * npv * sizeof(eri_primv) + 2 * nfv * sizeof(eri_primfv));
        if (st->ln[t]) {
            st->ln[t]->bra = (eri_primv *)(st->ln[t] + 1);
            st->ln[t]->ket = st->ln[t]->bra + npv;
            st->ln[t]->fbra = (eri_primfv *)(st->ln[t]->ket + npv);
            st->ln[t]->fket = st->ln[t]->fbra + nfv;
        }
        if (b->mode == ERI_MODE_DIGEST) {
            st->Mt[t] = sb_aligned_alloc(st->nbf2 * sizeof(double) + 64);
            if (st->Mt[t]) memset(st->Mt[t], 0, st->nbf2 * sizeof(double));
        }
        fail |= !st->scr[t] || !st->ln[t] || (b->mode == ERI_MODE_DIGEST && !st->Mt[t]);
    }
    if (fail) goto oom;
    if (eri_je_used(b) && !(st->je = eri_je_host_new(b, st->nt))) goto oom;
    return SB_OK;
oom:
    sb_error("eri_brush openmp_simd: out of memory (%d threads, %d functions)", st->nt, b->bas->nbf);
    omp_release(b);
    return SB_EXIT_RUNTIME;
}

static int omp_run(eri_batch *b)
{
    omp_state *st = b->dev;
    const eri_worklist *w = b->w;
    const int nt = st->nt, digest = b->mode == ERI_MODE_DIGEST, timed = b->seg_seconds != NULL;
    int bad = 0;
    double wall = 0;
#pragma omp parallel num_threads(nt) reduction(| : bad)
    {
        const int t = omp_get_thread_num();
        double *M = digest ? st->Mt[t] : NULL, *ts = st->tseg + st->tstride * (size_t)t;
        if (digest) memset(M, 0, st->nbf2 * sizeof(double));
        memset(ts, 0, sizeof(double) * st->tstride);
        if (st->je) eri_je_host_begin(st->je, b, t);
#pragma omp barrier
        const double t0 = omp_get_wtime();
        for (int k = 0; k < w->nseg; k++) {
            /* chunk g belongs to thread g mod nt, the same map whether timed or not */
            long g = st->seg_c0[k];
            g += ((t - g) % nt + nt) % nt;
            for (; g < st->seg_c0[k + 1]; g += nt) {
                const double c0 = timed ? omp_get_wtime() : 0;
                bad |= !omp_chunk_run(b, st, &st->ch[g], t, M, st->scr[t], st->ln[t]);
                if (timed) ts[k] += omp_get_wtime() - c0;
            }
        }
#pragma omp barrier
#pragma omp master
        wall = omp_get_wtime() - t0;
        if (st->je) eri_je_host_end(st->je, b, M);
        if (digest) {
            const size_t n = st->nbf2;
#pragma omp for schedule(static)
            for (size_t e = 0; e < n; e++) {
                double s = st->Mt[0][e];
                for (int u = 1; u < nt; u++) s += st->Mt[u][e];
                b->M[e] = s;
            }
        }
    }
    if (bad) {
        sb_error("eri_brush openmp_simd: a segment has no code to run: its class has no generated code (f shells: "
                 "the J engine, digest mode only), or it asks the J engine for integrals (store mode)");
        return SB_EXIT_RUNTIME;
    }
    if (timed) {
        double busy = 0;
        for (int k = 0; k < w->nseg; k++) {
            double s = 0;
            for (int u = 0; u < nt; u++) s += st->tseg[st->tstride * (size_t)u + (size_t)k];
            b->seg_seconds[k] = s;
            busy += s;
        }
        for (int k = 0; k < w->nseg; k++) b->seg_seconds[k] *= busy > 0 ? wall / busy : 0;
    }
    return SB_OK;
}

/* The model flops of a class that ran its family quartets (else -1). */
static double omp_class_flops(eri_batch *b, int cls)
{
    const omp_state *st = b->dev;
    if (!st || cls < 0 || cls >= ERI_NCLASS || !st->famc[cls]) return -1;
    double f = 0;
    for (int k = 0; k < st->fw.nseg; k++) {
        const eri_segment *sg = &st->fw.seg[k];
        if (sg->cls == cls) f += (double)(sg->q1 - sg->q0) * omp_cost(st, sg, 1, st->pure);
    }
    return f;
}

static int omp_download(eri_batch *b)
{
    (void)b; /* M and store are host memory, written in place */
    return SB_OK;
}

const eri_ops eri_ops_openmp_simd = {
    .prepare = omp_prepare,
    .run = omp_run,
    .download = omp_download,
    .release = omp_release,
    .launches = NULL,
    .class_flops = omp_class_flops,
};
