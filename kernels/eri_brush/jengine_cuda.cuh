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
};

template <int LA, int LB, int LC, int LD>
__device__ __forceinline__ void je_quartets(const je_args &a)
{
    const long stride = (long)gridDim.x * blockDim.x;
    for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += stride) {
        const eri_quartet qu = a.q[a.q0 + t];
        const dev_pair P = a.pair[qu.P], Q = a.pair[qu.Q];
        const int hp = a.jp[qu.P].hoff, hq = a.jp[qu.Q].hoff;
        const prim_view bra{a.prim + P.off, P.sd >> 1, a.nb * (P.sd >> 1)};
        const prim_view ket{a.prim + Q.off, Q.sd >> 1, a.nk * (Q.sd >> 1)};
        eri_je_quartet(LA + LB, LC + LD, bra, a.nb, ket, a.nk, a.H + hp, a.H + hq, a.boys, (Q.sd & 1) ? 1.0 : 2.0,
                       (P.sd & 1) ? 1.0 : 2.0, qu.P != qu.Q, a.G + hp, a.G + hq);
    }
}

/* With only a launch bound, ptxas gives the larger bodies 32 registers and a stack frame
 * (as for the HGP kernels, class_capped); the whole register file for L >= 5. */
template <int LA, int LB, int LC, int LD>
__global__ void __launch_bounds__(class_block(LA, LB, LC, LD)) je_quartet_kernel(const je_args a)
{
    je_quartets<LA, LB, LC, LD>(a);
}
template <int LA, int LB, int LC, int LD>
__global__ void __maxnreg__(255) je_quartet_kernel_wide(const je_args a)
{
    je_quartets<LA, LB, LC, LD>(a);
}

typedef void (*je_kernel_t)(const je_args);

/* Resident blocks per SM of the classes that path=auto runs on the J engine (L >= 6; the
 * kernels hold 255 registers and 0.3-4.9 KB stack frames). On the H100, taxol/cc-pVDZ, ms,
 * uncapped (4 blocks of 64) -> 3 blocks: (dp|dp) 24.1 -> 15.3, (dd|pp) 10.9 -> 6.6, (dd|ds)
 * 11.4 -> 7.3, (dd|dp) 7.1 -> 4.9, (dd|dd) 0.69 -> 0.71; 2 blocks within 1 ms of 3, 1 block
 * slower (results/h100/eri_jeng/log-call4.txt). 0: uncapped; SB_ERI_JENG_BPS overrides. */
constexpr int je_class_bps(int la, int lb, int lc, int ld) { return la + lb + lc + ld >= ERI_JENG_LMIN ? 3 : 0; }

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
    default: return nullptr;
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

template <int LA, int LB, bool FINISH>
__device__ void je_pair_pass(const je_pass &a, long k)
{
    const dev_pair P = a.pair[k];
    const je_pair J = a.jp[k];
    const prim_view pp{a.prim + P.off, P.sd >> 1, J.npp * (P.sd >> 1)};
    constexpr int nfa0 = ncart(LA), nfb0 = ncart(LB);
    const int nfa = nfun(LA, a.pure), nfb = nfun(LB, a.pure);
    const double *T = a.T + (size_t)J.cls * ERI_JE_TMAX;
    if (FINISH) {
        double blk[nfa0 * nfb0];
        eri_je_pair_finish(LA, LB, pp, J.npp, T, nfa, nfb, a.G + J.hoff, blk);
        for (int i = 0; i < nfa; i++)
            for (int j = 0; j < nfb; j++) a.M[(long)(P.bf0a + i) * a.nbf + P.bf0b + j] += blk[i * nfb + j];
    } else {
        eri_je_pair_density(LA, LB, pp, J.npp, T, nfa, nfb, a.D, a.nbf, P.bf0a, P.bf0b, a.H + J.hoff);
    }
}

static_assert(ERI_LMAX == 2, "je_pair_kernel lists the pair classes up to d");
template <bool FINISH>
__global__ void __launch_bounds__(128) je_pair_kernel(const je_pass a)
{
    const long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= a.npair || !(a.used >> a.jp[k].cls & 1)) return;
    switch (a.jp[k].cls) {
    case 0: je_pair_pass<0, 0, FINISH>(a, k); break;
    case 1: je_pair_pass<1, 0, FINISH>(a, k); break;
    case 2: je_pair_pass<1, 1, FINISH>(a, k); break;
    case 3: je_pair_pass<2, 0, FINISH>(a, k); break;
    case 4: je_pair_pass<2, 1, FINISH>(a, k); break;
    default: je_pair_pass<2, 2, FINISH>(a, k); break;
    }
}
