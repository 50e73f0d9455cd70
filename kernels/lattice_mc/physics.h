/* lattice_mc: the per-site Metropolis step, shared verbatim by the scalar
 * reference, the OpenMP-SIMD loop and the CUDA kernel.
 *
 * Why everything here is hand-written arithmetic: the oracle check demands the
 * same accept/reject decision for every site on every backend. Library expf,
 * sinf and cosf differ in their last bits between glibc and CUDA, and implicit
 * FMA contraction differs between compilers; both would flip a few decisions per
 * million. So only IEEE-exact operations appear (+ - * / sqrtf floorf fmaf),
 * contraction is off on both sides (-ffp-contract=off, nvcc -fmad=false), and
 * exp/sincos are short polynomials evaluated in a fixed order.
 *
 * Units: energies in epsilon (the Lebwohl-Lasher coupling), temperature in
 * epsilon/k_B, so beta = 1/T. */
#ifndef LATTICE_MC_PHYSICS_H
#define LATTICE_MC_PHYSICS_H

#include <stdint.h>
#include <Random123/philox.h>

#ifdef __CUDACC__
#define LMC_HD __host__ __device__ __forceinline__
#else
#define LMC_HD static inline __attribute__((always_inline))
#endif
/* Fully unrolled 6-neighbour loops: required for the C compiler to vectorise. */
#if defined(__CUDA_ARCH__)
#define LMC_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define LMC_UNROLL /* nvcc's host pass: the loop is never hot there */
#else
#define LMC_UNROLL _Pragma("GCC unroll 8")
#endif
#include <math.h>
#include <string.h>

/* Philox4x32-10 counter words 3: a constant tag so other kernels' streams never collide. */
#define LMC_TAG_MOVE 0x4c4d4331u /* "LMC1": trial move + acceptance of one site update */
#define LMC_TAG_INIT 0x4c4d4330u /* "LMC0": initial director */

/* Bits of the per-site flag byte (droplet geometry only). */
#define LMC_ACTIVE 1u
#define LMC_SURFACE 2u

/* Uniform in [0, 1) with 24 random bits: exact in float. */
LMC_HD float lmc_u01(uint32_t r) { return (float)(r >> 8) * (1.0f / 16777216.0f); }

/* Four random words for (seed, sweep, sublattice, site): the key is the seed,
 * the counter the position in space-time, so any backend and any layout draws
 * the same numbers for the same site update. */
LMC_HD philox4x32_ctr_t lmc_random(uint64_t seed, uint32_t site, uint32_t sweep, uint32_t sub,
                                   uint32_t tag)
{
    philox4x32_ctr_t ctr = {{site, sweep, sub, tag}};
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32(ctr, key);
}

/* The 64 random bits of one site update: a 24-bit acceptance uniform (a >> 8) and two
 * 20-bit uniforms for the trial direction (lmc_trial). One Philox call serves two sites
 * of a sub-lattice row, xh = 2p and 2p + 1 (global x = px + 4p and px + 4p + 2), with
 * the first site's global index as the counter: words 0, 1 go to the first site, 2, 3 to
 * the second. Why: on the CPU the Philox rounds were a quarter of the time, and
 * 64 bits are all a site needs. Each site's bits still depend only on (seed, sweep,
 * sub-lattice, site), so every backend and rank count draws the same numbers for it. */
typedef struct {
    uint32_t a, b;
} lmc_words;

LMC_HD lmc_words lmc_site_words(uint64_t seed, uint32_t site, int x, uint32_t sweep, uint32_t sub)
{
    const int second = (x >> 1) & 1; /* x = px + 2 xh: the parity of xh */
    philox4x32_ctr_t r = lmc_random(seed, site - (second ? 2u : 0u), sweep, sub, LMC_TAG_MOVE);
    lmc_words w = {second ? r.v[2] : r.v[0], second ? r.v[3] : r.v[1]};
    return w;
}

/* 2^k for integer-valued k in [-126, 127], by building the exponent bits. */
LMC_HD float lmc_pow2i(float k)
{
    uint32_t bits = (uint32_t)((int32_t)k + 127) << 23;
#ifdef __CUDA_ARCH__
    return __uint_as_float(bits);
#else
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

/* exp(x) for x <= 0; relative error < 3e-7 (degree-6 Taylor on |y| <= ln2/2
 * after Cody-Waite reduction); 0 below -87 where float underflows. */
LMC_HD float lmc_exp_neg(float x)
{
    float xc = x < -87.0f ? -87.0f : x;
    float k = floorf(fmaf(xc, 1.44269504088896341f, 0.5f));
    float y = fmaf(-k, 0.693145751953125f, xc);      /* ln2 high part, exact product */
    y = fmaf(-k, 1.42860682030941723e-06f, y);       /* ln2 low part */
    float p = fmaf(y, 1.0f / 720.0f, 1.0f / 120.0f);
    p = fmaf(p, y, 1.0f / 24.0f);
    p = fmaf(p, y, 1.0f / 6.0f);
    p = fmaf(p, y, 0.5f);
    p = fmaf(p, y, 1.0f);
    p = fmaf(p, y, 1.0f);
    float r = p * lmc_pow2i(k);
    return x < -87.0f ? 0.0f : r;
}

/* (cos, sin) of the angle 2*pi*u, u in [0,1), from q4 = 4 u + 1/2. The circle is cut
 * into four quarter arcs centred on the axes; within one, |x| <= pi/4 and Taylor series
 * to x^9 / x^8 are accurate to 3e-8. Uniform u gives a uniform angle. */
LMC_HD void lmc_cossin_q4(float q4, float *c, float *s)
{
    float qf = floorf(q4);
    float x = (q4 - qf - 0.5f) * 1.57079632679489662f;
    int q = (int)qf & 3;
    float x2 = x * x;
    float sp = fmaf(x2, 1.0f / 362880.0f, -1.0f / 5040.0f);
    sp = fmaf(sp, x2, 1.0f / 120.0f);
    sp = fmaf(sp, x2, -1.0f / 6.0f);
    sp = fmaf(sp, x2, 1.0f);
    float sn = sp * x;
    float cp = fmaf(x2, 1.0f / 40320.0f, -1.0f / 720.0f);
    cp = fmaf(cp, x2, 1.0f / 24.0f);
    cp = fmaf(cp, x2, -0.5f);
    float cs = fmaf(cp, x2, 1.0f);
    /* rotate by q quarter turns: one turn swaps (c, s) -> (-s, c), two negate both */
    float c1 = (q & 1) ? -sn : cs, s1 = (q & 1) ? cs : sn;
    float sg = (q & 2) ? -1.0f : 1.0f;
    *c = sg * c1;
    *s = sg * s1;
}

/* Unit vector with z component zz in [-1, 1] and azimuth 2 pi u, q4 = 4 u + 1/2. */
LMC_HD void lmc_sphere_zq(float zz, float q4, float *x, float *y, float *z)
{
    float r2 = fmaf(-zz, zz, 1.0f);
    float r = sqrtf(r2 > 0.0f ? r2 : 0.0f);
    float c, s;
    lmc_cossin_q4(q4, &c, &s);
    *x = r * c;
    *y = r * s;
    *z = zz;
}

/* Uniform direction on the unit sphere from two uniforms (Archimedes: z uniform). */
LMC_HD void lmc_sphere(float u1, float u2, float *x, float *y, float *z)
{
    lmc_sphere_zq(fmaf(2.0f, u1, -1.0f), u2 * 4.0f + 0.5f, x, y, z);
}

/* Radial unit normal of site (x,y,z) about the lattice centre ((L-1)/2 in each axis). */
LMC_HD void lmc_normal(int L, int x, int y, int z, float *nux, float *nuy, float *nuz)
{
    float c = 0.5f * (float)(L - 1);
    float dx = (float)x - c, dy = (float)y - c, dz = (float)z - c;
    float inv = 1.0f / sqrtf(fmaf(dz, dz, fmaf(dy, dy, dx * dx)));
    *nux = dx * inv;
    *nuy = dy * inv;
    *nuz = dz * inv;
}

LMC_HD float lmc_dot(float ax, float ay, float az, float bx, float by, float bz)
{
    return fmaf(az, bz, fmaf(ay, by, ax * bx));
}

/* Everything one site update needs besides its own director: the six
 * neighbours' directors with their bond weights (1 = active bond, 0 = neighbour
 * outside the droplet), its anchoring (W on the droplet surface, else 0) with the
 * radial normal nu. Passed by value: the SIMD loop vectorises only when no
 * per-lane local has its address taken. */
typedef struct {
    float x[6], y[6], z[6], w[6];
    float wi, nux, nuy, nuz;
} lmc_env;

typedef struct {
    float beta, step, chi; /* 1/T, trial amplitude, field coupling chi along z */
} lmc_consts;

typedef struct {
    float x, y, z; /* the director after the trial (unchanged when rejected) */
    float de;      /* accepted energy change, 0 when rejected */
    int accepted;
} lmc_result;

/* One Metropolis trial, in three steps so that a SIMD caller can load each
 * neighbour right where it is used (fewer live registers); lmc_update composes them.
 * Trial: n' = normalise(n + step * s), s uniform on the sphere: the proposal density
 * depends only on n.n', so it is symmetric and plain Metropolis acceptance
 * min(1, exp(-beta dE)) gives detailed balance.
 * Energy of site i: -sum_j w_j P2(n.n_j) - Wi (n.nu)^2 - chi n_z^2, P2(x) = (3x^2-1)/2. */
typedef struct {
    float x, y, z;    /* the trial director n' */
    float dx, dy, dz; /* n' - n */
    float sx, sy, sz; /* n' + n */
    int ok;           /* 0 when n + step s was too short to normalise */
} lmc_trial_dir;

/* What a site update draws before it looks at the lattice: the trial displacement's
 * direction s (uniform on the sphere) and the acceptance uniform u. Kept apart so that
 * the CPU backend can compute it for a whole row ahead of the site loop, off the
 * loop's dependency chain. */
typedef struct {
    float sx, sy, sz, u;
} lmc_draw;

LMC_HD lmc_draw lmc_draw_of(lmc_words w)
{
    lmc_draw d;
    /* two 20-bit uniforms u1 = v1 2^-20, u2 = v2 2^-20, scaled in one exact step each:
     * zz = 2 u1 - 1 and q4 = 4 u2 + 1/2, as lmc_sphere(u1, u2) would compute them */
    float v1 = (float)(w.b >> 12), v2 = (float)(((w.a << 12) | (w.b & 0xfffu)) & 0xfffffu);
    lmc_sphere_zq(fmaf(v1, 1.0f / 524288.0f, -1.0f), fmaf(v2, 1.0f / 262144.0f, 0.5f), &d.sx, &d.sy, &d.sz);
    d.u = lmc_u01(w.a);
    return d;
}

LMC_HD lmc_trial_dir lmc_trial(float ox, float oy, float oz, lmc_consts k, lmc_draw d)
{
    const float sx = d.sx, sy = d.sy, sz = d.sz;
    float tx = fmaf(k.step, sx, ox), ty = fmaf(k.step, sy, oy), tz = fmaf(k.step, sz, oz);
    float t2 = lmc_dot(tx, ty, tz, tx, ty, tz);
    int ok = t2 > 1e-12f;
    float inv = 1.0f / sqrtf(ok ? t2 : 1.0f);
    tx *= inv, ty *= inv, tz *= inv;
    lmc_trial_dir t = {tx, ty, tz, tx - ox, ty - oy, tz - oz, tx + ox, ty + oy, tz + oz, ok};
    return t;
}

/* Adds w ((n'.m)^2 - (n.m)^2) to db, as w ((n'-n).m) ((n'+n).m): one bond's P2
 * difference without the -1/2 constants, which cancel exactly. In the bulk (w = 1, a
 * literal) that is 7 operations instead of 9. */
LMC_HD float lmc_bond(float db, float w, lmc_trial_dir t, float mx, float my, float mz)
{
    return fmaf(w * lmc_dot(t.dx, t.dy, t.dz, mx, my, mz), lmc_dot(t.sx, t.sy, t.sz, mx, my, mz), db);
}

/* Energy change from the bond sum db plus anchoring and field; the decision. */
LMC_HD lmc_result lmc_accept(float ox, float oy, float oz, lmc_trial_dir t, float db, float wi, float nux,
                             float nuy, float nuz, lmc_consts k, float u, int anchored)
{
    float rest = k.chi * (t.dz * t.sz);
    if (anchored) /* a literal at every call: bulk code carries no anchoring arithmetic */
        rest = lmc_bond(rest, wi, t, nux, nuy, nuz); /* == rest exactly when wi = 0 */
    float de = -(fmaf(1.5f, db, rest));
    float p = lmc_exp_neg(-k.beta * (de > 0.0f ? de : 0.0f));
    /* bitwise, not short-circuit: keeps the SIMD loop body free of branches */
    int acc = t.ok & ((de <= 0.0f) | (u < p));
    lmc_result res = {acc ? t.x : ox, acc ? t.y : oy, acc ? t.z : oz, acc ? de : 0.0f, acc};
    return res;
}

LMC_HD lmc_result lmc_update(float ox, float oy, float oz, lmc_env e, lmc_consts k, lmc_words w, int anchored)
{
    lmc_draw d = lmc_draw_of(w);
    lmc_trial_dir t = lmc_trial(ox, oy, oz, k, d);
    float db = 0.0f;
    LMC_UNROLL
    for (int j = 0; j < 6; j++) db = lmc_bond(db, e.w[j], t, e.x[j], e.y[j], e.z[j]);
    return lmc_accept(ox, oy, oz, t, db, e.wi, e.nux, e.nuy, e.nuz, k, d.u, anchored);
}

#endif
