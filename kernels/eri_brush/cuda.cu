/* eri_brush CUDA backend (the contract is eri.h, "one batch on one backend").
 *
 * One thread per canonical shell quartet, or, for the kernels with a blocks-per-SM cap
 * (class_bps), a fixed grid whose threads walk the quartets with a stride. The worklist's
 * segments share a class and a contraction pattern, so each segment is one launch of the
 * kernel instantiated for its (class, path): every thread of a launch runs the same
 * straight-line generated code (eri_hgp_* or eri_md_*, then eri_sph_* when d shells are
 * pure) with the same primitive loop counts, and no warp diverges inside the integral code.
 * The Cartesian block lives in local memory (up to 6^4 doubles for (dd|dd)); L1/L2 hold it
 * for the digest that follows.
 *
 * Digest: the Coulomb contraction of eri.h (above eri_coulomb_finish) with double
 * atomicAdd into M; quartets of a segment hit many different M elements, so collisions
 * are few. Store: the block goes to store[store_off[q]], row-major [i][j][k][l].
 *
 * run() launches one CUDA graph of the whole build on the legacy default stream (the harness
 * brackets it with events; SB_ERI_GRAPH=0 enqueues the same work launch by launch instead);
 * per-class times, when asked for, come from the graph's event nodes between the classes. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "eri_brush/cuda_class.cuh"
#include "sb_cuda.h"

namespace {
using namespace eri_cu;

/* (class) -> its family kernels (fam_entry) */
fam_entry fam_table(int cls)
{
    switch (cls) {
#define ERI_CU_FAM_CASE(cls, la, lb, lc, ld, nt) \
    case cls:                                    \
        return fam_entry_##la##lb##lc##ld();
        ERI_GEN_FAM_CLASSES(ERI_CU_FAM_CASE)
#undef ERI_CU_FAM_CASE
    default:
        return fam_entry{};
    }
}

/* The kernel for a family segment of mb x mk members: the largest chunk of at most acc
 * contracted values (VRR targets x CB x CK; most member quartets per primitive loop; ties:
 * more bra members), or nullptr; its chunk in *cb, *ck when asked. */
class_kernel_t fam_pick(int cls, int mb, int mk, int acc, int *cb = nullptr, int *ck = nullptr)
{
    const fam_entry f = fam_table(cls);
    class_kernel_t best = nullptr;
    int most = 0;
    for (int ib = 2; ib >= 0; ib--)
        for (int ik = 2; ik >= 0; ik--)
            if ((1 << ib) < 2 * mb && (1 << ik) < 2 * mk && f.fn[ib][ik] && (1 << (ib + ik)) > most &&
                eri_fam_targets(cls) << (ib + ik) <= acc) {
                best = f.fn[ib][ik], most = 1 << (ib + ik);
                if (cb) *cb = 1 << ib, *ck = 1 << ik;
            }
    return best;
}

/* Flop model of a family quartet of mb x mk members in the chunks fam_pick gives (one member
 * a side: the class's own kernel, which eri_fam_quartet_flops counts as such). */
double fam_quartet_flops(int cls, int mb, int mk, int nb, int nk, int pure, int acc)
{
    int cb = 1, ck = 1;
    if (mb * mk > 1 && !fam_pick(cls, mb, mk, acc, &cb, &ck)) return 0;
    return eri_fam_quartet_flops(cls, mb, mk, cb, ck, nb, nk, pure);
}

/* The classes without generated code (f shells) beyond the tables: one kernel with the
 * angular momenta at run time, so R, W and the E tables stay in local memory. */
__global__ void __launch_bounds__(je_block_f) je_quartet_kernel_any(const je_args a)
{
    je_quartets<ERI_JE_LPAIR>(a, a.lab, a.lcd);
}

/* The J engine's kernels of L (ERI_CU_UNIT_JENG), none beyond ERI_JE_LTAB. */
je_kernels je_table(int L)
{
    switch (L) {
    case 0: return je_kernels_L0();
    case 1: return je_kernels_L1();
    case 2: return je_kernels_L2();
    case 3: return je_kernels_L3();
    case 4: return je_kernels_L4();
    case 5: return je_kernels_L5();
    case 6: return je_kernels_L6();
    case 7: return je_kernels_L7();
    case 8: return je_kernels_L8();
    default: return je_kernels{};
    }
}

/* A class's J-engine kernel and its block: for the s, p, d classes the shared-memory one from
 * L = smem_lmin on (0: never), two lanes a quartet where la+lb = lc+ld (team), else the register
 * kernel. The classes with an f shell keep theirs: with the shared-memory kernels
 * benzene/cc-pVTZ took 28.9-34.8 ms instead of 24.9, vitamin C/cc-pVTZ 82-91 instead of 72.8
 * (H100). */
struct je_launch {
    je_kernel_t fn;
    int block;
    int nq;    /* quartets a block runs at a time: block, or ERI_JE_TEAM_NQ */
    bool smem; /* R in shared memory (je_quartet_kernel_smem or _team) */
};
je_launch je_kernel(int cls, int smem_lmin, bool team)
{
    const eri_class_info *c = eri_class(cls);
    if (!c) return je_launch{nullptr, 0, 0, false};
    const int lab = c->la + c->lb, lcd = c->lc + c->ld;
    const je_kernels k = je_table(lab + lcd);
    if (eri_class_has_code(cls)) { /* la+lb >= lc+ld, la+lb <= 4 */
        if (smem_lmin > 0 && lab + lcd >= smem_lmin) {
            if (team && lab == lcd && k.team) return je_launch{k.team, 32, ERI_JE_TEAM_NQ, true};
            if (k.smem[lab]) return je_launch{k.smem[lab], ERI_JE_SMEM_NT, ERI_JE_SMEM_NT, true};
        }
        const int block = class_block(c->la, c->lb, c->lc, c->ld);
        return je_launch{k.reg[lab], block, block, false};
    }
    return je_launch{k.f[lab] ? k.f[lab] : je_quartet_kernel_any, je_block_f, je_block_f, false}; /* an f shell */
}

/* (class, path) -> kernel; block == 0 for a class outside 0..ERI_NCLASS-1. The classes the
 * generator did not emit (f shells) have a block for the J engine and no HGP or MD kernel. */
class_entry class_table(int cls)
{
    switch (cls) {
#define ERI_CU_CASE(cls, la, lb, lc, ld)                                                               \
    case cls: {                                                                                        \
        const path_kernels h = hgp_kernels_##la##lb##lc##ld(), m = md_kernels_##la##lb##lc##ld();      \
        return class_entry{{h.fn, m.fn}, {h.one, m.one}, class_block(la, lb, lc, ld), {la, lb, lc, ld}}; \
    }
        ERI_GEN_CLASSES(ERI_CU_CASE)
#undef ERI_CU_CASE
    default:
        if (const eri_class_info *c = eri_class(cls)) /* no generated code: the J engine only */
            return class_entry{{nullptr, nullptr}, {nullptr, nullptr}, je_block_f, {c->la, c->lb, c->lc, c->ld}};
        return class_entry{};
    }
}

static_assert(4 * ERI_LMAX <= ERI_BOYS_TABMMAX, "the device Boys table has a sub-table for every class's m");

class_kernel_t segment_kernel(const class_entry &e, const eri_segment &s)
{
    return s.nb == 1 && s.nk == 1 && e.one[s.path] ? e.one[s.path] : e.fn[s.path];
}

/* ---- device state ------------------------------------------------------------------- */
/* Segments of one class run concurrently on this many streams (SB_ERI_STREAMS=1..64 to
 * change; 1: one after another). Primitive screening splits a class into more segments
 * (benzene/cc-pVDZ: 210 -> 462), and a small segment lasts one heavily contracted quartet's
 * latency, not its throughput: one after another, benzene/cc-pVDZ took 25.1 ms, on 8
 * streams 9.2 ms and on 16 8.1 ms (H100; README). */
#define ERI_CU_STREAMS 32
#define ERI_CU_STREAMS_MAX 64
struct cu_state {
    int nbf, mode, pure, nseg;
    long nq, nstore;
    double *prim; /* PF_N x nprim, interleaved (prim_view) */
    dev_pair *pair;
    double *AB, *boys, *D, *M, *store;
    eri_quartet *q;
    long *store_off;
    cudaEvent_t *ev; /* nseg + 1: ev[k] where a class starts at segment k, ev[nseg] at the end */
    int nev;
    /* A class's segments fan out over these streams (cu_run); capped launches take ss[0] */
    cudaStream_t ss[ERI_CU_STREAMS_MAX];
    cudaEvent_t sj[ERI_CU_STREAMS_MAX]; /* each stream's end of a class */
    int streams;                        /* SB_ERI_STREAMS, default ERI_CU_STREAMS */
    int nss;                            /* streams created */
    int sms;                          /* multiprocessors */
    int bps[ERI_NCLASS][ERI_NPATH][2]; /* class_bps, [one]; SB_ERI_BPS overrides */
    int block[ERI_NCLASS];            /* threads per block, 0: class_block; SB_ERI_BLOCK overrides */
    long grid_max;                    /* SB_ERI_GRID_MAX (tests): most blocks of a looping launch, 0: none */
    int segtimes;                     /* SB_ERI_SEGTIMES: print each class's time */
    /* The whole run as one CUDA graph (SB_ERI_GRAPH=0: enqueue stream by stream): captured on
     * cs at the first run and again when the worklist's segments change (gsig) */
    int graph;
    cudaStream_t cs;
    cudaEvent_t fork; /* the capture's fan-out to the streams (ev[] are the graph's timing nodes) */
    cudaGraphExec_t gexec;
    unsigned long long gsig;
    int je;                           /* some segment runs the J engine (digest, path=jeng) */
    int je_bps[ERI_NCLASS];           /* SB_ERI_JENG_BPS: J-engine blocks per SM, 0: uncapped, -1: je_launch_shape's default */
    int je_smem_lmin;                 /* R in shared memory from this L on, 0: never; SB_ERI_JE_SMEM */
    bool je_team;                     /* two lanes a quartet where la+lb = lc+ld; SB_ERI_JE_TEAM */
    long nje;                         /* Hermite values over all primitive pairs */
    je_pair *jp;
    double *H, *G, *T;
    /* Families of pairs that share their primitives (eri_families, fam_quartet): digest mode,
     * a worklist from eri_worklist_build, a basis with shared exponents; SB_ERI_FAMILY=0: off.
     * A class runs its family quartets (fw) when every segment of it in the batch's worklist
     * is HGP and every family segment has a kernel (fam_ok); else its quartets as before. */
    int fam_acc; /* most contracted values a family kernel keeps (fam_pick); SB_ERI_FAM_ACC */
    bool fam;
    eri_families fams;
    eri_worklist fw;
    bool fam_ok[ERI_NCLASS];
    bool fam_used[ERI_NCLASS]; /* the last enqueue ran the class's family quartets */
    double *fprim, *fAB;
    dev_pair *fpair;
    eri_quartet *fq;
    fam_member *fmem;
};

/* A J-engine launch of n quartets of class e: kernel, block, and the grid under its blocks-per-SM
 * cap (0: uncapped). SB_ERI_JENG_BPS sets the cap; else the register kernels take
 * je_class_bps, and the shared-memory kernels none (their shared memory bounds what fits). */
struct je_shape {
    je_launch k;
    long grid;
    int cap;
};
je_shape je_launch_shape(const cu_state *st, int cls, const class_entry &e, long n)
{
    je_shape sh{je_kernel(cls, st->je_smem_lmin, st->je_team), 0, st->je_bps[cls]};
    if (sh.cap < 0) sh.cap = sh.k.smem ? 0 : je_class_bps(e.l[0], e.l[1], e.l[2], e.l[3]);
    sh.grid = (n + sh.k.nq - 1) / sh.k.nq; /* the kernel walks its quartets with a grid stride */
    if (sh.cap > 0 && sh.grid > (long)sh.cap * st->sms) sh.grid = (long)sh.cap * st->sms;
    return sh;
}

/* "cls:a[:b],..." into v[cls][0] = a, v[cls][1] = b (or a): 0, or -1 for an entry that is
 * malformed or has a class outside 0..ERI_NCLASS-1 or a value outside lo..hi. */
int parse_class_list(const char *e, int v[][2], int lo, int hi)
{
    while (e && *e) {
        int c = -1, b0 = 0, b1 = -1, used = 0;
        if (sscanf(e, "%d:%d%n", &c, &b0, &used) < 2) return -1;
        e += used;
        if (*e == ':') {
            if (sscanf(e, ":%d%n", &b1, &used) != 1) return -1;
            e += used;
        }
        if (c < 0 || c >= ERI_NCLASS || b0 < lo || b0 > hi || (b1 >= 0 && (b1 < lo || b1 > hi)) || (*e && *e != ','))
            return -1;
        v[c][0] = b0, v[c][1] = b1 < 0 ? b0 : b1;
        if (*e == ',') e++;
    }
    return 0;
}

/* Whether the kernel that runs (class, path, single-primitive) has the grid-stride loop. */
bool kernel_loops(const class_entry &e, int path, bool one)
{
    return e.block && e.fn[path] && class_bps(path, e.l[0], e.l[1], e.l[2], e.l[3], one) > 0;
}

/* Blocks per SM, block sizes and the tuning overrides:
 * SB_ERI_BPS="cls:general[:single-primitive],..." blocks per SM of the HGP kernels, 0..64
 * (0 = uncapped; only kernels with a cap in class_bps have the grid-stride loop);
 * SB_ERI_BLOCK="cls:threads,..." a multiple of 32 up to the class's block;
 * SB_ERI_GRID_MAX=n (tests): looping launches get at most n blocks, so that a small molecule
 * makes each thread walk several quartets; SB_ERI_SEGTIMES: print each class's time;
 * SB_ERI_STREAMS=n: streams a class's segments fan out over (cu_run);
 * SB_ERI_JENG_BPS="cls:blocks,..." blocks per SM of the J-engine kernels (0 = uncapped;
 * unlisted classes keep je_launch_shape's default); SB_ERI_JE_SMEM=L: the J engine's shared-memory
 * kernels from L = la+lb+lc+ld on (5..8; 0: none); SB_ERI_JE_TEAM=0: one lane a quartet in those
 * kernels also where la+lb = lc+ld (je_quartet_kernel_team, the default, takes two);
 * SB_ERI_FAM_ACC=n: the family chunks' contracted values (fam_pick). */
int launch_config(cu_state *st)
{
    int dev = 0;
    SB_CU(cudaGetDevice(&dev));
    SB_CU(cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, dev));
    int ov[ERI_NCLASS][2], bl[ERI_NCLASS][2];
    for (int c = 0; c < ERI_NCLASS; c++) ov[c][0] = ov[c][1] = -1, bl[c][0] = bl[c][1] = 0;
    const char *ebps = getenv("SB_ERI_BPS"), *eblk = getenv("SB_ERI_BLOCK"), *egm = getenv("SB_ERI_GRID_MAX");
    if (parse_class_list(ebps, ov, 0, 64)) {
        sb_error("eri_brush cuda: SB_ERI_BPS='%s': expected cls:blocks[:blocks],... with cls 0..%d and 0..64 blocks per SM",
                 ebps, ERI_NCLASS - 1);
        return SB_EXIT_USAGE;
    }
    if (parse_class_list(eblk, bl, 32, 1024)) {
        sb_error("eri_brush cuda: SB_ERI_BLOCK='%s': expected cls:threads,... with cls 0..%d and 32..1024 threads", eblk,
                 ERI_NCLASS - 1);
        return SB_EXIT_USAGE;
    }
    char *end = NULL;
    st->grid_max = egm ? strtol(egm, &end, 10) : 0;
    if (egm && (end == egm || *end || st->grid_max < 1)) {
        sb_error("eri_brush cuda: SB_ERI_GRID_MAX='%s': expected a positive number of blocks", egm);
        return SB_EXIT_USAGE;
    }
    const char *es = getenv("SB_ERI_STREAMS");
    const long ns = es ? strtol(es, &end, 10) : ERI_CU_STREAMS;
    if (es && (end == es || *end || ns < 1 || ns > ERI_CU_STREAMS_MAX)) {
        sb_error("eri_brush cuda: SB_ERI_STREAMS='%s': expected 1..%d streams", es, ERI_CU_STREAMS_MAX);
        return SB_EXIT_USAGE;
    }
    st->streams = (int)ns;
    for (int c = 0; c < ERI_NCLASS; c++) {
        const class_entry e = class_table(c);
        for (int p = 0; p < ERI_NPATH; p++)
            for (int one = 0; one < 2; one++) {
                st->bps[c][p][one] = kernel_loops(e, p, one) ? class_bps(p, e.l[0], e.l[1], e.l[2], e.l[3], one) : 0;
                if (p != ERI_PATH_HGP || ov[c][one] < 0) continue;
                if (!kernel_loops(e, p, one) && ov[c][one] > 0) {
                    sb_error("eri_brush cuda: SB_ERI_BPS: class %d (%s kernel) has no cap in class_bps, so no "
                             "grid-stride loop to cap",
                             c, one ? "single-primitive" : "general");
                    return SB_EXIT_USAGE;
                }
                st->bps[c][p][one] = ov[c][one];
            }
        if (bl[c][0] && (bl[c][0] % 32 || bl[c][0] > e.block)) {
            sb_error("eri_brush cuda: SB_ERI_BLOCK: class %d: %d threads, expected a multiple of 32 up to %d", c,
                     bl[c][0], e.block);
            return SB_EXIT_USAGE;
        }
        st->block[c] = bl[c][0];
    }
    const char *ejb = getenv("SB_ERI_JENG_BPS");
    int jb[ERI_NCLASS][2];
    for (int c = 0; c < ERI_NCLASS; c++) jb[c][0] = jb[c][1] = -1; /* -1: the class's default */
    if (parse_class_list(ejb, jb, 0, 64)) {
        sb_error("eri_brush cuda: SB_ERI_JENG_BPS='%s': expected cls:blocks,... with cls 0..%d and 0..64 blocks per SM",
                 ejb, ERI_NCLASS - 1);
        return SB_EXIT_USAGE;
    }
    for (int c = 0; c < ERI_NCLASS; c++) st->je_bps[c] = jb[c][0];
    const char *esm = getenv("SB_ERI_JE_SMEM");
    const long sml = esm ? strtol(esm, &end, 10) : ERI_JE_SMEM_LMIN;
    if (esm && (end == esm || *end || (sml != 0 && (sml < 5 || sml > 8)))) {
        sb_error("eri_brush cuda: SB_ERI_JE_SMEM='%s': expected the smallest L = la+lb+lc+ld for the J engine's "
                 "shared-memory kernels, 5..8, or 0 for none",
                 esm);
        return SB_EXIT_USAGE;
    }
    st->je_smem_lmin = (int)sml;
    const char *et = getenv("SB_ERI_JE_TEAM");
    if (et && strcmp(et, "0") && strcmp(et, "1")) {
        sb_error("eri_brush cuda: SB_ERI_JE_TEAM='%s': expected 1 (two lanes a quartet for the shared-memory classes "
                 "with la+lb = lc+ld) or 0 (one)",
                 et);
        return SB_EXIT_USAGE;
    }
    st->je_team = !et || !strcmp(et, "1");
    st->segtimes = getenv("SB_ERI_SEGTIMES") != NULL;
    const char *eg = getenv("SB_ERI_GRAPH");
    if (eg && strcmp(eg, "0") && strcmp(eg, "1")) {
        sb_error("eri_brush cuda: SB_ERI_GRAPH='%s': expected 0 or 1", eg);
        return SB_EXIT_USAGE;
    }
    st->graph = !eg || !strcmp(eg, "1");
    const char *ea = getenv("SB_ERI_FAM_ACC");
    const long acc = ea ? strtol(ea, &end, 10) : FAM_ACC;
    if (ea && (end == ea || *end || acc < 1 || acc > FAM_ACC)) {
        sb_error("eri_brush cuda: SB_ERI_FAM_ACC='%s': expected 1..%d contracted values a family kernel keeps", ea,
                 FAM_ACC);
        return SB_EXIT_USAGE;
    }
    st->fam_acc = (int)acc;
    return SB_OK;
}

void release_state(cu_state *st)
{
    if (!st) return;
    /* release may follow a failed prepare: free what exists, ignore errors (nothing to report them to) */
    cudaFree(st->prim);
    cudaFree(st->pair);
    cudaFree(st->AB);
    cudaFree(st->boys);
    cudaFree(st->D);
    cudaFree(st->M);
    cudaFree(st->store);
    cudaFree(st->q);
    cudaFree(st->store_off);
    cudaFree(st->jp);
    cudaFree(st->H);
    cudaFree(st->G);
    cudaFree(st->T);
    cudaFree(st->fprim);
    cudaFree(st->fAB);
    cudaFree(st->fpair);
    cudaFree(st->fq);
    cudaFree(st->fmem);
    eri_families_free(&st->fams);
    eri_worklist_free(&st->fw);
    for (int i = 0; i < st->nev; i++) cudaEventDestroy(st->ev[i]);
    free(st->ev);
    for (int i = 0; i < st->nss; i++) cudaStreamDestroy(st->ss[i]), cudaEventDestroy(st->sj[i]);
    if (st->gexec) cudaGraphExecDestroy(st->gexec);
    if (st->fork) cudaEventDestroy(st->fork);
    if (st->cs) cudaStreamDestroy(st->cs);
    free(st);
}

/* 1, 0 (every d shell pure, or none), or -1 with an error when they are mixed or a shell's
 * function count does not follow from l and that choice. */
int basis_pure(const eri_basis *bas)
{
    int pure = 0;
    for (int s = 0; s < bas->nshell; s++)
        if (bas->sh[s].l >= 2 && bas->sh[s].pure) pure = 1;
    for (int s = 0; s < bas->nshell; s++) {
        const eri_shell *sh = &bas->sh[s];
        if (sh->l < 0 || sh->l > ERI_LMAX || sh->nbf != nfun(sh->l, pure)) {
            sb_error("eri_brush cuda: shell %d (l = %d, %d functions) does not fit a basis with %s d shells: all "
                     "d shells must be pure or all Cartesian",
                     s, sh->l, sh->nbf, pure ? "pure" : "Cartesian");
            return -1;
        }
    }
    return pure;
}

int check_batch(const eri_batch *b)
{
    if (!b->bas || !b->ps || !b->w || !b->boys) {
        sb_error("eri_brush cuda: batch without %s", !b->bas ? "basis" : !b->ps ? "pairs" : !b->w ? "worklist" : "Boys table");
        return SB_EXIT_USAGE;
    }
    if (b->mode != ERI_MODE_DIGEST && b->mode != ERI_MODE_STORE) {
        sb_error("eri_brush cuda: mode %d: accepted %d (digest) or %d (store)", b->mode, ERI_MODE_DIGEST, ERI_MODE_STORE);
        return SB_EXIT_USAGE;
    }
    if (b->mode == ERI_MODE_DIGEST && (!b->D || !b->M)) {
        sb_error("eri_brush cuda: digest mode without %s", !b->D ? "D" : "M");
        return SB_EXIT_USAGE;
    }
    if (b->mode == ERI_MODE_STORE && (!b->store || !b->w->store_off)) {
        sb_error("eri_brush cuda: store mode without %s", !b->store ? "a store buffer" : "store offsets (too many quartets)");
        return SB_EXIT_USAGE;
    }
    const eri_worklist *w = b->w;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        const class_entry e = class_table(s->cls);
        if (s->cls < 0 || s->cls >= ERI_NCLASS || !e.block) {
            sb_error("eri_brush cuda: segment %d: class %d: accepted classes 0..%d", k, s->cls, ERI_NCLASS - 1);
            return SB_EXIT_USAGE;
        }
        const bool je = s->path == ERI_PATH_JENG && b->mode == ERI_MODE_DIGEST;
        if (!je && !e.fn[0]) {
            sb_error("eri_brush cuda: segment %d: class %d has no generated code (f shells): only the J engine in "
                     "digest mode computes it", k, s->cls);
            return SB_EXIT_USAGE;
        }
        if (s->path != ERI_PATH_HGP && s->path != ERI_PATH_MD && !je) {
            sb_error("eri_brush cuda: segment %d: path %d: accepted %d (HGP), %d (MD) or, in digest mode, %d (J engine)",
                     k, s->path, ERI_PATH_HGP, ERI_PATH_MD, ERI_PATH_JENG);
            return SB_EXIT_USAGE;
        }
        if (s->q0 < 0 || s->q1 < s->q0 || s->q1 > w->nq || (s->q1 - s->q0 + e.block - 1) / e.block > 0x7fffffffL) {
            sb_error("eri_brush cuda: segment %d: quartets %ld..%ld out of range 0..%ld (or beyond one grid)", k, s->q0,
                     s->q1, w->nq);
            return SB_EXIT_USAGE;
        }
    }
    return SB_OK;
}

/* The pairs' device records and their primitives (ps->nprim, the sum of the pairs' counts)
 * in the interleaved layout (prim_view). */
int interleave(const eri_basis *bas, const eri_pairs *ps, const double *Km, double pq_screen, dev_pair *hp,
               double **out)
{
    const double qscale = eri_pq_qscale(pq_screen);
    const int nf = Km ? (int)PF_NF : (int)PF_N; /* Km: the members' K of family pairs (eri_families) */
    if ((double)nf * ps->nprim > 0x7fffffff) {
        sb_error("eri_brush cuda: %ld primitive pairs: at most %d (32-bit offsets)", ps->nprim, 0x7fffffff / nf);
        return SB_EXIT_USAGE;
    }
    int *order = eri_pair_order(ps);
    double *t = static_cast<double *>(malloc(sizeof(double) * nf * (size_t)(ps->nprim ? ps->nprim : 1)));
    if (!order || !t) {
        free(order), free(t);
        sb_error("eri_brush cuda: out of host memory for %ld primitive pairs", ps->nprim);
        return SB_EXIT_RUNTIME;
    }
    long base = 0;
    for (long i0 = 0, i1; i0 < ps->npair; i0 = i1) {
        const eri_pair *g = &ps->pair[order[i0]];
        for (i1 = i0; i1 < ps->npair && eri_pair_same_group(&ps->pair[order[i1]], g); i1++) {
        }
        const long n = i1 - i0, fs = n * g->npp;
        for (long j = 0; j < n; j++) {
            const eri_pair *p = &ps->pair[order[i0 + j]];
            hp[order[i0 + j]] = dev_pair{bas->sh[p->a].bf0, bas->sh[p->b].bf0, (int)(base + j), (int)(2 * n) + (p->a == p->b)};
            for (int ik = 0; ik < p->npp; ik++) {
                const eri_prim *x = &ps->prim[p->pp0 + ik];
                double *d = t + base + ik * n + j;
                d[PF_p * fs] = x->p;
                d[PF_K * fs] = x->K;
                d[PF_h * fs] = x->h;
                d[PF_q * fs] = ps->q[p->pp0 + ik] * qscale;
                if (Km)
                    for (int m = 1; m < ERI_FAM_MAXMEM; m++) d[(PF_K1 + m - 1) * fs] = Km[ERI_FAM_MAXMEM * (p->pp0 + ik) + m];
                for (int c = 0; c < 3; c++) {
                    d[(PF_P + c) * fs] = x->P[c];
                    d[(PF_PA + c) * fs] = x->PA[c];
                    d[(PF_PB + c) * fs] = x->PB[c];
                }
            }
        }
        base += nf * fs;
    }
    free(order);
    *out = t;
    return SB_OK;
}

template <typename T>
int upload(T **dst, const T *src, size_t n)
{
    SB_CU(cudaMalloc(dst, (n ? n : 1) * sizeof(T)));
    if (n) SB_CU(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
    return SB_OK;
}

/* The device's Boys table (boys.h: one sub-table per m). */
int upload_boys(double **dst) { return upload(dst, eri_boys_dev_table(), ERI_BOYS_DEV_LEN); }

/* The J engine's per-pair data, densities and potentials, when a segment runs it. */
int je_prepare(cu_state *st, const eri_batch *b)
{
    for (int k = 0; k < b->w->nseg; k++) st->je |= b->mode == ERI_MODE_DIGEST && b->w->seg[k].path == ERI_PATH_JENG;
    if (!st->je) return SB_OK;
    const eri_pairs *ps = b->ps;
    const size_t np = (size_t)(ps->npair ? ps->npair : 1);
    long *hoff = static_cast<long *>(malloc(sizeof(long) * np));
    je_pair *hj = static_cast<je_pair *>(malloc(sizeof(je_pair) * np));
    double *T = static_cast<double *>(malloc(sizeof(double) * ERI_NPAIRCLASS * ERI_JE_TMAX));
    int rc = SB_OK;
    if (!hoff || !hj || !T) {
        sb_error("eri_brush cuda: out of host memory for the J engine's %ld pairs", ps->npair);
        rc = SB_EXIT_RUNTIME;
    } else if ((st->nje = eri_je_layout(ps, hoff)) > 0x7fffffffL) {
        sb_error("eri_brush cuda: path=jeng: %ld Hermite values, more than the 32-bit offsets hold", st->nje);
        rc = SB_EXIT_RUNTIME;
    } else {
        for (long k = 0; k < ps->npair; k++) hj[k] = je_pair{ps->pair[k].cls, ps->pair[k].npp, (int)hoff[k], 0};
        eri_je_sph_tables(st->pure, T);
        rc = upload(&st->jp, hj, (size_t)ps->npair);
        if (!rc) rc = upload(&st->T, T, (size_t)ERI_NPAIRCLASS * ERI_JE_TMAX);
    }
    free(hoff), free(hj), free(T);
    if (rc) return rc;
    SB_CU(cudaMalloc(&st->H, (size_t)(st->nje ? st->nje : 1) * sizeof(double)));
    SB_CU(cudaMalloc(&st->G, (size_t)(st->nje ? st->nje : 1) * sizeof(double)));
    return SB_OK;
}

/* The member counts of a family segment's bra and ket pairs; returns their product. */
int fam_members(const cu_state *st, const eri_segment *s, int *mb, int *mk)
{
    *mb = st->fams.ps.pair[st->fw.q[s->q0].P].nmem, *mk = st->fams.ps.pair[st->fw.q[s->q0].Q].nmem;
    return *mb * *mk;
}

/* Whether class cls runs its family quartets instead of its segments of w: the path may be
 * forced between runs (tests force one), and the family kernels are HGP. */
bool fam_runs(const cu_state *st, const eri_worklist *w, int cls)
{
    if (!st->fam || !st->fam_ok[cls]) return false;
    for (int k = 0; k < w->nseg; k++)
        if (w->seg[k].cls == cls && w->seg[k].path != ERI_PATH_HGP) return false;
    return true;
}

/* SB_ERI_SEGTIMES: each family class's kernels (chunk, registers, stack frame), on stderr. */
void fam_print_kernels(const cu_state *st)
{
    bool seen[ERI_NCLASS][3][3] = {};
    for (int k = 0; k < st->fw.nseg; k++) {
        const eri_segment *s = &st->fw.seg[k];
        int mb, mk, cb = 1, ck = 1;
        if (!st->fam_ok[s->cls] || fam_members(st, s, &mb, &mk) == 1) continue;
        const class_kernel_t fn = fam_pick(s->cls, mb, mk, st->fam_acc, &cb, &ck);
        bool &done = seen[s->cls][cb >> 1][ck >> 1]; /* log2 of 1, 2, 4 */
        cudaFuncAttributes fa;
        if (done || !fn || cudaFuncGetAttributes(&fa, (const void *)fn) != cudaSuccess) continue;
        done = true;
        const eri_class_info *ci = eri_class(s->cls);
        fprintf(stderr, "eri_brush cuda: family kernel (%d%d|%d%d) %dx%d, %d blocks/SM target: %d registers, %zu B stack\n",
                ci->la, ci->lb, ci->lc, ci->ld, cb, ck, fam_table(s->cls).minb, fa.numRegs, fa.localSizeBytes);
    }
}

/* The family pairs, their quartets and members on the device, when the batch can use them. */
int fam_prepare(cu_state *st, const eri_batch *b)
{
    int rc = eri_families_prepare(b, "cuda", &st->fams, &st->fw);
    if (rc || st->fams.maxmem < 2) return rc;
    const eri_pairs *fp = &st->fams.ps;
    const size_t np = (size_t)(fp->npair ? fp->npair : 1);
    dev_pair *hp = static_cast<dev_pair *>(malloc(sizeof(dev_pair) * np));
    double *hAB = static_cast<double *>(malloc(sizeof(double) * 3 * np));
    fam_member *hm = static_cast<fam_member *>(malloc(sizeof(fam_member) * ERI_FAM_MAXMEM * np));
    double *hprim = NULL;
    if (!hp || !hAB || !hm) {
        free(hp), free(hAB), free(hm);
        sb_error("eri_brush cuda: out of host memory for %ld family pairs", fp->npair);
        return SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < fp->npair; i++) {
        for (int k = 0; k < 3; k++) hAB[3 * i + k] = fp->pair[i].AB[k];
        for (int m = 0; m < ERI_FAM_MAXMEM; m++) {
            const int src = st->fams.mem[ERI_FAM_MAXMEM * i + m];
            const eri_pair *q = &b->ps->pair[src < 0 ? st->fams.mem[ERI_FAM_MAXMEM * i] : src];
            hm[ERI_FAM_MAXMEM * i + m] = fam_member{b->bas->sh[q->a].bf0, b->bas->sh[q->b].bf0, q->a == q->b, 0,
                                                    src < 0 ? -1.0 : q->schwarz};
        }
    }
    rc = interleave(b->bas, fp, st->fams.K, fp->pq_screen, hp, &hprim);
    if (!rc) rc = upload(&st->fpair, hp, (size_t)fp->npair);
    if (!rc) rc = upload(&st->fAB, hAB, 3 * (size_t)fp->npair);
    if (!rc) rc = upload(&st->fmem, hm, ERI_FAM_MAXMEM * (size_t)fp->npair);
    if (!rc) rc = upload(&st->fprim, hprim, (size_t)PF_NF * fp->nprim);
    free(hp), free(hAB), free(hm), free(hprim);
    if (rc) return rc;
    if ((rc = upload(&st->fq, st->fw.q, (size_t)st->fw.nq))) return rc;
    /* a class takes the family path when it has family quartets of several members and
     * each such segment has a kernel (which shares its primitive loop: CB x CK > 1) */
    bool multi[ERI_NCLASS] = {}, missing[ERI_NCLASS] = {};
    for (int k = 0; k < st->fw.nseg; k++) {
        const eri_segment *s = &st->fw.seg[k];
        int mb, mk;
        if (fam_members(st, s, &mb, &mk) == 1) continue;
        multi[s->cls] = true;
        missing[s->cls] |= !fam_pick(s->cls, mb, mk, st->fam_acc);
    }
    for (int c = 0; c < ERI_NCLASS; c++) {
        const eri_class_info *ci = eri_class(c);
        st->fam_ok[c] = c < ERI_NCLASS_CODE && multi[c] && !missing[c] && fam_class_wanted(ci->la, ci->lb, ci->lc, ci->ld);
    }
    st->fam = true;
    if (st->segtimes) fam_print_kernels(st);
    return SB_OK;
}

je_pass je_pass_args(const cu_state *st, const eri_batch *b)
{
    je_pass p;
    p.npair = b->ps->npair, p.nbf = st->nbf, p.pure = st->pure, p.used = eri_je_pair_classes(b->w);
    p.pair = st->pair, p.jp = st->jp, p.prim = st->prim, p.T = st->T, p.D = st->D, p.G = st->G;
    p.H = st->H, p.M = st->M;
    return p;
}

int cu_prepare(eri_batch *b)
{
    int rc = check_batch(b);
    if (rc) return rc;
    const int pure = basis_pure(b->bas);
    if (pure < 0) return SB_EXIT_USAGE;
    cu_state *st = static_cast<cu_state *>(calloc(1, sizeof(cu_state)));
    if (!st) return SB_EXIT_RUNTIME;
    b->dev = st;
    const eri_basis *bas = b->bas;
    const eri_pairs *ps = b->ps;
    const eri_worklist *w = b->w;
    st->nbf = bas->nbf, st->mode = b->mode, st->pure = pure, st->nseg = w->nseg, st->nq = w->nq;
    const size_t nbf2 = (size_t)bas->nbf * bas->nbf;

    if (b->mode == ERI_MODE_STORE) {
        st->nstore = w->store_off[w->nq];
        size_t free_b = 0, total_b = 0;
        SB_CU(cudaMemGetInfo(&free_b, &total_b));
        /* the rest of the inputs are small next to the integrals; keep a margin for them */
        const size_t need = (size_t)st->nstore * sizeof(double) + (size_t)(w->nq + 1) * (sizeof(long) + sizeof(eri_quartet));
        if (need + (64u << 20) > free_b) {
            sb_error("eri_brush cuda: store mode needs %.2f GB of device memory for %ld integrals, %.2f GB are free "
                     "(use digest mode or a smaller case)",
                     need / 1e9, st->nstore, free_b / 1e9);
            return SB_EXIT_RUNTIME;
        }
    }

    dev_pair *hp = static_cast<dev_pair *>(malloc(sizeof(dev_pair) * (size_t)(ps->npair ? ps->npair : 1)));
    double *hAB = static_cast<double *>(malloc(sizeof(double) * 3 * (size_t)(ps->npair ? ps->npair : 1)));
    if (!hp || !hAB) {
        free(hp), free(hAB);
        sb_error("eri_brush cuda: out of host memory for %ld pairs", ps->npair);
        return SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < ps->npair; i++)
        for (int k = 0; k < 3; k++) hAB[3 * i + k] = ps->pair[i].AB[k];
    double *hprim = NULL;
    rc = interleave(bas, ps, NULL, b->mode == ERI_MODE_DIGEST ? ps->pq_screen : 0.0, hp, &hprim);
    if (!rc) rc = upload(&st->pair, hp, (size_t)ps->npair);
    if (!rc) rc = upload(&st->AB, hAB, 3 * (size_t)ps->npair);
    if (!rc) rc = upload(&st->prim, hprim, (size_t)PF_N * ps->nprim);
    free(hp), free(hAB), free(hprim);
    if (rc) return rc;
    {
        /* the quartet list lives on the device whole; say so before cudaMalloc fails on it */
        size_t free_b = 0, total_b = 0;
        SB_CU(cudaMemGetInfo(&free_b, &total_b));
        const size_t need = (size_t)w->nq * sizeof(eri_quartet) + nbf2 * 2 * sizeof(double);
        if (need + (256u << 20) > free_b) {
            sb_error("eri_brush cuda: the worklist's %ld screened quartets and J need %.1f GB of device memory, %.1f GB "
                     "are free (the quartet list is kept on the device whole): use a smaller case or a larger screen=",
                     w->nq, need / 1e9, free_b / 1e9);
            return SB_EXIT_RUNTIME;
        }
    }
    if ((rc = upload(&st->q, w->q, (size_t)w->nq))) return rc;
    if ((rc = upload_boys(&st->boys))) return rc;
    if (b->mode == ERI_MODE_DIGEST) {
        if ((rc = upload(&st->D, b->D, nbf2))) return rc;
        SB_CU(cudaMalloc(&st->M, (nbf2 ? nbf2 : 1) * sizeof(double)));
    } else {
        if ((rc = upload(&st->store_off, w->store_off, (size_t)w->nq + 1))) return rc;
        SB_CU(cudaMalloc(&st->store, (st->nstore ? (size_t)st->nstore : 1) * sizeof(double)));
    }
    if ((rc = launch_config(st))) return rc;
    if ((rc = je_prepare(st, b))) return rc;
    if ((rc = fam_prepare(st, b))) return rc;
    st->ev = static_cast<cudaEvent_t *>(calloc((size_t)w->nseg + 1, sizeof(cudaEvent_t)));
    if (!st->ev) return SB_EXIT_RUNTIME;
    for (int i = 0; i <= w->nseg; i++, st->nev++) SB_CU(cudaEventCreate(&st->ev[i]));
    for (; st->nss < st->streams; st->nss++) {
        SB_CU(cudaStreamCreateWithFlags(&st->ss[st->nss], cudaStreamNonBlocking));
        if (cudaEventCreateWithFlags(&st->sj[st->nss], cudaEventDisableTiming) != cudaSuccess) {
            cudaStreamDestroy(st->ss[st->nss]);
            sb_error("eri_brush cuda: cannot create the stream events");
            return SB_EXIT_RUNTIME;
        }
    }
    if (st->graph) {
        SB_CU(cudaStreamCreateWithFlags(&st->cs, cudaStreamNonBlocking));
        SB_CU(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
    }
    return SB_OK;
}

/* Where a class starts (segment k; k = nseg: the end): ev[k] on the origin stream s0 (the
 * legacy stream, or the capture stream cs, where ev[k] becomes a timing node of the graph),
 * and every stream waits for it, so classes run one at a time and ev[] times them. */
int class_fork(cu_state *st, int k, cudaStream_t s0, bool graph)
{
    if (graph) { /* in a capture a plain record only orders; the timing node is separate */
        SB_CU(cudaEventRecordWithFlags(st->ev[k], s0, cudaEventRecordExternal));
        SB_CU(cudaEventRecord(st->fork, s0));
    } else {
        SB_CU(cudaEventRecord(st->ev[k], s0));
    }
    if (k < st->nseg)
        for (int i = 0; i < st->nss; i++) SB_CU(cudaStreamWaitEvent(st->ss[i], graph ? st->fork : st->ev[k], 0));
    return SB_OK;
}

/* The end of a class: s0 waits for every stream used, then class_fork. At the end (k = nseg)
 * every stream rejoins s0, which a capture requires of each stream it forked. */
int class_join(cu_state *st, unsigned long long used, int k, cudaStream_t s0, bool graph)
{
    for (int i = 0; i < st->nss; i++)
        if ((used >> i & 1) || k == st->nseg) {
            SB_CU(cudaEventRecord(st->sj[i], st->ss[i]));
            SB_CU(cudaStreamWaitEvent(s0, st->sj[i], 0));
        }
    return class_fork(st, k, s0, graph);
}

/* A segment's kernel, block size and grid (capped by class_bps or the overrides). */
struct shape {
    class_kernel_t fn;
    int block;
    long grid;
    int cap; /* blocks per SM, 0: uncapped */
};
shape launch_shape(const cu_state *st, const class_entry &e, const eri_segment &s)
{
    shape sh;
    sh.fn = segment_kernel(e, s);
    sh.block = st->block[s.cls] ? st->block[s.cls] : e.block;
    sh.grid = (s.q1 - s.q0 + sh.block - 1) / sh.block;
    const bool one = sh.fn != e.fn[s.path];
    const int cap = sh.cap = st->bps[s.cls][s.path][one];
    if (cap > 0 && sh.grid > (long)cap * st->sms) sh.grid = (long)cap * st->sms;
    if (kernel_loops(e, s.path, one) && st->grid_max > 0 && sh.grid > st->grid_max) sh.grid = st->grid_max;
    return sh;
}

/* A launch at its blocks-per-SM cap (chosen so that its stack frames stay in L1) must not
 * share its SMs with another segment's blocks: those go to stream 0, one after another. The
 * others, a capped kernel's smaller segments included, take the remaining streams in turn. */
int seg_stream(const cu_state *st, int cap, long grid, int *next)
{
    if ((cap > 0 && grid == (long)cap * st->sms) || st->nss == 1) return 0;
    const int si = 1 + *next % (st->nss - 1);
    *next = *next + 1;
    return si;
}

/* The family segments of class cls (fam_prepare) over the streams, this rank's part of each. */
int fam_enqueue(cu_state *st, int cls, const eri_share *share, const kargs &base, unsigned long long *used, int *next)
{
    const class_entry e = class_table(cls);
    kargs a = base;
    a.q = st->fq, a.prim = st->fprim, a.pair = st->fpair, a.AB = st->fAB, a.mem = st->fmem, a.screen = st->fw.screen;
    a.boys = st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB;
    for (int k = 0; k < st->fw.nseg; k++) {
        eri_segment s = st->fw.seg[k];
        if (s.cls != cls) continue;
        eri_share_cut(share, cls, s.q0, s.q1, &s.q0, &s.q1);
        const long n = s.q1 - s.q0;
        if (n <= 0) continue;
        a.q0 = s.q0, a.n = n, a.nb = s.nb, a.nk = s.nk;
        shape sh;
        if (fam_members(st, &s, &a.mb, &a.mk) == 1) { /* a family of one on each side: the class's own kernel */
            s.path = ERI_PATH_HGP;
            sh = launch_shape(st, e, s);
        } else {
            sh.fn = fam_pick(cls, a.mb, a.mk, st->fam_acc), sh.block = e.block, sh.grid = (n + e.block - 1) / e.block, sh.cap = 0;
        }
        const int si = seg_stream(st, sh.cap, sh.grid, next);
        *used |= 1ull << si;
        sh.fn<<<(unsigned)sh.grid, sh.block, 0, st->ss[si]>>>(a);
        SB_CU_LAUNCH();
    }
    return SB_OK;
}

/* The run's work, in order, from origin stream s0: clear M, the J engine's densities, the
 * segments class by class over the streams, the J engine's blocks of M. */
int cu_enqueue(cu_state *st, eri_batch *b, cudaStream_t s0, bool graph)
{
    const eri_worklist *w = b->w;
    if (st->mode == ERI_MODE_DIGEST)
        SB_CU(cudaMemsetAsync(st->M, 0, (size_t)st->nbf * st->nbf * sizeof(double), s0));
    const je_pass jpass = st->je ? je_pass_args(st, b) : je_pass{};
    const unsigned jgrid = (unsigned)((b->ps->npair + 127) / 128);
    const bool jf = (jpass.used >> ERI_NPAIRCLASS_CODE) != 0; /* pairs with an f shell */
    if (st->je && b->ps->npair > 0) {
        SB_CU(cudaMemsetAsync(st->G, 0, (size_t)st->nje * sizeof(double), s0));
        je_pair_kernel<false><<<jgrid, 128, 0, s0>>>(jpass);
        SB_CU_LAUNCH();
        if (jf) {
            je_pair_kernel_any<false><<<jgrid, 128, 0, s0>>>(jpass);
            SB_CU_LAUNCH();
        }
    }
    /* the streams start after s0's work so far (M cleared, densities) */
    int rc = class_fork(st, 0, s0, graph);
    if (rc) return rc;
    bool famc[ERI_NCLASS]; /* the classes that run their family quartets instead of their segments */
    for (int c = 0; c < ERI_NCLASS; c++) st->fam_used[c] = false, famc[c] = fam_runs(st, w, c);
    unsigned long long used = 0;
    int next = 0;
    kargs a = {};
    a.q = st->q, a.prim = st->prim, a.pair = st->pair, a.AB = st->AB;
    a.pure = st->pure, a.mode = st->mode, a.nbf = st->nbf;
    a.D = st->D, a.M = st->M, a.store_off = st->store_off, a.store = st->store;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        const class_entry e = class_table(s->cls);
        long q0, q1;
        eri_share_cut(b->share, s->cls, s->q0, s->q1, &q0, &q1);
        const long n = q1 - q0;
        if (k > 0 && s->cls != w->seg[k - 1].cls) {
            if ((rc = class_join(st, used, k, s0, graph))) return rc;
            used = 0;
        }
        if (famc[s->cls]) { /* a class's segments come in several runs: its family quartets go with the first */
            if (!st->fam_used[s->cls] && (rc = fam_enqueue(st, s->cls, b->share, a, &used, &next))) return rc;
            st->fam_used[s->cls] = true;
            continue;
        }
        /* the path may be chosen again between runs (tests force one); the class is checked */
        const bool je = s->path == ERI_PATH_JENG;
        if (!e.block || (je ? !st->je : (s->path != ERI_PATH_HGP && s->path != ERI_PATH_MD) || !e.fn[s->path])) {
            sb_error("eri_brush cuda: segment %d: class %d path %d has no kernel", k, s->cls, s->path);
            return SB_EXIT_RUNTIME;
        }
        if (je && n > 0) {
            je_args ja = {st->q, q0, n, s->nb, s->nk, st->prim, st->pair, st->jp,
                          st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB, st->H, st->G,
                          e.l[0] + e.l[1], e.l[2] + e.l[3]};
            const je_shape sh = je_launch_shape(st, s->cls, e, n);
            const int si = seg_stream(st, sh.cap, sh.grid, &next);
            used |= 1ull << si;
            sh.k.fn<<<(unsigned)sh.grid, sh.k.block, 0, st->ss[si]>>>(ja);
            SB_CU_LAUNCH();
        } else if (n > 0) {
            a.q0 = q0, a.n = n, a.nb = s->nb, a.nk = s->nk;
            a.boys = st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB;
            eri_segment part = *s;
            part.q0 = q0, part.q1 = q1;
            const shape sh = launch_shape(st, e, part);
            const int si = seg_stream(st, sh.cap, sh.grid, &next);
            used |= 1ull << si;
            sh.fn<<<(unsigned)sh.grid, sh.block, 0, st->ss[si]>>>(a);
            SB_CU_LAUNCH();
        }
    }
    if ((rc = class_join(st, used, w->nseg, s0, graph))) return rc;
    if (st->je && b->ps->npair > 0) {
        je_pair_kernel<true><<<jgrid, 128, 0, s0>>>(jpass);
        SB_CU_LAUNCH();
        if (jf) {
            je_pair_kernel_any<true><<<jgrid, 128, 0, s0>>>(jpass);
            SB_CU_LAUNCH();
        }
    }
    return SB_OK;
}

/* What a captured run depends on beyond the prepared state: the segments and the rank's
 * share of them (FNV-1a). */
unsigned long long worklist_sig(const eri_worklist *w, const eri_share *share)
{
    unsigned long long h = 1469598103934665603ull;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        const long v[6] = {s->cls, s->path, s->nb, s->nk, s->q0, s->q1};
        for (int j = 0; j < 6; j++) h = (h ^ (unsigned long long)v[j]) * 1099511628211ull;
    }
    if (share) {
        h = (h ^ (unsigned long long)(share->rank + 1000 * share->ranks)) * 1099511628211ull;
        for (int c = 0; c < ERI_NCLASS; c++) h = (h ^ (unsigned long long)(share->owner[c] + 2)) * 1099511628211ull;
    }
    return h;
}

/* The run as a graph: about 2000 launches, event records and waits for a small molecule
 * (462 segments in 21 classes for benzene/cc-pVDZ) cost more host time than its kernels
 * take; a graph launches them in one call. Captured again when the segments change. */
int cu_graph_run(cu_state *st, eri_batch *b)
{
    const unsigned long long sig = worklist_sig(b->w, b->share);
    if (!st->gexec || sig != st->gsig) {
        if (st->gexec) cudaGraphExecDestroy(st->gexec), st->gexec = nullptr;
        SB_CU(cudaStreamBeginCapture(st->cs, cudaStreamCaptureModeThreadLocal));
        const int rc = cu_enqueue(st, b, st->cs, true);
        cudaGraph_t g = nullptr;
        const cudaError_t ce = cudaStreamEndCapture(st->cs, &g); /* ends it whatever happened */
        if (rc) {
            if (g) cudaGraphDestroy(g);
            return rc;
        }
        SB_CU(ce);
        const cudaError_t ie = cudaGraphInstantiate(&st->gexec, g, 0);
        cudaGraphDestroy(g);
        SB_CU(ie);
        st->gsig = sig;
    }
    SB_CU(cudaGraphLaunch(st->gexec, 0)); /* the legacy stream, as the harness's events */
    return SB_OK;
}

int cu_run(eri_batch *b)
{
    cu_state *st = static_cast<cu_state *>(b->dev);
    if (!st) {
        sb_error("eri_brush cuda: run before prepare");
        return SB_EXIT_RUNTIME;
    }
    const eri_worklist *w = b->w;
    if (w->nseg != st->nseg || w->nq != st->nq) {
        sb_error("eri_brush cuda: the worklist changed after prepare (%d segments, %ld quartets; prepared %d, %ld)",
                 w->nseg, w->nq, st->nseg, st->nq);
        return SB_EXIT_RUNTIME;
    }
    const int rc = st->graph ? cu_graph_run(st, b) : cu_enqueue(st, b, 0, false);
    if (rc) return rc;
    if (b->seg_seconds) {
        /* waiting here only moves the harness's own wait forward */
        SB_CU(cudaEventSynchronize(st->ev[w->nseg]));
        /* a class's time goes to its first segment (its segments overlap) */
        for (int k = 0, k1; k < w->nseg; k = k1) {
            for (k1 = k + 1; k1 < w->nseg && w->seg[k1].cls == w->seg[k].cls; k1++) b->seg_seconds[k1] = 0;
            float ms = 0;
            SB_CU(cudaEventElapsedTime(&ms, st->ev[k], st->ev[k1]));
            b->seg_seconds[k] = 1e-3 * ms;
            if (st->segtimes)
                fprintf(stderr, "SEG %d..%d cls %d segments %d ms %.4f\n", k, k1 - 1, w->seg[k].cls, k1 - k, ms);
        }
    }
    return SB_OK;
}

int cu_download(eri_batch *b)
{
    cu_state *st = static_cast<cu_state *>(b->dev);
    if (!st) {
        sb_error("eri_brush cuda: download before prepare");
        return SB_EXIT_RUNTIME;
    }
    if (st->mode == ERI_MODE_DIGEST)
        SB_CU(cudaMemcpy(b->M, st->M, (size_t)st->nbf * st->nbf * sizeof(double), cudaMemcpyDeviceToHost));
    else if (st->nstore)
        SB_CU(cudaMemcpy(b->store, st->store, (size_t)st->nstore * sizeof(double), cudaMemcpyDeviceToHost));
    return SB_OK;
}

void cu_release(eri_batch *b)
{
    release_state(static_cast<cu_state *>(b->dev));
    b->dev = NULL;
}

/* The (ll|ll) kernels of each path in use, l = 0..ERI_LMAX, where the worklist has such
 * quartets; grid = the launch of the class's largest segment. */
int cu_launches(eri_batch *b, void *arr, int max)
{
    cu_state *st = static_cast<cu_state *>(b->dev);
    if (!st || !arr) return 0;
    sb_launch *out = static_cast<sb_launch *>(arr);
    const eri_worklist *w = b->w;
    static const char L[] = "spdfg";
    int n = 0;
    for (int path = 0; path <= ERI_PATH_JENG; path++)
        for (int l = 0; l <= ERI_LMAX && n < max; l++) {
            const int pc = eri_pair_class(l, l), cls = eri_quartet_class(pc, pc);
            long most = 0;
            int big = 0;
            for (int k = 0; k < w->nseg; k++)
                if (w->seg[k].cls == cls && w->seg[k].path == path && w->seg[k].q1 - w->seg[k].q0 > most)
                    most = w->seg[k].q1 - w->seg[k].q0, big = k;
            const class_entry e = class_table(cls);
            if (!most || !e.block) continue;
            char name[64];
            if (path == ERI_PATH_JENG) {
                const je_shape sh = je_launch_shape(st, cls, e, most);
                snprintf(name, sizeof name, "eri_jeng%s (%c%c|%c%c)", sh.k.nq < sh.k.block ? " team" : sh.k.smem ? " smem" : "", L[l], L[l], L[l], L[l]);
                if (sb_cuda_occupancy((const void *)sh.k.fn, name, sh.k.block, 0, (int)sh.grid, out + n)) return -1;
                if (sh.cap > 0 && out[n].blocks_per_sm > sh.cap) {
                    out[n].occupancy *= (double)sh.cap / out[n].blocks_per_sm;
                    out[n].blocks_per_sm = sh.cap;
                }
                n++;
                continue;
            }
            const shape sh = launch_shape(st, e, w->seg[big]);
            const class_kernel_t fn = sh.fn;
            snprintf(name, sizeof name, "eri_%s (%c%c|%c%c)%s%s", path == ERI_PATH_HGP ? "hgp" : "md", L[l], L[l], L[l],
                     L[l], l >= 2 && st->pure ? " pure" : "", fn == e.fn[path] ? "" : " 1prim");
            if (sb_cuda_occupancy((const void *)fn, name, sh.block, 0, (int)sh.grid, out + n))
                return -1;
            if (sh.cap > 0 && out[n].blocks_per_sm > sh.cap) { /* resident: the cap, not what would fit */
                out[n].occupancy *= (double)sh.cap / out[n].blocks_per_sm;
                out[n].blocks_per_sm = sh.cap;
            }
            n++;
        }
    /* the largest family segment of (ss|ss), when the class ran them */
    long most = 0;
    int big = -1;
    int mb, mk;
    const bool fam0 = fam_runs(st, w, 0); /* as cu_enqueue decides (fam_used is set by a run) */
    for (int k = 0; fam0 && k < st->fw.nseg; k++) {
        const eri_segment *s = &st->fw.seg[k];
        if (s->cls == 0 && fam_members(st, s, &mb, &mk) > 1 && s->q1 - s->q0 > most) most = s->q1 - s->q0, big = k;
    }
    if (big >= 0 && n < max) {
        fam_members(st, &st->fw.seg[big], &mb, &mk);
        int cb = 1, ck = 1;
        const class_kernel_t fn = fam_pick(0, mb, mk, st->fam_acc, &cb, &ck);
        char name[64];
        snprintf(name, sizeof name, "eri_hgp family %dx%d (ss|ss)", cb, ck);
        const int block = class_table(0).block;
        if (sb_cuda_occupancy((const void *)fn, name, block, 0, (int)((most + block - 1) / block), out + n)) return -1;
        n++;
    }
    return n;
}

/* ---- the device Boys function alone (tests) ------------------------------------------ */
template <int M>
__global__ void boys_kernel(const double *tab, const double *T, long n, double *F)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double f[M + 1];
    eri_boys(tab + (size_t)M * ERI_BOYS_DSUB, M, T[i], f);
    for (int k = 0; k <= M; k++) F[i * (M + 1) + k] = f[k];
}

template <int... Ms>
void boys_launch(int m, const double *tab, const double *T, long n, double *F, std::integer_sequence<int, Ms...>)
{
    const unsigned grid = (unsigned)((n + 127) / 128);
    ((m == Ms ? (boys_kernel<Ms><<<grid, 128>>>(tab, T, n, F), 0) : 0), ...);
}

} // namespace

extern "C" int eri_cuda_boys(int m, const double *T, long n, double *F)
{
    if (m < 0 || m > 4 * ERI_LMAX || n < 1) {
        sb_error("eri_brush cuda: Boys m = %d, n = %ld: accepted 0 <= m <= %d, n >= 1", m, n, 4 * ERI_LMAX);
        return SB_EXIT_USAGE;
    }
    double *dtab = NULL, *dT = NULL, *dF = NULL;
    int rc = upload_boys(&dtab);
    if (!rc) rc = upload(&dT, T, (size_t)n);
    if (!rc && cudaMalloc(&dF, sizeof(double) * (size_t)n * (m + 1)) != cudaSuccess) rc = SB_EXIT_RUNTIME;
    if (!rc) {
        boys_launch(m, dtab, dT, n, dF, std::make_integer_sequence<int, 4 * ERI_LMAX + 1>{});
        if (cudaGetLastError() != cudaSuccess ||
            cudaMemcpy(F, dF, sizeof(double) * (size_t)n * (m + 1), cudaMemcpyDeviceToHost) != cudaSuccess) {
            sb_error("eri_brush cuda: Boys test kernel failed");
            rc = SB_EXIT_RUNTIME;
        }
    }
    cudaFree(dtab), cudaFree(dT), cudaFree(dF);
    return rc;
}

/* The model flops of a class that ran its family quartets in the last run (else -1). */
double cu_class_flops(eri_batch *b, int cls)
{
    const cu_state *st = static_cast<const cu_state *>(b->dev);
    if (!st || cls < 0 || cls >= ERI_NCLASS || !st->fam_used[cls]) return -1;
    double f = 0;
    for (int k = 0; k < st->fw.nseg; k++) {
        const eri_segment *s = &st->fw.seg[k];
        if (s->cls != cls) continue;
        int mb, mk;
        long q0, q1;
        eri_share_cut(b->share, cls, s->q0, s->q1, &q0, &q1);
        fam_members(st, s, &mb, &mk);
        f += (double)(q1 - q0) * fam_quartet_flops(cls, mb, mk, s->nb, s->nk, st->pure, st->fam_acc);
    }
    return f;
}

double *cu_device_M(eri_batch *b)
{
    cu_state *st = static_cast<cu_state *>(b->dev);
    return st && st->mode == ERI_MODE_DIGEST ? st->M : nullptr;
}

extern "C" const eri_ops eri_ops_cuda = {cu_prepare, cu_run,         cu_download, cu_release,
                                         cu_launches, cu_class_flops, cu_device_M};
