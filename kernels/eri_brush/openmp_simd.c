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

#include "eri_brush/openmp_simd_class.h"
#include "sb.h"
#include "sb_omp.h"

#define OMP_CHUNKS_PER_THREAD 48 /* enough to average the cost model's errors out */

static int omp_chunk_run(const eri_batch *b, const omp_state *st, const omp_chunk *c, int t, double *M,
                         double *scr, omp_lanes *ln)
{
    if (c->fam) {
        const eri_segment *sg = &st->fw.seg[c->seg];
        switch (sg->cls) {
#define OMP_FAM_CASE(cls, la, lb, lc, ld, nt)                                                        \
    case cls:                                                                                        \
        eri_omp_fam_##la##lb##lc##ld(b, st, sg, c->q0, c->q1, M, scr, scr + OMP_MAXBLK, ln);         \
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
#define ERI_CLASS_CASE(la, lb, lc, ld)                                                        \
    (sg->path == ERI_PATH_MD ? eri_omp_chunk_md_##la##lb##lc##ld : eri_omp_chunk_hgp_##la##lb##lc##ld)( \
        b, sg, c->q0, c->q1, M, cart, sph, ln)
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
 * taxol/cc-pVDZ, s per class one pair at a time -> as families.
 * With all members through the family code: (ss|ss) 4.89 -> 2.88, (ps|ss) 11.43 -> 9.49,
 * (ds|ss) 3.81 -> 3.10 (1, 3 and 6 targets) and slower above 9: (pp|ps) 6.50 -> 7.90, (ds|ps)
 * 6.07 -> 6.73, (dp|ps) 4.69 -> 6.27, (ds|pp) 2.10 -> 3.02 (27, 18, 48, 54 targets). With
 * one-member segments through the one-pair code: the whole build 46.69 s without, 42.53 s
 * with this cap, 40.17 s with every class (SB_ERI_FAM_MAXNT=64), where (pp|ps) and (dp|ps)
 * still lost (4.48 -> 5.06, 2.99 -> 3.33); a second run at the cap took 39.35 s. So the cap
 * stays where no class lost. (Builds with families run fewer model flops a second because each
 * member quartet is still digested on its own, which the model does not count; perf shows the
 * family kernel of the small classes running at the one-pair rate.) */
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

/* The chunks of this rank's part of every unit (b->share), in about equal modelled cost. */
static int omp_split(const eri_batch *b, omp_state *st)
{
    const eri_worklist *w = b->w;
    const int pure = st->pure;
    free(st->ch), free(st->seg_c0);
    st->ch = NULL, st->seg_c0 = NULL;
    st->split_shared = b->share != NULL;
    if (b->share) st->split_share = *b->share;
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
        long a, e;
        eri_share_cut(b->share, sg->cls, sg->q0, sg->q1, &a, &e);
        total += (double)(e - a) * omp_cost(st, sg, u[k].fam, pure);
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
                long q0, q1;
                eri_share_cut(b->share, sg->cls, sg->q0, sg->q1, &q0, &q1);
                const long nq = q1 - q0;
                long nc = (long)((double)nq * omp_cost(st, sg, u[j].fam, pure) / target) + 1;
                if (nc > nq) nc = nq > 0 ? nq : 1;
                for (long c = 0; c < nc; c++, n++)
                    if (pass) st->ch[n] = (omp_chunk){u[j].seg, u[j].fam, q0 + nq * c / nc, q0 + nq * (c + 1) / nc};
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

/* Whether the chunks were cut for another MPI share than b's (mpi_split.c sets it after a
 * first run of the whole list). */
static int omp_share_changed(const eri_batch *b, const omp_state *st)
{
    if (!b->share != !st->split_shared) return 1;
    return b->share && memcmp(b->share, &st->split_share, sizeof *b->share) != 0;
}

static int omp_run(eri_batch *b)
{
    omp_state *st = b->dev;
    const eri_worklist *w = b->w;
    if (omp_share_changed(b, st) && omp_split(b, st)) {
        sb_error("eri_brush openmp_simd: out of memory cutting the work into chunks");
        return SB_EXIT_RUNTIME;
    }
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
        long q0, q1;
        eri_share_cut(b->share, cls, sg->q0, sg->q1, &q0, &q1);
        if (sg->cls == cls) f += (double)(q1 - q0) * omp_cost(st, sg, 1, st->pure);
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
