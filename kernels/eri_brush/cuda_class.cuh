/* eri_brush CUDA backend: the device code of the classes with generated code (cuda.cu has
 * the design). A class's kernels are compiled in the translation units of its L = la+lb+lc+ld
 * (and path, where the units split them): the generator writes build/gen/eri_brush/
 * eri_cuda_L*.cu, which include this header and their classes' generated code and invoke the
 * ERI_CU_UNIT_* macros below, so that make -j compiles the classes side by side. A unit hands
 * its kernels to cuda.cu as the tables eri_cu::hgp_kernels_<la><lb><lc><ld>(), md_kernels_...
 * and fam_entry_...; the kernels themselves are in an unnamed namespace, each compiled in one
 * unit only. */
#ifndef ERI_CUDA_CLASS_CUH
#define ERI_CUDA_CLASS_CUH

#include <math.h>
#include <utility>

/* Primitive pairs on the device: one array per eri_prim field, and within a field the pairs
 * of a worklist group (eri_pair_order) interleaved, [primitive][pair]. The quartets of a
 * segment run bra by bra with consecutive kets of one group, so a warp's ket loads are
 * consecutive doubles (two L1 wavefronts a load, where the 96-byte structs took up to 32);
 * its bra loads are one address. The generated code reaches them through these macros. */
enum { PF_p = 0, PF_K = 1, PF_P = 2, PF_PA = 5, PF_PB = 8, PF_h = 11, PF_q = 12, PF_N = 13 };
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
/* The primitive-quartet screen (eri.h): PF_q holds each primitive pair's Schwarz factor over
 * the square root of the screen, so that the test is one product; +inf where the run screens
 * nothing (store mode, pq_screen = 0), which no product brings under 1. The kept prefix of a
 * list by bisection: a few loads of one address per warp where the bra is shared, instead of
 * a test in every iteration of the loop it bounds; one load where the whole list is kept. */
__host__ __device__ __forceinline__ int eri_pq_count(const prim_view &v, int n, double qo)
{
    /* the last one first: most lists keep all (and every one when nothing is screened) */
    if (n <= 0 || v.a[(n - 1) * v.s + PF_q * v.fs] * qo >= 1.0) return n;
    int lo = 0, hi = n - 1; /* the first one the screen drops */
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (v.a[mid * v.s + PF_q * v.fs] * qo < 1.0) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}
#define ERI_PQ_COUNT(list, n, other) eri_pq_count(list, n, ERI_PF(other, q))

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
#include "eri_brush/eri_gen_info.h"
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

/* Types and launch choices shared by cuda.cu and the class units. */
namespace eri_cu {

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

/* Resident blocks per SM (0: a thread per quartet, as many blocks as fit); `one`: the
 * single-primitive kernel (class_one). A capped launch has sms x cap blocks and each thread
 * walks its quartets with a grid stride. The caps were for stack frames that overflow L1 and
 * for atomics: four 64-thread blocks an SM held 256 frames of 1-4 KB ((dp|dp) 3.7 KB), and
 * before the warp sum of the bra adds (add_bra) fewer resident warps also meant fewer
 * same-address atomics queued in L2. Measured before that sum, caps had paid on 17 classes.
 * Once the bra adds were summed over the warp, every class below L = 6 ran as fast or faster
 * uncapped (H100, taxol/cc-pVDZ, ms, capped -> uncapped, in one device run): (ps|ps) 56.6 -> 48.7, (pp|ss) 26.8 -> 22.2,
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

/* Segments of single primitives (one primitive pair in bra and ket: most quartets of the
 * classes with d shells in cc-pVDZ, whose d shells and outer s and p shells are uncontracted)
 * get kernels compiled for exactly that: the primitive loops vanish, and with them the
 * contracted accumulators that live beside the recurrence values, so ptxas needs fewer
 * registers and spills less. For the HGP classes with L >= 4; elsewhere nullptr. */
__host__ __device__ constexpr bool class_one(int path, int la, int lb, int lc, int ld)
{
    return path == ERI_PATH_HGP && la + lb + lc + ld >= 4;
}

constexpr int FAM_ACC = 64;

/* The register target of a class's family kernels: the resident blocks per SM they are
 * compiled for (eri_fam_kernel_minb; 0: the launch bound alone). Measured on the H100,
 * taxol/cc-pVDZ, every class at 0, 3, 4, 5, 6 and 8 blocks (ms per class, chunk budgets 64
 * and 32): only (ps|ps) (37.9 -> 35.0 at 5 blocks: its 2 x 2 chunk
 * 186 -> 96 registers and a 312 B frame) and (ds|ps) (33.0 -> 31.3 at 3: 212 -> 168 and
 * 120 B) gained; the others lost, up to 7x ((ds|ps) at 8 blocks: 238.6 ms, 64 registers and
 * 568-768 B frames). Each class's kernels are compiled for its target alone (a retuning
 * rebuilds the class's unit): every target for every class was three times the family
 * kernels' compile time for two classes' gain. */
__host__ __device__ constexpr int fam_blocks(int la, int lb, int lc, int ld)
{
    const int key = la * 1000 + lb * 100 + lc * 10 + ld;
    return key == 1010 ? 5 : key == 2010 ? 3 : 0;
}

/* Classes that run their family quartets where they can (fam_prepare). Measured on the H100,
 * taxol/cc-pVDZ, ms per class without families -> with (budget 64):
 * (ss|ss) 30.5 -> 14.9, (ps|ss) 72.9 -> 38.7, (ps|ps) 46.0 -> 37.8, (pp|ss) 21.4 -> 16.5,
 * (pp|ps) 33.8 -> 32.1, (ds|ss) 22.8 -> 14.0; slower: (dp|ss) 14.4 -> 14.8 (16.4 at budget 32),
 * (dd|ss) 2.7 -> 3.4, whose chunks take 244 and 255 registers. Those two keep their own kernel. */
constexpr bool fam_class_wanted(int la, int lb, int lc, int ld)
{
    return !(la == 2 && lb >= 1 && lc == 0 && ld == 0);
}

typedef void (*class_kernel_t)(const kargs);

struct class_entry {
    class_kernel_t fn[ERI_NPATH];
    class_kernel_t one[ERI_NPATH]; /* for segments with nb = nk = 1, or nullptr */
    int block;
    int l[4];
};

/* [log2 CB][log2 CK] -> kernel, nullptr where the chunk does not fit, is one member quartet
 * or the class has none; minb: their fam_blocks */
struct fam_entry {
    class_kernel_t fn[3][3];
    int minb;
};

/* Each class's kernels on one path (a single-primitive one or nullptr), and its family
 * kernels, defined in its units. */
struct path_kernels {
    class_kernel_t fn, one;
};
#define ERI_CU_DECL(cls, la, lb, lc, ld) \
    path_kernels hgp_kernels_##la##lb##lc##ld(); \
    path_kernels md_kernels_##la##lb##lc##ld();
#define ERI_CU_FAM_DECL(cls, la, lb, lc, ld, nt) fam_entry fam_entry_##la##lb##lc##ld();
ERI_GEN_CLASSES(ERI_CU_DECL)
ERI_GEN_FAM_CLASSES(ERI_CU_FAM_DECL)
#undef ERI_CU_DECL
#undef ERI_CU_FAM_DECL

} // namespace eri_cu

/* The kernels, instantiated in the units. */
namespace {
using namespace eri_cu;

/* The generated functions of class cls under a common name (ERI_GEN_CLASSES gives the
 * digits that name them). */
template <int CLS>
struct cls_code;


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
 * (class_regs), so each class's target is measured (fam_blocks). */
template <int CLS, int CB, int CK, int MINB>
__global__ void __launch_bounds__(class_block(cls_code<CLS>::LA, cls_code<CLS>::LB, cls_code<CLS>::LC,
                                              cls_code<CLS>::LD),
                                  MINB) eri_fam_kernel_minb(const kargs a)
{
    const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < a.n) fam_quartet<CLS, CB, CK>(a, a.q0 + t);
}

template <int CLS, int CB, int CK>
constexpr class_kernel_t fam_kernel_if()
{
    using C = cls_code<CLS>;
    constexpr int MINB = fam_blocks(C::LA, C::LB, C::LC, C::LD);
    /* one member a side shares nothing: such segments run the class's own kernel */
    if constexpr (CB * CK > 1 && fam_code<CLS>::NT * CB * CK <= FAM_ACC) {
        if constexpr (MINB == 0) return eri_fam_kernel<CLS, CB, CK>;
        else return eri_fam_kernel_minb<CLS, CB, CK, MINB>;
    } else {
        return nullptr;
    }
}

/* The kernels of class CLS on path PATH, and below its family kernels: every kernel these
 * tables name is instantiated where they are, and only those. A class that fam_class_wanted
 * turns down has no family kernels. */
template <int CLS, int PATH>
path_kernels path_kernels_of()
{
    return path_kernels{class_kernel<CLS, PATH, false>(), class_one_kernel<CLS, PATH>()};
}
template <int CLS>
fam_entry fam_entry_of()
{
    using C = cls_code<CLS>;
    static_assert(fam_code<CLS>::NT > 0, "a family class has VRR targets");
    if constexpr (fam_class_wanted(C::LA, C::LB, C::LC, C::LD))
        return fam_entry{{{fam_kernel_if<CLS, 1, 1>(), fam_kernel_if<CLS, 1, 2>(), fam_kernel_if<CLS, 1, 4>()},
                          {fam_kernel_if<CLS, 2, 1>(), fam_kernel_if<CLS, 2, 2>(), fam_kernel_if<CLS, 2, 4>()},
                          {fam_kernel_if<CLS, 4, 1>(), fam_kernel_if<CLS, 4, 2>(), fam_kernel_if<CLS, 4, 4>()}},
                         fam_blocks(C::LA, C::LB, C::LC, C::LD)};
    else
        return fam_entry{};
}

} // namespace

/* The J engine: its CUDA adds (bra adds summed over the warp first), the arithmetic and its
 * kernels. */
#define ERI_JE_ADD(ptr, v) atomicAdd((ptr), (v))
#define ERI_JE_BRA_RUNS(name, Gb) const warp_runs name = warp_runs_of((long)(Gb))
#define ERI_JE_ADD_BRA(ptr, v, runs) add_bra((ptr), (v), (runs))
#include "eri_brush/jengine.h"
#include "eri_brush/jengine_cuda.cuh"

/* A class unit: a class's generated functions under a common name (ERI_CU_UNIT_CODE), then
 * its kernels on one or both paths, and its family kernels. */
#define ERI_CU_UNIT_CODE(cls, la, lb, lc, ld)                                                                \
    namespace {                                                                                            \
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
    };                                                                                                     \
    }
#define ERI_CU_UNIT_HGP(cls, la, lb, lc, ld) \
    eri_cu::path_kernels eri_cu::hgp_kernels_##la##lb##lc##ld() { return path_kernels_of<cls, ERI_PATH_HGP>(); }
#define ERI_CU_UNIT_MD(cls, la, lb, lc, ld) \
    eri_cu::path_kernels eri_cu::md_kernels_##la##lb##lc##ld() { return path_kernels_of<cls, ERI_PATH_MD>(); }
#define ERI_CU_UNIT_FAM(cls, la, lb, lc, ld, nt)                                                             \
    namespace {                                                                                            \
    template <>                                                                                            \
    struct fam_code<cls> {                                                                                 \
        static constexpr int NT = nt;                                                                      \
        template <int CB, int CK>                                                                          \
        __device__ static void hgpf(prim_view b, int nb, prim_view k, int nk, int ob, int ok, const double *AB, \
                                    const double *CD, const double *boys, double *out)                     \
        {                                                                                                  \
            eri_hgpf_##la##lb##lc##ld<CB, CK>(b, nb, k, nk, ob, ok, AB, CD, boys, out);                    \
        }                                                                                                  \
    };                                                                                                     \
    }                                                                                                      \
    eri_cu::fam_entry eri_cu::fam_entry_##la##lb##lc##ld() { return fam_entry_of<cls>(); }

#endif
