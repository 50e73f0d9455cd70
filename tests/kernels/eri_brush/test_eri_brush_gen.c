/* eri_brush generated class code: the two independent paths (Head-Gordon-Pople and
 * McMurchie-Davidson) agree on every class for random centres, exponents and contractions;
 * bra-ket swap symmetry on classes whose bra and ket pair classes match; the spherical
 * transform gives orthonormal harmonic d functions in libint2's order and signs, and is
 * applied index by index like an explicit 4-index transform; the flop model and path
 * choice in classinfo.c follow the generated table; the lane-vector twins (eri_hgpv_*,
 * eri_boysv) give each lane bit for bit what the scalar code gives for that lane's input.
 *
 * Primitive pairs are built here from eri.h's definition, not by pairs.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "eri_brush/ericase.h"
#include "eri_brush/jengine.h"
#include "eri_brush/boys.h"
#include "eri_brush/eri_gen_code.h"
#include "eri_brush/eri_gen_info.h"
#include "eri_brush/eri_gen_vec.h"
#include "test_util.h"

typedef void (*quartet_fn)(const eri_prim *, int, const eri_prim *, int, const double *,
                           const double *, const double *, double *ERI_RESTRICT);
typedef void (*sph_fn)(const double *ERI_RESTRICT, double *ERI_RESTRICT);
typedef void (*lanes_fn)(const eri_primv *, int, const eri_primv *, int, const eri_v *,
                         const eri_v *, const double *, eri_v *ERI_RESTRICT);
typedef struct {
    int cls, l[4];
    quartet_fn hgp, md;
    sph_fn sph;
    lanes_fn hgpv;
} gen_class;

#define ROW(cls, a, b, c, d) {cls, {a, b, c, d}, eri_hgp_##a##b##c##d, eri_md_##a##b##c##d, eri_sph_##a##b##c##d, eri_hgpv_##a##b##c##d},
static const gen_class classes[] = {ERI_GEN_CLASSES(ROW)};
#undef ROW
#define NCLS ((int)(sizeof classes / sizeof classes[0]))
#define MAXBLK 1296 /* 6^4 */
#define ERI_TEST_PI 3.14159265358979323846

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
    double O[3];
    int n;
    double a[3], c[3];
} shell;

/* n primitives, or 1-3 at random for n = 0 */
static shell random_shell_n(const double *near, int n)
{
    shell s;
    for (int i = 0; i < 3; i++) s.O[i] = near[i] + urand(-1.5, 1.5);
    s.n = n ? n : 1 + (int)urand(0.0, 3.0);
    for (int k = 0; k < s.n; k++) s.a[k] = exp(urand(log(0.15), log(8.0))), s.c[k] = urand(0.2, 1.2);
    return s;
}

static shell random_shell(const double *near) { return random_shell_n(near, 0); }

/* eri.h: p = a + b, P = (aA + bB)/p, K = c_a c_b exp(-ab/p |A-B|^2) sqrt(2) pi^(5/4) / p */
static int make_pair(const shell *A, const shell *B, eri_prim *pp, double AB[3])
{
    int n = 0;
    double ab2 = 0.0;
    for (int i = 0; i < 3; i++) AB[i] = A->O[i] - B->O[i], ab2 += AB[i] * AB[i];
    for (int i = 0; i < A->n; i++)
        for (int j = 0; j < B->n; j++) {
            eri_prim *q = &pp[n++];
            const double a = A->a[i], b = B->a[j], p = a + b;
            q->p = p;
            q->K = A->c[i] * B->c[j] * exp(-a * b / p * ab2) * sqrt(2.0) * pow(ERI_TEST_PI, 1.25) / p;
            for (int x = 0; x < 3; x++) {
                q->P[x] = (a * A->O[x] + b * B->O[x]) / p;
                q->PA[x] = q->P[x] - A->O[x];
                q->PB[x] = q->P[x] - B->O[x];
            }
            q->h = 0.5 / p;
        }
    return n;
}

static int ncart(int l) { return (l + 1) * (l + 2) / 2; }
static int blk_size(const int *l) { return ncart(l[0]) * ncart(l[1]) * ncart(l[2]) * ncart(l[3]); }

static double max_rel_diff(const double *x, const double *y, int n)
{
    return max_diff(x, y, (size_t)n) / max_abs(y, (size_t)n);
}

typedef struct {
    eri_prim bra[9], ket[9];
    int nb, nk;
    double AB[3], CD[3];
} quartet_in;

static void random_quartet(quartet_in *q)
{
    static const double origin[3] = {0.0, 0.0, 0.0};
    shell s[4];
    for (int k = 0; k < 4; k++) s[k] = random_shell(origin);
    q->nb = make_pair(&s[0], &s[1], q->bra, q->AB);
    q->nk = make_pair(&s[2], &s[3], q->ket, q->CD);
}

static void hgp_equals_md(void **state)
{
    (void)state;
    const double *tab = eri_boys_table();
    double worst = 0.0;
    for (int c = 0; c < NCLS; c++) {
        const gen_class *g = &classes[c];
        const int n = blk_size(g->l);
        for (int trial = 0; trial < 8; trial++) {
            quartet_in q;
            random_quartet(&q);
            double h[MAXBLK], m[MAXBLK];
            g->hgp(q.bra, q.nb, q.ket, q.nk, q.AB, q.CD, tab, h);
            g->md(q.bra, q.nb, q.ket, q.nk, q.AB, q.CD, tab, m);
            assert_true(max_abs(m, n) > 1e-12);
            const double r = max_rel_diff(h, m, n);
            if (r > 1e-13) fprintf(stderr, "class %d (%d%d|%d%d): rel diff %.3g\n", g->cls, g->l[0], g->l[1], g->l[2], g->l[3], r);
            assert_true(r <= 1e-13);
            worst = fmax(worst, r);
        }
    }
    printf("HGP vs MD, %d classes x 8 quartets: max rel diff %.2e\n", NCLS, worst);
}

/* (ab|cd) = (cd|ab): on classes with equal bra and ket pair classes, swapping the pairs
 * must transpose the block. */
static void bra_ket_swap(void **state)
{
    (void)state;
    const double *tab = eri_boys_table();
    for (int c = 0; c < NCLS; c++) {
        const gen_class *g = &classes[c];
        if (g->l[0] != g->l[2] || g->l[1] != g->l[3]) continue;
        const int nab = ncart(g->l[0]) * ncart(g->l[1]), n = nab * nab;
        quartet_in q;
        random_quartet(&q);
        double x[MAXBLK], y[MAXBLK], yt[MAXBLK];
        g->hgp(q.bra, q.nb, q.ket, q.nk, q.AB, q.CD, tab, x);
        g->hgp(q.ket, q.nk, q.bra, q.nb, q.CD, q.AB, tab, y);
        for (int i = 0; i < nab; i++)
            for (int j = 0; j < nab; j++) yt[i * nab + j] = y[j * nab + i];
        assert_true(max_rel_diff(x, yt, n) <= 1e-13);
    }
}

/* Single primitives on one centre: (ss|ss) = 2 pi^(5/2) / (p q sqrt(p+q)) c^4 (T = 0). */
static void ssss_closed_form(void **state)
{
    (void)state;
    shell s = {{0.3, -0.2, 0.1}, 1, {0.7, 0, 0}, {0.9, 0, 0}};
    quartet_in q;
    q.nb = make_pair(&s, &s, q.bra, q.AB);
    q.nk = make_pair(&s, &s, q.ket, q.CD);
    double h[1], m[1];
    eri_hgp_0000(q.bra, 1, q.ket, 1, q.AB, q.CD, eri_boys_table(), h);
    eri_md_0000(q.bra, 1, q.ket, 1, q.AB, q.CD, eri_boys_table(), m);
    const double p = 1.4, want = 2.0 * pow(ERI_TEST_PI, 2.5) / (p * p * sqrt(2.0 * p)) * pow(0.9, 4);
    assert_true(fabs(h[0] - want) <= 1e-14 * want);
    assert_true(fabs(m[0] - want) <= 1e-14 * want);
}

/* eri_boysv against eri_boys, lane by lane and bit for bit, across both branches (lanes
 * mixed) and the branch point itself. */
static void boys_lanes_exact(void **state)
{
    (void)state;
    const double *tab = eri_boys_table();
    for (int mmax = 0; mmax <= ERI_BOYS_MMAX; mmax++)
        for (int trial = 0; trial < 400; trial++) {
            eri_v T = ERI_V_ZERO;
            for (int l = 0; l < ERI_W; l++) T[l] = urand(0.0, 60.0);
            if (trial == 0) T[0] = 0.0, T[ERI_W - 1] = ERI_BOYS_TMAX;
            if (trial == 1) T[ERI_W - 1] = nextafter(ERI_BOYS_TMAX, 0.0);
            eri_v F[ERI_BOYS_MMAX + 1];
            eri_boysv(tab, mmax, T, F);
            for (int l = 0; l < ERI_W; l++) {
                double f[ERI_BOYS_MMAX + 1];
                eri_boys(tab, mmax, T[l], f);
                for (int m = 0; m <= mmax; m++) {
                    const double g = F[m][l];
                    assert_memory_equal(&g, &f[m], sizeof g);
                }
            }
        }
}

/* Every class: ERI_W random quartets with one contraction pattern (as in a segment), one
 * lane far from the others so that its Boys arguments take the asymptotic branch; each
 * lane's block equals eri_hgp_* on that lane's quartet bit for bit. */
static void hgp_lanes_exact(void **state)
{
    (void)state;
    const double *tab = eri_boys_table();
    static const double origin[3] = {0.0, 0.0, 0.0}, far[3] = {9.0, -7.0, 8.0};
    for (int c = 0; c < NCLS; c++) {
        const gen_class *g = &classes[c];
        const int n = blk_size(g->l);
        for (int trial = 0; trial < 3; trial++) {
            int np[4];
            for (int k = 0; k < 4; k++) np[k] = 1 + (int)urand(0.0, 3.0);
            quartet_in q[ERI_W];
            eri_primv bra[9], ket[9];
            eri_v AB[3] = {ERI_V_ZERO, ERI_V_ZERO, ERI_V_ZERO}, CD[3] = {ERI_V_ZERO, ERI_V_ZERO, ERI_V_ZERO};
            eri_v out[MAXBLK];
            for (int l = 0; l < ERI_W; l++) {
                shell s[4];
                for (int k = 0; k < 4; k++) s[k] = random_shell_n(k >= 2 && l == 1 ? far : origin, np[k]);
                q[l].nb = make_pair(&s[0], &s[1], q[l].bra, q[l].AB);
                q[l].nk = make_pair(&s[2], &s[3], q[l].ket, q[l].CD);
                for (int x = 0; x < 3; x++) AB[x][l] = q[l].AB[x], CD[x][l] = q[l].CD[x];
            }
            const eri_prim *src[ERI_W];
            for (int j = 0; j < q[0].nb; j++) {
                for (int l = 0; l < ERI_W; l++) src[l] = &q[l].bra[j];
                eri_primv_gather(&bra[j], src);
                bra[j].q = ERI_V_ZERO + INFINITY; /* no primitive-quartet screen */
            }
            for (int j = 0; j < q[0].nk; j++) {
                for (int l = 0; l < ERI_W; l++) src[l] = &q[l].ket[j];
                eri_primv_gather(&ket[j], src);
                ket[j].q = ERI_V_ZERO + INFINITY;
            }
            g->hgpv(bra, q[0].nb, ket, q[0].nk, AB, CD, tab, out);
            for (int l = 0; l < ERI_W; l++) {
                double want[MAXBLK], got[MAXBLK];
                g->hgp(q[l].bra, q[l].nb, q[l].ket, q[l].nk, q[l].AB, q[l].CD, tab, want);
                for (int i = 0; i < n; i++) got[i] = out[i][l];
                assert_true(max_abs(want, n) > 0.0);
                assert_memory_equal(got, want, sizeof(double) * (size_t)n);
            }
        }
    }
    printf("eri_hgpv_* (%d lanes) equal eri_hgp_* bit for bit on %d classes\n", ERI_W, NCLS);
}

static long dfact(int n) { return n <= 1 ? 1 : n * dfact(n - 2); }

/* C[m][c] for l <= 2 from the generated (l s|s s) transform (identity for s and p). */
static void sph_matrix(int l, double C[5][6])
{
    memset(C, 0, sizeof(double) * 30);
    if (l < 2) {
        for (int i = 0; i < ncart(l); i++) C[i][i] = 1.0;
        return;
    }
    for (int c = 0; c < 6; c++) {
        double e[6] = {0}, o[5];
        e[c] = 1.0;
        eri_sph_2000(e, o);
        for (int m = 0; m < 5; m++) C[m][c] = o[m];
    }
}

static void sph_d_orthonormal(void **state)
{
    (void)state;
    static const int d[6][3] = {{2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 2, 0}, {0, 1, 1}, {0, 0, 2}};
    double C[5][6], S[6][6];
    sph_matrix(2, C);
    /* overlap of x^l-normalised d Gaussians on one centre: prod (2n-1)!! / 3!! */
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            long num = 1;
            int odd = 0;
            for (int x = 0; x < 3; x++) {
                const int s = d[i][x] + d[j][x];
                odd |= s & 1;
                num *= dfact(s - 1);
            }
            S[i][j] = odd ? 0.0 : (double)num / 3.0;
        }
    double worst = 0.0;
    for (int m = 0; m < 5; m++)
        for (int n = 0; n < 5; n++) {
            double s = 0.0;
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) s += C[m][i] * S[i][j] * C[n][j];
            worst = fmax(worst, fabs(s - (m == n)));
        }
    printf("d: max |C S C^T - I| = %.2e\n", worst);
    assert_true(worst <= 1e-14);
    /* solid harmonics: Laplacian zero, i.e. xx + yy + zz coefficients sum to 0 */
    for (int m = 0; m < 5; m++) assert_true(fabs(C[m][0] + C[m][3] + C[m][5]) <= 1e-15);
    /* libint2's order m = -2..2 and signs: xy, yz, 2zz-xx-yy, xz, xx-yy */
    static const int only[5] = {1, 4, -1, 2, -1};
    for (int m = 0; m < 5; m++)
        if (only[m] >= 0)
            for (int c = 0; c < 6; c++) assert_true(c == only[m] ? C[m][c] > 0.0 : C[m][c] == 0.0);
    assert_true(C[2][5] > 0.0 && C[2][0] < 0.0 && C[2][0] == C[2][3] && C[2][1] == 0.0);
    assert_true(C[4][0] > 0.0 && C[4][3] == -C[4][0] && C[4][5] == 0.0 && C[4][1] == 0.0);
}

/* Every class's transform equals the explicit 4-index transform with the d matrix. */
static void sph_all_classes(void **state)
{
    (void)state;
    for (int c = 0; c < NCLS; c++) {
        const gen_class *g = &classes[c];
        int nc[4], ns[4];
        double C[4][5][6];
        for (int k = 0; k < 4; k++) {
            nc[k] = ncart(g->l[k]);
            ns[k] = g->l[k] >= 2 ? 2 * g->l[k] + 1 : nc[k];
            sph_matrix(g->l[k], C[k]);
        }
        double cart[MAXBLK], got[MAXBLK];
        for (int i = 0; i < blk_size(g->l); i++) cart[i] = urand(-1.0, 1.0);
        g->sph(cart, got);
        double worst = 0.0;
        for (int i = 0; i < ns[0]; i++)
            for (int j = 0; j < ns[1]; j++)
                for (int k = 0; k < ns[2]; k++)
                    for (int l = 0; l < ns[3]; l++) {
                        double s = 0.0;
                        for (int a = 0; a < nc[0]; a++)
                            for (int b = 0; b < nc[1]; b++)
                                for (int cc = 0; cc < nc[2]; cc++)
                                    for (int d = 0; d < nc[3]; d++)
                                        s += C[0][i][a] * C[1][j][b] * C[2][k][cc] * C[3][l][d] *
                                             cart[((a * nc[1] + b) * nc[2] + cc) * nc[3] + d];
                        worst = fmax(worst, fabs(s - got[((i * ns[1] + j) * ns[2] + k) * ns[3] + l]));
                    }
        assert_true(worst <= 1e-13);
    }
}

static void flop_model(void **state)
{
    (void)state;
    assert_int_equal(NCLS, ERI_NCLASS_CODE);
    assert_null(eri_class(-1));
    assert_null(eri_class(ERI_NCLASS));
    printf("class        HGP prim  HGP contr   MD prim\n");
    for (int c = 0; c < NCLS; c++) {
        const gen_class *g = &classes[c];
        const int cls = eri_quartet_class(eri_pair_class(g->l[0], g->l[1]), eri_pair_class(g->l[2], g->l[3]));
        assert_int_equal(g->cls, cls);
        const eri_class_info *ci = eri_class(cls);
        assert_non_null(ci);
        assert_true(ci->la == g->l[0] && ci->lb == g->l[1] && ci->lc == g->l[2] && ci->ld == g->l[3]);
        printf("(%d%d|%d%d) %12.0f %10.0f %9.0f\n", g->l[0], g->l[1], g->l[2], g->l[3], ci->flops_prim[0],
               ci->flops_contr[0], ci->flops_prim[1]);
        for (int p = 0; p < ERI_NPATH; p++) {
            assert_true(ci->flops_prim[p] > 0.0);
            const double f = eri_quartet_flops(cls, p, 2, 3, 0);
            assert_true(f == 6.0 * ci->flops_prim[p] + ci->flops_contr[p]);
            const double fp = eri_quartet_flops(cls, p, 2, 3, 1);
            const int has_d = g->l[0] >= 2 || g->l[1] >= 2 || g->l[2] >= 2 || g->l[3] >= 2;
            assert_true(has_d ? fp > f : fp == f);
        }
        for (int nb = 1; nb <= 9; nb++)
            for (int nk = 1; nk <= 9; nk++) {
                const double h = eri_quartet_flops(cls, ERI_PATH_HGP, nb, nk, 0);
                const double m = eri_quartet_flops(cls, ERI_PATH_MD, nb, nk, 0);
                assert_int_equal(eri_path_choose(cls, nb, nk, -1), m < h ? ERI_PATH_MD : ERI_PATH_HGP);
                assert_int_equal(eri_path_choose(cls, nb, nk, ERI_PATH_MD), ERI_PATH_MD);
                assert_int_equal(eri_path_choose(cls, nb, nk, ERI_PATH_HGP), ERI_PATH_HGP);
                assert_int_equal(eri_path_choose(cls, nb, nk, ERI_PATH_JENG), ERI_PATH_JENG);
                /* the J engine: per primitive quartet only, its transforms are per pair */
                const double fj = eri_je_flops_prim(g->l[0] + g->l[1], g->l[2] + g->l[3]);
                assert_true(fj > 0.0);
                assert_true(eri_quartet_flops(cls, ERI_PATH_JENG, nb, nk, 1) == nb * nk * fj);
            }
        /* digest mode's auto takes the J engine for the high classes only (measured rule) */
        const int L = g->l[0] + g->l[1] + g->l[2] + g->l[3];
        assert_int_equal(eri_path_digest_jeng(cls, ERI_JENG_LMIN), L >= ERI_JENG_LMIN);
        assert_int_equal(eri_path_digest_jeng(cls, ERI_JENG_LMIN_CUDA), L >= ERI_JENG_LMIN_CUDA);
    }
    /* (ss|ss): the two paths do the same work; a tie goes to HGP */
    assert_true(eri_quartet_flops(0, ERI_PATH_HGP, 1, 1, 0) == eri_quartet_flops(0, ERI_PATH_MD, 1, 1, 0));
    assert_int_equal(eri_path_choose(0, 1, 1, -1), ERI_PATH_HGP);
    assert_true(eri_path_digest_jeng(ERI_NCLASS_CODE - 1, ERI_JENG_LMIN) && !eri_path_digest_jeng(0, ERI_JENG_LMIN_CUDA));
    assert_int_equal(eri_jeng_lmin(SB_BACKEND_CUDA), ERI_JENG_LMIN_CUDA); /* (dd|dd) above, (ss|ss) never */
    assert_int_equal(eri_jeng_lmin(SB_BACKEND_OPENMP_SIMD), ERI_JENG_LMIN);
    /* the classes with an f shell: no generated code, numbered after it, the J engine only */
    int seen = 0;
    for (int pb = 0; pb < ERI_NPAIRCLASS; pb++)
        for (int pk = 0; pk <= pb; pk++) {
            const int cls = eri_quartet_class(pb, pk);
            const eri_class_info *ci = eri_class(cls);
            assert_non_null(ci);
            assert_int_equal(eri_pair_class(ci->la, ci->lb), pb);
            assert_int_equal(eri_pair_class(ci->lc, ci->ld), pk);
            const int f = ci->la == 3 || ci->lb == 3 || ci->lc == 3 || ci->ld == 3;
            assert_int_equal(eri_class_has_code(cls), !f);
            if (!f) continue;
            seen++;
            for (int forced = -1; forced <= ERI_PATH_JENG; forced++)
                assert_int_equal(eri_path_choose(cls, 2, 3, forced), ERI_PATH_JENG);
            assert_true(eri_path_digest_jeng(cls, ERI_JENG_LMIN) && eri_path_digest_jeng(cls, ERI_JENG_LMIN_CUDA));
            assert_true(eri_quartet_flops(cls, ERI_PATH_HGP, 2, 3, 1) == 0.0);
            assert_true(eri_quartet_flops(cls, ERI_PATH_JENG, 2, 3, 1) ==
                        6.0 * eri_je_flops_prim(ci->la + ci->lb, ci->lc + ci->ld));
        }
    assert_int_equal(seen, ERI_NCLASS - ERI_NCLASS_CODE);
    assert_int_equal(ERI_NCLASS - ERI_NCLASS_CODE, 34);
}

/* The shared-memory J-engine kernel's pieces (CUDA) on the host: eri_je_R with its entries
 * spread out (rs > 1) writes exactly what it writes packed, and eri_je_sweep, R entry by R
 * entry, gives both of eri_je_contract's products for every (la+lb, lc+ld) up to (ff|ff). */
static void je_sweep_equals_contract(void **state)
{
    (void)state;
    enum { RS = 3 };
    double F0[ERI_JE_LPAIR * 2 + 1], F1[ERI_JE_LPAIR * 2 + 1], R1[ERI_JE_NR], Rs[ERI_JE_NR * RS];
    for (int lab = 0; lab <= ERI_JE_LPAIR; lab++)
        for (int lcd = 0; lcd <= ERI_JE_LPAIR; lcd++) {
            const int L = lab + lcd, nb = ERI_NHERM(lab), nk = ERI_NHERM(lcd);
            for (int n = 0; n <= L; n++) F0[n] = F1[n] = urand(0.01, 1.0) / (1.0 + n);
            for (int k = 0; k < ERI_JE_NR * RS; k++) Rs[k] = NAN; /* only entries k RS are R's */
            const double a2 = -urand(0.2, 3.0), X = urand(-2, 2), Y = urand(-2, 2), Z = urand(-2, 2);
            eri_je_R(L, F0, a2, X, Y, Z, R1, 1);
            eri_je_R(L, F1, a2, X, Y, Z, Rs, RS);
            for (int k = 0; k < ERI_NHERM(L); k++) assert_memory_equal(&R1[k], &Rs[k * RS], sizeof(double));
            double Hb[ERI_JE_NH], Hk[ERI_JE_NH], W[ERI_JE_NH] = {0}, V[ERI_JE_NH] = {0};
            double hk[ERI_JE_NH], w[ERI_JE_NH] = {0}, v[ERI_JE_NH] = {0};
            for (int k = 0; k < nb; k++) Hb[k] = urand(-1, 1);
            for (int n = 0, k = 0; n <= lcd; n++)
                for (int m = 0; m < (n + 1) * (n + 2) / 2; m++, k++) Hk[k] = urand(-1, 1), hk[k] = n & 1 ? -Hk[k] : Hk[k];
            eri_je_contract(lab, lcd, R1, 1.0, Hb, Hk, W, V);
            eri_je_sweep(lcd, lab, Rs, RS, hk, w); /* the bra's potential */
            eri_je_sweep(lab, lcd, Rs, RS, Hb, v); /* the ket's, before its signs */
            assert_true(max_rel_diff(w, W, nb) < 1e-13);
            assert_true(max_rel_diff(v, V, nk) < 1e-13);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hgp_equals_md),    cmocka_unit_test(bra_ket_swap),
        cmocka_unit_test(ssss_closed_form), cmocka_unit_test(sph_d_orthonormal),
        cmocka_unit_test(sph_all_classes),  cmocka_unit_test(flop_model),
        cmocka_unit_test(boys_lanes_exact), cmocka_unit_test(hgp_lanes_exact),
        cmocka_unit_test(je_sweep_equals_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
