/* fullerene_ff internals shared by its files (not by the harness): the contract between
 * the generator (spiral.c), the scalar pipeline (graph.c, layout.c, optimise.c, the oracle),
 * the OpenMP-SIMD backend (openmp_simd.c), the CUDA backend (cuda.cu) and kernel.c/validate.c.
 *
 * Pipeline of Dornonville de la Cour's thesis, one isomer of C_N at a time per block/thread:
 *   spiral --windup--> dual triangulation --dualise--> cubic graph (ff_atom)
 *          --Tutte--> 2-D layout --spherical projection--> 3-D start --CG--> optimised geometry.
 * Generation and windup run on the CPU at setup; every later stage exists as a scalar
 * reference routine, an OpenMP-SIMD routine and a CUDA kernel, and all three implement the
 * SAME algorithm with the same constants, so the oracle comparison is meaningful. */
#ifndef FULLERENE_FF_FF_H
#define FULLERENE_FF_FF_H

#include <stddef.h>
#include <stdint.h>

#include "sb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FF_MIN_N 20
#define FF_MAX_N 400
#define FF_MAX_F (FF_MAX_N / 2 + 2) /* faces of C_400 */
#define FF_NONE 0xFFFFu             /* padding in a pentagon's 6th neighbour slot */

static inline int ff_faces(int N) { return N / 2 + 2; }

/* ---- generation (spiral.c) ------------------------------------------------
 * A face spiral lists the F faces in spiral order; it is determined by where its 12
 * pentagons sit. pent[] holds those positions, 0-based and ascending (files and
 * messages use the customary 1-based form). */
typedef struct {
    uint16_t pent[12];
} ff_spiral;

/* Winds a spiral up into the dual triangulation (Fowler-Manolopoulos ring-spiral
 * algorithm): F vertices, vertex v has degree 5 (pentagon) or 6, its neighbours
 * dual[6v+k], k < degree, in one consistent cyclic orientation for all vertices;
 * dual[6v+5] = FF_NONE for a pentagon. Returns 0, or -1 when the spiral does not
 * close into a fullerene (no output promised then). */
int ff_windup(int N, const ff_spiral *s, uint16_t *dual);

/* The canonical spiral of a triangulation: the lexicographically smallest pentagon
 * sequence over every start (vertex, neighbour) and both orientations. Returns 0, or
 * -1 when the graph has no spiral at all. */
int ff_canonical_spiral(int N, const uint16_t *dual, ff_spiral *out);

/* Every isomer of C_N (one canonical spiral each), in lexicographic order. *out is
 * malloc'ed (NULL allowed: count only). nthreads <= 0: OpenMP default. Returns the
 * count, or -1 on allocation failure. */
long ff_enumerate(int N, ff_spiral **out, int nthreads);

/* A reproducible sample of up to M distinct isomers, drawn from the seed (document in
 * spiral.c how it is drawn and that it is not uniform over the isomer space if it is
 * not). Canonical spirals, in draw order. Returns the number drawn (< M only when
 * C_N has fewer isomers), or -1. */
long ff_sample(int N, long M, uint64_t seed, ff_spiral **out);

/* ff_sample announcing its progress (the pipeline mode consumes isomers while they are
 * drawn): after each merged batch of draws, publish(u, list, n) runs on the calling thread
 * with the sample so far; its first n entries are final, but list may move afterwards, so
 * copy what is needed. The result is ff_sample's. */
typedef void (*ff_publish_fn)(void *u, const ff_spiral *list, long n);
long ff_sample_stream(int N, long M, uint64_t seed, ff_spiral **out, ff_publish_fn publish, void *u);

/* Reads isomers from a text file: one isomer per line, 12 whitespace-separated 1-based
 * pentagon positions; '#' starts a comment. Each spiral must wind up for C_N; a bad line
 * gives one error line (file:line and what is wrong) and SB_EXIT_USAGE. */
int ff_read_spirals(const char *path, int N, ff_spiral **out, long *count);

/* ---- the cubic graph (graph.c) --------------------------------------------
 * Atoms are the triangles of the dual. Numbering (identical on every backend): for
 * u = 0..F-1, for k = 0..deg(u)-1, the triangle (u, dual[6u+k], dual[6u+(k+1)%deg])
 * gets the next atom index if u is its smallest vertex. */
typedef struct {
    uint16_t nbr[3];   /* neighbour atoms, in the embedding's cyclic order */
    uint16_t face[3];  /* face (dual vertex) between nbr[j] and nbr[(j+1)%3] */
    uint8_t ftype[3];  /* that face: 0 pentagon, 1 hexagon */
    uint8_t back[3];   /* this atom is nbr[j]'s nbr[back[j]] */
} ff_atom;

/* Dual triangulation -> N atoms. Returns 0, -1 on an inconsistent triangulation. */
int ff_dualise(int N, const uint16_t *dual, ff_atom *g);

/* ---- start geometry (layout.c) --------------------------------------------
 * Tutte: the atoms of face 0 (the spiral's first face) are pinned to a regular polygon
 * on the unit circle in cyclic order; every other atom moves to the mean of its three
 * neighbours, Jacobi sweeps, until the largest move of a sweep is <= FF_TUTTE_TOL or
 * FF_TUTTE_MAXIT sweeps. Returns the sweeps taken. xy: N*2. */
#define FF_TUTTE_TOL 1e-6 /* a start geometry: 1e-10 costs 2.5x the sweeps for the same CG work */
#define FF_TUTTE_MAXIT 100000
int ff_tutte(int N, const ff_atom *g, double *xy);
/* Spherical projection of the Tutte layout to 3-D (X: N*3, Angstrom, centred at the
 * origin); the exact rule is documented in layout.c and every backend follows it. */
void ff_project(int N, const ff_atom *g, const double *xy, double *X);

/* ---- force field (ff_physics.h: host/device inline math) -------------------
 * Wirz/Pedersen harmonic force field as used by the Fullerene program:
 *   E = sum_bonds  k_b/2 (r - r0)^2 + sum_angles k_a/2 (cos t - cos t0)^2
 *     + sum_dihedrals k_d/2 (cos p - cos p0)^2.
 * Each atom a OWNS: its bonds to nbr[j] with a < nbr[j]; its three angles
 * (nbr[j], a, nbr[j+1]) (the angle of face[j]); its three dihedrals, the angle between
 * planes (a, nbr[j], nbr[j+1]) and (nbr[j], nbr[j+1], nbr[j+2]), face triple
 * (face[j], face[j+1], face[j+2]) -> cos0 index 4 f1 + 2 f2 + f3, force constant by the
 * number of hexagons in the triple. All owned terms touch only a and its neighbours, so
 * ff_atom_terms() returns the energy of a's terms and their gradient on a (slot 0) and
 * on nbr[j] (slot 1+j). The gradient of atom x is then a fixed-order gather:
 *   grad[x] = own[x][0] + own[nbr[0]][1+back[0]] + own[nbr[1]][1+back[1]] + own[nbr[2]][1+back[2]]
 * (ff_gather_gradient()), which every backend uses: no atomics, identical sums.
 * Energies in the force field's units (k_b in FFU/A^2, k_a, k_d in FFU), "FFU" below.
 *
 * ff_physics.h provides (FF_HD = __host__ __device__ static inline under nvcc, static inline in C):
 *   typedef struct { double x, y, z; } ff_v3;
 *   FF_HD double ff_atom_terms(int a, const ff_atom *ga, const double *X, ff_v3 gr[4]);
 *       ga = &g[a]; X = the isomer's N*3 coordinates (any memory space); gr[0] on a, gr[1+j] on nbr[j]
 *   FF_HD ff_v3 ff_gather_gradient(int x, const ff_atom *gx, const ff_v3 *own);
 *       gx = &g[x]; own = N*4 outputs of ff_atom_terms, own[4*a + slot]
 *   and the parameter tables of the Fullerene program (bond r0/k by the two faces of the
 *   bond, angle cos0/k by face type, dihedral cos0 by 4 f1 + 2 f2 + f3 and k by hexagon count). */

/* ---- optimiser (optimise.c; mirrored exactly by openmp_simd.c and cuda.cu) ----
 * Nonlinear conjugate gradient, Polak-Ribiere+ (beta = max(0, g1.(g1-g0)/g0.g0)), restart
 * to steepest descent when d.g >= 0 or every 3N iterations; line search along d on the
 * directional derivative s(alpha) = grad E(x + alpha d).d: bracket by doubling from the
 * previous step, then Illinois (modified regula falsi) steps until
 * |s| <= FF_LS_CURV |s(0)| or FF_LS_MAXEVAL evaluations (see optimise.c for the exact
 * rule). Converged when the RMS gradient sqrt(|g|^2 / 3N) <= gtol.
 * An isomer stops at convergence, after maxit iterations (default 50 N), or after
 * FF_LS_STALLS line searches in a row ran out of evaluations (optimise.h), flagged. */
typedef struct {
    double gtol;   /* RMS gradient tolerance, FFU/A */
    long maxit;    /* CG iterations */
} ff_opts;

typedef struct {
    double energy;  /* FFU, at exit */
    double grms;    /* RMS gradient at exit, FFU/A */
    int32_t iters;  /* CG iterations taken */
    int32_t evals;  /* energy+gradient evaluations */
    int32_t converged;
    int32_t tutte_sweeps;
    int32_t stalled;  /* stopped after FF_LS_STALLS failed line searches in a row */
    int32_t pad_;
} ff_result;

/* One isomer, scalar (the oracle): X (N*3) in: start geometry, out: optimised. */
void ff_optimise(int N, const ff_atom *g, double *X, const ff_opts *o, ff_result *r);
/* Energy and gradient of a whole isomer, scalar, via ff_atom_terms + ff_gather_gradient. */
double ff_energy_gradient(int N, const ff_atom *g, const double *X, double *grad);

/* ---- a batch and the backends ----------------------------------------------- */
typedef struct {
    double dualise, tutte, project, optimise; /* seconds of the last run */
} ff_stage_times;

typedef struct ff_batch {
    int N, F;
    long M;                 /* isomers */
    const uint16_t *dual;   /* M * F * 6, from ff_windup (host, owned by the caller) */
    ff_opts opts;
    /* outputs, host, M * ... (allocated by the caller) */
    ff_atom *graph;         /* M * N */
    double *X;              /* M * N * 3, optimised coordinates, Angstrom */
    ff_result *res;         /* M */
    ff_stage_times t;
    void *dev;              /* backend state */
} ff_batch;

/* What a backend provides. run() is the timed unit: every stage after the windup for
 * all M isomers; results stay on the backend until download(). */
typedef struct ff_ops {
    int (*prepare)(ff_batch *b);   /* allocate, upload the dual graphs */
    int (*run)(ff_batch *b);
    int (*download)(ff_batch *b);  /* graph, X, res (and t) -> host */
    void (*release)(ff_batch *b);
    int (*launches)(ff_batch *b, sb_launch *out, int max); /* GPU only; NULL on CPU */
    /* GPU only (NULL on CPU): isomers [start, start + take) of a prepared batch, enqueued in
     * slot 0 or 1 without waiting, so that one slot's slowest isomers overlap the next
     * chunk's start (the MPI queue); wait adds that slot's stage times to b->t. Results stay
     * on the backend until download(). Without them the queue runs each chunk as a batch. */
    int (*range_launch)(ff_batch *b, int slot, long start, long take);
    int (*range_wait)(ff_batch *b, int slot);
} ff_ops;

extern const ff_ops ff_ops_reference, ff_ops_openmp_simd, ff_ops_cuda;

#ifdef __cplusplus
}
#endif
#endif
