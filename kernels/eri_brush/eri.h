/* eri_brush: the contract between the parts of the kernel (inputs, pairs and quartets,
 * Boys function, reference, generated class code, backends, validation).
 *
 * Conventions (identical to libint2 2.7's defaults, so results compare element by element):
 *  - Shells in atom order, and within an atom in the order of the basis file; an SP shell
 *    becomes an S shell followed by a P shell.
 *  - Cartesian components of a shell with angular momentum l: lx = l..0, then ly = l-lx..0
 *    (d: xx, xy, xz, yy, yz, zz); every component carries the normalisation of x^l.
 *  - Pure (solid-harmonic) functions m = -l..l, real and unit-normalised, for l >= 2 only;
 *    s and p shells are Cartesian (p: x, y, z) as libint2 builds them from a basis file.
 *    `pure = 0` makes d shells Cartesian too (--param cartesian=1).
 *  - Lengths in bohr (a0 = 0.529177210903 Angstrom, CODATA 2018), integrals in hartree.
 */
#ifndef ERI_H
#define ERI_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ERI_HD __host__ __device__
#define ERI_RESTRICT __restrict__
#else
#define ERI_HD
#ifdef __cplusplus
#define ERI_RESTRICT __restrict__
#else
#define ERI_RESTRICT restrict
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ERI_BOHR_ANGSTROM 0.529177210903 /* Angstrom per bohr, CODATA 2018 */
#define ERI_LMAX 3                       /* highest shell angular momentum served (f) */
/* Highest l of the generated straight-line classes (HGP, MD, transforms: gen/eri_gen.py
 * --lmax, Makefile). The classes with an f shell have no generated code: in digest mode the
 * J engine (jengine.h, generic in l) computes them, and mode=store is refused for them;
 * the scalar reference (reference.c) serves every l <= ERI_LMAX. Generating f classes
 * would make the code 16 times larger (56 MB of C), past what a build can compile. */
#define ERI_CODE_LMAX 2
#define ERI_MAXPRIM 24                   /* primitives per shell */
#define ERI_NCART(l) (((l) + 1) * ((l) + 2) / 2)
#define ERI_NHERM(L) (((L) + 1) * ((L) + 2) * ((L) + 3) / 6) /* Hermite triples of order <= L */
#define ERI_NSPH(l) (2 * (l) + 1)
/* Shell-pair classes (la >= lb): index la(la+1)/2 + lb; quartet classes (bra pair class >=
 * ket pair class): index pb(pb+1)/2 + pk. l <= 3: 10 pair classes, 55 quartet classes, of
 * which those with l <= ERI_CODE_LMAX come first (21: s, p, d), so a class has generated
 * code exactly when its index is below ERI_NCLASS_CODE. */
#define ERI_NPAIRCLASS ((ERI_LMAX + 1) * (ERI_LMAX + 2) / 2)
#define ERI_NCLASS (ERI_NPAIRCLASS * (ERI_NPAIRCLASS + 1) / 2)
#define ERI_NPAIRCLASS_CODE ((ERI_CODE_LMAX + 1) * (ERI_CODE_LMAX + 2) / 2)
#define ERI_NCLASS_CODE (ERI_NPAIRCLASS_CODE * (ERI_NPAIRCLASS_CODE + 1) / 2)
#define ERI_BOYS_MMAX (4 * ERI_LMAX) /* highest Boys order a class needs */

static inline int eri_pair_class(int la, int lb) { return la * (la + 1) / 2 + lb; } /* la >= lb */
static inline int eri_quartet_class(int pb, int pk) { return pb * (pb + 1) / 2 + pk; } /* pb >= pk */
/* The inverse of eri_pair_class: pair class pc -> (la, lb). */
ERI_HD static inline void eri_pair_class_l(int pc, int *la, int *lb)
{
    int l = 0;
    while ((l + 1) * (l + 2) / 2 <= pc) l++;
    *la = l, *lb = pc - l * (l + 1) / 2;
}
static inline int eri_class_has_code(int cls) { return cls >= 0 && cls < ERI_NCLASS_CODE; }

/* ---- molecule and basis (input.c, basis.c) ------------------------------------------ */
typedef struct {
    int Z;
    double xyz[3]; /* bohr */
} eri_atom;

typedef struct {
    char name[64];
    int natom;
    eri_atom *atom;
} eri_molecule;

/* XYZ file (count line, comment line, "Sym x y z" lines in Angstrom). 0, or SB_EXIT_USAGE
 * with "file:line: reason" printed. */
int eri_read_xyz(const char *path, eri_molecule *m);
/* A cluster of n water molecules, deterministic from the seed (geometry documented in
 * input.c): O-H 0.9572 A, H-O-H 104.52 deg, molecules on a jittered cubic grid. */
int eri_water_cluster(int n, uint64_t seed, eri_molecule *m);
void eri_molecule_free(eri_molecule *m);
/* "H" -> 1 ... "Kr" -> 36; 0 when unknown. */
int eri_element_z(const char *sym);
const char *eri_element_symbol(int Z);

typedef struct {
    int l, nprim, atom, pure;
    int bf0;  /* index of the shell's first basis function */
    int nbf;  /* ERI_NSPH(l) when pure, else ERI_NCART(l) */
    double O[3];
    double alpha[ERI_MAXPRIM];
    double coef[ERI_MAXPRIM]; /* x^l primitive normalisation and contracted normalisation
                                 folded in, as libint2's Shell does */
} eri_shell;

typedef struct {
    char name[64];
    int nshell, nbf, lmax, maxprim;
    eri_shell *sh;
} eri_basis;

/* Gaussian-94 basis file (**** separators, D exponents, SP split into S then P) for the
 * elements of m. pure: 1 solid harmonics for l >= 2 (libint2's default for these basis
 * sets), 0 Cartesian everywhere. Errors (missing element, l > ERI_LMAX, malformed line)
 * print "file:line: reason" and return SB_EXIT_USAGE. */
int eri_basis_build(const char *g94_path, const eri_molecule *m, int pure, eri_basis *b);
void eri_basis_free(eri_basis *b);
/* eri_brush's data file rel (e.g. basis/<name>.g94): sb_data_path (core/sb.h). */
int eri_data_path(const char *rel, char *out, size_t n);

/* ---- Boys function (boys.h, boys.c) --------------------------------------------------
 * F_m(T) = int_0^1 t^(2m) exp(-T t^2) dt for m = 0..mmax, mmax <= ERI_BOYS_MMAX, absolute
 * error <= 1e-14 for every T >= 0. The table is plain doubles so a backend copies it to
 * device memory as is:
 *   ERI_HD static inline void eri_boys(const double *tab, int mmax, double T, double *F);
 *   const double *eri_boys_table(void);   initialised once, thread safe
 *   size_t eri_boys_table_len(void);      in doubles */

/* ---- shell pairs, primitive pairs, screened quartets (pairs.c) ---------------------- */
/* One primitive pair of a shell pair (A, B), with A the shell of higher (or equal) l:
 *   p = a + b,  P = (aA + bB)/p,  PA = P - A,  PB = P - B,
 *   K = c_a c_b exp(-ab/p |A-B|^2) * sqrt(2) pi^(5/4) / p,
 * so that a primitive quartet's prefactor 2 pi^(5/2) / (p q sqrt(p+q)) * (bra and ket
 * coefficients) is K_bra K_ket / sqrt(p + q). */
typedef struct {
    double p, K;
    double P[3], PA[3], PB[3];
    double h; /* 1/(2p): the recurrences need it per primitive quartet, a division there */
} eri_prim;

typedef struct {
    int a, b;      /* shell indices; l(a) >= l(b) (ties: a >= b) */
    int la, lb, cls; /* cls = eri_pair_class(la, lb) */
    int npp, pp0;  /* primitive pairs computed: prim[pp0 .. pp0+npp), after screening */
    int npp_full;  /* primitive pairs of the contraction (nprim(a) nprim(b)); prim[pp0 ..
                      pp0+npp_full) holds them all, largest Schwarz factor first */
    double AB[3];  /* A - B */
    double schwarz; /* sqrt(max |(ab|ab)|) over the pair's functions */
    int nmem;       /* 0; in a family pair (eri_families) its member count */
} eri_pair;

typedef struct {
    long npair, nprim;
    eri_pair *pair;
    eri_prim *prim;
    int *ij;   /* per primitive pair: i * nprim(b) + j, its primitives in shells a and b */
    double *q; /* per primitive pair: its own Schwarz factor, coefficients included (in a family
                  pair the largest of its members'): what it adds to any integral is at most
                  q_ab q_cd with the ket's primitive pair */
    double pq_screen; /* the primitive-quartet screen a backend applies in digest mode (0: none;
                         set by the case, eri_case_create) */
} eri_pairs;

/* The scale of q under which the generated loops' primitive-quartet screen (ERI_PQ_COUNT) is
 * the test q_b q_k < 1: 1/sqrt(pq_screen), +inf where the screen is off. */
static inline double eri_pq_qscale(double pq_screen) { return pq_screen > 0 ? 1.0 / sqrt(pq_screen) : INFINITY; }

/* A canonical shell quartet (P|Q): pair P's class >= pair Q's class, and P >= Q when the
 * classes are equal. Every unique shell quartet of 8-fold symmetry appears exactly once. */
typedef struct {
    int P, Q;
} eri_quartet;

/* HGP and MD are generated per class (ERI_NPATH of them); the J engine (jengine.h) is
 * generic code for digest mode only. */
enum { ERI_PATH_HGP = 0, ERI_PATH_MD = 1, ERI_NPATH = 2, ERI_PATH_JENG = ERI_NPATH };

/* A run of quartets of one class and one contraction pattern (npp of bra and ket): the
 * unit of dispatch (one CUDA launch; one OpenMP work list). */
typedef struct {
    int cls, path;  /* path chosen by eri_path_choose() */
    int nb, nk;     /* primitive pairs of bra and ket */
    long q0, q1;    /* quartets q[q0 .. q1) */
} eri_segment;

typedef struct {
    long nq;
    double screen;    /* eri_worklist_build's threshold; -1 for an explicit list (eri_worklist_from) */
    eri_quartet *q;   /* sorted by class, then (nb, nk), then P, Q */
    int nseg;
    eri_segment *seg;
    long *store_off;  /* store mode: first integral of quartet i; store_off[nq] = total */
    double neris;     /* integrals in the list (sum of block sizes) */
    double nprimq;    /* primitive quartets computed (sum of nb * nk) */
    double nprimq_full; /* primitive quartets of the contractions (sum of K_a K_b K_c K_d) */
    double flops;     /* from the per-class flop model for the chosen paths */
} eri_worklist;

/* Builds pairs (and their Schwarz factors, with the scalar reference). prim_eps > 0 screens
 * primitive pairs: each shell pair keeps its largest primitive pairs (by their own Schwarz
 * factors) such that no integral moves by more than 2 prim_eps hartree (bound in pairs.c);
 * 0 keeps them all. */
#define ERI_PRIM_SCREEN_DEFAULT 1e-18
int eri_pairs_build(const eri_basis *b, double prim_eps, eri_pairs *ps);
void eri_pairs_free(eri_pairs *ps);
/* Screened canonical quartets (schwarz_P * schwarz_Q >= screen), sorted into segments. */
int eri_worklist_build(const eri_basis *b, const eri_pairs *ps, double screen, eri_worklist *w);
/* A worklist from explicit quartets (validation samples); sorts and segments them. */
int eri_worklist_from(const eri_basis *b, const eri_pairs *ps, const eri_quartet *q, long nq,
                      eri_worklist *w);
void eri_worklist_free(eri_worklist *w);
/* What screening (quartets under `screen`, primitive pairs under prim_screen, primitive
 * quartets under ps->pq_screen) can have moved any element of J[D] by, in hartree: a bound from
 * the Schwarz inequality (screen_bound.c). */
double eri_screen_bound(const eri_basis *b, const eri_pairs *ps, double screen, double prim_screen,
                        const double *D);
/* Pair indices in the worklist's group order: by pair class, then primitive-pair count,
 * then Schwarz factor (largest first), then index. A group (equal class and count) is a
 * run of this order; in a segment built by eri_worklist_build, consecutive quartets of
 * one bra have consecutive kets of a group. malloc'ed (free it), NULL when out of memory. */
int *eri_pair_order(const eri_pairs *ps);
static inline int eri_pair_same_group(const eri_pair *a, const eri_pair *b)
{
    return a->cls == b->cls && a->npp == b->npp && a->nmem == b->nmem;
}
/* Primitive pairs kept of a pair whose n largest are needed, of full: rounded up to one of a
 * few counts, so that the pairs of a class fall into few groups (pairs.c). */
int eri_prim_bucket(int n, int full);

/* ---- families of pairs that share their primitives (families.c; digest mode) ----------
 * Shells of one atom and one l on identical exponents (a generally contracted basis such as
 * cc-pVDZ: carbon's 1s and 2s) give pairs that differ only in their coefficients. A family
 * holds the pairs (ERI_FAM_MAXMEM at most) whose shells a and b are such shells of the same
 * two shell sets, in pair index order; every other pair is a family of one. The family pair
 * in ps is member 0 with: the union of its members' kept primitive pairs (rounded up by
 * eri_prim_bucket, in member 0's order), K = member 0's, schwarz = the members' largest,
 * nmem. A family of one is its pair unchanged. eri_worklist_build over ps with the run's
 * screen gives every family quartet with at least one member quartet above the screen;
 * the member quartets to digest are those above it (and, within one family, each unordered
 * pair once). */
#define ERI_FAM_MAXMEM 4
typedef struct {
    eri_pairs ps;
    double *K;  /* ERI_FAM_MAXMEM per primitive pair of ps: each member's K, 0 past nmem */
    int *mem;   /* ERI_FAM_MAXMEM per family: the members' indices in the source pairs, -1 past nmem */
    int maxmem; /* largest nmem */
} eri_families;
int eri_families_build(const eri_basis *bs, const eri_pairs *src, eri_families *f);
void eri_families_free(eri_families *f);
struct eri_batch;
/* The families of b's pairs and their worklist at b's screen, where a run can use them:
 * digest mode, a worklist from eri_worklist_build (screen >= 0), a basis with shared
 * exponents, SB_ERI_FAMILY not 0; else f->maxmem = 0 and both empty. SB_EXIT_USAGE for an
 * SB_ERI_FAMILY other than 0 or 1 (who: the backend, in the message). */
int eri_families_prepare(const struct eri_batch *b, const char *who, eri_families *f, eri_worklist *fw);
/* VRR targets of a class with family code (ERI_GEN_FAM_CLASSES), else 0. */
int eri_fam_targets(int cls);
/* Flop model of a family quartet of mb x mk members whose primitive loop runs once per chunk
 * of cb x ck members (gen/eri_gen_fam.py): per chunk the class's primitive-quartet body, its
 * one add per target replaced by cb multiply-adds (2 flops each), 2 cb ck per target and ket
 * primitive, and every member quartet's HRR and transform (the model's per-quartet part),
 * digested or not. A family of one member a side runs the one-pair code on both backends, so
 * its quartet counts as one HGP quartet. 0 for a class without family code. */
double eri_fam_quartet_flops(int cls, int mb, int mk, int cb, int ck, int nb, int nk, int pure);

/* ---- the fixed pseudo-random density and the Coulomb digest ------------------------- */
/* D(i,j) = D(j,i) in [-1, 1) from splitmix64 of (seed, min, max), scaled by
 * 1/(1 + |i - j|) so that it decays off the diagonal like a real density. Plain C on
 * purpose: tools/eri_libint2.cpp builds the same D. */
static inline double eri_density_elem(uint64_t seed, int i, int j)
{
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (hi << 32 | lo) + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double u = (double)(z >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
    double d = (double)(hi - lo);
    return (2.0 * u - 1.0) / (1.0 + d);
}

/* Coulomb matrix from unique quartets. For a canonical quartet (ab|cd), P = (a,b), Q = (c,d),
 * with block I[i][j][k][l] (i in a, j in b, k in c, l in d; global function indices):
 *   M[i][j] += f_cd * sum_kl I D[k][l],   f_cd = (c == d) ? 1 : 2
 *   M[k][l] += f_ab * sum_ij I D[i][j]    only when P != Q,  f_ab = (a == b) ? 1 : 2
 * Then J = M + M^T for function pairs on different shells and J = M on a shell's own
 * diagonal block: eri_coulomb_finish() does that in place (M -> J). */
void eri_coulomb_finish(const eri_basis *b, double *M);

/* ---- one batch on one backend ------------------------------------------------------- */
enum { ERI_MODE_DIGEST = 0, ERI_MODE_STORE = 1 };

/* One MPI rank's share of a digest: every rank keeps the whole worklist (and the backend its
 * pair families), and runs, of each segment of class c, the part eri_share_cut gives it:
 * owner[c] = r >= 0, all of it on rank r only; owner[c] = ERI_SHARE_SPLIT, slice `rank` of
 * `ranks` equal slices on every rank. The slices of a segment tile it, so every quartet is
 * digested once over the ranks, by the same kernels as on one rank (mpi_split.c deals it). */
#define ERI_SHARE_SPLIT (-1)
typedef struct {
    int rank, ranks;
    signed char owner[ERI_NCLASS];
} eri_share;
static inline void eri_share_cut(const eri_share *s, int cls, long q0, long q1, long *a, long *b)
{
    *a = q0, *b = q1;
    if (!s || s->ranks <= 1) return;
    if (s->owner[cls] != ERI_SHARE_SPLIT) {
        if (s->owner[cls] != s->rank) *b = q0;
        return;
    }
    const long n = q1 - q0;
    *a = q0 + n * s->rank / s->ranks, *b = q0 + n * (s->rank + 1) / s->ranks;
}

typedef struct eri_batch {
    const eri_basis *bas;
    const eri_pairs *ps;
    const eri_worklist *w;
    const double *boys;   /* host Boys table (boys.h; the CUDA backend builds its own layout) */
    int mode;
    const double *D;      /* nbf*nbf, row-major, symmetric */
    double *M;            /* digest: nbf*nbf output (before eri_coulomb_finish), host */
    double *store;        /* store: w->store_off[nq] integrals, host */
    int threads;          /* OpenMP: threads used (reported) */
    double *seg_seconds;  /* optional, nseg: per-segment time of the last run (CUDA events /
                             wall clock); NULL when not measured */
    const eri_share *share; /* digest mode over MPI ranks: this rank's part; NULL: all of it */
    void *dev;            /* backend private */
} eri_batch;

typedef struct eri_ops {
    int (*prepare)(eri_batch *b);  /* allocate, upload; untimed */
    int (*run)(eri_batch *b);      /* one timed evaluation of the worklist */
    int (*download)(eri_batch *b); /* M or store to the host */
    void (*release)(eri_batch *b);
    /* CUDA: launch configurations for the report (may be NULL) */
    int (*launches)(eri_batch *b, void *sb_launch_array, int max);
    /* Model flops of class cls in the last run where the backend computed it otherwise than
     * the worklist's segments say (CUDA: pair families), else < 0; may be NULL. */
    double (*class_flops)(eri_batch *b, int cls);
    /* Where a backend keeps M in device memory (CUDA), so that MPI ranks can sum it there;
     * NULL otherwise. */
    double *(*device_M)(eri_batch *b);
} eri_ops;

extern const eri_ops eri_ops_reference, eri_ops_openmp_simd, eri_ops_cuda;
/* CUDA builds, for the tests: F_0..F_m(T[i]) from the device's Boys code into F[i*(m+1)+k]. */
int eri_cuda_boys(int m, const double *T, long n, double *F);

/* Scalar reference (reference.c): Cartesian or pure block of one quartet, generic loops
 * (Obara-Saika VRR + horizontal transfer), independent of the generated code. Block order
 * [i][j][k][l] over shells (a, b, c, d) as given; any l order. */
void eri_ref_quartet(const eri_basis *bas, int a, int b, int c, int d, double *out);
/* The reference's real solid harmonics of shell l (2 <= l <= ERI_LMAX) in its Cartesian
 * functions: S[(m + l) * ERI_NCART(l) + c], m = -l..l, the transform its blocks go through. */
void eri_ref_sph_matrix(int l, double *S);


/* ---- generated class code (gen/eri_gen.py -> $(BUILD)/gen/eri_brush/) ---------------
 * eri_gen_code.h, for every class (la lb|lc ld) with la >= lb, lc >= ld and
 * pair class (la,lb) >= pair class (lc,ld), straight-line code per path:
 *   ERI_HD static inline void eri_hgp_<la><lb><lc><ld>(ERI_PRIMS bra, int nb,
 *       ERI_PRIMS ket, int nk, const double *AB, const double *CD,
 *       const double *boys_table, double *ERI_RESTRICT out);
 *   ERI_HD static inline void eri_md_<la><lb><lc><ld>(same arguments);
 * The code reaches primitive pairs only through the ERI_PRIM* macros below: ERI_PRIMS is
 * the type of a pair's primitive list, ERI_PRIM_AT(list, i) its i-th primitive, ERI_PF and
 * ERI_PV a scalar and a vector component of eri_prim. By default the list is an eri_prim
 * array; a backend may define all four before including eri_gen_code.h for another layout
 * (the CUDA backend: one array per field, the pairs of a group interleaved).
 * out: contracted Cartesian block [ncart(la)][ncart(lb)][ncart(lc)][ncart(ld)], libint2 order.
 *   ERI_HD static inline void eri_sph_<la><lb><lc><ld>(const double *cart, double *out);
 * turns the d shells (l >= 2) of a Cartesian block into pure functions; s and p pass through.
 * eri_gen_info.h: ERI_GEN_CLASSES(X), one X(cls, la, lb, lc, ld) per class, and the flop
 * counts of each emitted function (ERI_GEN_FLOPS table, included by classinfo.c only).
 * HGP = Obara-Saika vertical recurrence on primitives, contraction, then horizontal transfer
 * (Head-Gordon-Pople); MD = McMurchie-Davidson Hermite expansion per primitive quartet. */

/* spq = 1/sqrt(p+q) and ipq = 1/(p+q) of a primitive quartet. On the GPU from one reciprocal
 * square root (an FP64 division and a square root are each a reciprocal estimate and Newton
 * steps there; rsqrt is within 1 ulp, ipq within 3); on the CPU the correctly rounded
 * 1/(p+q) and its square root, as the division is computed once. */
#ifdef __CUDA_ARCH__
#define ERI_SPQ(pq) rsqrt(pq)
#define ERI_IPQ(pq, spq) ((spq) * (spq))
#else
#define ERI_SPQ(pq) sqrt(1.0 / (pq))
#define ERI_IPQ(pq, spq) (1.0 / (pq))
#endif

/* Loop nesting of the generated primitive loops (gen/eri_gen_common.py, prim_loop): 0 bra
 * outside (the C backends, whose results are defined by that order), 1 ket outside (CUDA). */
#ifndef ERI_KET_OUTER
#define ERI_KET_OUTER 0
#endif

/* The primitive-quartet screen of the primitive loops: ERI_PQ_COUNT(list, n, other), how many
 * of the first n primitive pairs of list the screen keeps with primitive pair other. A pair's
 * primitive pairs go largest Schwarz factor first (pairs.c, families.c), so those kept are a
 * prefix and the loop over list stops there. A backend that applies eri_pairs.pq_screen
 * defines it (q_list q_other >= pq_screen); by default every primitive quartet is computed. */
#ifndef ERI_PQ_COUNT
#define ERI_PQ_COUNT(list, n, other) (n)
#endif

#ifndef ERI_PRIMS
#define ERI_PRIMS const eri_prim *
#define ERI_PRIM_AT(list, i) ((list) + (i))
#define ERI_PF(pr, f) ((pr)->f)
#define ERI_PV(pr, f, c) ((pr)->f[c])
#endif

/* ---- per-class model and path choice (classinfo.c, from the generated tables) -------- */
typedef struct {
    int la, lb, lc, ld;
    double flops_prim[ERI_NPATH];  /* per primitive quartet */
    double flops_contr[ERI_NPATH]; /* per contracted quartet (HRR, transforms) */
} eri_class_info;
/* Every class 0..ERI_NCLASS-1; the classes without generated code have HGP and MD flops 0. */
const eri_class_info *eri_class(int cls);
/* Cheaper of HGP and MD for nb * nk primitive quartets of class cls (flop model);
 * --param path=hgp|md|jeng overrides through `forced` (-1: auto, which never picks jeng).
 * A class without generated code gets the J engine whatever is asked: it has no other path
 * (so a worklist holding one has no store mode, eri_worklist_nocode_class). */
int eri_path_choose(int cls, int nb, int nk, int forced);
/* Digest mode, path=auto: whether class cls runs the J engine rather than HGP/MD. Measured,
 * not modelled (classinfo.c): the classes with la+lb+lc+ld >= lmin, and every class without
 * generated code. lmin is the backend's: ERI_JENG_LMIN on the CPU, ERI_JENG_LMIN_CUDA. */
#define ERI_JENG_LMIN 6
#define ERI_JENG_LMIN_CUDA 5
int eri_path_digest_jeng(int cls, int lmin);
/* The J engine's flop model of one primitive quartet (the operations of eri_je_quartet's inner
 * body; classinfo.c). */
double eri_je_flops_prim(int lab, int lcd);
/* J engine: nb nk eri_je_flops_prim, nothing per quartet (its transforms are per pair). */
double eri_quartet_flops(int cls, int path, int nb, int nk, int pure);

#ifdef __cplusplus
}
#endif
#endif
