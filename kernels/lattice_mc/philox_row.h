/* The site words (lmc_site_words) of a row of sites, Philox4x32-10 vectorised across
 * the row's site pairs.
 *
 * Why not just Random123 inside the `omp simd` loop: GCC vectorises its
 * 32x32->64-bit multiply with cross-lane shuffles (~200 per 8 draws), which made
 * the random numbers 2/3 of the CPU kernel's time. Here the four state words of
 * each pair live in the low halves of 64-bit lanes. Then a round is, per word pair,
 * one vpmuludq (which reads only the low halves, so the high halves may hold
 * garbage), one in-lane dword swap for the high word (a shuffle-port uop, where a
 * 64-bit shift would compete with the multiply for the same port) and one three-way
 * xor; the low word is the product itself. After the 10 rounds the lanes hold words
 * 0..3 of one pair each, and a blend of words 0 and 2 (1 and 3) gives 16 (8) sites'
 * first (second) word in site order: the pairing of lmc_site_words costs no shuffles.
 * The constants and the round structure are Random123's (its macros are used), and
 * the output is bit-identical to philox4x32() - checked for every word by
 * tests/kernels/lattice_mc/test_lattice_mc.c and, through the oracle validation, on every run. Without
 * AVX2 it falls back to lmc_random itself. */
#ifndef LATTICE_MC_PHILOX_ROW_H
#define LATTICE_MC_PHILOX_ROW_H

#include <stdint.h>
#include "lattice_mc/physics.h" /* lmc_random: the same draw, one site at a time */

#if defined(__AVX512F__)
#include <immintrin.h>
#define LMC_PV 16 /* sites per step: 8 pairs in 64-bit lanes */
#define LMC_MUL_EPU32(a, b) ((lmc_u64v)_mm512_mul_epu32((__m512i)(a), (__m512i)(b)))
#define LMC_HI_TO_LO(a) ((lmc_u64v)_mm512_shuffle_epi32((__m512i)(a), _MM_PERM_CDAB))
#define LMC_ODD_FROM(a, b) ((lmc_u32v)_mm512_mask_blend_epi32(0xAAAA, (__m512i)(a), (__m512i)(b)))
#elif defined(__AVX2__)
#include <immintrin.h>
#define LMC_PV 8
#define LMC_MUL_EPU32(a, b) ((lmc_u64v)_mm256_mul_epu32((__m256i)(a), (__m256i)(b)))
#define LMC_HI_TO_LO(a) ((lmc_u64v)_mm256_shuffle_epi32((__m256i)(a), 0xb1))
#define LMC_ODD_FROM(a, b) ((lmc_u32v)_mm256_blend_epi32((__m256i)(a), (__m256i)(b), 0xAA))
#endif

#ifdef LMC_PV
typedef uint32_t lmc_u32v __attribute__((vector_size(4 * LMC_PV)));
typedef uint64_t lmc_u64v __attribute__((vector_size(4 * LMC_PV)));

/* Ten Philox rounds on LMC_PV/2 counters whose words are the low halves of the lanes. */
static inline __attribute__((always_inline)) void lmc_philox_rounds(lmc_u64v *x, uint64_t seed)
{
    const lmc_u64v m0 = (lmc_u64v){0} + PHILOX_M4x32_0, m1 = (lmc_u64v){0} + PHILOX_M4x32_1;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        if (round) k0 += PHILOX_W32_0, k1 += PHILOX_W32_1;
        lmc_u64v p0 = LMC_MUL_EPU32(x[0], m0), p1 = LMC_MUL_EPU32(x[2], m1);
        x[0] = LMC_HI_TO_LO(p1) ^ x[1] ^ (uint64_t)k0;
        x[2] = LMC_HI_TO_LO(p0) ^ x[3] ^ (uint64_t)k1;
        x[1] = p1;
        x[3] = p0;
    }
}
#endif

/* lmc_site_words for n sites of a sub-lattice row: site i (i = xh) has global index
 * site0 + stride * i, and pairs with its neighbour in the row (i ^ 1); a[i], b[i] are
 * its two words. Counters (site0 + stride * (i & ~1), c1, c2, c3). */
static inline void lmc_philox_pairs(uint64_t seed, uint32_t site0, uint32_t stride, int n, uint32_t c1, uint32_t c2,
                                    uint32_t c3, uint32_t *a, uint32_t *b)
{
    int i = 0;
#ifdef LMC_PV
    lmc_u64v lane; /* counter offsets of the pairs in one step */
    for (int l = 0; l < LMC_PV / 2; l++) lane[l] = (uint64_t)(2u * (uint32_t)l * stride);
    for (; i + LMC_PV <= n; i += LMC_PV) {
        lmc_u64v x[4] = {lane + (site0 + (uint32_t)i * stride), (lmc_u64v){0} + c1, (lmc_u64v){0} + c2,
                         (lmc_u64v){0} + c3};
        lmc_philox_rounds(x, seed);
        lmc_u32v va = LMC_ODD_FROM(x[0], x[2] << 32), vb = LMC_ODD_FROM(x[1], x[3] << 32);
        __builtin_memcpy(a + i, &va, sizeof va); /* whole-vector stores */
        __builtin_memcpy(b + i, &vb, sizeof vb);
    }
#endif
    for (; i < n; i++) {
        philox4x32_ctr_t r = lmc_random(seed, site0 + (uint32_t)(i & ~1) * stride, c1, c2, c3);
        a[i] = r.v[2 * (i & 1)], b[i] = r.v[2 * (i & 1) + 1];
    }
}

#endif
