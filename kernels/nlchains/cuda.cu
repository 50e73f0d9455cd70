/* nlchains CUDA backend (see nlc.h for the contract, physics.h for the formulas).
 *
 * fput / toda / dnkg, N = 32 * S with S in {1, 2, 4, 8, 16, 32}: a chain per warp.
 * Lane l holds sites l*S .. l*S+S-1 of q and p in registers (the kernel is templated
 * on S so the site loops unroll into registers). Per stage a lane needs one value
 * from each neighbouring lane, exchanged with __shfl_sync: for fput/toda the next
 * lane's first q (to form the lane's last bond) and the previous lane's last bond
 * force, so each bond force is computed once; for dnkg the two neighbouring q's.
 * All `nsteps` steps run in one launch with the state in registers, so DRAM sees one
 * read and one write of the state per call of steps().
 * N = 32 * S * W (S in {16, 32}, W = 2 .. 16 warps, N = 2048 .. 8192): a chain per block
 * of W warps (nlc_mwarp_steps), lanes as above; across warps the first and last q of
 * each warp go through a shared-memory halo, one __syncthreads per stage.
 * Other N: a block per chain, q, p and the bond (or site) forces in shared memory
 * when 3N doubles fit (N <= 8533), else in global memory; two __syncthreads per stage.
 *
 * Integrator (physics.h): S6 = S2(w3h) S2(w2h) S2(w1h) S2(w0h) S2(w1h) S2(w2h) S2(w3h),
 * S2(t) = K(t/2) D(t) K(t/2); within one call of steps() the adjacent half-kicks are
 * merged: K(w3h/2) [D(w_s h) K((w_s + w_s+1) h/2)]... with K(w3h) between steps and
 * K(w3h/2) at the end, so the state is at a full step when the call returns
 * (7 nsteps + 1 force evaluations).
 *
 * dnls: psi is kept interleaved (cufftDoubleComplex) on the device. S2(t) =
 * N(t/2) L(t) N(t/2) with the half-N's merged the same way; L(t) is a batched
 * cuFFT Z2Z forward transform, a multiply by exp(i 2 cos(2 pi k/N) t) / N (tables
 * for the four distinct weights, made on the host in upload) and the inverse
 * transform; N(t) a local phase rotation kernel.
 *
 * Mode energies: batched D2Z of q and of p (Z2Z of psi for dnls) into a work
 * buffer, a kernel forming E_k per chain and summing it over groups of chains, and a
 * second kernel summing the groups and dividing by C (deterministic, no atomics).
 * Plans are made in upload and destroyed in release. Every steps() call reads the pair
 * (q, p) and writes (qb, pb), then swaps them; an asynchronous collection
 * (mode_energies_start) runs on the non-blocking stream col behind an event on the
 * legacy stream, reading the pair just written, and only the call after next (which
 * rewrites that pair) waits for it. dnls collects synchronously.
 *
 * Measured on the H100 (harness, N = 1024, C = 8192, 100 steps + one collection per
 * rep, median of 5, c5ba4d1): fput 2.52e11 chain-site steps/s (19.4 TFLOP/s at 77 flop,
 * 58% of the measured FP64 peak), dnkg 2.45e11, toda 1.42e11 (the 2^(j/2048) table
 * exponential: 10.5 FP64 instructions a bond-stage to fput's 6.9), dnls 3.1e9 (each stage is 4
 * passes over the state: FFT, phase, inverse FFT, rotation). An asynchronous collection
 * costs 0-0.8% of 100 fput steps, a synchronous one 6%. N = 64 .. 8192 (C = 2^23 / N):
 * fput 2.34 .. 2.69e11, toda 0.97 .. 1.42e11, no step between neighbouring sizes beyond
 * 1.08x (fput) and 1.27x (toda). */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cufft.h>

#include "nlchains/nlc.h"
#include "nlchains/physics.h"
#include "sb_cuda.h"

namespace {

#define NLC_FFT(call)                                                                              \
    do {                                                                                           \
        cufftResult r_ = (call);                                                                   \
        if (r_ != CUFFT_SUCCESS) {                                                                 \
            sb_error("cuFFT error at %s:%d: %s: cufftResult %d", __FILE__, __LINE__, #call, (int)r_); \
            return SB_EXIT_RUNTIME;                                                                \
        }                                                                                          \
    } while (0)

constexpr int WARP_BLOCK = 128;  /* 4 chains per block */
constexpr int BLK_THREADS = 256; /* block-per-chain fallback */
constexpr int RED_THREADS = 128; /* mode-energy reduction */
constexpr int RED_CHAINS = 64;   /* chains summed per partial sum */
constexpr size_t SMEM_MAX = 200 * 1024;

enum { PATH_WARP = 0, PATH_BLOCK_SMEM = 1, PATH_BLOCK_GLOBAL = 2, PATH_DNLS = 3, PATH_MWARP = 4 };

/* The composition's merged kick and drift coefficients: nlc_make_coefs (setup.c). */
typedef nlc_coefs coefs;

struct model_par {
    double alpha, beta, m;
    nlc_toda_k tk;
};

/* toda's 2^(j/2048) table (exp2_table.h); each kernel that integrates toda copies it
 * into nlc_exp2_sh (physics.h) as 32-bit halves before its first barrier. */
__device__ const uint64_t g_exp2[NLC_EXP2_N] = NLC_EXP2_TABLE;
template <int MODEL>
__device__ __forceinline__ void load_exp2_table()
{
    for (int i = threadIdx.x; MODEL == NLC_TODA && i < NLC_EXP2_N; i += blockDim.x) {
        const uint64_t w = g_exp2[i];
        nlc_exp2_sh[i] = (uint32_t)(w >> 32);
        nlc_exp2_sh[NLC_EXP2_N + i] = (uint32_t)w;
    }
}

struct cu_state {
    int model, N, path, S, W; /* S sites per lane, W warps per chain (PATH_MWARP) */
    long C;
    double *q, *p;          /* chain-major state (fput/toda/dnkg), current */
    double *qb, *pb;        /* the other pair: each steps() call reads q, p, writes qb, pb, swaps */
    double *f;              /* global force scratch (PATH_BLOCK_GLOBAL) */
    cufftDoubleComplex *psi;    /* dnls state */
    cufftDoubleComplex *phase;  /* dnls: [4][N] exp(i 2 cos(2 pi k/N) w_j h) / N, j = 0..3 */
    cufftDoubleComplex *work;   /* mode-energy transforms */
    double *partial;            /* [groups][nk] */
    double *ek;                 /* [N] */
    int nk, groups;
    cufftHandle plan_r2c, plan_z2z;
    int have_r2c, have_z2z;
    coefs k;
    model_par mp;
    int block, grid;
    size_t smem;
    /* asynchronous mode energies: on stream col, from the state pair col_q (never written
     * while ev_col is pending), result in pinned ek_host */
    cudaStream_t col;
    cudaEvent_t ev_state, ev_col;
    double *ek_host;
    const double *col_q;
};

/* ---- forces ---------------------------------------------------------------- */
template <int MODEL>
__device__ __forceinline__ double bond_force(double r, const model_par &mp)
{
    if (MODEL == NLC_TODA) return nlc_toda_exp(r, &mp.tk); /* 2 alpha V' + 1: the kicks carry 1/(2 alpha) */
    return nlc_fput_bond_force(r, mp.alpha, mp.beta);
}

/* ---- chain per warp, S sites per lane in registers -------------------------- */
/* The kick on one lane's S sites; ql and qr are the q of the sites just before and
 * after them. fput/toda form each bond force once: the left bond of the lane's first
 * site is the previous lane's last bond, shuffled, unless own_left (the previous lane
 * is in another warp): then it is formed here from ql, with the same operands. */
template <int MODEL, int S>
__device__ __forceinline__ void lane_kick(double (&q)[S], double (&p)[S], double c, const model_par &mp, int prev,
                                          double ql, double qr, bool own_left)
{
    if (MODEL == NLC_DNKG) {
#pragma unroll
        for (int j = 0; j < S; j++) {
            const double qm = j > 0 ? q[j - 1] : ql;
            const double qp = j < S - 1 ? q[j + 1] : qr;
            p[j] = nlc_kick(p[j], c, nlc_dnkg_force(qm, q[j], qp, mp.m, mp.beta));
        }
    } else {
        const double flast = bond_force<MODEL>(qr - q[S - 1], mp); /* bond (last, last + 1) */
        double fprev = __shfl_sync(0xffffffffu, flast, prev);       /* bond (first - 1, first) */
        if (own_left) fprev = bond_force<MODEL>(q[0] - ql, mp);
#pragma unroll
        for (int j = 0; j < S - 1; j++) {
            const double f = bond_force<MODEL>(q[j + 1] - q[j], mp);
            p[j] = nlc_kick(p[j], c, f - fprev);
            fprev = f;
        }
        p[S - 1] = nlc_kick(p[S - 1], c, flast - fprev);
    }
}

template <int MODEL, int S>
__device__ __forceinline__ void warp_kick(double (&q)[S], double (&p)[S], double c, const model_par &mp, int lane)
{
    const unsigned full = 0xffffffffu;
    const int next = (lane + 1) & 31, prev = (lane + 31) & 31;
    const double qr = __shfl_sync(full, q[0], next);
    const double ql = MODEL == NLC_DNKG ? __shfl_sync(full, q[S - 1], prev) : 0.0;
    lane_kick<MODEL, S>(q, p, c, mp, prev, ql, qr, false);
}

template <int MODEL, int S>
__global__ void __launch_bounds__(WARP_BLOCK)
    nlc_warp_steps(const double *__restrict__ Q, const double *__restrict__ P, double *__restrict__ Qo,
                   double *__restrict__ Po, long C, long nsteps, coefs k, model_par mp)
{
    const int lane = threadIdx.x & 31;
    const long chain = (long)blockIdx.x * (WARP_BLOCK / 32) + (threadIdx.x >> 5);
    const long base = chain * (32 * S) + (long)lane * S;
    /* toda's stage loop is not unrolled (7 x 32 inlined expm1's overflowed the
     * instruction cache: 13x slower than fput, measured), so the coefficients are
     * indexed from shared memory */
    __shared__ double kd[7], kk[7];
    if (threadIdx.x < 7) {
        kd[threadIdx.x] = k.drift[threadIdx.x];
        kk[threadIdx.x] = threadIdx.x < 6 ? k.kmid[threadIdx.x] : k.kjoin;
    }
    load_exp2_table<MODEL>();
    __syncthreads();
    if (chain >= C) return; /* whole warps leave together, after the barrier */
    double q[S], p[S];
#pragma unroll
    for (int j = 0; j < S; j++) {
        q[j] = Q[base + j];
        p[j] = P[base + j];
    }
    warp_kick<MODEL, S>(q, p, k.kfirst, mp, lane);
    for (long n = 0; n < nsteps; n++) {
#pragma unroll(MODEL == NLC_TODA ? 1 : 7)
        for (int s = 0; s < 7; s++) {
            const double d = kd[s];
#pragma unroll
            for (int j = 0; j < S; j++) q[j] = nlc_drift(q[j], d, p[j]);
            const double c = (s == 6 && n == nsteps - 1) ? k.klast : kk[s];
            warp_kick<MODEL, S>(q, p, c, mp, lane);
        }
    }
#pragma unroll
    for (int j = 0; j < S; j++) {
        Qo[base + j] = q[j];
        Po[base + j] = p[j];
    }
}

/* ---- chain per block of W warps, S sites per lane in registers ---------------- */
/* N = 32 S W. Warp w holds sites 32 S w .. 32 S (w+1) - 1, lane l of it S of them as in
 * nlc_warp_steps. Inside a warp the neighbours come by __shfl_sync; across warps each
 * warp posts its first q (lane 0) and last q (lane 31) into a shared halo, double
 * buffered by stage parity, so one __syncthreads per stage suffices (a buffer is
 * rewritten two stages later, after every warp has passed the barrier between).
 * fput/toda: lane 0 forms its left bond force from the previous warp's last q itself
 * (the same operands, so the same value the previous warp's lane 31 forms). */
template <int MODEL, int S, int W>
__device__ __forceinline__ void mw_kick(double (&q)[S], double (&p)[S], double c, const model_par &mp, int lane, int w,
                                        double *hf, double *hl)
{
    const unsigned full = 0xffffffffu;
    const int next = (lane + 1) & 31, prev = (lane + 31) & 31;
    const int wn = w + 1 == W ? 0 : w + 1, wp = w == 0 ? W - 1 : w - 1;
    if (lane == 0) hf[w] = q[0];
    if (lane == 31) hl[w] = q[S - 1];
    __syncthreads();
    double qr = __shfl_sync(full, q[0], next);
    double ql = MODEL == NLC_DNKG ? __shfl_sync(full, q[S - 1], prev) : 0.0;
    if (lane == 31) qr = hf[wn];
    if (lane == 0) ql = hl[wp];
    lane_kick<MODEL, S>(q, p, c, mp, prev, ql, qr, lane == 0);
}

/* Register caps (ptxas -v, no spills): S = 32 keeps the 168 of the chain-per-warp kernel
 * (12 warps an SM; dnkg needs more here: uncapped); S = 16 fits in 128 (16 warps an SM). */
constexpr int mw_min_blocks(int MODEL, int S, int W)
{
    return (S >= 32 ? (MODEL == NLC_DNKG ? 8 : 12) : 16) / W > 0 ? (S >= 32 ? (MODEL == NLC_DNKG ? 8 : 12) : 16) / W : 1;
}

template <int MODEL, int S, int W>
__global__ void __launch_bounds__(32 * W, mw_min_blocks(MODEL, S, W))
    nlc_mwarp_steps(const double *__restrict__ Q, const double *__restrict__ P, double *__restrict__ Qo,
                    double *__restrict__ Po, long nsteps, coefs k, model_par mp)
{
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const long base = (long)blockIdx.x * (32 * S * W) + (long)threadIdx.x * S;
    __shared__ double kd[7], kk[7];
    __shared__ double hf[2][W], hl[2][W];
    if (threadIdx.x < 7) {
        kd[threadIdx.x] = k.drift[threadIdx.x];
        kk[threadIdx.x] = threadIdx.x < 6 ? k.kmid[threadIdx.x] : k.kjoin;
    }
    load_exp2_table<MODEL>();
    /* the first mw_kick's barrier orders these writes before any read */
    double q[S], p[S];
#pragma unroll
    for (int j = 0; j < S; j++) {
        q[j] = Q[base + j];
        p[j] = P[base + j];
    }
    mw_kick<MODEL, S, W>(q, p, k.kfirst, mp, lane, w, hf[0], hl[0]);
    int buf = 1;
    for (long n = 0; n < nsteps; n++) {
#pragma unroll(MODEL == NLC_TODA ? 1 : 7)
        for (int s = 0; s < 7; s++) {
            const double d = kd[s];
#pragma unroll
            for (int j = 0; j < S; j++) q[j] = nlc_drift(q[j], d, p[j]);
            const double c = (s == 6 && n == nsteps - 1) ? k.klast : kk[s];
            mw_kick<MODEL, S, W>(q, p, c, mp, lane, w, hf[buf], hl[buf]);
            buf ^= 1;
        }
    }
#pragma unroll
    for (int j = 0; j < S; j++) {
        Qo[base + j] = q[j];
        Po[base + j] = p[j];
    }
}

/* ---- block per chain (any N) ---------------------------------------------- */
/* Phase a: f_i = bond force of (i, i+1) (fput/toda) or the site force (dnkg). */
template <int MODEL>
__device__ __forceinline__ void blk_forces(const double *q, double *f, int N, const model_par &mp)
{
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        const int ip = i + 1 == N ? 0 : i + 1;
        if (MODEL == NLC_DNKG) {
            const int im = i == 0 ? N - 1 : i - 1;
            f[i] = nlc_dnkg_force(q[im], q[i], q[ip], mp.m, mp.beta);
        } else {
            f[i] = bond_force<MODEL>(q[ip] - q[i], mp);
        }
    }
}
template <int MODEL>
__device__ __forceinline__ double blk_site_force(const double *f, int i, int N)
{
    if (MODEL == NLC_DNKG) return f[i];
    return f[i] - f[i == 0 ? N - 1 : i - 1];
}

/* SMEM: from Q, P through shared memory to Qo, Po; global: in place on Qo, Po (the host
 * copies the state there first). */
template <int MODEL, bool SMEM>
__global__ void __launch_bounds__(BLK_THREADS) nlc_block_steps(const double *Q, const double *P, double *Qo,
                                                               double *Po, double *__restrict__ F, int N,
                                                               long nsteps, coefs k, model_par mp)
{
    extern __shared__ double sh[];
    const long off = (long)blockIdx.x * N;
    load_exp2_table<MODEL>();
    double *q, *p, *f;
    if (SMEM) {
        q = sh;
        p = sh + N;
        f = sh + 2 * N;
        for (int i = threadIdx.x; i < N; i += blockDim.x) {
            q[i] = Q[off + i];
            p[i] = P[off + i];
        }
        __syncthreads();
    } else {
        q = Qo + off;
        p = Po + off;
        f = F + off;
        __syncthreads(); /* the exp2 table */
    }
    blk_forces<MODEL>(q, f, N, mp);
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x) p[i] = nlc_kick(p[i], k.kfirst, blk_site_force<MODEL>(f, i, N));
    __syncthreads();
    for (long n = 0; n < nsteps; n++) {
        for (int s = 0; s < 7; s++) {
            const double d = k.drift[s];
            const double c = s < 6 ? k.kmid[s] : (n == nsteps - 1 ? k.klast : k.kjoin);
            for (int i = threadIdx.x; i < N; i += blockDim.x) q[i] = nlc_drift(q[i], d, p[i]);
            __syncthreads();
            blk_forces<MODEL>(q, f, N, mp);
            __syncthreads();
            for (int i = threadIdx.x; i < N; i += blockDim.x) p[i] = nlc_kick(p[i], c, blk_site_force<MODEL>(f, i, N));
            __syncthreads();
        }
    }
    if (SMEM) {
        for (int i = threadIdx.x; i < N; i += blockDim.x) {
            Qo[off + i] = q[i];
            Po[off + i] = p[i];
        }
    }
}

/* ---- dnls ------------------------------------------------------------------- */
__global__ void nlc_dnls_nonlinear_kernel(cufftDoubleComplex *__restrict__ psi, long n, double beta, double t)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        double re = psi[i].x, im = psi[i].y;
        nlc_dnls_nonlinear(&re, &im, beta, t);
        psi[i].x = re;
        psi[i].y = im;
    }
}

__global__ void nlc_dnls_phase_kernel(cufftDoubleComplex *__restrict__ psi, const cufftDoubleComplex *__restrict__ ph,
                                      long n, int N)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        const cufftDoubleComplex a = psi[i], b = ph[i % N];
        psi[i].x = a.x * b.x - a.y * b.y;
        psi[i].y = a.x * b.y + a.y * b.x;
    }
}

/* ---- mode energies ------------------------------------------------------------ */
/* partial[g][k] = sum over chains c of group g of E_k(c), k = 0..nk-1.
 * Real models: fq, fp are the D2Z outputs (C x nk, nk = N/2+1); dnls: fq is the
 * Z2Z output (C x N, nk = N), fp unused. */
__global__ void nlc_mode_partial(const cufftDoubleComplex *__restrict__ fq, const cufftDoubleComplex *__restrict__ fp,
                                 double *__restrict__ partial, int nk, int N, long C, int model, double m)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nk) return;
    const long c0 = (long)blockIdx.y * RED_CHAINS;
    const long c1 = c0 + RED_CHAINS < C ? c0 + RED_CHAINS : C;
    double s = 0.0;
    if (model == NLC_DNLS) {
        for (long c = c0; c < c1; c++) {
            const cufftDoubleComplex a = fq[c * nk + k];
            s += (a.x * a.x + a.y * a.y) / N;
        }
    } else {
        const double w2 = nlc_omega2(model, k, N, m);
        for (long c = c0; c < c1; c++) {
            const cufftDoubleComplex a = fq[c * nk + k], b = fp[c * nk + k];
            s += 0.5 * ((b.x * b.x + b.y * b.y) + w2 * (a.x * a.x + a.y * a.y)) / N;
        }
    }
    partial[(long)blockIdx.y * nk + k] = s;
}

/* ek[k] for k = 0..N-1: the groups summed, / C; real models mirror k > N/2 (E_{N-k} = E_k). */
__global__ void nlc_mode_final(const double *__restrict__ partial, double *__restrict__ ek, int nk, int groups, int N,
                               long C)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= N) return;
    const int kk = k < nk ? k : N - k;
    double s = 0.0;
    for (int g = 0; g < groups; g++) s += partial[(long)g * nk + kk];
    ek[k] = s / (double)C;
}

/* ---- host side ---------------------------------------------------------------- */
int grid_for(long n, int block)
{
    long g = (n + block - 1) / block;
    return (int)(g < 132L * 16 ? g : 132L * 16);
}

/* The (S, W) combinations of nlc_mwarp_steps: X(S, W) for N = 32 S W. */
#define NLC_MW_COMBOS(X) X(16, 2) X(32, 2) X(16, 4) X(32, 4) X(16, 8) X(32, 8) X(16, 16)

template <int MODEL>
const void *mw_fn(int S, int W, const char *mname, const char **name)
{
    static char buf[4][64];
    char *b = buf[MODEL];
    snprintf(b, sizeof buf[0], "nlc_mwarp_steps<%s,%d,%d>", mname, S, W);
    *name = b;
#define NLC_MW_FN(SS, WW) \
    if (S == SS && W == WW) return (const void *)nlc_mwarp_steps<MODEL, SS, WW>;
    NLC_MW_COMBOS(NLC_MW_FN)
#undef NLC_MW_FN
    return NULL;
}

template <int MODEL>
void mw_launch(const cu_state *st, long nsteps)
{
#define NLC_MW_GO(SS, WW)                                                                      \
    if (st->S == SS && st->W == WW) {                                                          \
        nlc_mwarp_steps<MODEL, SS, WW><<<st->grid, st->block>>>(st->q, st->p, st->qb, st->pb, nsteps, st->k, st->mp); \
        return;                                                                                \
    }
    NLC_MW_COMBOS(NLC_MW_GO)
#undef NLC_MW_GO
}

/* Sites per lane for N = 32 S W, W = 2 .. 16 warps per chain; 0: none. Measured on the
 * H100 (C = 2^23 / N, 100 steps): S = 16 is faster for fput at N <= 4096 (16 warps an
 * SM at ~126 registers against 12 at 168), S = 32 for dnkg and for fput at N = 8192 (8 x
 * 32 against 16 x 16: 2.57e11 vs 2.43e11). toda (the 2^(j/2048) table) the other way
 * round: S = 32 at N = 2048, 4096 (1.25e11 vs 1.16e11, 1.24e11 vs 1.08e11), S = 16 at
 * 8192 (9.7e10 vs 9.0e10). */
int mw_pick(int model, int N)
{
    int S = model == NLC_DNKG ? 32 : model == NLC_TODA ? (N <= 4096 ? 32 : 16) : N <= 4096 ? 16 : 32;
    const char *e = getenv("SB_NLC_MW_S"); /* tuning override: 16 or 32 */
    if (e && (atoi(e) == 16 || atoi(e) == 32)) S = atoi(e);
    for (int t = 0; t < 2; t++, S = S == 32 ? 16 : 32) {
        if (N % (32 * S)) continue;
        const int W = N / (32 * S);
#define NLC_MW_OK(SS, WW) \
        if (S == SS && W == WW) return S;
        NLC_MW_COMBOS(NLC_MW_OK)
#undef NLC_MW_OK
    }
    return 0;
}

const void *integrator_fn(const cu_state *st, const char **name)
{
    if (st->path == PATH_MWARP) {
        if (st->model == NLC_FPUT) return mw_fn<NLC_FPUT>(st->S, st->W, "fput", name);
        if (st->model == NLC_TODA) return mw_fn<NLC_TODA>(st->S, st->W, "toda", name);
        return mw_fn<NLC_DNKG>(st->S, st->W, "dnkg", name);
    }
#define NLC_PICK(MODEL, MNAME)                                                                              \
    if (st->path == PATH_WARP) {                                                                            \
        switch (st->S) {                                                                                    \
        case 1: *name = "nlc_warp_steps<" MNAME ",1>"; return (const void *)nlc_warp_steps<MODEL, 1>;       \
        case 2: *name = "nlc_warp_steps<" MNAME ",2>"; return (const void *)nlc_warp_steps<MODEL, 2>;       \
        case 4: *name = "nlc_warp_steps<" MNAME ",4>"; return (const void *)nlc_warp_steps<MODEL, 4>;       \
        case 8: *name = "nlc_warp_steps<" MNAME ",8>"; return (const void *)nlc_warp_steps<MODEL, 8>;       \
        case 16: *name = "nlc_warp_steps<" MNAME ",16>"; return (const void *)nlc_warp_steps<MODEL, 16>;    \
        default: *name = "nlc_warp_steps<" MNAME ",32>"; return (const void *)nlc_warp_steps<MODEL, 32>;    \
        }                                                                                                   \
    }                                                                                                       \
    if (st->path == PATH_BLOCK_SMEM) {                                                                      \
        *name = "nlc_block_steps<" MNAME ",smem>";                                                          \
        return (const void *)nlc_block_steps<MODEL, true>;                                                  \
    }                                                                                                       \
    *name = "nlc_block_steps<" MNAME ",global>";                                                            \
    return (const void *)nlc_block_steps<MODEL, false>;
    if (st->model == NLC_FPUT) {
        NLC_PICK(NLC_FPUT, "fput")
    }
    if (st->model == NLC_TODA) {
        NLC_PICK(NLC_TODA, "toda")
    }
    NLC_PICK(NLC_DNKG, "dnkg")
#undef NLC_PICK
}

int cu_upload(nlc *m)
{
    cu_state *st = static_cast<cu_state *>(calloc(1, sizeof(cu_state)));
    if (!st) return SB_EXIT_RUNTIME;
    m->dev = st;
    m->step = 0;
    const int N = m->cfg.N;
    const long C = m->cfg.copies;
    const size_t n = (size_t)N * (size_t)C;
    st->model = m->cfg.model;
    st->N = N;
    st->C = C;
    st->k = nlc_make_coefs(m->cfg.dt, nlc_kick_scale(&m->cfg));
    st->mp.alpha = m->cfg.alpha;
    st->mp.beta = m->cfg.beta;
    st->mp.m = m->cfg.m;
    st->mp.tk = nlc_toda_prepare(m->cfg.alpha);
    if (C > 0x7fffffffL || (long)N * C > (1L << 40)) {
        sb_error("nlchains cuda: copies=%ld x N=%d too large for one batched transform", C, N);
        return SB_EXIT_USAGE;
    }

    if (st->model == NLC_DNLS) {
        st->path = PATH_DNLS;
        SB_CU(cudaMalloc(&st->psi, n * sizeof(cufftDoubleComplex)));
        cufftDoubleComplex *h = static_cast<cufftDoubleComplex *>(malloc(n * sizeof(cufftDoubleComplex)));
        cufftDoubleComplex *ph = static_cast<cufftDoubleComplex *>(malloc(4 * (size_t)N * sizeof(cufftDoubleComplex)));
        if (!h || !ph) {
            free(h);
            free(ph);
            return SB_EXIT_RUNTIME;
        }
        for (size_t i = 0; i < n; i++) {
            h[i].x = m->q[i];
            h[i].y = m->p[i];
        }
        /* table j holds the weight of stage 3 - j: w0, w1, w2, w3 */
        for (int j = 0; j < 4; j++)
            for (int kk = 0; kk < N; kk++) {
                const double a = nlc_dnls_linear_phase(kk, N, nlc_weight(3 - j) * m->cfg.dt);
                ph[(size_t)j * N + kk].x = cos(a) / N;
                ph[(size_t)j * N + kk].y = sin(a) / N;
            }
        cudaError_t e1 = cudaMalloc(&st->phase, 4 * (size_t)N * sizeof(cufftDoubleComplex));
        cudaError_t e2 = e1 == cudaSuccess ? cudaMemcpy(st->psi, h, n * sizeof(*h), cudaMemcpyHostToDevice) : e1;
        cudaError_t e3 = e2 == cudaSuccess ? cudaMemcpy(st->phase, ph, 4 * (size_t)N * sizeof(*ph), cudaMemcpyHostToDevice) : e2;
        free(h);
        free(ph);
        SB_CU(e3);
        int nn = N;
        NLC_FFT(cufftPlanMany(&st->plan_z2z, 1, &nn, NULL, 1, N, NULL, 1, N, CUFFT_Z2Z, (int)C));
        st->have_z2z = 1;
        st->nk = N;
        st->block = 256;
        st->grid = grid_for((long)n, 256);
    } else {
        SB_CU(cudaMalloc(&st->q, n * sizeof(double)));
        SB_CU(cudaMalloc(&st->p, n * sizeof(double)));
        SB_CU(cudaMalloc(&st->qb, n * sizeof(double)));
        SB_CU(cudaMalloc(&st->pb, n * sizeof(double)));
        SB_CU(cudaMemcpy(st->q, m->q, n * sizeof(double), cudaMemcpyHostToDevice));
        SB_CU(cudaMemcpy(st->p, m->p, n * sizeof(double), cudaMemcpyHostToDevice));
        const int S = N / 32;
        /* toda at N = 1024 also has two warps of 16 sites a lane (SB_NLC_TODA_MW=1: tuning,
         * tests); one warp of 32 was faster on the H100 (1.09e11 against 1.03e11). */
        const char *tw = getenv("SB_NLC_TODA_MW");
        const bool toda_mw = st->model == NLC_TODA && S == 32 && tw && atoi(tw) == 1;
        if (N % 32 == 0 && (S == 1 || S == 2 || S == 4 || S == 8 || S == 16 || S == 32) && !toda_mw) {
            st->path = PATH_WARP;
            st->S = S;
            st->block = WARP_BLOCK;
            st->grid = (int)((C + WARP_BLOCK / 32 - 1) / (WARP_BLOCK / 32));
            st->smem = 0;
        } else if (mw_pick(st->model, N)) {
            st->path = PATH_MWARP;
            st->S = mw_pick(st->model, N);
            st->W = N / (32 * st->S);
            st->block = 32 * st->W;
            st->grid = (int)C;
            st->smem = 0;
        } else {
            st->block = N >= BLK_THREADS ? BLK_THREADS : (N + 31) / 32 * 32;
            st->grid = (int)C;
            st->smem = 3 * (size_t)N * sizeof(double);
            if (st->smem <= SMEM_MAX) {
                st->path = PATH_BLOCK_SMEM;
            } else {
                st->path = PATH_BLOCK_GLOBAL;
                st->smem = 0;
                SB_CU(cudaMalloc(&st->f, n * sizeof(double)));
            }
        }
        if (st->path == PATH_BLOCK_SMEM) {
            const char *nm;
            SB_CU(cudaFuncSetAttribute(integrator_fn(st, &nm), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)st->smem));
        }
        int nn = N;
        st->nk = N / 2 + 1;
        NLC_FFT(cufftPlanMany(&st->plan_r2c, 1, &nn, NULL, 1, N, NULL, 1, st->nk, CUFFT_D2Z, (int)C));
        st->have_r2c = 1;
    }
    /* mode-energy buffers */
    const size_t wn = st->model == NLC_DNLS ? n : 2 * (size_t)C * st->nk;
    SB_CU(cudaMalloc(&st->work, wn * sizeof(cufftDoubleComplex)));
    st->groups = (int)((C + RED_CHAINS - 1) / RED_CHAINS);
    SB_CU(cudaMalloc(&st->partial, (size_t)st->groups * st->nk * sizeof(double)));
    SB_CU(cudaMalloc(&st->ek, (size_t)N * sizeof(double)));
    /* non-blocking: the legacy default stream, which integrates, never waits for it */
    SB_CU(cudaStreamCreateWithFlags(&st->col, cudaStreamNonBlocking));
    SB_CU(cudaEventCreateWithFlags(&st->ev_state, cudaEventDisableTiming));
    SB_CU(cudaEventCreateWithFlags(&st->ev_col, cudaEventDisableTiming));
    SB_CU(cudaMallocHost(&st->ek_host, (size_t)N * sizeof(double)));
    return SB_OK;
}

int launch_integrator_into(cu_state *st, long nsteps)
{
    const dim3 g(st->grid), b(st->block);
    const size_t n = (size_t)st->N * st->C;
    if (st->col_q == st->qb) SB_CU(cudaStreamWaitEvent(0, st->ev_col, 0));
    if (st->path == PATH_BLOCK_GLOBAL) {
        SB_CU(cudaMemcpyAsync(st->qb, st->q, n * sizeof(double), cudaMemcpyDeviceToDevice, 0));
        SB_CU(cudaMemcpyAsync(st->pb, st->p, n * sizeof(double), cudaMemcpyDeviceToDevice, 0));
    }
    if (st->path == PATH_MWARP) {
        if (st->model == NLC_FPUT) mw_launch<NLC_FPUT>(st, nsteps);
        else if (st->model == NLC_TODA) mw_launch<NLC_TODA>(st, nsteps);
        else mw_launch<NLC_DNKG>(st, nsteps);
        SB_CU_LAUNCH();
        return SB_OK;
    }
#define NLC_LAUNCH(MODEL)                                                                                         \
    if (st->path == PATH_WARP) {                                                                                  \
        switch (st->S) {                                                                                          \
        case 1: nlc_warp_steps<MODEL, 1><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->C, nsteps, st->k, st->mp); break;           \
        case 2: nlc_warp_steps<MODEL, 2><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->C, nsteps, st->k, st->mp); break;           \
        case 4: nlc_warp_steps<MODEL, 4><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->C, nsteps, st->k, st->mp); break;           \
        case 8: nlc_warp_steps<MODEL, 8><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->C, nsteps, st->k, st->mp); break;           \
        case 16: nlc_warp_steps<MODEL, 16><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->C, nsteps, st->k, st->mp); break;         \
        default: nlc_warp_steps<MODEL, 32><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->C, nsteps, st->k, st->mp); break;         \
        }                                                                                                         \
    } else if (st->path == PATH_BLOCK_SMEM) {                                                                     \
        nlc_block_steps<MODEL, true><<<g, b, st->smem>>>(st->q, st->p, st->qb, st->pb, st->f, st->N, nsteps, st->k, st->mp);      \
    } else {                                                                                                      \
        nlc_block_steps<MODEL, false><<<g, b>>>(st->q, st->p, st->qb, st->pb, st->f, st->N, nsteps, st->k, st->mp);               \
    }
    if (st->model == NLC_FPUT) {
        NLC_LAUNCH(NLC_FPUT)
    } else if (st->model == NLC_TODA) {
        NLC_LAUNCH(NLC_TODA)
    } else {
        NLC_LAUNCH(NLC_DNKG)
    }
#undef NLC_LAUNCH
    SB_CU_LAUNCH();
    return SB_OK;
}

/* Reads the pair q, p, writes qb, pb (after any collection still reading them), swaps. */
int launch_integrator(cu_state *st, long nsteps)
{
    int rc = launch_integrator_into(st, nsteps);
    if (rc) return rc;
    double *t = st->q;
    st->q = st->qb;
    st->qb = t;
    t = st->p;
    st->p = st->pb;
    st->pb = t;
    return SB_OK;
}

int dnls_nonlinear(cu_state *st, double t)
{
    nlc_dnls_nonlinear_kernel<<<st->grid, st->block>>>(st->psi, (long)st->N * st->C, st->mp.beta, t);
    SB_CU_LAUNCH();
    return SB_OK;
}

/* L(w_s h): forward, phase table of stage s, inverse (the table carries the 1/N). */
int dnls_linear(cu_state *st, int s)
{
    const int j = s <= 3 ? 3 - s : s - 3;
    NLC_FFT(cufftExecZ2Z(st->plan_z2z, st->psi, st->psi, CUFFT_FORWARD));
    nlc_dnls_phase_kernel<<<st->grid, st->block>>>(st->psi, st->phase + (size_t)j * st->N, (long)st->N * st->C, st->N);
    SB_CU_LAUNCH();
    NLC_FFT(cufftExecZ2Z(st->plan_z2z, st->psi, st->psi, CUFFT_INVERSE));
    return SB_OK;
}

int dnls_steps(cu_state *st, long nsteps)
{
    int rc;
    if ((rc = dnls_nonlinear(st, st->k.kfirst))) return rc;
    for (long n = 0; n < nsteps; n++)
        for (int s = 0; s < 7; s++) {
            if ((rc = dnls_linear(st, s))) return rc;
            const double c = s < 6 ? st->k.kmid[s] : (n == nsteps - 1 ? st->k.klast : st->k.kjoin);
            if ((rc = dnls_nonlinear(st, c))) return rc;
        }
    return SB_OK;
}

int cu_steps(nlc *m, long nsteps)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    if (nsteps <= 0) return SB_OK;
    int rc = st->model == NLC_DNLS ? dnls_steps(st, nsteps) : launch_integrator(st, nsteps);
    if (rc) return rc;
    m->step += nsteps;
    return SB_OK;
}

/* The transforms and the two reductions of the current state into st->ek, on stream sm. */
int mode_energies_on(cu_state *st, cudaStream_t sm)
{
    const cufftDoubleComplex *fq = st->work, *fp = st->work + (size_t)st->C * st->nk;
    if (st->model == NLC_DNLS) {
        NLC_FFT(cufftExecZ2Z(st->plan_z2z, st->psi, st->work, CUFFT_FORWARD));
        fp = NULL;
    } else {
        NLC_FFT(cufftSetStream(st->plan_r2c, sm));
        NLC_FFT(cufftExecD2Z(st->plan_r2c, st->q, st->work));
        NLC_FFT(cufftExecD2Z(st->plan_r2c, st->p, st->work + (size_t)st->C * st->nk));
    }
    const dim3 g((st->nk + RED_THREADS - 1) / RED_THREADS, st->groups);
    nlc_mode_partial<<<g, RED_THREADS, 0, sm>>>(fq, fp, st->partial, st->nk, st->N, st->C, st->model, st->mp.m);
    SB_CU_LAUNCH();
    nlc_mode_final<<<(st->N + RED_THREADS - 1) / RED_THREADS, RED_THREADS, 0, sm>>>(st->partial, st->ek, st->nk,
                                                                                  st->groups, st->N, st->C);
    SB_CU_LAUNCH();
    return SB_OK;
}

int cu_mode_energies(nlc *m, double *ek)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    SB_CU(cudaStreamWaitEvent(0, st->ev_col, 0)); /* the work buffers, after any collection */
    int rc = mode_energies_on(st, 0);
    if (rc) return rc;
    SB_CU(cudaMemcpy(ek, st->ek, (size_t)st->N * sizeof(double), cudaMemcpyDeviceToHost));
    return SB_OK;
}

/* fput/toda/dnkg: the transforms run on st->col behind an event on the integrating
 * stream, reading the pair that steps() just wrote; the next steps() reads it too and
 * writes the other pair, so only the one after waits for ev_col (launch_integrator_into).
 * dnls integrates in place with the same plan: its collection stays synchronous. */
int cu_mode_energies_start(nlc *m)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    if (st->model == NLC_DNLS) return cu_mode_energies(m, st->ek_host);
    SB_CU(cudaEventRecord(st->ev_state, 0));
    SB_CU(cudaStreamWaitEvent(st->col, st->ev_state, 0));
    int rc = mode_energies_on(st, st->col);
    if (rc) return rc;
    SB_CU(cudaMemcpyAsync(st->ek_host, st->ek, (size_t)st->N * sizeof(double), cudaMemcpyDeviceToHost, st->col));
    SB_CU(cudaEventRecord(st->ev_col, st->col));
    st->col_q = st->q;
    return SB_OK;
}

int cu_mode_energies_wait(nlc *m, double *ek)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    SB_CU(cudaEventSynchronize(st->ev_col));
    st->col_q = NULL;
    memcpy(ek, st->ek_host, (size_t)st->N * sizeof(double));
    return SB_OK;
}

int cu_download(nlc *m)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    const size_t n = (size_t)st->N * st->C;
    if (st->model != NLC_DNLS) {
        SB_CU(cudaMemcpy(m->q, st->q, n * sizeof(double), cudaMemcpyDeviceToHost));
        SB_CU(cudaMemcpy(m->p, st->p, n * sizeof(double), cudaMemcpyDeviceToHost));
        return SB_OK;
    }
    cufftDoubleComplex *h = static_cast<cufftDoubleComplex *>(malloc(n * sizeof(cufftDoubleComplex)));
    if (!h) return SB_EXIT_RUNTIME;
    cudaError_t e = cudaMemcpy(h, st->psi, n * sizeof(*h), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        for (size_t i = 0; i < n; i++) {
            m->q[i] = h[i].x;
            m->p[i] = h[i].y;
        }
    free(h);
    SB_CU(e);
    return SB_OK;
}

void cu_release(nlc *m)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    if (!st) return;
    if (st->have_r2c) cufftDestroy(st->plan_r2c);
    if (st->have_z2z) cufftDestroy(st->plan_z2z);
    if (st->col) {
        cudaStreamSynchronize(st->col);
        cudaStreamDestroy(st->col);
    }
    if (st->ev_state) cudaEventDestroy(st->ev_state);
    if (st->ev_col) cudaEventDestroy(st->ev_col);
    cudaFreeHost(st->ek_host);
    cudaFree(st->q);
    cudaFree(st->p);
    cudaFree(st->qb);
    cudaFree(st->pb);
    cudaFree(st->f);
    cudaFree(st->psi);
    cudaFree(st->phase);
    cudaFree(st->work);
    cudaFree(st->partial);
    cudaFree(st->ek);
    free(st);
    m->dev = NULL;
}

int cu_launches(nlc *m, sb_launch *out, int max)
{
    cu_state *st = static_cast<cu_state *>(m->dev);
    int n = 0;
    if (!st) return 0;
    if (n < max) {
        if (st->model == NLC_DNLS) {
            if (sb_cuda_occupancy((const void *)nlc_dnls_nonlinear_kernel, "nlc_dnls_nonlinear", st->block, 0, st->grid,
                                  out + n))
                return -1;
        } else {
            const char *nm = "";
            const void *fn = integrator_fn(st, &nm);
            if (sb_cuda_occupancy(fn, nm, st->block, st->smem, st->grid, out + n)) return -1;
        }
        n++;
    }
    if (n < max && st->model == NLC_DNLS) {
        if (sb_cuda_occupancy((const void *)nlc_dnls_phase_kernel, "nlc_dnls_phase", st->block, 0, st->grid, out + n))
            return -1;
        n++;
    }
    if (n < max) {
        const int gx = (st->nk + RED_THREADS - 1) / RED_THREADS;
        if (sb_cuda_occupancy((const void *)nlc_mode_partial, "nlc_mode_partial", RED_THREADS, 0, gx * st->groups,
                              out + n))
            return -1;
        n++;
    }
    return n;
}

} // namespace

extern "C" const nlc_ops nlc_ops_cuda = {cu_upload,  cu_steps,    cu_mode_energies,      cu_download,
                                         cu_release, cu_launches, cu_mode_energies_start, cu_mode_energies_wait};
