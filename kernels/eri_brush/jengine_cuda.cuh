/* The J engine (jengine.h, path=jeng) on the GPU: types and kernels, included by
 * cuda_class.cuh. The kernels at constant angular momenta of one L = la+lb+lc+ld are
 * compiled in a class unit of that L (ERI_CU_UNIT_JENG), which hands them to cuda.cu in the
 * table eri_cu::je_kernels_L<L>(); cuda.cu compiles the per-pair passes and the kernel of
 * the larger f classes, whose angular momenta are run-time values.
 *
 * A run is three passes: the Hermite densities of every primitive pair (a thread per shell
 * pair), the quartet kernels (a thread per quartet, adding into the pairs' potentials G with
 * double atomicAdd, as the other paths add into M), and each pair's block of M from its
 * potentials (a thread per shell pair). */

/* R in shared memory (je_quartet_kernel_smem): a block of ERI_JE_SMEM_NT threads (one warp),
 * each with its nherm(L) entries of R a block apart. */
#define ERI_JE_SMEM_NT 32
/* The smallest L that takes them (SB_ERI_JE_SMEM overrides). */
#define ERI_JE_SMEM_LMIN 5
#define ERI_JE_TEAM_NQ 16 /* quartets of a team block (je_quartet_kernel_team) */

namespace eri_cu {

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

typedef void (*je_kernel_t)(const je_args);
constexpr int je_block_f = 64; /* the block of the classes with an f shell */

/* The J engine's kernels of one L, by la+lb (lc+ld = L - (la+lb)), nullptr where none:
 * reg: the s, p, d classes in registers (je_quartet_kernel, _wide from L = 5); smem: the s,
 * p, d classes from L = 5 with R in shared memory; team: la+lb = lc+ld = 3 or 4; f: the
 * classes with an f shell up to L = 8. */
struct je_kernels {
    je_kernel_t reg[2 * ERI_CODE_LMAX + 1], smem[2 * ERI_CODE_LMAX + 1], team, f[ERI_JE_LPAIR + 1];
};
#define ERI_JE_LTAB 8 /* the largest L with a table: (dd|dd) and the f kernels' */
static_assert(ERI_JE_LTAB == 4 * ERI_CODE_LMAX, "a table per L of the generated classes");
je_kernels je_kernels_L0();
je_kernels je_kernels_L1();
je_kernels je_kernels_L2();
je_kernels je_kernels_L3();
je_kernels je_kernels_L4();
je_kernels je_kernels_L5();
je_kernels je_kernels_L6();
je_kernels je_kernels_L7();
je_kernels je_kernels_L8();

/* The order |t| of Hermite triple k (eri_herm_idx): a constant where k is. */
__host__ __device__ constexpr int je_herm_order(int k)
{
    int n = 0;
    while (ERI_NHERM(n) <= k) n++;
    return n;
}

/* Resident blocks per SM of the J-engine classes with L >= 6 (the
 * kernels hold 255 registers and 0.3-4.9 KB stack frames). On the H100, taxol/cc-pVDZ, ms,
 * uncapped (4 blocks of 64) -> 3 blocks: (dp|dp) 24.1 -> 15.3, (dd|pp) 10.9 -> 6.6, (dd|ds)
 * 11.4 -> 7.3, (dd|dp) 7.1 -> 4.9, (dd|dd) 0.69 -> 0.71; 2 blocks within 1 ms of 3, 1 block
 * slower. The L = 5 classes, which path=auto also runs on
 * the J engine on the GPU (ERI_JENG_LMIN_CUDA), were measured uncapped. 0: uncapped;
 * SB_ERI_JENG_BPS overrides. */
constexpr int je_class_bps(int la, int lb, int lc, int ld) { return la + lb + lc + ld >= 6 ? 3 : 0; }

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

} // namespace eri_cu

namespace {
using namespace eri_cu;

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
            /* the screen only where no shared-memory add follows in this loop: lanes that ran
             * it fewer times would miss each other's __syncwarp there */
            const int nkb = WREG ? ERI_PQ_COUNT(x.ket, a.nk, bp) : a.nk;
            for (int j = 0; j < nkb; j++) {
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

/* Two lanes per quartet for the classes with la+lb = lc+ld = LH ((dp|dp), (dd|dd)): a block of
 * 32 lanes runs ERI_JE_TEAM_NQ quartets. Lane q of the first half-warp forms the bra's product
 * (W), lane q + 16 the ket's (V), over one R in shared memory that the two build together
 * (je_R_team). With LAB = LCD the two products are the same sweep with other vectors, so the
 * lanes run one instruction stream; and R costs each lane half of what it costs in
 * je_quartet_kernel_smem, so twice the warps fit: (dd|dd) there is 5 warps per SM, limited by
 * shared memory. */

/* R of a team's quartet, entries ERI_JE_TEAM_NQ apart; role: 0 or 1, the lane's half-warp.
 * eri_je_R's recurrences, grouped so that the pair can share them: the z line (t = u = 0) and
 * the t = 0 plane in registers, by both lanes, which store the plane's values
 * R^{(m)}_{0uv} in the slots of R_{muv}; then each t column (u, v) on its own, in place: the
 * lanes take the columns of one order u + v from either end (the middle one the first lane). The
 * same formulas from the same values as eri_je_R, so the same R. */
template <int L>
__device__ __forceinline__ void je_R_team(double *F, double a2, double X, double Y, double Z, double *R, int role,
                                          unsigned live)
{
    constexpr int rs = ERI_JE_TEAM_NQ;
    double pw = 1.0, z2[L + 1], z1[L + 1]; /* the z line's rows v-2 and v-1: R^{(m)}_{00v} */
#pragma unroll
    for (int v = 0; v <= L; v++) {
        double yy[L + 1][L + 1]; /* yy[u][m] = R^{(m)}_{0uv}; row v of the z line first */
#pragma unroll
        for (int m = 0; m <= L - v; m++) {
            if (v == 0) {
                yy[0][m] = F[m] * pw;
                pw *= a2;
            } else {
                yy[0][m] = Z * z1[m + 1] + (v > 1 ? (v - 1) * z2[m + 1] : 0.0);
            }
        }
#pragma unroll
        for (int u = 1; u <= L - v; u++)
#pragma unroll
            for (int m = 0; m <= L - v - u; m++)
                yy[u][m] = Y * yy[u - 1][m + 1] + (u > 1 ? (u - 1) * yy[u - 2][m + 1] : 0.0);
#pragma unroll
        for (int u = 0; u <= L - v; u++)
#pragma unroll
            for (int m = 0; m <= L - v - u; m++) ERI_JE_RAT(R, rs, m, u, v) = yy[u][m];
#pragma unroll
        for (int m = 0; m <= L - v; m++) z2[m] = z1[m], z1[m] = yy[0][m];
    }
    __syncwarp(live); /* the plane stored by both lanes before either overwrites a column */
#pragma unroll
    for (int s = 0; s <= L; s++) {
        const int T = L - s;
#pragma unroll
        for (int p = 0; 2 * p <= s; p++) {
            if (role && 2 * p == s) continue;
            const int v = role ? p : s - p; /* the column (s - v, v) */
            double b[L + 1], c[L + 1];
#pragma unroll
            for (int m = 0; m <= T; m++) b[m] = R[rs * (eri_herm_idx(m, s, 0) + v)];
            c[0] = b[T];
#pragma unroll
            for (int n = T - 1; n >= 0; n--) {
#pragma unroll
                for (int k = T - n; k >= 1; k--) c[k] = X * c[k - 1] + (k > 1 ? (k - 1) * c[k - 2] : 0.0);
                c[0] = b[n];
            }
#pragma unroll
            for (int t = 1; t <= T; t++) R[rs * (eri_herm_idx(t, s, 0) + v)] = c[t];
        }
    }
    __syncwarp(live); /* every column done before the sweeps read them */
}

/* The adds of a team warp through shared memory (sh: the warp's spent R). Each lane stores its
 * NH values times fe (even orders) or fo (odd), a row of NHP doubles (odd, so that the rows'
 * stores hit 16 banks). The ket's rows (lanes 16-31, a ket each) then go out flattened, 32
 * consecutive values per atomic instruction instead of 16 scattered rows; the bra's rows (lanes
 * 0-15, where consecutive quartets share the bra) are summed over each run of lanes with the
 * same G and added once. G null: nothing to add. */
template <int NH>
__device__ __forceinline__ void je_add_team(double *sh, const double *acc, double fe, double fo, double *G,
                                            unsigned live)
{
    constexpr int NHP = NH | 1;
    const int lane = threadIdx.x & 31, rank = __popc(live & ((1u << lane) - 1)), nlive = __popc(live);
    long *const gs = reinterpret_cast<long *>(sh + 32 * NHP); /* each lane's G */
    __syncwarp(live); /* every lane done with R */
#pragma unroll
    for (int k = 0; k < NH; k++) sh[lane * NHP + k] = ((je_herm_order(k) & 1) ? fo : fe) * acc[k];
    gs[lane] = reinterpret_cast<long>(G);
    __syncwarp(live);
    const warp_runs runs = warp_runs_of(lane < 16 ? reinterpret_cast<long>(G) : 0); /* the bra's lanes */
    /* the work is dealt to the live lanes only: the last quartets of a launch leave lanes idle */
    for (int idx = rank; idx < 16 * NH; idx += nlive) {
        const int r = idx / NH, c = idx - r * NH;
        double *g = reinterpret_cast<double *>(gs[16 + r]);
        if (g && (live >> (16 + r) & 1)) atomicAdd(g + c, sh[(16 + r) * NHP + c]);
    }
    for (unsigned h = __ballot_sync(live, runs.head && lane < 16 && G); h; h &= h - 1) { /* the run [b, e] */
        const int b = __ffs(h) - 1, e = __shfl_sync(live, runs.end, b);
        double *g = reinterpret_cast<double *>(gs[b]);
        for (int k = rank; k < NH; k += nlive) {
            double sum = 0.0;
            for (int l = b; l <= e; l++) sum += sh[l * NHP + k];
            atomicAdd(g + k, sum);
        }
    }
    __syncwarp(live); /* the sums done before the next R */
}

/* (dd|dd): 254 registers, 8 warps per SM (shared memory would allow 9). Asking for 9 blocks per
 * SM (__launch_bounds__(32, 9)) made ptxas spill (168 registers, 672 B): 0.20 ms against 0.18
 * for the same version without (H100). */
template <int LH>
__global__ void __launch_bounds__(32) je_quartet_kernel_team(const je_args a)
{
    constexpr int L = 2 * LH, NH = ERI_NHERM(LH), NQ = ERI_JE_TEAM_NQ;
    static_assert(2 * NQ == 32 && 32 * ((NH | 1) + 1) <= NQ * ERI_NHERM(L), "je_add_team reuses the warp's R");
    __shared__ double Rs[ERI_NHERM(L) * NQ];
    const int role = threadIdx.x >> 4; /* 0: the bra's product, 1: the ket's */
    double *R = Rs + (threadIdx.x & (NQ - 1));
    const long stride = (long)gridDim.x * NQ;
    for (long t = (long)blockIdx.x * NQ + (threadIdx.x & (NQ - 1)); t < a.n; t += stride) {
        const unsigned live = __activemask();
        const je_quartet_at x(a, t);
        for (int i = 0; i < a.nb; i++) {
            const prim_view bp = ERI_PRIM_AT(x.bra, i);
            const double p = ERI_PF(bp, p), Kb = ERI_PF(bp, K);
            const double Px = ERI_PV(bp, P, 0), Py = ERI_PV(bp, P, 1), Pz = ERI_PV(bp, P, 2);
            double acc[NH]; /* W (the bra's lanes) or V */
#pragma unroll
            for (int k = 0; k < NH; k++) acc[k] = 0.0;
            for (int j = 0; j < a.nk; j++) {
                const prim_view kp = ERI_PRIM_AT(x.ket, j);
                const double q = ERI_PF(kp, p), pq = p + q, spq = ERI_SPQ(pq), ipq = ERI_IPQ(pq, spq);
                const double alpha = p * q * ipq, s = Kb * ERI_PF(kp, K) * spq;
                const double X = Px - ERI_PV(kp, P, 0), Y = Py - ERI_PV(kp, P, 1), Z = Pz - ERI_PV(kp, P, 2);
                /* the bra's lane: W_t += s sum_u R_{t+u} (-1)^|u| Hk_u; the ket's: V_u += sum_t
                 * R_{t+u} Hb_t, added below with s (-1)^|u| */
                const double *src = role ? x.Hb + i * NH : x.Hk + j * NH;
                const double se = role ? 1.0 : s, so = role ? 1.0 : -s;
                double in[NH];
#pragma unroll
                for (int k = 0; k < NH; k++) in[k] = ((je_herm_order(k) & 1) ? so : se) * src[k];
                double F[L + 1];
                eri_boys(a.boys, L, alpha * (X * X + Y * Y + Z * Z), F);
                je_R_team<L>(F, -2.0 * alpha, X, Y, Z, R, role, live);
                eri_je_sweep(LH, LH, R, NQ, in, acc);
                /* the ket's lanes add per primitive quartet (a diagonal quartet, P = Q, has
                 * no ket's potential); the bra's once per bra primitive, since their slot does
                 * not move with j */
                const bool last = j == a.nk - 1;
                const double fs = x.fab * s;
                double *G = role ? (x.other ? x.Gk + j * NH : nullptr) : (last ? x.Gb + i * NH : nullptr);
                je_add_team<NH>(Rs, acc, role ? fs : x.fcd, role ? -fs : x.fcd, G, live);
                if (role || last) {
#pragma unroll
                    for (int k = 0; k < NH; k++) acc[k] = 0.0;
                }
            }
        }
    }
}

/* With only a launch bound, ptxas gives the larger bodies 32 registers and a stack frame
 * (as for the HGP kernels, class_capped); the whole register file for L >= 5. One kernel per
 * (la+lb, lc+ld): the classes that share both sums share it (class_block depends on L only). */
template <int LAB, int LCD>
__global__ void __launch_bounds__(class_block(LAB, 0, LCD, 0)) je_quartet_kernel(const je_args a)
{
    je_quartets<2 * ERI_CODE_LMAX>(a, LAB, LCD);
}
template <int LAB, int LCD>
__global__ void __maxnreg__(255) je_quartet_kernel_wide(const je_args a)
{
    je_quartets<2 * ERI_CODE_LMAX>(a, LAB, LCD);
}

/* The f classes up to L = 8 at constant (la+lb, lc+ld), unrolled as the s/p/d ones are (L = 8
 * is (dd|dd)'s size); the larger ones ((fd|fp), (ff|fs) ... (ff|ff)) stay generic. On the H100
 * the ten instances up to L = 6 took benzene/cc-pVTZ from 124.7 to
 * 59.7 ms and vitamin C/cc-pVTZ from 335.9 to 187.2 ms. */
template <int LAB, int LCD>
__global__ void __maxnreg__(255) je_quartet_kernel_f(const je_args a)
{
    je_quartets<(LAB > LCD ? LAB : LCD)>(a, LAB, LCD);
}

/* The kernel tables of one L (ERI_CU_UNIT_JENG): the s, p, d classes have la+lb >= lc+ld and
 * la+lb <= 4; the f classes at constant sums are those up to L = 8 with la+lb >= 3 and
 * lc+ld <= 4 (a ket with an f shell has a bra with one). */
template <int LAB, int LCD>
constexpr je_kernel_t je_reg_if()
{
    if constexpr (LCD < 0 || LCD > LAB || LAB > 2 * ERI_CODE_LMAX) return nullptr;
    else if constexpr (LAB + LCD >= 5) return je_quartet_kernel_wide<LAB, LCD>;
    else return je_quartet_kernel<LAB, LCD>;
}
template <int LAB, int LCD>
constexpr je_kernel_t je_smem_if()
{
    if constexpr (LCD < 0 || LCD > LAB || LAB > 2 * ERI_CODE_LMAX || LAB + LCD < 5) return nullptr;
    else return je_quartet_kernel_smem<LAB, LCD>;
}
template <int LAB, int LCD>
constexpr je_kernel_t je_f_if()
{
    if constexpr (LCD < 0 || LCD > 4 || LAB < 3 || LAB > ERI_JE_LPAIR || LAB + LCD > ERI_JE_LTAB) return nullptr;
    else return je_quartet_kernel_f<LAB, LCD>;
}
template <int L, int LAB>
void je_fill(je_kernels &k)
{
    if constexpr (LAB <= 2 * ERI_CODE_LMAX) {
        k.reg[LAB] = je_reg_if<LAB, L - LAB>();
        k.smem[LAB] = je_smem_if<LAB, L - LAB>();
    }
    k.f[LAB] = je_f_if<LAB, L - LAB>();
}
template <int L, int... LAB>
je_kernels je_kernels_of(std::integer_sequence<int, LAB...>)
{
    je_kernels k{};
    (je_fill<L, LAB>(k), ...);
    if constexpr (L == 6) k.team = je_quartet_kernel_team<3>;
    if constexpr (L == 8) k.team = je_quartet_kernel_team<4>;
    return k;
}

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


} // namespace

/* The J engine's kernels of L in a class unit. */
#define ERI_CU_UNIT_JENG(L) \
    eri_cu::je_kernels eri_cu::je_kernels_L##L() { return je_kernels_of<L>(std::make_integer_sequence<int, ERI_JE_LPAIR + 1>{}); }
