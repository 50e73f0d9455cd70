/* Philox4x32-10 for a row of sites, vectorised across sites.
 *
 * Why not just Random123 inside the `omp simd` loop: GCC vectorises its
 * 32x32->64-bit multiply with cross-lane shuffles (~200 per 8 draws), which made
 * the random numbers 2/3 of the CPU kernel's time. Here the four state words of
 * each site live in the low halves of 64-bit lanes, even sites in one vector and
 * odd sites in another. Then a round is, per word pair, one vpmuludq (which reads
 * only the low halves, so the high halves may hold garbage), one shift for the
 * high word and one three-way xor; the low word is the product itself. Even and
 * odd lanes are merged once, after the 10 rounds. The constants and the round
 * structure are Random123's (its macros are used), and the output is
 * bit-identical to philox4x32() - checked for every word by tests/test_lattice_mc.c
 * and, through the oracle validation, on every run. Without AVX2 it falls back
 * to lmc_random itself. */
#ifndef LATTICE_MC_PHILOX_ROW_H
#define LATTICE_MC_PHILOX_ROW_H

#include <stdint.h>
#include "lattice_mc/physics.h" /* lmc_random: the same draw, one site at a time */

#if defined(__AVX512F__)
#include <immintrin.h>
#define LMC_PV 16 /* sites per step: two vectors of 8 64-bit lanes */
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

/* Ten Philox rounds on LMC_PV/2 sites whose words are the low halves of the lanes. */
static inline __attribute__((always_inline)) void lmc_philox_rounds(lmc_u64v *x, uint64_t seed)
{
    const lmc_u64v m0 = (lmc_u64v){0} + PHILOX_M4x32_0, m1 = (lmc_u64v){0} + PHILOX_M4x32_1;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        if (round) k0 += PHILOX_W32_0, k1 += PHILOX_W32_1;
        lmc_u64v p0 = LMC_MUL_EPU32(x[0], m0), p1 = LMC_MUL_EPU32(x[2], m1);
        x[0] = (p1 >> 32) ^ x[1] ^ (uint64_t)k0;
        x[2] = (p0 >> 32) ^ x[3] ^ (uint64_t)k1;
        x[1] = p1;
        x[3] = p0;
    }
}
#endif

/* Words 0..2 of philox4x32_10({site0 + stride*i, c1, c2, c3}, {seed lo, seed hi}) for i < n. */
static inline void lmc_philox_row(uint64_t seed, uint32_t site0, uint32_t stride, int n, uint32_t c1,
                                  uint32_t c2, uint32_t c3, uint32_t *r0, uint32_t *r1, uint32_t *r2)
{
    int i = 0;
#ifdef LMC_PV
    lmc_u64v lane; /* site offsets of the even lanes */
    for (int l = 0; l < LMC_PV / 2; l++) lane[l] = (uint64_t)(2u * (uint32_t)l * stride);
    for (; i + LMC_PV <= n; i += LMC_PV) {
        uint32_t first = site0 + (uint32_t)i * stride;
        lmc_u64v ev[4] = {lane + first, (lmc_u64v){0} + c1, (lmc_u64v){0} + c2, (lmc_u64v){0} + c3};
        lmc_u64v od[4] = {lane + (uint32_t)(first + stride), ev[1], ev[2], ev[3]};
        lmc_philox_rounds(ev, seed);
        lmc_philox_rounds(od, seed);
        uint32_t *out[3] = {r0, r1, r2};
        for (int w = 0; w < 3; w++) {
            lmc_u32v v = LMC_ODD_FROM(ev[w], od[w] << 32);
            __builtin_memcpy(out[w] + i, &v, sizeof v); /* whole-vector stores */
        }
    }
#endif
    for (; i < n; i++) {
        philox4x32_ctr_t r = lmc_random(seed, site0 + (uint32_t)i * stride, c1, c2, c3);
        r0[i] = r.v[0], r1[i] = r.v[1], r2[i] = r.v[2];
    }
}

#endif
