/* dfratom_scf: the contract between setup, the SCF driver and the backends.
 *
 * Dirac-Fock-Roothaan for a closed-shell atom (DFRATOM), in a restricted-kinetic-balance
 * Gaussian spinor basis. Per symmetry kappa the large components are g^L_i = N_i r^(l+1)
 * e^(-z_i r^2) and the small components g^S_i = (d/dr + kappa/r) g^L_i (unnormalised, so
 * that the sigma.p coupling equals S^SS and the nonrelativistic kinetic energy is S^SS/2).
 * Energies are shifted by -c^2 (the free electron at rest has E = 0). Atomic units. */
#ifndef DFR_H
#define DFR_H

#include "sb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DFR_NSYM 7   /* s1/2 p1/2 p3/2 d3/2 d5/2 f5/2 f7/2 */
#define DFR_KMAX 7   /* multipole order k <= j + j' <= 7 */
#define DFR_MAXN 80  /* basis functions per symmetry */
#define DFR_HIST 128 /* SCF iterations whose convergence ratios a result keeps */

/* kappa of symmetry s, in the order above */
extern const int dfr_kappa[DFR_NSYM];
static inline int dfr_l(int kappa) { return kappa < 0 ? -kappa - 1 : kappa; }
static inline int dfr_lbar(int kappa) { return kappa < 0 ? -kappa : kappa - 1; }
/* 2j+1 = 2|kappa|: electrons in a closed subshell */
static inline int dfr_degeneracy(int kappa) { return kappa < 0 ? -2 * kappa : 2 * kappa; }

/* The basis as the Fock builders see it: flat, position independent (copied to the GPU).
 * Symmetry s has n[s] functions at fun0[s]; component X (0 = L, 1 = S) of function f is
 * sum_t coef[f][X][t] r^pw[s][X][t] e^(-zeta[f] r^2), t < nterm[s][X]. */
typedef struct {
    int ns;                       /* symmetries in use: the first ns of DFR_NSYM */
    int n[DFR_NSYM], fun0[DFR_NSYM];
    int moff[DFR_NSYM];           /* offset of symmetry s in a packed matrix set (below) */
    int nterm[DFR_NSYM][2];
    int pw[DFR_NSYM][2][2];
    /* Gamma^k(s,s') = (j k j'; 1/2 0 -1/2)^2 when l + k + l' is even, else 0 */
    double gam[DFR_NSYM][DFR_NSYM][DFR_KMAX + 1];
    int nf;                       /* total functions */
} dfr_sym;

typedef struct {
    double zeta;
    double coef[2][2];
} dfr_fun;
/* A padding function (all coefficients zero) holds a place in a larger shape, so that bases of
 * different sizes run as one batch (dfr_basis_build_in). Its integrals vanish; the SCF gives
 * it a decoupled diagonal, far from the occupied orbitals (scf.c). */
static inline int dfr_fun_is_pad(const dfr_fun *f) { return f->coef[0][0] == 0.0; }

/* A packed matrix set holds, per symmetry s, the three N_s x N_s blocks LL, LS, SS
 * (column-major, SL = LS^T) from moff[s]: 3 sum_s N_s^2 doubles. */
enum { DFR_LL = 0, DFR_LS = 1, DFR_SS = 2 };
static inline long dfr_set_size(const dfr_sym *y)
{
    return (long)y->moff[y->ns - 1] + 3L * y->n[y->ns - 1] * y->n[y->ns - 1];
}

/* The atom and the run settings */
typedef struct {
    int Z, charge, nelec;
    char symbol[4];
    int mass;                     /* nuclear mass number (Gaussian nucleus) */
    int nocc[DFR_NSYM];           /* occupied (closed) shells per symmetry */
    int one_electron;             /* a single electron: no two-electron terms */
} dfr_atom;

typedef enum { DFR_NUC_POINT = 0, DFR_NUC_GAUSS = 1 } dfr_nucleus;
typedef enum { DFR_DIRAC = 0, DFR_SCHRODINGER = 1 } dfr_hamiltonian;

typedef struct {
    double c;                     /* speed of light, a.u. */
    dfr_nucleus nucleus;
    double xi;                    /* Gaussian nucleus exponent, bohr^-2 */
    dfr_hamiltonian ham;          /* SCHRODINGER: the c -> infinity limit taken exactly */
    int maxit;
    double conv_e, conv_ll, conv_ls, conv_ss;
    int diis;                     /* DIIS subspace (0: damping only) */
    int eig_occupied;             /* host eigen-solves: only the eigenpairs the density needs
                                     (SB_DFR_EIG=dsyevr), not every one (dsygvd, the default) */
    int stall;                    /* give up after this many iterations in which the convergence
                                     ratio (dfr_result.conv_ratio) has not halved; 0: only maxit */
} dfr_scf_opts;

/* Two-electron part of the Fock matrices: G = J - K for every symmetry from the
 * occupation-weighted densities D (each block already multiplied by 2j'+1). */
typedef struct dfr_gbuild dfr_gbuild;
typedef int (*dfr_g_fn)(dfr_gbuild *g, const double *D, double *G);
/* The Roothaan eigenproblem of one symmetry as LAPACKE_dsygvd(col-major, 1, 'V', 'U', n, A, n,
 * B, n, w) states it: A becomes the B-orthonormal eigenvectors, w the ascending eigenvalues, B
 * is overwritten. *info is dsygvd's info; the return is SB_OK, or SB_EXIT_RUNTIME after the
 * backend reported its own failure. */
typedef int (*dfr_eig_fn)(void *priv, int n, double *A, double *B, double *w, int *info);
struct dfr_gbuild {
    const dfr_sym *sym;
    const dfr_fun *fun;
    int nout;                     /* output elements: LL and SS with i <= j, all of LS */
    int *out;                     /* dfr_out_code()s (dfr_math.h) */
    dfr_g_fn build;               /* writes the listed elements of G; the caller mirrors */
    void *priv;                   /* backend state (device buffers) */
    dfr_eig_fn eig;               /* NULL: LAPACKE dsygvd on the host */
    void *eig_priv;               /* its state, owned by the caller: it outlives builders (bsopt) */
};
/* The output list (Schrodinger: LL only); 0 or SB_EXIT_RUNTIME */
int dfr_gbuild_init(dfr_gbuild *g, const dfr_sym *y, const dfr_fun *f, int dirac);
void dfr_gbuild_free(dfr_gbuild *g);
/* Where output element `code` lives in a packed set */
double *dfr_g_slot(const dfr_sym *y, double *G, int code);
/* Completes LL and SS from their upper triangles */
void dfr_g_mirror(const dfr_sym *y, double *G);

/* One SCF's outcome */
typedef struct {
    double energy, e_kin, e_ne, e_ee;
    int iterations, converged, fock_builds;
    int stalled;                  /* ended unconverged by dfr_scf_opts.stall */
    double eps[DFR_NSYM][8];      /* occupied orbital energies per symmetry (first 8) */
    int below_minus_c2[DFR_NSYM]; /* eigenvalues below -c^2: must equal N_s (positronic) */
    double min_occ_eps;           /* lowest occupied orbital energy: must exceed -2c^2 */
    double dd_ll, dd_ls, dd_ss, de;
    /* distance from convergence after iteration it (index it - 1, the first DFR_HIST):
     * max(dE / conv_e, dD(LL) / conv_ll, dD(LS) / conv_ls, dD(SS) / conv_ss); < 1 stops */
    double conv_ratio[DFR_HIST];
    double t_eig;                 /* seconds spent in the eigen-solves (host clock) */
} dfr_result;

/* Work and memory of a run */
typedef struct {
    double elem_per_build;        /* radial integrals R^k_el(P,a;Q,b) per G build */
    double rint_per_build;        /* radial two-electron integrals over basis functions */
} dfr_counts;

/* ---- setup (atoms.c, basis.c, oneint.c, angular.c) ---- */
int dfr_atom_parse(const char *symbol, int charge, dfr_atom *a);
int dfr_atom_z(const char *symbol); /* 0: not an element */
int dfr_default_mass(int Z);      /* 0 when not tabulated */
const char *dfr_closed_counts(void);
double dfr_xi_from_mass(int A);
void dfr_angular(dfr_sym *y);

typedef struct {
    double alpha, beta, gamma, delta; /* zeta_k = alpha beta^(k-1) [1 + gamma (k/K)^delta] */
    int K;                        /* s functions */
    int n[DFR_NSYM / 2 + 1];      /* functions per l (s, p, d, f) */
    int start[DFR_NSYM / 2 + 1];  /* first index (1-based) into the s sequence per l */
} dfr_wtbs;
int dfr_basis_build(const dfr_wtbs *w, int ns, dfr_sym *y, dfr_fun *f);
/* Basis w in the shape of u (every range of w within u's): u's functions outside w's ranges
 * become padding (dfr_fun_is_pad), with w's exponents at their places in the sequence */
int dfr_basis_build_in(const dfr_wtbs *w, const dfr_wtbs *u, int ns, dfr_sym *y, dfr_fun *f);
/* zeta_k of the sequence, k = 1 .. */
double dfr_wtbs_zeta(const dfr_wtbs *w, int k);
/* 0 when the exponents the ranges of l = 0 .. lmax use are finite, positive and increasing with k
 * (equal or falling exponents make the basis linearly dependent); else the first k that is not */
int dfr_wtbs_bad_k(const dfr_wtbs *w, int lmax);
/* What is wrong at that k, for an error line: "zeta_3 = -1 bohr^-2" and "not positive" or "not above ..." */
void dfr_wtbs_bad_what(const dfr_wtbs *w, int k, char *buf, size_t n);

/* One-electron matrices per symmetry, packed like D: LL = S^LL, LS unused, SS = S^SS (metric),
 * and V (LL = V^LL, SS = V^SS). */
void dfr_oneint(const dfr_sym *y, const dfr_fun *f, int Z, const dfr_scf_opts *o, double *S, double *V);

/* ---- SCF (scf.c) ---- */
/* Dw_out (optional, dfr_set_size doubles): the final occupation-weighted density */
int dfr_scf(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o,
            dfr_gbuild *g, dfr_result *r, int verbose, double *Dw_out);
/* The same from the weighted density Dw0 (NULL: the core Hamiltonian), see dfr_scf_guess */
int dfr_scf_from(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o, dfr_gbuild *g,
                 const double *Dw0, dfr_result *r, int verbose, double *Dw_out);
/* The same SCF in steps, so that a batch can run many in lockstep (batch.c): begin, then
 * repeat { density: diagonalise and occupy, giving the weighted density Dw (NULL: one electron,
 * no build) and the zeroed packed G to fill (upper triangles of LL and SS, all of LS); fock:
 * Fock matrices, energy, convergence test, DIIS } until fock sets done (converged or maxit);
 * end copies the result (r, Dw_out optional) and frees. g supplies only the eigensolver
 * (g->eig; NULL or no eig: LAPACKE dsygvd). Every pointer given to begin must outlive the run. */
typedef struct dfr_scf_run dfr_scf_run;
int dfr_scf_begin(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o,
                  const dfr_gbuild *g, int verbose, dfr_scf_run **st);
int dfr_scf_density(dfr_scf_run *st, const double **Dw, double **G);
/* dfr_scf_density in parts, for a caller that solves a candidate's symmetry blocks on threads
 * of their own: _begin returns the number of blocks to run (0: the step is done, Dw and G
 * set), then _block for each s in 0 .. that - 1, in any order and at once, each SB_OK or an
 * error after one line; if every one is SB_OK, _end sets Dw and G. The results are those of
 * dfr_scf_density, bit for bit. */
int dfr_scf_density_begin(dfr_scf_run *st, const double **Dw, double **G);
int dfr_scf_density_block(dfr_scf_run *st, int s);
void dfr_scf_density_end(dfr_scf_run *st, const double **Dw, double **G);
int dfr_scf_fock(dfr_scf_run *st, int *done);
/* dfr_scf_fock in parts, likewise: _begin sets done and returns the number of blocks whose
 * DIIS errors follow (0: none, the step is over), then _block for each, in any order and at
 * once, then _end, the extrapolation. The same Fock matrices as dfr_scf_fock, bit for bit. */
int dfr_scf_fock_begin(dfr_scf_run *st, int *done);
void dfr_scf_fock_block(dfr_scf_run *st, int s);
void dfr_scf_fock_end(dfr_scf_run *st);
/* The eigenproblem F C = M C e of symmetry s that the next density step solves: F and the
 * lower Cholesky factor L of M (column-major, d x d; returns d). A caller that solved it
 * elsewhere (a batch on the GPU) hands the ascending eigenvalues and M-orthonormal vectors
 * back with dfr_scf_eig_given; the next density step uses them instead of its own solve. */
int dfr_scf_eig_input(const dfr_scf_run *st, int s, const double **F, const double **L);
void dfr_scf_eig_given(dfr_scf_run *st, int s, const double *w, const double *C);
void dfr_scf_end(dfr_scf_run *st, dfr_result *r, double *Dw_out);
/* Start from the weighted density Dw0 (packed like Dw_out, the same shape) instead of the core
 * Hamiltonian's orbitals: the first density step takes it as it is. A converged density of a
 * nearby basis (the previous point of a basis optimisation) saves most of the iterations. Dw0
 * must live until the first density step. */
void dfr_scf_guess(dfr_scf_run *st, const double *Dw0);
void dfr_count(const dfr_sym *y, const dfr_fun *f, int dirac, dfr_counts *c);

/* ---- a batch of candidate bases with stored integrals (batch.c) ----
 * G is linear in the weighted density: for a batch, every candidate's map is computed once per
 * SCF and applied each iteration as two matrix-vector products,
 *   G_d = T_d x_d  (rows: the LL and SS outputs; x_d = D'LL then, Dirac only, D'SS),
 *   G_x = T_x x_x  (rows: the LS outputs; x_x = D'LS).
 * D'LL and D'SS are symmetric, so x_d holds their upper triangles (Ed = sum_s N_s (N_s+1)/2
 * elements of dfr_elem_decode_packed) and a column of T_d for m < n is the sum of the (m, n) and
 * (n, m) columns; D'LS is not, so x_x holds all E = sum_s N_s^2 elements (dfr_elem_decode).
 * T_d (nd x nh Ed) then T_x (nx x E), column-major, make one candidate's `per` doubles. */
/* The elementary integrals R^k(P,a;Q,b) behind a tensor, tabulated per candidate. They depend
 * only on (k, P, Q) and the two exponent-pair sums a, b, and a well-tempered basis has few
 * distinct pair sums (K (K+1)/2), so Xe K = 30's 6.1e7 evaluations per tensor are 2.2e6
 * distinct ones. Exponents are numbered by distinct value (eidx), pairs by dfr_pair; table
 * (k, P <= Q) holds a x b entries, a over the first density's pairs (fastest), b over the
 * second's; P > Q reads (k, Q, P) with the pairs swapped, which is the same sum of the same two
 * halves (dfr_rk_elem_e), so a tabulated tensor equals the directly evaluated one. The layout
 * holds for every candidate whose equal-index exponents are equal (dfr_etab_fits). */
#define DFR_PMAX 11 /* density powers: P <= 2 (l + 2) = 10 */
#define DFR_MAXCOMBO ((DFR_KMAX + 1) * DFR_PMAX * DFR_PMAX)
typedef struct {
    int ncombo, nexp;
    long per;                                  /* table doubles per candidate */
    short id[DFR_KMAX + 1][DFR_PMAX][DFR_PMAX]; /* combo of (k, P, Q), P <= Q; -1: not read */
    int k[DFR_MAXCOMBO], P[DFR_MAXCOMBO], Q[DFR_MAXCOMBO], na[DFR_MAXCOMBO], nb[DFR_MAXCOMBO];
    long off[DFR_MAXCOMBO];                    /* start of each combo's table, ascending */
    int eidx[DFR_NSYM * DFR_MAXN];             /* function -> exponent index (ascending zeta) */
    int rep[DFR_NSYM * DFR_MAXN];              /* exponent index -> a function with it */
} dfr_etab;

typedef struct {
    int nd, nx, E, nh;           /* rows of T_d, T_x; density elements; blocks in x_d */
    int Ed;                      /* elements of one x_d block (upper triangles) */
    int *outd, *outx;            /* the rows' output codes (host) */
    long per;                    /* tensor doubles per candidate */
    int xlen, ylen;              /* x = (x_d | x_x), y = (G_d | G_x) per candidate */
    dfr_etab *tab;               /* the elementary-integral table layout (host) */
} dfr_tshape;
/* g->fun: the basis whose exponents number the table (any candidate of the batch) */
int dfr_tshape_init(dfr_tshape *t, const dfr_gbuild *g, int dirac);
/* 1 when the candidate's functions f fit t->tab's exponent numbering */
int dfr_etab_fits(const dfr_etab *tb, const dfr_sym *y, const dfr_fun *f);
/* Candidates whose tables the GPU holds at once (1 GiB of them, at least one, at most Bmax) */
int dfr_etab_group(const dfr_etab *tb, int Bmax);
void dfr_tshape_free(dfr_tshape *t);
void dfr_tshape_gather(const dfr_tshape *t, const dfr_sym *y, const double *Dw, double *x);
void dfr_tshape_scatter(const dfr_tshape *t, const dfr_sym *y, const double *yv, double *G);
/* B candidates' tensors (f: B x y->nf functions) and products, on the host; parallel: OpenMP.
 * Candidates that fit the table layout go through the table, others are evaluated directly;
 * returns how many went through it. */
int dfr_tensor_host(const dfr_tshape *t, const dfr_sym *y, const dfr_fun *f, int B, double *T, int parallel);
void dfr_contract_host(const dfr_tshape *t, int B, const double *T, const double *x, double *yv, int parallel);
/* One candidate's products: y = (T_d x_d | T_x x_x) */
void dfr_contract_one(const dfr_tshape *t, const double *Tc, const double *xc, double *yc);
/* What a backend provides the SCF engines (reference.c, openmp_simd.c, cuda.cu). The host
 * backends leave the GPU's entries NULL: the batched engine's tensors and the eigen-solves then
 * stay on the host. */
typedef struct dfr_ops {
    int (*g_init)(dfr_gbuild *g); /* sets g->build (and g->priv) */
    void (*g_free)(dfr_gbuild *g); /* NULL: nothing of the backend's to free */
    int (*g_launches)(dfr_gbuild *g, sb_launch *l, int max); /* the occupancy report; NULL: none */
    /* eigen-solves (a dfr_eig_fn): a handle and buffers for the largest symmetry block of y
     * (dimension 2N Dirac, N Schrodinger) */
    int (*eig_create)(const dfr_sym *y, int dirac, void **priv);
    dfr_eig_fn eig;
    void (*eig_destroy)(void *priv);
    /* the batched engine: tensors stay in device memory between the calls */
    int (*batch_create)(const dfr_tshape *t, const dfr_sym *y, int Bmax, void **priv);
    int (*batch_tensors)(void *priv, const dfr_fun *f, int B, int *tabulated);
    int (*batch_contract)(void *priv, int B, const double *x, double *yv);
    /* n generalised eigenproblems of dimension d at once: F (n x d x d, in: Fock, out: vectors
     * C with C^T M C = 1), L (lower Cholesky factors of M), w (n x d, ascending) */
    int (*batch_eig)(void *priv, int d, int n, double *F, const double *L, double *w);
    void (*batch_destroy)(void *priv);
    /* the occupancy report of the tensor kernel for a pass over `total` entries, and of the
     * table kernel for `etotal` table entries */
    int (*batch_launches)(long total, long etotal, sb_launch *l, int max);
} dfr_ops;
extern const dfr_ops dfr_ops_reference, dfr_ops_openmp_simd, dfr_ops_cuda;

/* The G builders of the host backends, and the entries of dfr_ops_cuda (also for the tests) */
int dfr_g_reference(dfr_gbuild *g, const double *D, double *G);
int dfr_g_openmp(dfr_gbuild *g, const double *D, double *G);
int dfr_g_cuda_init(dfr_gbuild *g);
void dfr_g_cuda_free(dfr_gbuild *g);
int dfr_g_cuda_launches(dfr_gbuild *g, sb_launch *l, int max);
int dfr_eig_cuda_create(const dfr_sym *y, int dirac, void **priv);
int dfr_eig_cuda(void *priv, int n, double *A, double *B, double *w, int *info);
void dfr_eig_cuda_destroy(void *priv);
int dfr_batch_cuda_create(const dfr_tshape *t, const dfr_sym *y, int Bmax, void **priv);
int dfr_batch_cuda_tensors(void *priv, const dfr_fun *f, int B, int *tabulated);
int dfr_batch_cuda_contract(void *priv, int B, const double *x, double *yv);
int dfr_batch_cuda_eig(void *priv, int d, int n, double *F, const double *L, double *w);
void dfr_batch_cuda_destroy(void *priv);
int dfr_batch_cuda_launches(long total, long etotal, sb_launch *l, int max);

#ifdef __cplusplus
}
#endif
#endif
