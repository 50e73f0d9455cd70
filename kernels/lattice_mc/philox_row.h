/* Philox4x32-10 for a row of sites, vectorised across sites.
 *
 * Why not just Random123 inside the `omp simd` loop: GCC vectorises its
 * 32x32->64-bit multiply with cross-lane shuffles (~200 per 8 draws), which made
 * the random numbers 2/3 of the CPU kernel's time. Here each multiply is two
 * vpmuludq on the even and odd 32-bit lanes, with no shuffles. The constants and
 * the round structure are Random123's (its macros are used), and the output is
 * bit-identical to philox4x32() - checked for every word by tests/test_lattice_mc.c
 * and, through the oracle validation, on every run. Without AVX2 it falls back
 * to Random123 itself. */
#ifndef LATTICE_MC_PHILOX_ROW_H
#define LATTICE_MC_PHILOX_ROW_H

#include <stdint.h>
#include <Random123/philox.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#define LMC_PV 16
#define LMC_MUL_EPU32(a, b) ((lmc_u64v)_mm512_mul_epu32((__m512i)(a), (__m512i)(b)))
#define LMC_ODD_FROM(a, b) ((lmc_u32v)_mm512_mask_blend_epi32(0xAAAA, (__m512i)(a), (__m512i)(b)))
#elif defined(__AVX2__)
#include <immintrin.h>
#define LMC_PV 8
#define LMC_MUL_EPU32(a, b) ((lmc_u64v)_mm256_mul_epu32((__m256i)(a), (__m256i)(b)))
#define LMC_ODD_FROM(a, b) ((lmc_u32v)_mm256_blend_epi32((__m256i)(a), (__m256i)(b), 0xAA))
#endif

#ifdef LMC_PV
typedef uint32_t lmc_u32v __attribute__((vector_size(4 * LMC_PV)));
typedef uint64_t lmc_u64v __attribute__((vector_size(4 * LMC_PV)));

/* hi and lo words of m * a in every 32-bit lane; m is broadcast. */
static inline __attribute__((always_inline)) void lmc_mulhilo_v(lmc_u32v a, lmc_u32v m, lmc_u32v *hi,
                                                                lmc_u32v *lo)
{
    lmc_u64v pe = LMC_MUL_EPU32(a, m);                   /* products of the even lanes */
    lmc_u64v po = LMC_MUL_EPU32((lmc_u64v)a >> 32, m);   /* ... and of the odd lanes */
    /* even 32-bit lanes from the even products, odd lanes from the odd ones */
    *hi = LMC_ODD_FROM(pe >> 32, po);
    *lo = LMC_ODD_FROM(pe, po << 32);
}
#endif

/* Words 0..2 of philox4x32_10({site0 + stride*i, c1, c2, c3}, {seed lo, seed hi}) for i < n. */
static inline void lmc_philox_row(uint64_t seed, uint32_t site0, uint32_t stride, int n, uint32_t c1,
                                  uint32_t c2, uint32_t c3, uint32_t *r0, uint32_t *r1, uint32_t *r2)
{
    int i = 0;
#ifdef LMC_PV
    lmc_u32v lane;
    for (int l = 0; l < LMC_PV; l++) lane[l] = (uint32_t)l * stride;
    const lmc_u32v m0 = (lmc_u32v){0} + PHILOX_M4x32_0, m1 = (lmc_u32v){0} + PHILOX_M4x32_1;
    for (; i + LMC_PV <= n; i += LMC_PV) {
        lmc_u32v x0 = lane + (site0 + (uint32_t)i * stride), x1 = (lmc_u32v){0} + c1;
        lmc_u32v x2 = (lmc_u32v){0} + c2, x3 = (lmc_u32v){0} + c3;
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
        for (int round = 0; round < 10; round++) {
            if (round) k0 += PHILOX_W32_0, k1 += PHILOX_W32_1;
            lmc_u32v h0, l0, h1, l1;
            lmc_mulhilo_v(x0, m0, &h0, &l0);
            lmc_mulhilo_v(x2, m1, &h1, &l1);
            x0 = h1 ^ x1 ^ k0;
            x1 = l1;
            x2 = h0 ^ x3 ^ k1;
            x3 = l0;
        }
        __builtin_memcpy(r0 + i, &x0, sizeof x0); /* whole-vector stores, not lane by lane */
        __builtin_memcpy(r1 + i, &x1, sizeof x1);
        __builtin_memcpy(r2 + i, &x2, sizeof x2);
    }
#endif
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    for (; i < n; i++) {
        philox4x32_ctr_t c = {{site0 + (uint32_t)i * stride, c1, c2, c3}};
        philox4x32_ctr_t r = philox4x32(c, key);
        r0[i] = r.v[0], r1[i] = r.v[1], r2[i] = r.v[2];
    }
}

#endif
