/* The J engine (jengine.h, path=jeng) on the GPU; included by cuda.cu inside its namespace,
 * after prim_view, dev_pair and class_block.
 *
 * A run is three passes: the Hermite densities of every primitive pair (a thread per shell
 * pair), the quartet kernels (a thread per quartet, adding into the pairs' potentials G with
 * double atomicAdd, as the other paths add into M), and each pair's block of M from its
 * potentials (a thread per shell pair). */

/* What the J engine needs of a shell pair beside dev_pair. */
struct je_pair {
    int cls;  /* pair class (la, lb) */
    int npp;  /* primitive pairs */
    int hoff; /* its first Hermite value in H and G */
    int pad;
};

struct je_args {
    const eri_quartet *q;
    long q0, n;
    int nb, nk;
    const double *prim;
    const dev_pair *pair;
    const je_pair *jp;
    const double *boys; /* the sub-table of order L */
    const double *H;
    double *G;
    int lab, lcd; /* je_quartet_kernel_any only */
};

/* The quartets of a launch, a thread each (grid stride); LP: the largest la+lb the scratch
 * serves. lab, lcd: constants in the per-class kernels, run-time values in the generic one. */
template <int LP>
__device__ __forceinline__ void je_quartets(const je_args &a, int lab, int lcd)
{
    double W[ERI_NHERM(LP)], F[2 * LP + 1], R[ERI_NHERM(2 * LP)], V[ERI_NHERM(LP)];
    const long stride = (long)gridDim.x * blockDim.x;
    for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += stride) {
        const eri_quartet qu = a.q[a.q0 + t];
        const dev_pair P = a.pair[qu.P], Q = a.pair[qu.Q];
        const int hp = a.jp[qu.P].hoff, hq = a.jp[qu.Q].hoff;
        const prim_view bra{a.prim + P.off, P.sd >> 1, a.nb * (P.sd >> 1)};
        const prim_view ket{a.prim + Q.off, Q.sd >> 1, a.nk * (Q.sd >> 1)};
        eri_je_quartet(lab, lcd, bra, a.nb, ket, a.nk, a.H + hp, a.H + hq, a.boys, (Q.sd & 1) ? 1.0 : 2.0,
                       (P.sd & 1) ? 1.0 : 2.0, qu.P != qu.Q, a.G + hp, a.G + hq, W, F, R, V);
    }
}

/* With only a launch bound, ptxas gives the larger bodies 32 registers and a stack frame
 * (as for the HGP kernels, class_capped); the whole register file for L >= 5. */
template <int LA, int LB, int LC, int LD>
__global__ void __launch_bounds__(class_block(LA, LB, LC, LD)) je_quartet_kernel(const je_args a)
{
    je_quartets<2 * ERI_CODE_LMAX>(a, LA + LB, LC + LD);
}
template <int LA, int LB, int LC, int LD>
__global__ void __maxnreg__(255) je_quartet_kernel_wide(const je_args a)
{
    je_quartets<2 * ERI_CODE_LMAX>(a, LA + LB, LC + LD);
}

/* The classes without generated code (f shells): one kernel with the angular momenta at run
 * time, so R, W and the E tables stay in local memory. */
__global__ void __launch_bounds__(64) je_quartet_kernel_any(const je_args a)
{
    je_quartets<ERI_JE_LPAIR>(a, a.lab, a.lcd);
}

/* The f classes up to L = 8 at constant (la+lb, lc+ld), unrolled as the s/p/d ones are (L = 8
 * is (dd|dd)'s size); the larger ones ((fd|fp), (ff|fs) ... (ff|ff)) stay generic. On the H100
 * (results/h100/eri_f/) the ten instances up to L = 6 took benzene/cc-pVTZ from 124.7 to
 * 59.7 ms and vitamin C/cc-pVTZ from 335.9 to 187.2 ms. */
template <int LAB, int LCD>
__global__ void __maxnreg__(255) je_quartet_kernel_f(const je_args a)
{
    je_quartets<(LAB > LCD ? LAB : LCD)>(a, LAB, LCD);
}

typedef void (*je_kernel_t)(const je_args);

je_kernel_t je_kernel_f(int lab, int lcd)
{
    switch (lab * 16 + lcd) {
#define ERI_JE_F(x, y) \
    case x * 16 + y: return je_quartet_kernel_f<x, y>;
        ERI_JE_F(3, 0) ERI_JE_F(3, 1) ERI_JE_F(3, 2) ERI_JE_F(3, 3) ERI_JE_F(4, 0)
        ERI_JE_F(4, 1) ERI_JE_F(4, 2) ERI_JE_F(5, 0) ERI_JE_F(5, 1) ERI_JE_F(6, 0)
        ERI_JE_F(3, 4) ERI_JE_F(4, 3) ERI_JE_F(5, 2) ERI_JE_F(6, 1) /* L = 7 */
        ERI_JE_F(4, 4) ERI_JE_F(5, 3) ERI_JE_F(6, 2)                 /* L = 8 */
#undef ERI_JE_F
    default: return je_quartet_kernel_any;
    }
}

/* Resident blocks per SM of the J-engine classes with L >= 6 (the
 * kernels hold 255 registers and 0.3-4.9 KB stack frames). On the H100, taxol/cc-pVDZ, ms,
 * uncapped (4 blocks of 64) -> 3 blocks: (dp|dp) 24.1 -> 15.3, (dd|pp) 10.9 -> 6.6, (dd|ds)
 * 11.4 -> 7.3, (dd|dp) 7.1 -> 4.9, (dd|dd) 0.69 -> 0.71; 2 blocks within 1 ms of 3, 1 block
 * slower (results/h100/eri_jeng/log-call4.txt). The L = 5 classes, which path=auto also runs on
 * the J engine on the GPU (ERI_JENG_LMIN_CUDA), were measured uncapped. 0: uncapped;
 * SB_ERI_JENG_BPS overrides. */
constexpr int je_class_bps(int la, int lb, int lc, int ld) { return la + lb + lc + ld >= 6 ? 3 : 0; }

template <int LA, int LB, int LC, int LD>
je_kernel_t je_kernel_of()
{
    if constexpr (LA + LB + LC + LD >= 5)
        return je_quartet_kernel_wide<LA, LB, LC, LD>;
    else
        return je_quartet_kernel<LA, LB, LC, LD>;
}

je_kernel_t je_kernel(int cls)
{
    switch (cls) {
#define ERI_JE_CASE(c, la, lb, lc, ld) \
    case c: return je_kernel_of<la, lb, lc, ld>();
        ERI_GEN_CLASSES(ERI_JE_CASE)
#undef ERI_JE_CASE
    default: {
        const eri_class_info *c = eri_class(cls); /* no generated code: an f shell */
        return c ? je_kernel_f(c->la + c->lb, c->lc + c->ld) : nullptr;
    }
    }
}

/* The per-pair passes. */
struct je_pass {
    long npair;
    int nbf, pure;
    unsigned used; /* pair classes of the J-engine segments (eri_je_pair_classes) */
    const dev_pair *pair;
    const je_pair *jp;
    const double *prim, *T, *D, *G;
    double *H, *M;
};

/* Pair k's pass: Hermite densities, or (FINISH) its block of M. NBLK bounds the pair's
 * Cartesian block: exact for the per-class instances, the largest for the generic one. */
template <int NBLK, bool FINISH>
__device__ __forceinline__ void je_pair_pass(const je_pass &a, long k, int la, int lb)
{
    const dev_pair P = a.pair[k];
    const je_pair J = a.jp[k];
    const prim_view pp{a.prim + P.off, P.sd >> 1, J.npp * (P.sd >> 1)};
    const int nfa = nfun(la, a.pure), nfb = nfun(lb, a.pure);
    const double *T = a.T + (size_t)J.cls * ERI_JE_TMAX;
    if (FINISH) {
        double blk[NBLK];
        eri_je_pair_finish(la, lb, pp, J.npp, T, nfa, nfb, a.G + J.hoff, blk);
        for (int i = 0; i < nfa; i++)
            for (int j = 0; j < nfb; j++) a.M[(long)(P.bf0a + i) * a.nbf + P.bf0b + j] += blk[i * nfb + j];
    } else {
        eri_je_pair_density(la, lb, pp, J.npp, T, nfa, nfb, a.D, a.nbf, P.bf0a, P.bf0b, a.H + J.hoff);
    }
}
#define ERI_JE_PAIR(la, lb) je_pair_pass<ncart(la) * ncart(lb), FINISH>(a, k, la, lb)

/* The pair classes with generated code, a case each at constant angular momenta. */
static_assert(ERI_CODE_LMAX == 2, "je_pair_kernel lists the pair classes up to d");
template <bool FINISH>
__global__ void __launch_bounds__(128) je_pair_kernel(const je_pass a)
{
    const long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= a.npair || !(a.used >> a.jp[k].cls & 1)) return;
    switch (a.jp[k].cls) {
    case 0: ERI_JE_PAIR(0, 0); break;
    case 1: ERI_JE_PAIR(1, 0); break;
    case 2: ERI_JE_PAIR(1, 1); break;
    case 3: ERI_JE_PAIR(2, 0); break;
    case 4: ERI_JE_PAIR(2, 1); break;
    case 5: ERI_JE_PAIR(2, 2); break;
    default: break; /* je_pair_kernel_any */
    }
}
#undef ERI_JE_PAIR

/* The pair classes with an f shell, the angular momenta at run time (in their own kernel, so
 * that their larger frames do not weigh on the per-class cases above). */
template <bool FINISH>
__global__ void __launch_bounds__(128) je_pair_kernel_any(const je_pass a)
{
    const long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= a.npair || !(a.used >> a.jp[k].cls & 1) || a.jp[k].cls < ERI_NPAIRCLASS_CODE) return;
    int la, lb;
    eri_pair_class_l(a.jp[k].cls, &la, &lb);
    je_pair_pass<ERI_JE_NC, FINISH>(a, k, la, lb);
}
