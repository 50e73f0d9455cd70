/* Scalar reference for shell quartets: Obara-Saika vertical recurrence on every primitive
 * quartet, contraction, horizontal transfer on bra and ket, then Cartesian -> pure.
 * Written for clarity with generic loops over Cartesian triples, independently of the
 * generated class code (the validation compares the two). Also eri_ops_reference: the
 * worklist on one core through this routine. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/boys.h"
#include "eri_brush/digest.h"
#include "eri_brush/eri.h"
#include "sb.h"
#include "sb_omp.h"

#define RL 3                   /* highest shell l served */
_Static_assert(RL >= ERI_LMAX, "the reference serves every l a basis may hold");
#define RE (2 * RL)            /* highest l on one side of the vertical recurrence */
#define TWO_PI_2_5 34.986836655249725693 /* 2 pi^(5/2) */
#define NTRI(n) (((n) + 1) * ((n) + 2) * ((n) + 3) / 6) /* triples of total <= n */

/* Triples are numbered by total n, then in libint2 order within n (lx = n..0, then
 * ly = n-lx..0), so the triples of total l from index NTRI(l-1) on are a shell's components. */
static int tri(int x, int y, int z)
{
    const int n = x + y + z, i = n - x;
    return n * (n + 1) * (n + 2) / 6 + i * (i + 1) / 2 + z;
}

static int trip[NTRI(RE)][3];
/* Real solid harmonics: sph[l][m + l][cartesian component] (l >= 2 used). */
static double sph[RL + 1][2 * RL + 1][NTRI(RL)];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static double fact(int n) { return n <= 1 ? 1.0 : n * fact(n - 1); }
static double dfact(int n) { return n <= 1 ? 1.0 : n * dfact(n - 2); } /* (-1)!! = 1 */
static double binom(int n, int k) { return fact(n) / (fact(k) * fact(n - k)); }

/* S_lm = r^l P_l^|m|(cos theta) {cos, sin}(|m| phi) without the Condon-Shortley phase,
 * expanded in monomials (Schlegel & Frisch's real solid harmonics), then scaled to unit
 * norm in the metric of the x^l-normalised Cartesian functions:
 *   <x^a y^b z^c | x^d y^e z^f> = (a+d-1)!! (b+e-1)!! (c+f-1)!! / (2l-1)!!   (sums even). */
static void sph_build(int l)
{
    const int nc = ERI_NCART(l);
    for (int m = -l; m <= l; m++) {
        const int am = m < 0 ? -m : m;
        double u[NTRI(RL)] = {0};
        for (int k = 0; 2 * k <= l - am; k++) {
            const double ck = (k % 2 ? -1.0 : 1.0) * binom(l, k) * binom(2 * l - 2 * k, l) *
                              fact(l - 2 * k) / fact(l - 2 * k - am);
            const int zp = l - 2 * k - am;
            for (int a = 0; a <= k; a++) /* r^2k = sum k!/(a!b!c!) x^2a y^2b z^2c */
                for (int b = 0; a + b <= k; b++) {
                    const int c = k - a - b;
                    const double cr = fact(k) / (fact(a) * fact(b) * fact(c));
                    for (int t = 0; t <= am; t++) { /* (x + iy)^|m|: Re for m >= 0, Im for m < 0 */
                        if ((t % 2 == 0) != (m >= 0)) continue;
                        const double sg = ((m >= 0 ? t : t - 1) / 2) % 2 ? -1.0 : 1.0;
                        const int lx = 2 * a + am - t, ly = 2 * b + t, lz = 2 * c + zp;
                        u[tri(lx, ly, lz) - NTRI(l - 1)] += ck * cr * sg * binom(am, t);
                    }
                }
        }
        double nrm = 0;
        for (int i = 0; i < nc; i++)
            for (int j = 0; j < nc; j++) {
                const int *p = trip[NTRI(l - 1) + i], *q = trip[NTRI(l - 1) + j];
                if ((p[0] + q[0]) % 2 || (p[1] + q[1]) % 2 || (p[2] + q[2]) % 2) continue;
                nrm += u[i] * u[j] * dfact(p[0] + q[0] - 1) * dfact(p[1] + q[1] - 1) *
                       dfact(p[2] + q[2] - 1) / dfact(2 * l - 1);
            }
        for (int i = 0; i < nc; i++) sph[l][m + l][i] = u[i] / sqrt(nrm);
    }
}

static void ref_init(void)
{
    for (int n = 0; n <= RE; n++)
        for (int x = n; x >= 0; x--)
            for (int y = n - x; y >= 0; y--) {
                int *t = trip[tri(x, y, n - x - y)];
                t[0] = x, t[1] = y, t[2] = n - x - y;
            }
    for (int l = 2; l <= RL; l++) sph_build(l);
}

/* Direction along which a triple is reached from a lower one (its first nonzero axis). */
static int tri_dir(const int *t) { return t[0] ? 0 : t[1] ? 1 : 2; }

static int tri_minus(const int *t, int i, int k)
{
    int s[3] = {t[0], t[1], t[2]};
    s[i] -= k;
    return s[i] < 0 ? -1 : tri(s[0], s[1], s[2]);
}

static int tri_plus(const int *t, int i)
{
    int s[3] = {t[0], t[1], t[2]};
    s[i]++;
    return tri(s[0], s[1], s[2]);
}

/* C[e][f] += (e0|f0) over all primitive quartets; e on A (total <= E), f on C (<= Fk). */
static void vrr_contract(const eri_shell *A, const eri_shell *B, const eri_shell *Cs,
                         const eri_shell *D, int la, int E, int Fk, double *V, double *C)
{
    const int L = E + Fk, nE = NTRI(E), nF = NTRI(Fk);
    const double *tab = eri_boys_table();
    double AB2 = 0, CD2 = 0;
    for (int i = 0; i < 3; i++) {
        AB2 += (A->O[i] - B->O[i]) * (A->O[i] - B->O[i]);
        CD2 += (Cs->O[i] - D->O[i]) * (Cs->O[i] - D->O[i]);
    }
#define VI(m, e, f) V[((size_t)(e) * nF + (f)) * (L + 1) + (m)] /* m innermost: contiguous */
    for (int ia = 0; ia < A->nprim; ia++)
        for (int ib = 0; ib < B->nprim; ib++) {
            const double a = A->alpha[ia], b = B->alpha[ib], p = a + b;
            const double Kab = A->coef[ia] * B->coef[ib] * exp(-a * b / p * AB2);
            double P[3], PA[3];
            for (int i = 0; i < 3; i++) {
                P[i] = (a * A->O[i] + b * B->O[i]) / p;
                PA[i] = P[i] - A->O[i];
            }
            for (int ic = 0; ic < Cs->nprim; ic++)
                for (int id = 0; id < D->nprim; id++) {
                    const double c = Cs->alpha[ic], d = D->alpha[id], q = c + d;
                    const double Kcd = Cs->coef[ic] * D->coef[id] * exp(-c * d / q * CD2);
                    double Q[3], QC[3], PQ[3], PQ2 = 0;
                    for (int i = 0; i < 3; i++) {
                        Q[i] = (c * Cs->O[i] + d * D->O[i]) / q;
                        QC[i] = Q[i] - Cs->O[i];
                        PQ[i] = P[i] - Q[i];
                        PQ2 += PQ[i] * PQ[i];
                    }
                    const double rho = p * q / (p + q);
                    const double pre = TWO_PI_2_5 / (p * q * sqrt(p + q)) * Kab * Kcd;
                    double F[4 * RL + 1];
                    eri_boys(tab, L, rho * PQ2, F);
                    for (int m = 0; m <= L; m++) VI(m, 0, 0) = pre * F[m];
                    /* bra: (e+1_i 0|00) from (e|, (e-1_i| */
                    for (int e = 1; e < nE; e++) {
                        const int *t = trip[e], i = tri_dir(t), n = t[0] + t[1] + t[2];
                        const int e1 = tri_minus(t, i, 1), e2 = tri_minus(t, i, 2);
                        const double wp = -rho / p * PQ[i], h = (t[i] - 1) / (2 * p);
                        for (int m = 0; m <= L - n; m++) {
                            double v = PA[i] * VI(m, e1, 0) + wp * VI(m + 1, e1, 0);
                            if (e2 >= 0) v += h * (VI(m, e2, 0) - rho / p * VI(m + 1, e2, 0));
                            VI(m, e, 0) = v;
                        }
                    }
                    /* ket: (e0|f+1_j 0) from (e|f, (e|f-1_j, (e-1_j|f */
                    for (int f = 1; f < nF; f++) {
                        const int *s = trip[f], j = tri_dir(s), nf = s[0] + s[1] + s[2];
                        const int f1 = tri_minus(s, j, 1), f2 = tri_minus(s, j, 2);
                        const double wq = rho / q * PQ[j], h = (s[j] - 1) / (2 * q);
                        /* (e|f) feeds the targets (|e| >= la, |f| >= lc) only through
                         * (e-1|f-1) steps, so lower e are not needed at high f */
                        const int emin = la - (Fk - nf) > 0 ? NTRI(la - (Fk - nf) - 1) : 0;
                        for (int e = emin; e < nE; e++) {
                            const int *t = trip[e], ne = t[0] + t[1] + t[2];
                            const int e1 = tri_minus(t, j, 1);
                            const double g = t[j] / (2 * (p + q));
                            for (int m = 0; m <= L - ne - nf; m++) {
                                double v = QC[j] * VI(m, e, f1) + wq * VI(m + 1, e, f1);
                                if (f2 >= 0) v += h * (VI(m, e, f2) - rho / q * VI(m + 1, e, f2));
                                if (e1 >= 0) v += g * VI(m + 1, e1, f1);
                                VI(m, e, f) = v;
                            }
                        }
                    }
                    for (int e = NTRI(la - 1); e < nE; e++)
                        for (int f = 0; f < nF; f++) C[e * nF + f] += VI(0, e, f);
                }
        }
#undef VI
}

/* (a b| from (e 0| for e of total la .. la+lb: (a, b+1_i| = (a+1_i, b| + AB_i (a, b|.
 * in[e * stride], out[(ca * ncart(lb) + cb) * stride], for `cols` columns side by side. */
static void hrr(int la, int lb, const double *AB, const double *in, double *out, int cols,
                double *H)
{
    const int E = la + lb, nE = NTRI(E), nB = NTRI(lb), nca = ERI_NCART(la), ncb = ERI_NCART(lb);
    for (int col = 0; col < cols; col++) {
        for (int e = 0; e < nE; e++) H[e] = in[(size_t)e * cols + col];
        for (int bi = 1; bi < nB; bi++) {
            const int *t = trip[bi], i = tri_dir(t), nb = t[0] + t[1] + t[2];
            const int b1 = tri_minus(t, i, 1);
            for (int a = NTRI(la - 1); a < NTRI(E - nb); a++)
                H[bi * nE + a] = H[b1 * nE + tri_plus(trip[a], i)] + AB[i] * H[b1 * nE + a];
        }
        for (int ca = 0; ca < nca; ca++)
            for (int cb = 0; cb < ncb; cb++)
                out[((size_t)ca * ncb + cb) * cols + col] =
                    H[(NTRI(lb - 1) + cb) * nE + NTRI(la - 1) + ca];
    }
}

/* Transforms axis k of a [pre][n][post] block from Cartesian to pure (n -> 2l+1). */
static void to_pure(int l, size_t pre, size_t post, const double *in, double *out)
{
    const int nc = ERI_NCART(l), ns = ERI_NSPH(l);
    for (size_t i = 0; i < pre; i++)
        for (int m = 0; m < ns; m++)
            for (size_t j = 0; j < post; j++) {
                double s = 0;
                for (int c = 0; c < nc; c++) s += sph[l][m][c] * in[(i * nc + c) * post + j];
                out[(i * ns + m) * post + j] = s;
            }
}

void eri_ref_sph_matrix(int l, double *S)
{
    pthread_once(&init_once, ref_init);
    const int nc = ERI_NCART(l);
    for (int m = 0; m < 2 * l + 1; m++)
        for (int c = 0; c < nc; c++) S[m * nc + c] = l >= 2 && l <= RL ? sph[l][m][c] : (m == c);
}

void eri_ref_quartet(const eri_basis *bas, int a, int b, int c, int d, double *out)
{
    pthread_once(&init_once, ref_init);
    const eri_shell *s[4] = {&bas->sh[a], &bas->sh[b], &bas->sh[c], &bas->sh[d]};
    for (int k = 0; k < 4; k++)
        if (s[k]->l < 0 || s[k]->l > RL) {
            sb_error("eri_ref_quartet: l = %d beyond the reference's %d", s[k]->l, RL);
            abort();
        }
    const int la = s[0]->l, lb = s[1]->l, lc = s[2]->l, ld = s[3]->l;
    const int E = la + lb, Fk = lc + ld, nE = NTRI(E), nF = NTRI(Fk);
    const int nab = ERI_NCART(la) * ERI_NCART(lb), ncd = ERI_NCART(lc) * ERI_NCART(ld);
    const size_t nV = (size_t)(E + Fk + 1) * nE * nF, nC = (size_t)nE * nF;
    const size_t nH = (size_t)NTRI(RL) * NTRI(RE);
    const size_t nK = (size_t)nab * ncd;
    double *V = malloc((nV + nC + (size_t)nab * nF + nH + 2 * nK) * sizeof *V);
    if (!V) {
        sb_error("eri_ref_quartet: out of memory");
        abort();
    }
    double *C = V + nV, *Bra = C + nC, *H = Bra + (size_t)nab * nF, *X = H + nH, *Y = X + nK;
    memset(C, 0, nC * sizeof *C);
    vrr_contract(s[0], s[1], s[2], s[3], la, E, Fk, V, C);

    double AB[3], CD[3];
    for (int i = 0; i < 3; i++) AB[i] = s[0]->O[i] - s[1]->O[i], CD[i] = s[2]->O[i] - s[3]->O[i];
    hrr(la, lb, AB, C, Bra, nF, H); /* Bra[ab][f] */
    for (int r = 0; r < nab; r++) hrr(lc, ld, CD, Bra + (size_t)r * nF, X + (size_t)r * ncd, 1, H);

    /* Cartesian [a][b][c][d] -> pure per shell, ping-ponging between X and Y */
    int n[4];
    for (int k = 0; k < 4; k++) n[k] = ERI_NCART(s[k]->l);
    double *cur = X, *nxt = Y;
    for (int k = 0; k < 4; k++) {
        if (!(s[k]->pure && s[k]->l >= 2)) continue;
        size_t pre = 1, post = 1;
        for (int j = 0; j < k; j++) pre *= (size_t)n[j];
        for (int j = k + 1; j < 4; j++) post *= (size_t)n[j];
        to_pure(s[k]->l, pre, post, cur, nxt);
        n[k] = ERI_NSPH(s[k]->l);
        double *t = cur;
        cur = nxt, nxt = t;
    }
    memcpy(out, cur, (size_t)n[0] * n[1] * n[2] * n[3] * sizeof *out);
    free(V);
}

/* ---- eri_ops_reference ---- */

static int ref_prepare(eri_batch *bt)
{
    (void)bt;
    return SB_OK;
}

static int ref_run(eri_batch *bt)
{
    const eri_basis *bas = bt->bas;
    const eri_pairs *ps = bt->ps;
    const eri_worklist *w = bt->w;
    const int nbf = bas->nbf;
    int maxn = 1;
    for (int s = 0; s < bas->nshell; s++)
        if (bas->sh[s].nbf > maxn) maxn = bas->sh[s].nbf;
    double *I = malloc((size_t)maxn * maxn * maxn * maxn * sizeof *I);
    if (!I) {
        sb_error("eri reference: out of memory");
        return SB_EXIT_RUNTIME;
    }
    if (bt->mode == ERI_MODE_DIGEST) memset(bt->M, 0, (size_t)nbf * nbf * sizeof *bt->M);
    bt->threads = 1;
    for (int g = 0; g < w->nseg; g++) {
        const double t0 = sb_clock_seconds();
        long q0, q1;
        eri_share_cut(bt->share, w->seg[g].cls, w->seg[g].q0, w->seg[g].q1, &q0, &q1);
        for (long i = q0; i < q1; i++) {
            const int P = w->q[i].P, Q = w->q[i].Q;
            const int a = ps->pair[P].a, b = ps->pair[P].b, c = ps->pair[Q].a, d = ps->pair[Q].b;
            const eri_shell *sa = &bas->sh[a], *sb = &bas->sh[b], *sc = &bas->sh[c], *sd = &bas->sh[d];
            eri_ref_quartet(bas, a, b, c, d, I);
            if (bt->mode == ERI_MODE_DIGEST)
                eri_digest_block(I, sa->nbf, sb->nbf, sc->nbf, sd->nbf, sa->bf0, sb->bf0, sc->bf0,
                                 sd->bf0, a == b ? 1.0 : 2.0, c == d ? 1.0 : 2.0, P != Q, bt->D, nbf,
                                 bt->M);
            else
                memcpy(bt->store + w->store_off[i], I,
                       (size_t)(w->store_off[i + 1] - w->store_off[i]) * sizeof *I);
        }
        if (bt->seg_seconds) bt->seg_seconds[g] = sb_clock_seconds() - t0;
    }
    free(I);
    return SB_OK;
}

static int ref_download(eri_batch *bt)
{
    (void)bt; /* results are on the host already */
    return SB_OK;
}

static void ref_release(eri_batch *bt) { (void)bt; }

const eri_ops eri_ops_reference = {ref_prepare, ref_run, ref_download, ref_release, NULL, NULL, NULL};
