/* eri_brush pair families (families.c), which the CUDA backend computes together: every pair
 * in exactly one family of pairs with the same shell sets; each member's kept primitive pairs
 * inside its family's list, with the member's own K; and the member quartets the GPU digests
 * (family quartets from eri_worklist_build, member pairs above the screen, each unordered
 * pair once within a family: the rule of fam_quartet in cuda.cu) exactly the quartets of the
 * ordinary worklist. 4 waters (oxygen's 1s and 2s share cc-pVDZ's exponents) and benzene. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "sb.h"

typedef struct {
    eri_molecule mol;
    eri_basis bas;
    eri_pairs ps;
    eri_families f;
} fcase;

static int fcase_make(fcase *c, const char *mol, const char *basis)
{
    char path[512], rel[64];
    memset(c, 0, sizeof *c);
    int rc = mol ? (snprintf(rel, sizeof rel, "molecules/%s.xyz", mol), eri_data_path(rel, path, sizeof path) ||
                                                                             eri_read_xyz(path, &c->mol))
                 : eri_water_cluster(4, 7, &c->mol);
    if (rc) return -1;
    snprintf(rel, sizeof rel, "basis/%s.g94", basis);
    if (eri_data_path(rel, path, sizeof path) || eri_basis_build(path, &c->mol, 1, &c->bas)) return -1;
    if (eri_pairs_build(&c->bas, ERI_PRIM_SCREEN_DEFAULT, &c->ps)) return -1;
    return eri_families_build(&c->bas, &c->ps, &c->f) ? -1 : 0;
}

static void fcase_free(fcase *c)
{
    eri_families_free(&c->f);
    eri_pairs_free(&c->ps);
    eri_basis_free(&c->bas);
    eri_molecule_free(&c->mol);
}

static void check_members(const fcase *c)
{
    const eri_families *f = &c->f;
    int *seen = calloc((size_t)c->ps.npair, sizeof(int));
    assert_non_null(seen);
    for (long k = 0; k < f->ps.npair; k++) {
        const eri_pair *fp = &f->ps.pair[k];
        assert_true(fp->nmem >= 1 && fp->nmem <= ERI_FAM_MAXMEM);
        double smax = 0;
        for (int m = 0; m < ERI_FAM_MAXMEM; m++) {
            const int s = f->mem[ERI_FAM_MAXMEM * k + m];
            if (m >= fp->nmem) {
                assert_int_equal(s, -1);
                for (int i = 0; i < fp->npp_full; i++) assert_true(f->K[ERI_FAM_MAXMEM * (fp->pp0 + i) + m] == 0.0);
                continue;
            }
            const eri_pair *p = &c->ps.pair[s];
            seen[s]++;
            assert_int_equal(p->cls, fp->cls);
            assert_int_equal(p->npp_full, fp->npp_full);
            assert_int_equal(c->bas.sh[p->a].atom, c->bas.sh[fp->a].atom);
            assert_int_equal(c->bas.sh[p->b].atom, c->bas.sh[fp->b].atom);
            if (p->schwarz > smax) smax = p->schwarz;
            /* each kept primitive pair of the member is among the family's computed ones,
             * with the member's K and the same product Gaussian */
            for (int i = 0; i < p->npp; i++) {
                const eri_prim *x = &c->ps.prim[p->pp0 + i];
                int at = -1;
                for (int j = 0; j < fp->npp; j++)
                    if (f->ps.ij[fp->pp0 + j] == c->ps.ij[p->pp0 + i]) at = j;
                assert_true(at >= 0);
                const eri_prim *y = &f->ps.prim[fp->pp0 + at];
                assert_true(f->K[ERI_FAM_MAXMEM * (fp->pp0 + at) + m] == x->K);
                assert_true(y->p == x->p && y->P[0] == x->P[0] && y->P[1] == x->P[1] && y->P[2] == x->P[2]);
                assert_true(y->PA[0] == x->PA[0] && y->PB[2] == x->PB[2]);
            }
        }
        assert_true(fp->schwarz == smax);
    }
    for (long i = 0; i < c->ps.npair; i++) assert_int_equal(seen[i], 1);
    free(seen);
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}
static uint64_t unordered(int P, int Q) { return P > Q ? (uint64_t)P << 32 | (uint64_t)Q : (uint64_t)Q << 32 | (uint64_t)P; }

static void check_quartets(const fcase *c, double screen)
{
    eri_worklist w, fw;
    assert_int_equal(eri_worklist_build(&c->bas, &c->ps, screen, &w), SB_OK);
    assert_int_equal(eri_worklist_build(&c->bas, &c->f.ps, screen, &fw), SB_OK);
    uint64_t *a = malloc(sizeof(uint64_t) * (size_t)(w.nq + 1));
    uint64_t *b = malloc(sizeof(uint64_t) * (size_t)(w.nq + 1));
    assert_non_null(a), assert_non_null(b);
    for (long i = 0; i < w.nq; i++) a[i] = unordered(w.q[i].P, w.q[i].Q);
    long n = 0;
    for (long i = 0; i < fw.nq; i++) {
        const int F = fw.q[i].P, G = fw.q[i].Q;
        const int *mf = c->f.mem + ERI_FAM_MAXMEM * F, *mg = c->f.mem + ERI_FAM_MAXMEM * G;
        for (int x = 0; x < c->f.ps.pair[F].nmem; x++)
            for (int y = 0; y < c->f.ps.pair[G].nmem; y++) {
                if (c->ps.pair[mf[x]].schwarz * c->ps.pair[mg[y]].schwarz < screen || (F == G && x < y)) continue;
                assert_true(n < w.nq); /* no more member quartets than quartets */
                b[n++] = unordered(mf[x], mg[y]);
            }
    }
    assert_int_equal(n, w.nq);
    qsort(a, (size_t)n, sizeof *a, cmp_u64);
    qsort(b, (size_t)n, sizeof *b, cmp_u64);
    for (long i = 0; i < n; i++) assert_true(a[i] == b[i]);
    assert_true(fw.nq < w.nq); /* shared exponents: fewer family quartets than quartets */
    free(a), free(b);
    eri_worklist_free(&w);
    eri_worklist_free(&fw);
}

static void test_water_cluster(void **state)
{
    (void)state;
    fcase c;
    if (fcase_make(&c, NULL, "cc-pvdz")) {
        fcase_free(&c);
        skip();
    }
    assert_int_equal(c.f.maxmem, 4); /* O 1s, 2s x O 1s, 2s of another water */
    check_members(&c);
    check_quartets(&c, 1e-12);
    check_quartets(&c, 1e-7);
    check_quartets(&c, 0.0);
    fcase_free(&c);
}

static void test_benzene(void **state)
{
    (void)state;
    fcase c;
    if (fcase_make(&c, "benzene", "cc-pvdz")) {
        fcase_free(&c);
        skip();
    }
    check_members(&c);
    check_quartets(&c, 1e-12);
    fcase_free(&c);
}

/* def2-SVP is segmented: no two shells share exponents, every family is one pair, unchanged */
static void test_segmented_basis(void **state)
{
    (void)state;
    fcase c;
    if (fcase_make(&c, NULL, "def2-svp")) {
        fcase_free(&c);
        skip();
    }
    assert_int_equal(c.f.maxmem, 1);
    assert_int_equal(c.f.ps.npair, c.ps.npair);
    check_members(&c);
    fcase_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_water_cluster),
        cmocka_unit_test(test_benzene),
        cmocka_unit_test(test_segmented_basis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
