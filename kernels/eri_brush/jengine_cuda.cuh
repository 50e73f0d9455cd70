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

/* Quartet t of a launch: its primitive pairs, Hermite densities and potentials, and the
 * factors of the digest (fcd for the bra's adds, fab for the ket's: 1 on a diagonal pair). */
struct je_quartet_at {
    prim_view bra, ket;
    const double *Hb, *Hk;
    double *Gb, *Gk;
    double fcd, fab;
    bool other; /* P != Q: the ket's potential too */
    __device__ __forceinline__ je_quartet_at(const je_args &a, long t)
    {
        const eri_quartet qu = a.q[a.q0 + t];
        const dev_pair P = a.pair[qu.P], Q = a.pair[qu.Q];
        const int hp = a.jp[qu.P].hoff, hq = a.jp[qu.Q].hoff;
        bra = prim_view{a.prim + P.off, P.sd >> 1, a.nb * (P.sd >> 1)};
        ket = prim_view{a.prim + Q.off, Q.sd >> 1, a.nk * (Q.sd >> 1)};
        Hb = a.H + hp, Hk = a.H + hq, Gb = a.G + hp, Gk = a.G + hq;
        fcd = (Q.sd & 1) ? 1.0 : 2.0, fab = (P.sd & 1) ? 1.0 : 2.0;
        other = qu.P != qu.Q;
    }
};

/* The quartets of a launch, a thread each (grid stride); LP: the largest la+lb the scratch
 * serves. lab, lcd: constants in the per-class kernels, run-time values in the generic one. */
template <int LP>
__device__ __forceinline__ void je_quartets(const je_args &a, int lab, int lcd)
{
    double W[ERI_NHERM(LP)], F[2 * LP + 1], R[ERI_NHERM(2 * LP)], V[ERI_NHERM(LP)];
    const long stride = (long)gridDim.x * blockDim.x;
    for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += stride) {
        const je_quartet_at x(a, t);
        eri_je_quartet(lab, lcd, x.bra, a.nb, x.ket, a.nk, x.Hb, x.Hk, a.boys, x.fcd, x.fab, x.other, x.Gb, x.Gk, W, F,
                       R, V);
    }
}

/* R in shared memory (je_quartet_kernel_smem): a block of ERI_JE_SMEM_NT threads (one warp),
 * each with its nherm(L) entries of R a block apart. */
#define ERI_JE_SMEM_NT 32
/* The smallest L that takes them (SB_ERI_JE_SMEM overrides). */
#define ERI_JE_SMEM_LMIN 5

/* The order |t| of Hermite triple k (eri_herm_idx): a constant where k is. */
__host__ __device__ constexpr int je_herm_order(int k)
{
    int n = 0;
    while (ERI_NHERM(n) <= k) n++;
    return n;
}

/* The bra's adds of a warp through shared memory (sh: the warp's spent R, at least 32 nh
 * doubles): each lane stores its nh values, then for each run of lanes that share the bra
 * (warp_runs) the lanes take the values in turn, sum them over the run and add once. Value k
 * of lane l sits at sh[32 k + (l + k) % 32], so that both the stores and the run sums hit 32
 * different slots. Replaces add_bra's five shuffles per value. */
template <int NH>
__device__ __forceinline__ void je_add_bra_smem(double *sh, const double *v, double f, double *G, const warp_runs &r)
{
    const int lane = threadIdx.x & 31;
    __syncwarp(r.mask); /* every lane done with its R */
#pragma unroll
    for (int k = 0; k < NH; k++) sh[32 * k + ((lane + k) & 31)] = f * v[k];
    __syncwarp(r.mask);
    const int rank = __popc(r.mask & ((1u << lane) - 1)), nact = __popc(r.mask);
    unsigned heads = __ballot_sync(r.mask, r.head);
    while (heads) { /* run [s, e]: its lanes are all in the mask */
        const int s = __ffs(heads) - 1;
        heads &= heads - 1;
        const int e = __shfl_sync(r.mask, r.end, s);
        double *g = reinterpret_cast<double *>(__shfl_sync(r.mask, reinterpret_cast<long>(G), s));
        for (int k = rank; k < NH; k += nact) {
            double sum = 0.0;
            for (int l = s; l <= e; l++) sum += sh[32 * k + ((l + k) & 31)];
            atomicAdd(g + k, sum);
        }
    }
    __syncwarp(r.mask); /* before the next quartet's R overwrites the values */
}

/* The high classes with R in shared memory instead of registers. With R (165 values for
 * (dd|dd)), two Hermite vectors and two potentials per thread the register kernel needs a
 * 4.9 KB stack frame, which 8 warps of an SM cannot keep in L1. Here R lives in shared
 * memory, each product reads an entry once (eri_je_sweep), and only the vectors it multiplies
 * and accumulates are in registers. The bra's potential W stays in registers over the ket
 * primitives where W, Hb and V fit together (WREG); otherwise ((dd|dd)) it is added per
 * primitive quartet, the same sum in another order. */
template <int LAB, int LCD>
__global__ void __launch_bounds__(ERI_JE_SMEM_NT) je_quartet_kernel_smem(const je_args a)
{
    constexpr int L = LAB + LCD, NT = ERI_JE_SMEM_NT, NHB = ERI_NHERM(LAB), NHK = ERI_NHERM(LCD);
    constexpr bool WREG = 2 * NHB + NHK <= 90;
    static_assert(NT == 32 && NHB <= ERI_NHERM(L), "je_add_bra_smem reuses one warp's R");
    __shared__ double Rs[ERI_NHERM(L) * NT];
    double *R = Rs + threadIdx.x;
    const long stride = (long)gridDim.x * blockDim.x;
    for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += stride) {
        const je_quartet_at x(a, t);
        ERI_JE_BRA_RUNS(bra_runs, x.Gb);
        for (int i = 0; i < a.nb; i++) {
            const prim_view bp = ERI_PRIM_AT(x.bra, i);
            const double p = ERI_PF(bp, p), Kb = ERI_PF(bp, K);
            const double Px = ERI_PV(bp, P, 0), Py = ERI_PV(bp, P, 1), Pz = ERI_PV(bp, P, 2);
            double w[NHB];
#pragma unroll
            for (int k = 0; k < NHB; k++) w[k] = 0.0;
            for (int j = 0; j < a.nk; j++) {
                const prim_view kp = ERI_PRIM_AT(x.ket, j);
                const double q = ERI_PF(kp, p), pq = p + q, spq = ERI_SPQ(pq), ipq = ERI_IPQ(pq, spq);
                const double alpha = p * q * ipq, s = Kb * ERI_PF(kp, K) * spq;
                const double X = Px - ERI_PV(kp, P, 0), Y = Py - ERI_PV(kp, P, 1), Z = Pz - ERI_PV(kp, P, 2);
                /* the bra's product first, its vector loaded before R so that the loads
                 * overlap the recurrence: w_t += s sum_u R_{t+u} (-1)^|u| Hk_u */
                double hk[NHK];
#pragma unroll
                for (int k = 0; k < NHK; k++) hk[k] = (je_herm_order(k) & 1) ? -s * x.Hk[j * NHK + k] : s * x.Hk[j * NHK + k];
                double F[L + 1];
                eri_boys(a.boys, L, alpha * (X * X + Y * Y + Z * Z), F);
                eri_je_R(L, F, -2.0 * alpha, X, Y, Z, R, NT);
                eri_je_sweep(LCD, LAB, R, NT, hk, w);
                if (x.other) { /* the ket's potential: V_u = sum_t R_{t+u} Hb_t */
                    double hb[NHB], v[NHK];
#pragma unroll
                    for (int k = 0; k < NHB; k++) hb[k] = x.Hb[i * NHB + k];
#pragma unroll
                    for (int k = 0; k < NHK; k++) v[k] = 0.0;
                    eri_je_sweep(LAB, LCD, R, NT, hb, v);
                    const double fs = x.fab * s;
#pragma unroll
                    for (int k = 0; k < NHK; k++)
                        ERI_JE_ADD(x.Gk + j * NHK + k, (je_herm_order(k) & 1) ? -fs * v[k] : fs * v[k]);
                }
                if (!WREG) {
                    je_add_bra_smem<NHB>(Rs, w, x.fcd, x.Gb + i * NHB, bra_runs);
#pragma unroll
                    for (int k = 0; k < NHB; k++) w[k] = 0.0;
                }
            }
            if (WREG) je_add_bra_smem<NHB>(Rs, w, x.fcd, x.Gb + i * NHB, bra_runs);
        }
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
constexpr int je_block_f = 64; /* the block of the classes with an f shell */
__global__ void __launch_bounds__(je_block_f) je_quartet_kernel_any(const je_args a)
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

/* The shared-memory kernels: every (la+lb, lc+ld) of a class with L = 5 ... 8. */
je_kernel_t je_kernel_smem(int lab, int lcd)
{
    switch (lab * 16 + lcd) {
#define ERI_JE_S(x, y) \
    case x * 16 + y: return je_quartet_kernel_smem<x, y>;
        ERI_JE_S(5, 0) ERI_JE_S(4, 1) ERI_JE_S(3, 2)                               /* L = 5 */
        ERI_JE_S(6, 0) ERI_JE_S(5, 1) ERI_JE_S(4, 2) ERI_JE_S(3, 3)                /* L = 6 */
        ERI_JE_S(6, 1) ERI_JE_S(5, 2) ERI_JE_S(4, 3) ERI_JE_S(3, 4)                /* L = 7 */
        ERI_JE_S(6, 2) ERI_JE_S(5, 3) ERI_JE_S(4, 4)                               /* L = 8 */
#undef ERI_JE_S
    default: return nullptr;
    }
}

/* A class's J-engine kernel and its block: for the s, p, d classes the shared-memory one from
 * L = smem_lmin on (0: never), else the register kernels above. The classes with an f shell
 * keep theirs: with the shared-memory kernels benzene/cc-pVTZ took 28.9-34.8 ms instead of
 * 24.9, vitamin C/cc-pVTZ 82-91 instead of 72.8 (results/h100/eri_smem/). */
struct je_launch {
    je_kernel_t fn;
    int block;
    bool smem; /* je_quartet_kernel_smem */
};
je_launch je_kernel(int cls, int smem_lmin)
{
    const eri_class_info *c = eri_class(cls);
    if (!c) return je_launch{nullptr, 0, false};
    const int lab = c->la + c->lb, lcd = c->lc + c->ld;
    if (smem_lmin > 0 && lab + lcd >= smem_lmin && eri_class_has_code(cls))
        if (je_kernel_t f = je_kernel_smem(lab, lcd)) return je_launch{f, ERI_JE_SMEM_NT, true};
    switch (cls) {
#define ERI_JE_CASE(c, la, lb, lc, ld) \
    case c: return je_launch{je_kernel_of<la, lb, lc, ld>(), class_block(la, lb, lc, ld), false};
        ERI_GEN_CLASSES(ERI_JE_CASE)
#undef ERI_JE_CASE
    default: return je_launch{je_kernel_f(lab, lcd), je_block_f, false}; /* no generated code: an f shell */
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
