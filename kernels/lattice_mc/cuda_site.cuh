/* lattice_mc CUDA: the site update both CUDA kernels share (lmc_tick in cuda.cu, a launch
 * per tick; lmc_fused in cuda_fused.cu, a launch per sweep).
 *
 * Two sites a thread, of one sub-lattice, at the same x: then the Philox call that
 * lmc_site_words makes serve a pair of sites (xh = 2p, 2p + 1, adjacent lanes, x being
 * fastest across a warp) is computed once for two pairs: the even lane computes the pair
 * counter of its first site, the odd lane that of its second, and each hands the other
 * the half it needs with one __shfl_xor_sync(.., 1) per word. A thread without a second
 * site computes its first site's pair again (the odd lane then receives what it computed
 * itself), so every lane takes part in the shuffles, idle ones included.
 *
 * Offsets are 32-bit: a site is base[o + d], with o = xh + h (yh + h zl) its index in a
 * sub-lattice, d the wrap-aware step to a neighbour, and one base pointer per sub-lattice
 * and component, uniform over a tick. So each of the 21 loads costs one address
 * instruction (the 64-bit indices with a base per component cost about 150). The round
 * keys of Philox are computed on the host, so each round's xor reads its key from the
 * constant bank. */
#ifndef LATTICE_MC_CUDA_SITE_CUH
#define LATTICE_MC_CUDA_SITE_CUH

#include <cstdint>

#include "lattice_mc/physics.h"

namespace lmc_cu {

/* Random123's philox4x32-10 key schedule: round r uses key + r (W0, W1). */
struct round_keys {
    uint32_t k[20];
};

inline round_keys make_round_keys(uint64_t seed)
{
    round_keys rk;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++, k0 += PHILOX_W32_0, k1 += PHILOX_W32_1) rk.k[2 * r] = k0, rk.k[2 * r + 1] = k1;
    return rk;
}

/* philox4x32(ctr, key) with the keys already scheduled: the same rounds as Random123's
 * _philox4x32round, bit for bit (the oracle checks compare every director). */
__device__ __forceinline__ uint4 philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, const round_keys &rk)
{
#pragma unroll
    for (int r = 0; r < 10; r++) {
        const uint32_t hi0 = __umulhi(PHILOX_M4x32_0, c0), lo0 = PHILOX_M4x32_0 * c0;
        const uint32_t hi1 = __umulhi(PHILOX_M4x32_1, c2), lo1 = PHILOX_M4x32_1 * c2;
        c0 = hi1 ^ c1 ^ rk.k[2 * r];
        c1 = lo1;
        c2 = hi0 ^ c3 ^ rk.k[2 * r + 1];
        c3 = lo0;
    }
    return make_uint4(c0, c1, c2, c3);
}

/* Device storage (lmc_store): 8 sub-lattices of `sub` sites, one after another. */
struct lattice {
    float *x, *y, *z;
    const uint8_t *f;
    int h, zs, zg;    /* zs planes per sub-lattice; zg: global z of storage plane 0 */
    uint32_t L;
    uint32_t sub;
};

/* What a sweep shares: the random-number counter, keys and the Metropolis constants. */
struct sweep_par {
    uint32_t sweep;
    round_keys rk;
    float W;
    lmc_consts k;
};

/* One tick: sub-lattice s and the offsets of its neighbour sub-lattices s ^ 1 (x),
 * s ^ 2 (y), s ^ 4 (z) in the arrays. */
struct tick_par {
    uint32_t own, nb[3];
    int s, px, py, pz;
};

__host__ __device__ __forceinline__ tick_par tick_par_of(const lattice &g, int s)
{
    tick_par p;
    p.own = (uint32_t)s * g.sub;
    for (int d = 0; d < 3; d++) p.nb[d] = (uint32_t)(s ^ (1 << d)) * g.sub;
    p.s = s, p.px = s & 1, p.py = (s >> 1) & 1, p.pz = (s >> 2) & 1;
    return p;
}

/* How neighbours are loaded. A tick writes nothing it reads: the read-only path. The
 * fused sweep reads what other blocks write during the launch: plain loads (cached in
 * L1, made current by the L1 invalidation of each item's acquire) or L2-only loads
 * (ld.global.cg: nothing stale can sit in L1; more L2 traffic, fewer registers). */
enum class loads { read_only, l1, l2 };

template <loads LD>
__device__ __forceinline__ float ld(const float *p, uint64_t policy)
{
    if (LD == loads::l1) return *p;
    if (LD == loads::l2) return __ldcg(p);
    float v;
    asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
    return v;
}

/* A tick's neighbour loads are marked evict-first in L2, so that L2 keeps the lines of the
 * sub-lattice being updated (read, then written) rather than neighbour lines that the next
 * tick mostly finds evicted anyway: at L = 256 a tick streams four 25 MB sub-lattices through
 * a 60 MB L2. Measured on the H200 at L = 256 (3 alternating rounds): 55.2 -> 49.7 B of DRAM
 * traffic an update, 55.1 -> 57.3 G site updates/s. */
__device__ __forceinline__ uint64_t l2_evict_first()
{
    uint64_t p;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    return p;
}

/* Programmatic dependent launch (sm_90, cu_ticks in cuda.cu): a tick's blocks start while
 * the previous tick's last wave runs, compute their Philox words, and wait here for that
 * tick's grid (its writes visible) before the first lattice load. A no-op for a launch
 * without the attribute. */
__device__ __forceinline__ void wait_previous_grid()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Offsets from a site to its two x neighbours (+x, -x: the +x one is xh + px, the -x
 * one xh - 1 + px, wrapped in the row); the same for every plane and row of a thread. */
struct x_steps {
    int p, m;
};
__device__ __forceinline__ x_steps x_steps_of(int xh, int h, int px)
{
    const int xp = xh + px == h ? 0 : xh + px, xm = xh - 1 + px < 0 ? h - 1 : xh - 1 + px;
    return {xp - xh, xm - xh};
}

/* Site (xh, yh, zl) of tick p: the update of lmc_update with the neighbours in the order
 * +x, -x, +y, -y, +z, -z. The two sites of a thread share x, hence dx. */
template <bool DROPLET, loads LD>
__device__ __forceinline__ void site_update(const lattice &g, const sweep_par &sp, const tick_par &p, int xh,
                                            int yh, int zl, x_steps dx, lmc_words w, double &dsum, int &nacc)
{
    const int h = g.h;
    const uint32_t hh = (uint32_t)h * (uint32_t)h;
    const uint32_t o = (uint32_t)xh + (uint32_t)h * (uint32_t)yh + hh * (uint32_t)zl;
    /* periodic in y; in z too on one rank (in a slab the neighbours of owned planes are in range) */
    const int yp = yh + p.py == h ? 0 : yh + p.py, ym = yh - 1 + p.py < 0 ? h - 1 : yh - 1 + p.py;
    const int zp = zl + p.pz == g.zs ? 0 : zl + p.pz, zm = zl - 1 + p.pz < 0 ? g.zs - 1 : zl - 1 + p.pz;
    const uint32_t nb[6] = {p.nb[0] + o + (uint32_t)dx.p,
                            p.nb[0] + o + (uint32_t)dx.m,
                            p.nb[1] + o + (uint32_t)((yp - yh) * h),
                            p.nb[1] + o + (uint32_t)((ym - yh) * h),
                            p.nb[2] + o + (uint32_t)(zp - zl) * hh,
                            p.nb[2] + o + (uint32_t)(zm - zl) * hh};
    lmc_env e;
    const uint64_t pol = LD == loads::read_only ? l2_evict_first() : 0;
#pragma unroll
    for (int j = 0; j < 6; j++) {
        e.x[j] = ld<LD>(g.x + nb[j], pol);
        e.y[j] = ld<LD>(g.y + nb[j], pol);
        e.z[j] = ld<LD>(g.z + nb[j], pol);
        e.w[j] = DROPLET ? ((__ldg(g.f + nb[j]) & LMC_ACTIVE) ? 1.0f : 0.0f) : 1.0f;
    }
    e.nux = e.nuy = e.nuz = e.wi = 0.0f;
    const uint32_t i = p.own + o;
    if (DROPLET) {
        const uint8_t fl = __ldg(g.f + i);
        if (!(fl & LMC_ACTIVE)) return;
        if (fl & LMC_SURFACE) {
            lmc_normal((int)g.L, 2 * xh + p.px, 2 * yh + p.py, 2 * zl + p.pz + g.zg, &e.nux, &e.nuy, &e.nuz);
            e.wi = sp.W;
        }
    }
    const lmc_result u = lmc_update(g.x[i], g.y[i], g.z[i], e, sp.k, w, DROPLET);
    if (u.accepted) {
        g.x[i] = u.x;
        g.y[i] = u.y;
        g.z[i] = u.z;
    }
    dsum += (double)u.de;
    nacc += u.accepted;
}

/* Sites A = (xh, yA, zA) and B = (xh, yB, zB) of tick p (B only if hasB; lanes with
 * valid = 0 lie outside the lattice and only take part in the shuffles). The pair counter
 * is the global index of the pair's first site (lmc_site_words), here for either row. */
template <bool DROPLET, loads LD>
__device__ __forceinline__ void site_pair(const lattice &g, const sweep_par &sp, const tick_par &p, int xh, int yA,
                                          int zA, int yB, int zB, bool hasB, bool valid, double &dsum, int &nacc)
{
    const bool odd = xh & 1;
    if (!hasB) yB = yA, zB = zA;
    const uint32_t xf = p.px + 2 * (xh & ~1), y = 2 * (odd ? yB : yA) + p.py, z = 2 * (odd ? zB : zA) + p.pz + g.zg;
    const uint4 r = philox(xf + g.L * (y + g.L * z), sp.sweep, (uint32_t)p.s, LMC_TAG_MOVE, sp.rk);
    /* even lane: words 0, 1 of its own call for A, of the partner's for B; odd: 2, 3 */
    const uint32_t g0 = __shfl_xor_sync(0xffffffffu, odd ? r.x : r.z, 1);
    const uint32_t g1 = __shfl_xor_sync(0xffffffffu, odd ? r.y : r.w, 1);
    if (LD == loads::read_only) wait_previous_grid();
    if (!valid) return;
    const x_steps dx = x_steps_of(xh, g.h, p.px);
    const lmc_words wA = {odd ? g0 : r.x, odd ? g1 : r.y}, wB = {odd ? r.z : g0, odd ? r.w : g1};
    site_update<DROPLET, LD>(g, sp, p, xh, yA, zA, dx, wA, dsum, nacc);
    if (hasB) site_update<DROPLET, LD>(g, sp, p, xh, yB, zB, dx, wB, dsum, nacc);
}

/* Adds a block's accepted dE and moves to acc[0], acc[1]: warp shuffles (the count as
 * an integer, exact), one shared slot per warp, one double atomicAdd each. Every thread
 * of the block calls it; the block is a whole number of warps. */
__device__ __forceinline__ void block_add(double d, int n, double *acc)
{
    n = __reduce_add_sync(0xffffffffu, n);
    for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(0xffffffffu, d, o);
    __shared__ double sd[32];
    __shared__ int sn[32];
    const int t = threadIdx.x + blockDim.x * threadIdx.y, nwarps = (blockDim.x * blockDim.y) >> 5;
    if ((t & 31) == 0) sd[t >> 5] = d, sn[t >> 5] = n;
    __syncthreads();
    if (t == 0) {
        for (int i = 1; i < nwarps; i++) d += sd[i], n += sn[i];
        atomicAdd(acc, d);
        atomicAdd(acc + 1, (double)n);
    }
}

} // namespace lmc_cu

#endif
