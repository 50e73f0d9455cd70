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
#include <math.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

/* Primitive pairs on the device: one array per eri_prim field, and within a field the pairs
 * of a worklist group (eri_pair_order) interleaved, [primitive][pair]. The quartets of a
 * segment run bra by bra with consecutive kets of one group, so a warp's ket loads are
 * consecutive doubles (two L1 wavefronts a load, where the 96-byte structs took up to 32);
 * its bra loads are one address. The generated code reaches them through these macros. */
enum { PF_p = 0, PF_K = 1, PF_P = 2, PF_PA = 5, PF_PB = 8, PF_h = 11, PF_N = 12 };
/* Family pairs (eri_families) add the K of members 1..3: K of member m at PF_K (m = 0) or
 * PF_K1 + m - 1, and PF_NF fields in all. */
enum { PF_K1 = PF_N, PF_NF = PF_N + 3 };
struct prim_view {
    const double *a; /* field 0 of the pair's primitive 0 */
    int s;           /* from one primitive of the pair to the next: the group's pair count */
    int fs;          /* from one field to the next: pair count x primitives per pair */
};
#define ERI_PRIMS prim_view
#define ERI_PRIM_AT(v, i) (prim_view{(v).a + (i) * (v).s, (v).s, (v).fs})
#define ERI_PF(v, f) ((v).a[PF_##f * (v).fs])
#define ERI_PV(v, f, c) ((v).a[(PF_##f + (c)) * (v).fs])
#define ERI_PFK(v, m) ((v).a[((m) ? PF_K1 - 1 + (m) : PF_K) * (v).fs])

/* Ket primitives in the outer loop (eri.h): a warp's 32 quartets share their bra and each
 * has its own ket, so the outer-loop loads are the per-thread ones (once per ket primitive)
 * and the inner loop re-reads the bra's, one address for the whole warp. With the bra
 * outside, every ket primitive was re-read for every bra primitive and L1 kept 40 % of them
 * ((ps|ss), ncu): the warps waited on L2. */
#define ERI_KET_OUTER 1
#include "eri_brush/eri.h"
/* boys.h declares its C functions without extern "C" (it is a C header); math.h is in
 * already, so nothing C++ ends up inside the block. */
extern "C" {
#include "eri_brush/boys.h"
}
#include "eri_brush/eri_gen_code.h"
#include "eri_brush/eri_gen_info.h"
#include "eri_brush/eri_gen_fam.h"
static_assert(PF_NF == PF_N + ERI_FAM_MAXMEM - 1, "a K field per family member");
/* Bra-side adds summed over the warp first. The quartets of a segment run bra by bra, so a
 * warp's 32 quartets mostly share their bra: without this every bra element of M took 32
 * double atomicAdds at one address in a row, which L2 serialises. The lanes of one bra form a
 * run (consecutive lanes); each run's sum goes to its first lane, which adds it once. Only
 * the lanes that arrive together (__activemask) take part, and a lane outside that mask ends
 * a run, so a partial or diverged warp is handled too: every lane of the mask executes the
 * same shuffles, whatever the runs are. */
struct warp_runs {
    unsigned mask; /* the lanes taking part */
    int end;       /* last lane of this lane's run */
    bool head;     /* first lane of its run: adds the run's sum */
};
static __device__ __forceinline__ warp_runs warp_runs_of(long key)
{
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & 31;
    const long up = __shfl_up_sync(mask, key, 1);
    const bool head = lane == 0 || !((mask >> (lane - 1)) & 1u) || up != key;
    const unsigned after = (__ballot_sync(mask, head) | ~mask) & (0xfffffffeu << lane);
    return warp_runs{mask, after ? __ffs(after) - 2 : 31, head};
}
/* After step o a lane holds the sum of its run's lanes [lane, lane + 2o), so five steps give
 * each head its whole run. */
static __device__ __forceinline__ void add_bra(double *ptr, double v, const warp_runs &r)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const double w = __shfl_down_sync(r.mask, v, o);
        if (lane + o <= r.end) v += w;
    }
    if (r.head) atomicAdd(ptr, v);
}

#define ERI_JE_ADD(ptr, v) atomicAdd((ptr), (v))
#define ERI_JE_BRA_RUNS(name, Gb) const warp_runs name = warp_runs_of((long)(Gb))
#define ERI_JE_ADD_BRA(ptr, v, runs) add_bra((ptr), (v), (runs))
#include "eri_brush/jengine.h"
#include "sb_cuda.h"

namespace {

__host__ __device__ constexpr int ncart(int l) { return (l + 1) * (l + 2) / 2; }
/* functions of a shell: only d (and higher) shells become pure */
__host__ __device__ constexpr int nfun(int l, bool pure) { return pure && l >= 2 ? 2 * l + 1 : ncart(l); }

/* Classes with d shells have large bodies (hundreds of live values): 64-thread blocks
 * leave the compiler the full register file per thread; the small classes take 128. */
__host__ __device__ constexpr int class_block(int la, int lb, int lc, int ld) { return la + lb + lc + ld >= 5 ? 64 : 128; }
/* The largest bodies: with only a launch bound, ptxas (CUDA 13.0) gives them 32 registers
 * and puts everything else on the stack ((dp|dp) HGP: an 11 KB frame, 59 KB of spill traffic
 * per thread). An explicit cap of the whole register file (nvcc takes no launch bound beside
 * it) gives 255 registers, a 3.7 KB frame and 19 KB. They are, on HGP, the classes with at
 * least three units of angular momentum on each side, (dp|dp), (dd|dp), (dd|dd); on MD every
 * class with L >= 5. The others keep the launch bound: under the cap ptxas gives them more
 * registers than they need (ssss 50 -> 60). */
__host__ __device__ constexpr bool class_capped(int path, int la, int lb, int lc, int ld, bool one)
{
    /* one primitive (class_one below): (dd|pp) fell into ptxas's 32-register choice (a 14.6 KB
     * frame), so every single-primitive kernel with L >= 6 is capped too */
    return path == ERI_PATH_HGP ? (la + lb >= 3 && lc + ld >= 3) || (one && la + lb + lc + ld >= 6)
                                : la + lb + lc + ld >= 5;
}

/* Nine HGP classes run faster with fewer registers and more warps per SM: a register
 * target R gives the launch bound a minimum of 65536 / (R x block) blocks per SM. Measured
 * on the H100, taxol/cc-pVDZ, per class (ms, default -> R; tried: R = 128 and 168 for every
 * class with L >= 3 below the capped ones, 64 for (ps|ss), 80 for (ds|ps), both for (ps|ps),
 * (pp|ss), (ds|ss), (dp|ss)):
 *   (ps|ss) 212.5 -> 183.8 (64)   (pp|ss) 81.1 -> 65.5 (64)    (ds|ss) 59.0 -> 50.3 (64)
 *   (ps|ps) 107.0 -> 100.1 (80)   (dp|ss) 55.5 -> 48.9 (80)
 *   (pp|ps) 128.1 -> 112.4 (128)  (dd|ss) 17.9 -> 12.7 (128)
 *   (dp|ps) 109.3 -> 91.8 (168)   (ds|ds) 13.7 -> 11.7 (168)
 * The others were as fast or slower under the targets tried (e.g. (ds|ps) 69.8 -> 96.4 at
 * 80, (dp|pp) 59.7 -> 140.6 at 168: spills). A class without a target keeps the plain
 * launch bound: even an explicit minimum of one block makes ptxas take more registers
 * ((ss|ss) 64 -> 72, 113 -> 122 ms). 0: no target. */
__host__ __device__ constexpr int class_regs(int path, int la, int lb, int lc, int ld)
{
    if (path != ERI_PATH_HGP) return 0;
    const int key = la * 1000 + lb * 100 + lc * 10 + ld;
    return key == 1000 || key == 1100 || key == 2000 ? 64
           : key == 1010 || key == 2100              ? 80
           : key == 1110 || key == 2200              ? 128
           : key == 2110 || key == 2020              ? 168
                                                     : 0;
}

/* What a thread needs of a shell pair, in one 16-byte load. */
struct dev_pair {
    int bf0a, bf0b; /* first functions of shells a and b */
    int off;        /* field 0 of its primitive 0 in the interleaved arrays */
    int sd;         /* 2 x its group's pair count, + 1 when a == b (digest factor 1, else 2) */
};

struct kargs {
    const eri_quartet *q;
    long q0, n; /* the segment's quartets q[q0 .. q0+n) */
    int nb, nk; /* primitive pairs of bra and ket */
    const double *prim; /* interleaved fields */
    const dev_pair *pair;
    const double *AB; /* 3 per pair */
    const double *boys;
    int pure, mode, nbf;
    const double *D;
    double *M;
    const long *store_off;
    double *store;
    /* family segments (eri_families): ERI_FAM_MAXMEM members per family pair, the members
     * of the segment's bra and ket family pairs, the screen the member quartets pass */
    const struct fam_member *mem;
    int mb, mk;
    double screen;
};

/* A member of a family pair: its functions, digest factor and Schwarz factor. */
struct fam_member {
    int bf0a, bf0b;
    int diag; /* a == b: digest factor 1, else 2 */
    int pad;
    double schwarz;
};

/* The generated functions of class cls under a common name (ERI_GEN_CLASSES gives the
 * digits that name them). */
template <int CLS>
struct cls_code;
#define ERI_CU_CLASS(cls, la, lb, lc, ld)                                                                    \
    template <>                                                                                            \
    struct cls_code<cls> {                                                                                 \
        static constexpr int LA = la, LB = lb, LC = lc, LD = ld;                                           \
        __device__ static void hgp(prim_view b, int nb, prim_view k, int nk, const double *AB,             \
                                   const double *CD, const double *boys, double *out)                      \
        {                                                                                                  \
            eri_hgp_##la##lb##lc##ld(b, nb, k, nk, AB, CD, boys, out);                                     \
        }                                                                                                  \
        __device__ static void md(prim_view b, int nb, prim_view k, int nk, const double *AB,              \
                                  const double *CD, const double *boys, double *out)                       \
        {                                                                                                  \
            eri_md_##la##lb##lc##ld(b, nb, k, nk, AB, CD, boys, out);                                      \
        }                                                                                                  \
        __device__ static void sph(const double *cart, double *out) { eri_sph_##la##lb##lc##ld(cart, out); } \
    };
ERI_GEN_CLASSES(ERI_CU_CLASS)
#undef ERI_CU_CLASS

/* Digest one block I of shells (a b|c d) with NA x NB x NC x ND functions, first functions
 * (pa, pb) and (qa, qb), digest factors from pd, qd (1 when a == b, else 2); other: the bra
 * pair is not the ket pair. on = false digests nothing (a family's member quartet below the
 * screen) but takes part in the warp's bra sums. */
template <int NA, int NB, int NC, int ND>
__device__ __forceinline__ void digest_block(const double *I, const kargs &a, int pa, int pb, bool pd, int qa, int qb,
                                             bool qd, bool other, bool on, const warp_runs &runs)
{
    constexpr int NCD = NC * ND;
    const int nbf = a.nbf;
    const double *D = a.D;
    double *M = a.M;
    double dcd[NCD];
#pragma unroll
    for (int k = 0; k < NC; k++)
#pragma unroll
        for (int l = 0; l < ND; l++) dcd[k * ND + l] = __ldg(&D[(long)(qa + k) * nbf + qb + l]);
    const double w = on ? 1.0 : 0.0, fcd = (qd ? 1.0 : 2.0) * w, fab = pd ? 1.0 : 2.0;
    double scd[NCD];
#pragma unroll
    for (int x = 0; x < NCD; x++) scd[x] = 0.0;
    for (int i = 0; i < NA; i++)
        for (int j = 0; j < NB; j++) {
            const double *Iij = I + (i * NB + j) * NCD;
            const double dab = __ldg(&D[(long)(pa + i) * nbf + pb + j]);
            double s = 0.0;
#pragma unroll
            for (int x = 0; x < NCD; x++) {
                s += Iij[x] * dcd[x];
                scd[x] += Iij[x] * dab;
            }
            add_bra(&M[(long)(pa + i) * nbf + pb + j], fcd * s, runs);
        }
    if (other && on)
#pragma unroll
        for (int k = 0; k < NC; k++)
#pragma unroll
            for (int l = 0; l < ND; l++) atomicAdd(&M[(long)(qa + k) * nbf + qb + l], fab * scd[k * ND + l]);
}

/* Digest or store one block I of quartet qi. */
template <int NA, int NB, int NC, int ND>
__device__ __forceinline__ void finish_block(const double *I, const kargs &a, long qi, const eri_quartet &qu,
                                             const dev_pair &P, const dev_pair &Q)
{
    if (a.mode == ERI_MODE_STORE) {
        double *o = a.store + a.store_off[qi];
        for (int x = 0; x < NA * NB * NC * ND; x++) o[x] = I[x];
        return;
    }
    digest_block<NA, NB, NC, ND>(I, a, P.bf0a, P.bf0b, P.sd & 1, Q.bf0a, Q.bf0b, Q.sd & 1, qu.P != qu.Q, true,
                                 warp_runs_of(qu.P));
}

/* Resident blocks per SM (0: a thread per quartet, as many blocks as fit); `one`: the
 * single-primitive kernel (class_one). A capped launch has sms x cap blocks and each thread
 * walks its quartets with a grid stride. The caps were for stack frames that overflow L1 and
 * for atomics: four 64-thread blocks an SM held 256 frames of 1-4 KB ((dp|dp) 3.7 KB), and
 * before the warp sum of the bra adds (add_bra) fewer resident warps also meant fewer
 * same-address atomics queued in L2. Earlier measurements (results/h100/eri_cuda_ab/) had
 * capped 17 classes. Once the bra adds were summed over the warp, every class below L = 6
 * ran as fast or faster uncapped (H100, taxol/cc-pVDZ, ms, capped -> uncapped, same call,
 * results/h100/eri_agg/log-call3-tune.txt): (ps|ps) 56.6 -> 48.7, (pp|ss) 26.8 -> 22.2,
 * (pp|ps) 39.4 -> 35.3, (ds|ps) 41.6 -> 38.8, (ds|pp) 18.1 -> 16.6, (ds|ds) 9.0 -> 8.0,
 * (dp|ss) 17.6 -> 15.0, (dp|ps) 31.2 -> 28.7, (dd|ss) 3.7 -> 2.8, (pp|pp) 10.6 -> 10.1. The
 * classes with L >= 6 keep their caps; in digest mode they run on the J engine, so the caps
 * serve path=hgp and store mode. */
__host__ __device__ constexpr int class_bps(int path, int la, int lb, int lc, int ld, bool one)
{
    if (path != ERI_PATH_HGP) return 0;
    switch (la * 1000 + lb * 100 + lc * 10 + ld) {
    case 2121: return 1;           /* (dp|dp) */
    case 2211: return 1;           /* (dd|pp) */
    case 2220: return one ? 2 : 1; /* (dd|ds) */
    case 2221: return one ? 2 : 0; /* (dd|dp) */
    default: return 0;
    }
}

template <int CLS, int PATH, bool ONE>
__device__ __forceinline__ void class_quartet(const kargs &a, long qi)
{
    using C = cls_code<CLS>;
    constexpr int LA = C::LA, LB = C::LB, LC = C::LC, LD = C::LD;
    constexpr bool HAS_D = LA >= 2 || LB >= 2 || LC >= 2 || LD >= 2;
    const eri_quartet qu = a.q[qi];
    const dev_pair P = a.pair[qu.P], Q = a.pair[qu.Q];
    double cart[ncart(LA) * ncart(LB) * ncart(LC) * ncart(LD)];
    const prim_view bra{a.prim + P.off, P.sd >> 1, a.nb * (P.sd >> 1)};
    const prim_view ket{a.prim + Q.off, Q.sd >> 1, a.nk * (Q.sd >> 1)};
    if (PATH == ERI_PATH_HGP)
        C::hgp(bra, ONE ? 1 : a.nb, ket, ONE ? 1 : a.nk, a.AB + 3 * (long)qu.P, a.AB + 3 * (long)qu.Q, a.boys, cart);
    else
        C::md(bra, ONE ? 1 : a.nb, ket, ONE ? 1 : a.nk, a.AB + 3 * (long)qu.P, a.AB + 3 * (long)qu.Q, a.boys, cart);
    if (HAS_D && a.pure) {
        double sph[nfun(LA, true) * nfun(LB, true) * nfun(LC, true) * nfun(LD, true)];
        C::sph(cart, sph);
        finish_block<nfun(LA, true), nfun(LB, true), nfun(LC, true), nfun(LD, true)>(sph, a, qi, qu, P, Q);
    } else {
        finish_block<ncart(LA), ncart(LB), ncart(LC), ncart(LD)>(cart, a, qi, qu, P, Q);
    }
}

/* A capped kernel (class_bps > 0) walks its quartets with a grid stride; the others take one
 * quartet per thread, since around their bodies the loop costs registers and time ((ds|ps)
 * 53.5 -> 61.4 ms uncapped with the loop). */
template <int CLS, int PATH, bool ONE>
__device__ __forceinline__ void class_body(const kargs &a)
{
    using C = cls_code<CLS>;
    const long t0 = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (class_bps(PATH, C::LA, C::LB, C::LC, C::LD, ONE) > 0) {
        const long stride = (long)gridDim.x * blockDim.x;
        for (long t = t0; t < a.n; t += stride) class_quartet<CLS, PATH, ONE>(a, a.q0 + t);
    } else if (t0 < a.n) {
        class_quartet<CLS, PATH, ONE>(a, a.q0 + t0);
    }
}

template <int CLS, int PATH, bool ONE>
__global__ void __launch_bounds__(class_block(cls_code<CLS>::LA, cls_code<CLS>::LB, cls_code<CLS>::LC,
                                              cls_code<CLS>::LD))
    eri_class_kernel(const kargs a)
{
    class_body<CLS, PATH, ONE>(a);
}

template <int CLS, int PATH, bool ONE>
__global__ void __maxnreg__(255) eri_capped_kernel(const kargs a)
{
    class_body<CLS, PATH, ONE>(a);
}

template <int CLS, int PATH, bool ONE,
          int BLOCK = class_block(cls_code<CLS>::LA, cls_code<CLS>::LB, cls_code<CLS>::LC, cls_code<CLS>::LD)>
__global__ void __launch_bounds__(BLOCK, 65536 / (class_regs(PATH, cls_code<CLS>::LA, cls_code<CLS>::LB,
                                                             cls_code<CLS>::LC, cls_code<CLS>::LD) * BLOCK))
    eri_tuned_kernel(const kargs a)
{
    class_body<CLS, PATH, ONE>(a);
}

typedef void (*class_kernel_t)(const kargs);

/* Only the variant a class uses is instantiated. */
template <int CLS, int PATH, bool ONE>
class_kernel_t class_kernel()
{
    using C = cls_code<CLS>;
    if constexpr (class_capped(PATH, C::LA, C::LB, C::LC, C::LD, ONE))
        return eri_capped_kernel<CLS, PATH, ONE>;
    else if constexpr (class_regs(PATH, C::LA, C::LB, C::LC, C::LD) > 0)
        return eri_tuned_kernel<CLS, PATH, ONE>;
    else
        return eri_class_kernel<CLS, PATH, ONE>;
}

/* Segments of single primitives (one primitive pair in bra and ket: most quartets of the
 * classes with d shells in cc-pVDZ, whose d shells and outer s and p shells are uncontracted)
 * get kernels compiled for exactly that: the primitive loops vanish, and with them the
 * contracted accumulators that live beside the recurrence values, so ptxas needs fewer
 * registers and spills less. For the HGP classes with L >= 4; elsewhere nullptr. */
__host__ __device__ constexpr bool class_one(int path, int la, int lb, int lc, int ld)
{
    return path == ERI_PATH_HGP && la + lb + lc + ld >= 4;
}
template <int CLS, int PATH>
class_kernel_t class_one_kernel()
{
    using C = cls_code<CLS>;
    if constexpr (class_one(PATH, C::LA, C::LB, C::LC, C::LD))
        return class_kernel<CLS, PATH, true>();
    else
        return nullptr;
}

/* ---- family quartets (eri_families) ---------------------------------------------------
 * A thread per family quartet: its member quartets in chunks of CB bra x CK ket members, one
 * primitive loop a chunk (eri_hgpf_*), then each member quartet's HRR, transform and digest.
 * Chunks are at most FAM_ACC contracted values (VRR targets x CB x CK), which the thread keeps
 * in registers through the loop. */
template <int CLS>
struct fam_code;
#define ERI_CU_FAM(cls, la, lb, lc, ld, nt)                                                                  \
    template <>                                                                                            \
    struct fam_code<cls> {                                                                                 \
        static constexpr int NT = nt;                                                                      \
        template <int CB, int CK>                                                                          \
        __device__ static void hgpf(prim_view b, int nb, prim_view k, int nk, int ob, int ok, const double *AB, \
                                    const double *CD, const double *boys, double *out)                     \
        {                                                                                                  \
            eri_hgpf_##la##lb##lc##ld<CB, CK>(b, nb, k, nk, ob, ok, AB, CD, boys, out);                    \
        }                                                                                                  \
    };
ERI_GEN_FAM_CLASSES(ERI_CU_FAM)
#undef ERI_CU_FAM
constexpr int FAM_ACC = 64;

template <int CLS, int CB, int CK>
__device__ __forceinline__ void fam_quartet(const kargs &a, long qi)
{
    using C = cls_code<CLS>;
    constexpr int LA = C::LA, LB = C::LB, LC = C::LC, LD = C::LD;
    constexpr bool HAS_D = LA >= 2 || LB >= 2 || LC >= 2 || LD >= 2;
    constexpr int NCART = ncart(LA) * ncart(LB) * ncart(LC) * ncart(LD);
    const eri_quartet qu = a.q[qi];
    const dev_pair P = a.pair[qu.P], Q = a.pair[qu.Q];
    const prim_view bra{a.prim + P.off, P.sd >> 1, a.nb * (P.sd >> 1)};
    const prim_view ket{a.prim + Q.off, Q.sd >> 1, a.nk * (Q.sd >> 1)};
    const fam_member *mp = a.mem + ERI_FAM_MAXMEM * (long)qu.P, *mq = a.mem + ERI_FAM_MAXMEM * (long)qu.Q;
    const warp_runs runs = warp_runs_of(qu.P);
    for (int ob = 0; ob < a.mb; ob += CB)
        for (int ok = 0; ok < a.mk; ok += CK) {
            double cart[CB * CK * NCART];
            fam_code<CLS>::template hgpf<CB, CK>(bra, a.nb, ket, a.nk, ob, ok, a.AB + 3 * (long)qu.P,
                                                  a.AB + 3 * (long)qu.Q, a.boys, cart);
#pragma unroll
            for (int fb = 0; fb < CB; fb++)
#pragma unroll
                for (int fk = 0; fk < CK; fk++) {
                    const int i = ob + fb, j = ok + fk; /* < ERI_FAM_MAXMEM: chunks divide a power of two */
                    const fam_member A = mp[i], B = mq[j];
                    /* the member quartets eri_worklist_build keeps, each unordered pair once */
                    const bool on = i < a.mb && j < a.mk && A.schwarz * B.schwarz >= a.screen && (qu.P != qu.Q || i >= j);
                    const bool other = qu.P != qu.Q || i != j;
                    const double *blk = cart + (fb * CK + fk) * NCART;
                    if (HAS_D && a.pure) {
                        double sph[nfun(LA, true) * nfun(LB, true) * nfun(LC, true) * nfun(LD, true)];
                        C::sph(blk, sph);
                        digest_block<nfun(LA, true), nfun(LB, true), nfun(LC, true), nfun(LD, true)>(
                            sph, a, A.bf0a, A.bf0b, A.diag, B.bf0a, B.bf0b, B.diag, other, on, runs);
                    } else {
                        digest_block<ncart(LA), ncart(LB), ncart(LC), ncart(LD)>(blk, a, A.bf0a, A.bf0b, A.diag, B.bf0a,
                                                                                 B.bf0b, B.diag, other, on, runs);
                    }
                }
        }
}

template <int CLS, int CB, int CK>
__global__ void __launch_bounds__(class_block(cls_code<CLS>::LA, cls_code<CLS>::LB, cls_code<CLS>::LC,
                                              cls_code<CLS>::LD)) eri_fam_kernel(const kargs a)
{
    const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < a.n) fam_quartet<CLS, CB, CK>(a, a.q0 + t);
}

/* The same kernel compiled for at least MINB resident blocks per SM: ptxas then keeps it to
 * 65536 / (MINB x block) registers a thread. The family chunks hold CB x CK contracted values
 * per VRR target through the primitive loop ((ps|ps) 2 x 2: 186 registers, two 128-thread
 * blocks an SM), and the one-pair kernels of the same classes ran faster under such targets
 * (class_regs), so each class's target is measured (eri_cuda_fam_blocks, classinfo.c). */
template <int CLS, int CB, int CK, int MINB>
__global__ void __launch_bounds__(class_block(cls_code<CLS>::LA, cls_code<CLS>::LB, cls_code<CLS>::LC,
                                              cls_code<CLS>::LD),
                                  MINB) eri_fam_kernel_minb(const kargs a)
{
    const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < a.n) fam_quartet<CLS, CB, CK>(a, a.q0 + t);
}

/* The block minimums compiled (variant v: FAM_MINB[v]; 0: the launch bound alone). Measured
 * on the H100, taxol/cc-pVDZ, every class at 0, 3, 4, 5, 6 and 8 blocks (ms per class, chunk
 * budgets 64 and 32; results/h100/eri_famregs/): only (ps|ps) (37.9 -> 35.0 at 5 blocks: its
 * 2 x 2 chunk 186 -> 96 registers and a 312 B frame) and (ds|ps) (33.0 -> 31.3 at 3: 212 ->
 * 168 and 120 B) gained; the others lost, up to 7x ((ds|ps) at 8 blocks: 238.6 ms, 64
 * registers and 568-768 B frames). So only 3 and 5 are compiled. */
constexpr int FAM_NV = 3;
constexpr int FAM_MINB[FAM_NV] = {0, 3, 5};
int fam_variant(int minb)
{
    for (int v = 0; v < FAM_NV; v++)
        if (FAM_MINB[v] == minb) return v;
    return -1;
}

template <int CLS, int CB, int CK, int V>
constexpr class_kernel_t fam_kernel_if()
{
    /* one member a side shares nothing: such segments run the class's own kernel */
    if constexpr (CB * CK > 1 && fam_code<CLS>::NT * CB * CK <= FAM_ACC) {
        if constexpr (FAM_MINB[V] == 0) return eri_fam_kernel<CLS, CB, CK>;
        else return eri_fam_kernel_minb<CLS, CB, CK, FAM_MINB[V]>;
    } else {
        return nullptr;
    }
}

/* [variant][log2 CB][log2 CK] -> kernel, nullptr where the chunk does not fit, is one member
 * quartet or the class has none */
struct fam_entry {
    class_kernel_t fn[FAM_NV][3][3];
};
#define ERI_CU_FAM_GRID(cls, v)                                                                             \
    {{fam_kernel_if<cls, 1, 1, v>(), fam_kernel_if<cls, 1, 2, v>(), fam_kernel_if<cls, 1, 4, v>()},         \
     {fam_kernel_if<cls, 2, 1, v>(), fam_kernel_if<cls, 2, 2, v>(), fam_kernel_if<cls, 2, 4, v>()},         \
     {fam_kernel_if<cls, 4, 1, v>(), fam_kernel_if<cls, 4, 2, v>(), fam_kernel_if<cls, 4, 4, v>()}}
fam_entry fam_table(int cls)
{
    static_assert(FAM_NV == 3, "a grid per variant below");
    switch (cls) {
#define ERI_CU_FAM_CASE(cls, la, lb, lc, ld, nt)                                                            \
    case cls:                                                                                              \
        return fam_entry{{ERI_CU_FAM_GRID(cls, 0), ERI_CU_FAM_GRID(cls, 1), ERI_CU_FAM_GRID(cls, 2)}};
        ERI_GEN_FAM_CLASSES(ERI_CU_FAM_CASE)
#undef ERI_CU_FAM_CASE
    default:
        return fam_entry{};
    }
}
#undef ERI_CU_FAM_GRID

/* The kernel for a family segment of mb x mk members: the largest chunk of at most acc
 * contracted values (VRR targets x CB x CK; most member quartets per primitive loop; ties:
 * more bra members), or nullptr; its chunk in *cb, *ck when asked. The chunk does not depend
 * on the variant v (fam_variant). */
class_kernel_t fam_pick(int cls, int mb, int mk, int acc, int v, int *cb = nullptr, int *ck = nullptr)
{
    const fam_entry f = fam_table(cls);
    class_kernel_t best = nullptr;
    int most = 0;
    for (int ib = 2; ib >= 0; ib--)
        for (int ik = 2; ik >= 0; ik--)
            if ((1 << ib) < 2 * mb && (1 << ik) < 2 * mk && f.fn[v][ib][ik] && (1 << (ib + ik)) > most &&
                eri_fam_targets(cls) << (ib + ik) <= acc) {
                best = f.fn[v][ib][ik], most = 1 << (ib + ik);
                if (cb) *cb = 1 << ib, *ck = 1 << ik;
            }
    return best;
}

/* Classes that run their family quartets where they can (fam_prepare). Measured on the H100,
 * taxol/cc-pVDZ, ms per class without families -> with (budget 64; results/h100/eri_fam/):
 * (ss|ss) 30.5 -> 14.9, (ps|ss) 72.9 -> 38.7, (ps|ps) 46.0 -> 37.8, (pp|ss) 21.4 -> 16.5,
 * (pp|ps) 33.8 -> 32.1, (ds|ss) 22.8 -> 14.0; slower: (dp|ss) 14.4 -> 14.8 (16.4 at budget 32),
 * (dd|ss) 2.7 -> 3.4, whose chunks take 244 and 255 registers. Those two keep their own kernel. */
constexpr bool fam_class_wanted(int la, int lb, int lc, int ld)
{
    return !(la == 2 && lb >= 1 && lc == 0 && ld == 0);
}

/* Flop model of a family quartet of mb x mk members in the chunks fam_pick gives (one member
 * a side: the class's own kernel, which eri_fam_quartet_flops counts as such). */
double fam_quartet_flops(int cls, int mb, int mk, int nb, int nk, int pure, int acc)
{
    int cb = 1, ck = 1;
    if (mb * mk > 1 && !fam_pick(cls, mb, mk, acc, 0, &cb, &ck)) return 0;
    return eri_fam_quartet_flops(cls, mb, mk, cb, ck, nb, nk, pure);
}

#include "eri_brush/jengine_cuda.cuh"

struct class_entry {
    class_kernel_t fn[ERI_NPATH];
    class_kernel_t one[ERI_NPATH]; /* for segments with nb = nk = 1, or nullptr */
    int block;
    int l[4];
};

/* (class, path) -> kernel; block == 0 for a class outside 0..ERI_NCLASS-1. The classes the
 * generator did not emit (f shells) have a block for the J engine and no HGP or MD kernel. */
class_entry class_table(int cls)
{
    class_entry e = {};
    switch (cls) {
#define ERI_CU_CASE(cls, la, lb, lc, ld)                                                                   \
    case cls:                                                                                                \
        e = class_entry{{class_kernel<cls, ERI_PATH_HGP, false>(), class_kernel<cls, ERI_PATH_MD, false>()},  \
                        {class_one_kernel<cls, ERI_PATH_HGP>(), class_one_kernel<cls, ERI_PATH_MD>()},      \
                        class_block(la, lb, lc, ld),                                                         \
                        {la, lb, lc, ld}};                                                                   \
        break;
        ERI_GEN_CLASSES(ERI_CU_CASE)
#undef ERI_CU_CASE
    default:
        if (const eri_class_info *c = eri_class(cls)) /* no generated code: the J engine only */
            e = class_entry{{nullptr, nullptr}, {nullptr, nullptr}, je_block_f, {c->la, c->lb, c->lc, c->ld}};
        break;
    }
    return e;
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
    int fam_v[ERI_NCLASS]; /* each class's family kernel variant (fam_variant); SB_ERI_FAM_BLOCKS */
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
 * SB_ERI_FAM_ACC=n: the family chunks' contracted values (fam_pick); SB_ERI_FAM_BLOCKS=n: every
 * class's family kernels compiled for n resident blocks an SM (fam_variant; default: each
 * class's measured eri_cuda_fam_blocks). */
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
    const char *eb = getenv("SB_ERI_FAM_BLOCKS");
    const long minb = eb ? strtol(eb, &end, 10) : 0;
    if (eb && (end == eb || *end || minb < 0 || minb > 8 || fam_variant((int)minb) < 0)) {
        sb_error("eri_brush cuda: SB_ERI_FAM_BLOCKS='%s': expected 0 (the family kernels' launch bound alone) or "
                 "3 or 5 (resident blocks an SM they are compiled for, every class)",
                 eb);
        return SB_EXIT_USAGE;
    }
    for (int c = 0; c < ERI_NCLASS; c++) {
        st->fam_v[c] = fam_variant(eb ? (int)minb : eri_cuda_fam_blocks(c));
        if (st->fam_v[c] < 0) {
            sb_error("eri_brush cuda: eri_cuda_fam_blocks(%d) = %d has no compiled kernel", c, eri_cuda_fam_blocks(c));
            return SB_EXIT_RUNTIME;
        }
    }
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
int interleave(const eri_basis *bas, const eri_pairs *ps, const double *Km, dev_pair *hp, double **out)
{
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
        const class_kernel_t fn = fam_pick(s->cls, mb, mk, st->fam_acc, st->fam_v[s->cls], &cb, &ck);
        bool &done = seen[s->cls][cb >> 1][ck >> 1]; /* log2 of 1, 2, 4 */
        cudaFuncAttributes fa;
        if (done || !fn || cudaFuncGetAttributes(&fa, (const void *)fn) != cudaSuccess) continue;
        done = true;
        const eri_class_info *ci = eri_class(s->cls);
        fprintf(stderr, "eri_brush cuda: family kernel (%d%d|%d%d) %dx%d, %d blocks/SM target: %d registers, %zu B stack\n",
                ci->la, ci->lb, ci->lc, ci->ld, cb, ck, FAM_MINB[st->fam_v[s->cls]], fa.numRegs, fa.localSizeBytes);
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
    rc = interleave(b->bas, fp, st->fams.K, hp, &hprim);
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
        missing[s->cls] |= !fam_pick(s->cls, mb, mk, st->fam_acc, 0);
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
    rc = interleave(bas, ps, NULL, hp, &hprim);
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

/* The family segments of class cls (fam_prepare) over the streams. */
int fam_enqueue(cu_state *st, int cls, const kargs &base, unsigned long long *used, int *next)
{
    const class_entry e = class_table(cls);
    kargs a = base;
    a.q = st->fq, a.prim = st->fprim, a.pair = st->fpair, a.AB = st->fAB, a.mem = st->fmem, a.screen = st->fw.screen;
    a.boys = st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB;
    for (int k = 0; k < st->fw.nseg; k++) {
        eri_segment s = st->fw.seg[k];
        if (s.cls != cls) continue;
        const long n = s.q1 - s.q0;
        a.q0 = s.q0, a.n = n, a.nb = s.nb, a.nk = s.nk;
        shape sh;
        if (fam_members(st, &s, &a.mb, &a.mk) == 1) { /* a family of one on each side: the class's own kernel */
            s.path = ERI_PATH_HGP;
            sh = launch_shape(st, e, s);
        } else {
            sh.fn = fam_pick(cls, a.mb, a.mk, st->fam_acc, st->fam_v[cls]), sh.block = e.block, sh.grid = (n + e.block - 1) / e.block, sh.cap = 0;
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
        const long n = s->q1 - s->q0;
        if (k > 0 && s->cls != w->seg[k - 1].cls) {
            if ((rc = class_join(st, used, k, s0, graph))) return rc;
            used = 0;
        }
        if (famc[s->cls]) { /* a class's segments come in several runs: its family quartets go with the first */
            if (!st->fam_used[s->cls] && (rc = fam_enqueue(st, s->cls, a, &used, &next))) return rc;
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
            je_args ja = {st->q, s->q0, n, s->nb, s->nk, st->prim, st->pair, st->jp,
                          st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB, st->H, st->G,
                          e.l[0] + e.l[1], e.l[2] + e.l[3]};
            const je_shape sh = je_launch_shape(st, s->cls, e, n);
            const int si = seg_stream(st, sh.cap, sh.grid, &next);
            used |= 1ull << si;
            sh.k.fn<<<(unsigned)sh.grid, sh.k.block, 0, st->ss[si]>>>(ja);
            SB_CU_LAUNCH();
        } else if (n > 0) {
            a.q0 = s->q0, a.n = n, a.nb = s->nb, a.nk = s->nk;
            a.boys = st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB;
            const shape sh = launch_shape(st, e, *s);
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

/* What a captured run depends on beyond the prepared state: the segments (FNV-1a). */
unsigned long long worklist_sig(const eri_worklist *w)
{
    unsigned long long h = 1469598103934665603ull;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        const long v[6] = {s->cls, s->path, s->nb, s->nk, s->q0, s->q1};
        for (int j = 0; j < 6; j++) h = (h ^ (unsigned long long)v[j]) * 1099511628211ull;
    }
    return h;
}

/* The run as a graph: about 2000 launches, event records and waits for a small molecule
 * (462 segments in 21 classes for benzene/cc-pVDZ) cost more host time than its kernels
 * take; a graph launches them in one call. Captured again when the segments change. */
int cu_graph_run(cu_state *st, eri_batch *b)
{
    const unsigned long long sig = worklist_sig(b->w);
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
        const class_kernel_t fn = fam_pick(0, mb, mk, st->fam_acc, st->fam_v[0], &cb, &ck);
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
        fam_members(st, s, &mb, &mk);
        f += (double)(s->q1 - s->q0) * fam_quartet_flops(cls, mb, mk, s->nb, s->nk, st->pure, st->fam_acc);
    }
    return f;
}

extern "C" const eri_ops eri_ops_cuda = {cu_prepare, cu_run, cu_download, cu_release, cu_launches, cu_class_flops};
