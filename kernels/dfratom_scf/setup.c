/* dfratom_scf: parameters -> atom, basis and SCF options. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"

/* c: at the top, round-off. The small components follow from a cancellation of terms of order c
 * down to order 1/c, so the eigenvectors carry round-off of about eps c^2 relative, and the SCF's
 * density changes stall there: Xe K = 30 at 2.4e-9 with c = 1e3 (the LL threshold is 1e-8), Ne
 * K = 12 at 1.6e-8 and Xe at 5.9e-8 with c = 1e4, none converged at 3e4. The c -> infinity limit
 * is hamiltonian=schrodinger, exactly. At the bottom, Z < c (dfr_zc_check). */
const dfr_range dfr_range_c = {10.0, 1e3};
const dfr_range dfr_range_alpha = {1e-6, 1e3};
const dfr_range dfr_range_beta = {1.5, 4.0}; /* the bottom: reach_check */
const dfr_range dfr_range_gamma = {-0.9, 100.0};
/* gamma >= -0.9 keeps 1 + gamma (k/K)^delta >= 0.1 for delta >= 0; job=bsize's optimum often has
 * delta < 0 (BSIZE.md), so delta reaches as far down as up, and a sequence whose exponents do not
 * increase is refused by what it gives (dfr_wtbs_bad_k) */
const dfr_range dfr_range_delta = {-100.0, 100.0};
const dfr_range dfr_range_A = {1.0, 300.0};
const dfr_range dfr_range_bsize_tol = {1e-12, 1e-2};
/* bsize_max: the start basis runs from alpha = 0.05 at ratio 1.8 or more, and a candidate's exponents
 * stay below 1e14 bohr^-2 (bsize.c, usable()); past 60 functions the start basis itself passes it
 * (He: no start SCF from bsize_max = 62) */
const dfr_range dfr_range_bsize_max = {2.0, 60.0};
const char *const dfr_ham_names[] = {[DFR_DIRAC] = "dirac", [DFR_SCHRODINGER] = "schrodinger", NULL};
const char *const dfr_nucleus_names[] = {[DFR_NUC_POINT] = "point", [DFR_NUC_GAUSS] = "gauss", NULL};

/* At Z >= c a point nucleus binds no 1s1/2 (gamma = sqrt(1 - Z^2/c^2) is not real), and the
 * Gaussian one binds it by c^2 or more (Xe53+, K = 30: from Z/c = 1.08 on), below -c^2, the line
 * by which the no-collapse check counts the positronic states. */
int dfr_zc_check(double c, const dfr_atom *a)
{
    if (a->Z < c) return SB_OK;
    sb_error("dfratom_scf: --param c=%g is not above Z = %d of %s; accepted with the Dirac Hamiltonian: Z < c <= %g "
             "(at Z >= c a point nucleus binds no 1s1/2, a Gaussian one binds it below -c^2)",
             c, a->Z, a->symbol, dfr_range_c.hi);
    return SB_EXIT_USAGE;
}

/* A ratio below 1.8 makes neighbouring functions so alike that the SCF's densities stall above
 * their thresholds unless the s sequence also reaches far into the core: in K = 8 .. 29, beta 1.5
 * and 1.6 did not converge where the largest exponent stayed below 7 Z^2 (Be K = 20: 111 bohr^-2,
 * Ne K = 20), and converged from 43 Z^2 (Ne K = 29, Be K = 25), as every basis at 1.8 did. Below
 * 1.5 even that fails (Be K = 30 at 1.465, reaching 199 Z^2). */
#define DFR_NARROW_BETA 1.8
#define DFR_NARROW_REACH 40.0
static int reach_check(const dfr_wtbs *w, int Z, const char *file)
{
    const int last = w->start[0] + w->n[0] - 1;
    const double top = dfr_wtbs_zeta(w, last), need = DFR_NARROW_REACH * Z * Z;
    if (w->beta >= DFR_NARROW_BETA || top >= need) return SB_OK;
    char from[224];
    snprintf(from, sizeof from, file ? "basis=%s: \"beta\"" : "--param beta", file);
    sb_error("dfratom_scf: %s = %g with s up to zeta_%d = %g bohr^-2 = %.3g Z^2; accepted below beta %g: s functions "
             "reaching %g Z^2 = %g bohr^-2 (else the SCF stalls: raise beta, alpha or SIZE)",
             from, w->beta, last, top, top / ((double)Z * Z), DFR_NARROW_BETA, DFR_NARROW_REACH, need);
    return SB_EXIT_USAGE;
}

/* c, with the reason for its upper end where a value passes it */
static int param_c(sb_params *p, double *c)
{
    const char *s = sb_param_string(p, "c");
    char *end;
    if (s && *s && strtod(s, &end) > dfr_range_c.hi && !*end) {
        sb_error("dfratom_scf: --param c=%s is out of range; accepted: a number in [%g, %g] (past %g the Dirac SCF's "
                 "round-off, about eps c^2, stalls its 1e-8 density threshold; hamiltonian=schrodinger is c -> "
                 "infinity exactly)", s, dfr_range_c.lo, dfr_range_c.hi, dfr_range_c.hi);
        return SB_EXIT_USAGE;
    }
    return sb_param_double(p, "c", 137.03599976, dfr_range_c.lo, dfr_range_c.hi, c);
}

/* Default ratio: the K exponents from alpha up to 4000 Z^2, about where the 1s of a Gaussian
 * nucleus stops gaining (Xe, K=30, alpha 0.05: 1.94) */
static double auto_beta(double alpha, int Z, int K)
{
    double b = pow(4000.0 * Z * Z / alpha, 1.0 / (K - 1));
    return fmin(fmax(b, dfr_range_beta.lo), dfr_range_beta.hi);
}

/* basis=FILE (basis_file.c): the whole basis from a file job=bsize wrote */
static int read_basis(const char *file, dfr_case *d)
{
    FILE *fp = fopen(file, "rb");
    if (!fp) {
        sb_error("dfratom_scf: --param basis=%s: cannot open the file", file);
        return SB_EXIT_USAGE;
    }
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    int whole = feof(fp);
    fclose(fp);
    text[n] = 0;
    if (!whole) {
        sb_error("dfratom_scf: --param basis=%s: larger than %zu bytes, not a basis file", file, sizeof text - 1);
        return SB_EXIT_USAGE;
    }
    d->basis_file = 1;
    return dfr_basis_read(text, file, d, &d->w, &d->basis_energy, d->basis_tol_ref);
}

/* job=bsize's settings; the reference resolved (bsize_ref=auto: the numerical HF limit in the
 * nonrelativistic mode, the optimised start basis with the Dirac Hamiltonian) */
static int parse_bsize(sb_params *p, dfr_case *d)
{
    dfr_bsize_opts *b = &d->bz;
    long evals, groups, steps, local, warm, side, stall;
    int rc;
    b->max = d->w.K;
    if ((rc = sb_param_double(p, "bsize_tol", 5e-8, dfr_range_bsize_tol.lo, dfr_range_bsize_tol.hi, &b->tol)) ||
        (rc = sb_param_long(p, "bsize_evals", 60, 10, 10000, &evals)) ||
        (rc = sb_param_long(p, "bsize_groups", 4, 1, DFR_BSIZE_GROUPS_MAX, &groups)) ||
        (rc = sb_param_long(p, "bsize_steps", DFR_BSIZE_STEPS, 1, DFR_BSIZE_STEPS, &steps)) ||
        (rc = sb_param_long(p, "bsize_local", 1, 0, 1, &local)) ||
        (rc = sb_param_long(p, "bsize_warm", 1, 0, 1, &warm)) ||
        (rc = sb_param_long(p, "bsize_side", 1, 0, 1, &side)) ||
        (rc = sb_param_long(p, "bsize_stall", DFR_BSIZE_STALL, 0, 10000, &stall)))
        return rc;
    /* a converging SCF halves its convergence ratio within four iterations (BSIZE.md): a
     * window near that would give up on ones that converge */
    if (stall > 0 && stall < DFR_BSIZE_STALL_MIN) {
        sb_error("dfratom_scf: --param bsize_stall=%ld: accepted 0 (only maxit ends an SCF) or %d .. 10000 "
                 "iterations",
                 stall, DFR_BSIZE_STALL_MIN);
        return SB_EXIT_USAGE;
    }
    d->o.stall = (int)stall;
    b->evals = (int)evals, b->groups = (int)groups, b->steps = (int)steps, b->local_check = (int)local;
    b->warm = (int)warm, b->side = (int)side;
    const char *out = sb_param_string(p, "bsize_out");
    if (out && strlen(out) >= sizeof b->out) {
        sb_error("dfratom_scf: --param bsize_out=%s: path longer than %zu characters", out, sizeof b->out - 1);
        return SB_EXIT_USAGE;
    }
    snprintf(b->out, sizeof b->out, "%s", out ? out : "");
    for (int s = 0; s < DFR_NSYM; ++s)
        if (d->atom.nocc[s] > b->max) {
            sb_error("dfratom_scf: --param bsize_max=%d is below the %d occupied %c shells of %s (kappa=%d): accepted "
                     "%d .. %d", b->max, d->atom.nocc[s], "spdf"[dfr_l(dfr_kappa[s])], d->atom.symbol, dfr_kappa[s],
                     d->atom.nocc[s], DFR_MAXN);
            return SB_EXIT_USAGE;
        }
    const char *ref = sb_param_string(p, "bsize_ref");
    const double limit = dfr_hf_limit(d);
    char *end = NULL;
    if (!ref || !strcmp(ref, "auto")) {
        b->ref_kind = d->o.ham == DFR_DIRAC ? DFR_REF_LARGE : DFR_REF_LIMIT;
        if (b->ref_kind == DFR_REF_LIMIT && !isfinite(limit)) {
            sb_error("dfratom_scf: bsize_ref=auto: no numerical HF limit for %s%s with a %s nucleus (tabulated: neutral "
                     "He, Be, Ne, Ar, Kr, Xe, point nucleus); give --param bsize_ref=large or bsize_ref=<energy in Eh>",
                     d->atom.symbol, d->atom.charge ? " (ion)" : "", d->o.nucleus == DFR_NUC_POINT ? "point" : "Gaussian");
            return SB_EXIT_USAGE;
        }
    } else if (!strcmp(ref, "limit")) {
        b->ref_kind = DFR_REF_LIMIT;
        if (!isfinite(limit)) {
            sb_error("dfratom_scf: bsize_ref=limit: no numerical HF limit for this case (tabulated: nonrelativistic, "
                     "point nucleus, neutral He, Be, Ne, Ar, Kr, Xe); give bsize_ref=large or bsize_ref=<energy in Eh>");
            return SB_EXIT_USAGE;
        }
    } else if (!strcmp(ref, "large")) {
        b->ref_kind = DFR_REF_LARGE;
    } else {
        b->ref_kind = DFR_REF_VALUE;
        b->ref_value = strtod(ref, &end);
        if (end == ref || *end || !isfinite(b->ref_value) || !(b->ref_value < 0.0)) {
            sb_error("dfratom_scf: --param bsize_ref=%s: accepted auto, limit, large or a negative total energy in Eh", ref);
            return SB_EXIT_USAGE;
        }
    }
    return SB_OK;
}

int dfr_case_parse(sb_params *p, dfr_case *d)
{
    static const char *const jobs[] = {"scf", "fock", "bsopt", "batch", "bsize", NULL};
    static const char *const engines[] = {"batched", "sequential", NULL};
    enum { EIG_LAPACK, EIG_CUSOLVER };
    static const char *const eigs[] = {"lapack", "cusolver", NULL};
    const char *sym = sb_param_string(p, "atom");
    long batch = 256, batch_check = 16, bs_scan = 0, lanes = 2;
    long bs_evals = 40, bs_starts = 1, charge = 0, np, nd, nf, maxit, diis, A = 0, oracle;
    int ham = 0, nuc = 1, eig = EIG_LAPACK, rc;
    int K = p->size ? p->size : 30;
    dfr_scf_opts *o = &d->o;
    dfr_wtbs *w = &d->w;
    const int Z = dfr_atom_z(sym ? sym : "Xe");
    if ((rc = sb_param_long(p, "charge", 0, 0, Z > 1 ? Z - 1 : 0, &charge))) return rc;
    if ((rc = dfr_atom_parse(sym ? sym : "Xe", (int)charge, &d->atom))) return rc;
    if ((rc = sb_param_choice(p, "job", jobs, DFR_JOB_SCF, &d->job))) return rc;
    if (d->job == DFR_JOB_BSIZE) { /* the start basis: bsize_max functions in every range */
        long mx;
        if ((rc = sb_param_long(p, "bsize_max", 40, (long)dfr_range_bsize_max.lo, (long)dfr_range_bsize_max.hi, &mx)))
            return rc;
        K = (int)mx;
    }
    const char *file = sb_param_string(p, "basis");
    if (file) {
        static const char *const own[] = {"alpha", "beta", "gamma", "delta", "np", "nd", "nf", NULL};
        for (int i = 0; own[i]; ++i)
            if (sb_param_string(p, own[i])) {
                sb_error("dfratom_scf: --param %s conflicts with --param basis=%s, which sets the whole basis", own[i],
                         file);
                return SB_EXIT_USAGE;
            }
        if (d->job != DFR_JOB_SCF && d->job != DFR_JOB_FOCK) {
            sb_error("dfratom_scf: --param basis= is read by job=scf and job=fock (job=bsize writes one with bsize_out=)");
            return SB_EXIT_USAGE;
        }
    }
    if ((rc = sb_param_double(p, "alpha", 0.05, dfr_range_alpha.lo, dfr_range_alpha.hi, &w->alpha))) return rc;
    const double beta_auto = auto_beta(w->alpha, d->atom.Z, K);
    if ((rc = sb_param_choice(p, "hamiltonian", dfr_ham_names, DFR_DIRAC, &ham)) ||
        (rc = sb_param_choice(p, "nucleus", dfr_nucleus_names, DFR_NUC_GAUSS, &nuc)) ||
        (rc = sb_param_choice(p, "eigensolver", eigs, EIG_LAPACK, &eig)) ||
        (rc = param_c(p, &o->c)) ||
        (rc = sb_param_double(p, "beta", d->job == DFR_JOB_BSIZE ? fmax(1.8, beta_auto) : beta_auto, dfr_range_beta.lo,
                              dfr_range_beta.hi, &w->beta)) ||
        (rc = sb_param_double(p, "gamma", 0.0, dfr_range_gamma.lo, dfr_range_gamma.hi, &w->gamma)) ||
        (rc = sb_param_double(p, "delta", 0.0, dfr_range_delta.lo, dfr_range_delta.hi, &w->delta)) ||
        (rc = sb_param_long(p, "np", lround(0.8 * K), 1, K, &np)) ||
        (rc = sb_param_long(p, "nd", lround(0.6 * K), 1, K, &nd)) ||
        (rc = sb_param_long(p, "nf", lround(0.5 * K), 1, K, &nf)) ||
        (rc = sb_param_long(p, "maxit", 100, DFR_MAXIT_MIN, 10000, &maxit)) ||
        (rc = sb_param_long(p, "diis", 8, 0, 10, &diis)) ||
        (rc = sb_param_double(p, "conv_e", 1e-10, 1e-14, 1e-4, &o->conv_e)) ||
        (rc = sb_param_long(p, "oracle", 2000, 0, 10000000, &oracle)) ||
        (rc = sb_param_long(p, "bsopt_evals", 40, 3, 10000, &bs_evals)) ||
        (rc = sb_param_long(p, "bsopt_starts", 1, 1, 256, &bs_starts)) ||
        (rc = sb_param_long(p, "bsopt_scan", 0, 0, 65536, &bs_scan)) ||
        (rc = sb_param_long(p, "batch", 256, 1, 65536, &batch)) ||
        (rc = sb_param_choice(p, "batch_engine", engines, DFR_ENGINE_BATCHED, &d->engine)) ||
        (rc = sb_param_long(p, "batch_check", 16, 0, 65536, &batch_check)) ||
        (rc = sb_param_long(p, "batch_lanes", 2, 1, 2, &lanes)) ||
        (rc = sb_param_double(p, "batch_mem", 8.0, 1e-6, 1024.0, &d->batch_mem)))
        return rc;
    d->batch = (int)batch;
    d->batch_lanes = (int)lanes;
    d->batch_check = (int)(batch_check < batch ? batch_check : batch);
    if (eig == EIG_CUSOLVER && d->backend != SB_BACKEND_CUDA) {
        sb_error("dfratom_scf: --param eigensolver=cusolver needs --backend cuda (%s accepts lapack)",
                 sb_backend_name(d->backend));
        return SB_EXIT_USAGE;
    }
    /* LAPACK is the default on cuda too: at these block sizes (<= 2N = 160) cuSOLVER's dsygvd
     * was slower on the H100 and, on nearly singular well-tempered metrics, ~100x less accurate
     * (residual 3.7e-11 vs 3.0e-13 at K = 50), enough that NR Xe K = 50/60 no longer converged
     * (kernel README) */
    d->eig_gpu = eig == EIG_CUSOLVER;
    const char *As = sb_param_string(p, "A");
    if (As && strcmp(As, "table") &&
        (rc = sb_param_long(p, "A", 0, (long)dfr_range_A.lo, (long)dfr_range_A.hi, &A)))
        return rc;
    o->ham = (dfr_hamiltonian)ham;
    if (o->ham == DFR_DIRAC && (rc = dfr_zc_check(o->c, &d->atom))) return rc;
    o->nucleus = (dfr_nucleus)nuc;
    o->maxit = (int)maxit;
    o->diis = (int)diis;
    const char *eig_env = getenv("SB_DFR_EIG");
    if (eig_env && *eig_env && strcmp(eig_env, "dsygvd") && strcmp(eig_env, "dsyevr")) {
        sb_error("dfratom_scf: SB_DFR_EIG=%s; accepted: dsygvd (every eigenpair, the default), dsyevr (only the "
                 "occupied ones), or unset",
                 eig_env);
        return SB_EXIT_USAGE;
    }
    o->eig_occupied = eig_env && !strcmp(eig_env, "dsyevr");
    o->conv_ll = 1e-8;
    o->conv_ls = 1e-10;
    o->conv_ss = 1e-12;
    d->oracle = (int)oracle;
    d->bs_maxeval = (int)bs_evals;
    d->bs_starts = (int)bs_starts;
    d->bs_scan = (int)bs_scan;
    if (bs_scan && bs_scan < bs_starts) {
        sb_error("dfratom_scf: --param bsopt_scan=%ld scans fewer bases than the %ld NEWUOA starts asked (0 or >= %ld)",
                 bs_scan, bs_starts, bs_starts);
        return SB_EXIT_USAGE;
    }
    if (A) d->atom.mass = (int)A;
    if (o->nucleus == DFR_NUC_GAUSS) {
        if (!d->atom.mass) {
            sb_error("dfratom_scf: no tabulated mass number for %s (Z=%d): give --param A=<mass number> "
                     "or --param nucleus=point", d->atom.symbol, d->atom.Z);
            return SB_EXIT_USAGE;
        }
        o->xi = dfr_xi_from_mass(d->atom.mass);
    }
    w->K = K;
    w->n[0] = K;
    w->n[1] = (int)np;
    w->n[2] = (int)nd;
    w->n[3] = (int)nf;
    for (int l = 0; l < 4; ++l) w->start[l] = 1;
    if (d->job == DFR_JOB_BSIZE) {
        for (int l = 0; l < 4; ++l) w->n[l] = K;
        if ((rc = parse_bsize(p, d))) return rc;
    }
    d->basis_energy = d->basis_tol_ref[0] = d->basis_tol_ref[1] = NAN;
    if (file && (rc = read_basis(file, d))) return rc;
    int ns = 0;
    for (int s = 0; s < DFR_NSYM; ++s)
        if (d->atom.nocc[s]) ns = s + 1;
    if ((rc = reach_check(w, d->atom.Z, file))) return rc;
    const int k = file ? 0 : dfr_wtbs_bad_k(w, dfr_l(dfr_kappa[ns - 1]));
    if (k) { /* a file's sequence is checked where it is read (basis_file.c) */
        char which[64];
        dfr_wtbs_bad_what(w, k, which, sizeof which);
        sb_error("dfratom_scf: --param alpha=%g beta=%g gamma=%g delta=%g give %s; accepted: parameters whose "
                 "exponents are positive and increase with k (a falling one makes the basis linearly dependent)",
                 w->alpha, w->beta, w->gamma, w->delta, which);
        return SB_EXIT_USAGE;
    }
    d->f = calloc((size_t)DFR_NSYM * DFR_MAXN, sizeof *d->f);
    if (!d->f) return SB_EXIT_RUNTIME;
    if ((rc = dfr_basis_build(w, ns, &d->y, d->f))) return rc;
    for (int s = 0; s < ns; ++s)
        if (d->atom.nocc[s] > d->y.n[s]) {
            sb_error("dfratom_scf: kappa=%d has %d occupied shells but only %d basis functions (raise SIZE, np, nd or nf)",
                     dfr_kappa[s], d->atom.nocc[s], d->y.n[s]);
            return SB_EXIT_USAGE;
        }
    if (d->job != DFR_JOB_FOCK) {
        d->Dfinal = calloc(dfr_set_size(&d->y), sizeof(double));
        if (!d->Dfinal) return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}
