// dfratom_scf: the two-electron Fock build on the GPU. One block per output element of G
// (symmetry, block, i, j); its threads stride over the flat index of every density element
// (kappa', m, n) of every symmetry, evaluate the closed-form radial integrals of dfr_math.h,
// and reduce in shared memory. No atomics: the result is deterministic, and every thread of
// the device is busy while outputs remain (a few thousand blocks per build).
// The Roothaan eigen-solves can run here too, with cuSOLVER's dsygvd (dfr_eig_cuda).
// A batch of candidate bases (job=batch) stores each candidate's integrals as the tensor of
// dfr.h (one thread per entry, grid-stride over every candidate's entries) and contracts all
// candidates' densities at once with cuBLAS's strided-batched dgemv.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>


#include "dfratom_scf/dfr_math.h"
#include "sb_cuda.h"

#define DFR_BLOCK 128

// Every kernel takes its basis shape as a __grid_constant__ parameter: it is read from the
// constant bank as a __constant__ symbol would be, but each launch carries its own, so batches of
// different shapes (job=bsize runs its padding groups side by side) never share one slot.
typedef struct {
    dfr_fun *fun;
    int *out;
    double *D, *G;
    long set;
} dfr_dev;

__global__ void __launch_bounds__(DFR_BLOCK) dfr_g_kernel(const __grid_constant__ dfr_sym sym,
                                                         const dfr_fun *__restrict__ fun, const int *__restrict__ out,
                                                         const double *__restrict__ D, double *__restrict__ G)
{
    __shared__ double part[DFR_BLOCK];
    const dfr_sym *y = &sym;
    int code = out[blockIdx.x], s, blk, i, j;
    dfr_out_decode(code, &s, &blk, &i, &j);
    int total = 0;
    for (int sp = 0; sp < y->ns; ++sp) total += y->n[sp] * y->n[sp];
    double v = 0.0;
    for (int t = threadIdx.x; t < total; t += DFR_BLOCK) {
        int sp = 0, r = t;
        while (r >= y->n[sp] * y->n[sp]) r -= y->n[sp] * y->n[sp], ++sp;
        int N = y->n[sp];
        v += dfr_g_term(y, fun, D, s, blk, i, j, sp, r % N, r / N);
    }
    part[threadIdx.x] = v;
    __syncthreads();
    for (int h = DFR_BLOCK / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        int N = y->n[s];
        G[y->moff[s] + (long)blk * N * N + i + (long)j * N] = part[0];
    }
}

static int g_cuda(dfr_gbuild *g, const double *D, double *G)
{
    dfr_dev *d = (dfr_dev *)g->priv;
    size_t bytes = sizeof(double) * d->set;
    SB_CU(cudaMemcpy(d->D, D, bytes, cudaMemcpyHostToDevice));
    dfr_g_kernel<<<g->nout, DFR_BLOCK>>>(*g->sym, d->fun, d->out, d->D, d->G);
    SB_CU(cudaGetLastError());
    SB_CU(cudaMemcpy(G, d->G, bytes, cudaMemcpyDeviceToHost));
    return SB_OK;
}

extern "C" int dfr_g_cuda_init(dfr_gbuild *g)
{
    dfr_dev *d = (dfr_dev *)calloc(1, sizeof *d);
    if (!d) return SB_EXIT_RUNTIME;
    g->priv = d;
    g->build = g_cuda;
    d->set = dfr_set_size(g->sym);
    SB_CU(cudaMalloc(&d->fun, sizeof(dfr_fun) * g->sym->nf));
    SB_CU(cudaMalloc(&d->out, sizeof(int) * g->nout));
    SB_CU(cudaMalloc(&d->D, sizeof(double) * d->set));
    SB_CU(cudaMalloc(&d->G, sizeof(double) * d->set));
    SB_CU(cudaMemcpy(d->fun, g->fun, sizeof(dfr_fun) * g->sym->nf, cudaMemcpyHostToDevice));
    SB_CU(cudaMemcpy(d->out, g->out, sizeof(int) * g->nout, cudaMemcpyHostToDevice));
    SB_CU(cudaMemset(d->G, 0, sizeof(double) * d->set));
    return SB_OK;
}

extern "C" void dfr_g_cuda_free(dfr_gbuild *g)
{
    dfr_dev *d = (dfr_dev *)g->priv;
    if (!d) return;
    cudaFree(d->fun);
    cudaFree(d->out);
    cudaFree(d->D);
    cudaFree(d->G);
    free(d);
    g->priv = NULL;
}

// ---- eigen-solves: cuSOLVER's dsygvd on one symmetry block at a time ----

typedef struct {
    cusolverDnHandle_t solver;
    double *A, *B, *w, *work;
    int *info, lwork, maxd;
} dfr_eig_dev;

static const char *solver_status(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "cusolverStatus_t";
    }
}

/* Like SB_CU for a CUDA library's calls: report with file and line, return SB_EXIT_RUNTIME */
#define DFR_LIB(call, ok, lib, text)                                                            \
    do {                                                                                        \
        auto st_ = (call);                                                                      \
        if (st_ != ok) {                                                                        \
            sb_error("%s error at %s:%d: %s: %s (%d)", lib, __FILE__, __LINE__, #call, text(st_), \
                     (int)st_);                                                                 \
            return SB_EXIT_RUNTIME;                                                             \
        }                                                                                       \
    } while (0)
#define DFR_SOLVER(call) DFR_LIB(call, CUSOLVER_STATUS_SUCCESS, "cuSOLVER", solver_status)
#define DFR_BLAS(call) DFR_LIB(call, CUBLAS_STATUS_SUCCESS, "cuBLAS", cublasGetStatusString)

/* The SCF's convergence test compares densities between iterations: a solver that may return
 * bitwise different vectors for the same F would put a noise floor under it */
static int new_solver(cusolverDnHandle_t *h)
{
    DFR_SOLVER(cusolverDnCreate(h));
    DFR_SOLVER(cusolverDnSetDeterministicMode(*h, CUSOLVER_DETERMINISTIC_RESULTS));
    return SB_OK;
}

extern "C" int dfr_eig_cuda_create(const dfr_sym *y, int dirac, void **priv)
{
    dfr_eig_dev *e = (dfr_eig_dev *)calloc(1, sizeof *e);
    if (!e) return SB_EXIT_RUNTIME;
    *priv = e;
    for (int s = 0; s < y->ns; ++s)
        if ((dirac ? 2 : 1) * y->n[s] > e->maxd) e->maxd = (dirac ? 2 : 1) * y->n[s];
    size_t nn = (size_t)e->maxd * e->maxd;
    int rc = new_solver(&e->solver);
    if (rc) return rc;
    SB_CU(cudaMalloc(&e->A, sizeof(double) * nn));
    SB_CU(cudaMalloc(&e->B, sizeof(double) * nn));
    SB_CU(cudaMalloc(&e->w, sizeof(double) * e->maxd));
    SB_CU(cudaMalloc(&e->info, sizeof(int)));
    /* the workspace of every block size in use: cuSOLVER does not promise it grows with n */
    for (int s = 0; s < y->ns; ++s) {
        int n = (dirac ? 2 : 1) * y->n[s], lw = 0;
        DFR_SOLVER(cusolverDnDsygvd_bufferSize(e->solver, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR,
                                               CUBLAS_FILL_MODE_UPPER, n, e->A, n, e->B, n, e->w, &lw));
        if (lw > e->lwork) e->lwork = lw;
    }
    SB_CU(cudaMalloc(&e->work, sizeof(double) * (e->lwork > 0 ? e->lwork : 1)));
    return SB_OK;
}

/* dsygvd's contract (dfr_eig_fn); a non-zero info goes back to scf.c, which reports it */
extern "C" int dfr_eig_cuda(void *priv, int n, double *A, double *B, double *w, int *info)
{
    dfr_eig_dev *e = (dfr_eig_dev *)priv;
    if (n < 1 || n > e->maxd) {
        sb_error("dfratom_scf: eigenproblem of dimension %d, but the cuSOLVER buffers hold 1 .. %d", n, e->maxd);
        return SB_EXIT_RUNTIME;
    }
    size_t bytes = sizeof(double) * n * n;
    SB_CU(cudaMemcpy(e->A, A, bytes, cudaMemcpyHostToDevice));
    SB_CU(cudaMemcpy(e->B, B, bytes, cudaMemcpyHostToDevice));
    DFR_SOLVER(cusolverDnDsygvd(e->solver, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n,
                                e->A, n, e->B, n, e->w, e->work, e->lwork, e->info));
    SB_CU(cudaMemcpy(info, e->info, sizeof(int), cudaMemcpyDeviceToHost));
    if (*info) return SB_OK;
    SB_CU(cudaMemcpy(A, e->A, bytes, cudaMemcpyDeviceToHost));
    SB_CU(cudaMemcpy(w, e->w, sizeof(double) * n, cudaMemcpyDeviceToHost));
    return SB_OK;
}

extern "C" void dfr_eig_cuda_destroy(void *priv)
{
    dfr_eig_dev *e = (dfr_eig_dev *)priv;
    if (!e) return;
    if (e->solver) (void)cusolverDnDestroy(e->solver);
    cudaFree(e->A);
    cudaFree(e->B);
    cudaFree(e->w);
    cudaFree(e->work);
    cudaFree(e->info);
    free(e);
}

extern "C" int dfr_g_cuda_launches(dfr_gbuild *g, sb_launch *l, int max)
{
    if (max < 1) return 0;
    if (sb_cuda_occupancy((const void *)dfr_g_kernel, "dfr_g_kernel", DFR_BLOCK, 0, g->nout, l)) return -1;
    return 1;
}

// ---- a batch of candidate bases: stored tensors, batched contraction ----

// Copies, launches and library calls of a batch go to the calling host thread's own stream, so
// that the two lanes of batch.c (two host threads) never wait for each other's GPU work
static cudaError_t lane_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, cudaStreamPerThread);
    return e == cudaSuccess ? cudaStreamSynchronize(cudaStreamPerThread) : e;
}

typedef struct {
    dfr_tshape t; // its outd/outx are host pointers: the kernel gets the device copies below
    int *outd, *outx, Bmax, nf;
    dfr_sym sym;    // the shape: each launch's parameter, and dfr_etab_fits's
    dfr_etab *tb;   // device copy of t.tab
    int group;      // candidates whose tables are in flight together
    dfr_fun *fun;
    double *T, *x, *y, *tab;
    cublasHandle_t blas;
    struct { /* dfr_batch_cuda_eig: made at its first call, grown as needed */
        cusolverDnHandle_t solver;
        cusolverDnParams_t params;
        double *A, *L, *w, **pA, **pL;
        int *info;
        size_t cA, cL, cw, cpA, cpL, cinfo; /* their capacities, in elements */
        void *work, *hwork;
        size_t lwork, lhwork;
    } e;
} dfr_batch_dev;

// Candidates c0 .. c0 + (total / per) - 1; TAB: read their tables (tab, tb->per apart), else
// evaluate every integral (two instances: the table path alone needs fewer registers)
template <bool TAB>
__global__ void __launch_bounds__(DFR_BLOCK) dfr_t_kernel(const __grid_constant__ dfr_sym sym,
                                                         const dfr_fun *__restrict__ fun, dfr_tshape t,
                                                         const int *__restrict__ outd,
                                                         const int *__restrict__ outx, int nf,
                                                         const dfr_etab *__restrict__ tb,
                                                         const double *__restrict__ tab, int c0, long total,
                                                         double *__restrict__ T)
{
    for (long u = blockIdx.x * (long)DFR_BLOCK + threadIdx.x; u < total; u += (long)gridDim.x * DFR_BLOCK) {
        long c = u / t.per;
        const dfr_etab *tbu = TAB ? tb : NULL;
        const double *tc = TAB ? tab + c * tb->per : NULL;
        T[(c0 + c) * t.per + (u - c * t.per)] =
            dfr_tensor_entry(&sym, fun + (c0 + c) * nf, tbu, tc, &t, outd, outx, u - c * t.per);
    }
}

// The tables of candidates c0 .. c0 + total / tb->per - 1, one thread per elementary integral
__global__ void __launch_bounds__(DFR_BLOCK) dfr_e_kernel(const dfr_fun *__restrict__ fun, int nf,
                                                         const dfr_etab *__restrict__ tb, int c0, long total,
                                                         double *__restrict__ tab)
{
    const long per = tb->per;
    for (long u = blockIdx.x * (long)DFR_BLOCK + threadIdx.x; u < total; u += (long)gridDim.x * DFR_BLOCK) {
        long c = u / per;
        tab[u] = dfr_etab_entry(tb, fun + (c0 + c) * nf, u - c * per);
    }
}

/* The grid of a tensor pass over `total` entries (grid-stride beyond it) */
static unsigned t_grid(long total)
{
    long blocks = (total + DFR_BLOCK - 1) / DFR_BLOCK;
    return (unsigned)(blocks < (1L << 20) ? blocks : (1L << 20));
}

extern "C" int dfr_batch_cuda_launches(long total, long etotal, sb_launch *l, int max)
{
    if (max < 1) return 0;
    if (sb_cuda_occupancy((const void *)dfr_t_kernel<true>, "dfr_t_kernel<table>", DFR_BLOCK, 0, (int)t_grid(total),
                          l))
        return -1;
    if (max < 2) return 1;
    if (sb_cuda_occupancy((const void *)dfr_e_kernel, "dfr_e_kernel", DFR_BLOCK, 0, (int)t_grid(etotal), l + 1))
        return -1;
    return 2;
}

extern "C" int dfr_batch_cuda_create(const dfr_tshape *t, const dfr_sym *y, int Bmax, void **priv)
{
    dfr_batch_dev *b = (dfr_batch_dev *)calloc(1, sizeof *b);
    if (!b) return SB_EXIT_RUNTIME;
    *priv = b;
    b->t = *t;
    b->Bmax = Bmax;
    b->nf = y->nf;
    size_t tbytes = sizeof(double) * (size_t)Bmax * t->per, freeb = 0, totalb = 0;
    SB_CU(cudaMemGetInfo(&freeb, &totalb));
    if (tbytes > freeb) {
        sb_error("dfratom_scf: %d candidates' integral tensors need %.2f GB, the GPU has %.2f GB free: lower "
                 "--param batch_mem", Bmax, tbytes / 1e9, freeb / 1e9);
        return SB_EXIT_RUNTIME;
    }
    b->sym = *y;
    b->group = dfr_etab_group(t->tab, Bmax);
    size_t ebytes = sizeof(double) * (size_t)(t->tab->per > 0 ? t->tab->per : 1);
    SB_CU(cudaMalloc(&b->tb, sizeof(dfr_etab)));
    SB_CU(lane_copy(b->tb, t->tab, sizeof(dfr_etab), cudaMemcpyHostToDevice));
    SB_CU(cudaMalloc(&b->tab, ebytes * b->group));
    SB_CU(cudaMalloc(&b->outd, sizeof(int) * (t->nd + 1)));
    SB_CU(cudaMalloc(&b->outx, sizeof(int) * (t->nx + 1)));
    SB_CU(cudaMalloc(&b->fun, sizeof(dfr_fun) * (size_t)Bmax * y->nf));
    SB_CU(cudaMalloc(&b->T, tbytes));
    SB_CU(cudaMalloc(&b->x, sizeof(double) * (size_t)Bmax * t->xlen));
    SB_CU(cudaMalloc(&b->y, sizeof(double) * (size_t)Bmax * t->ylen));
    SB_CU(lane_copy(b->outd, t->outd, sizeof(int) * t->nd, cudaMemcpyHostToDevice));
    if (t->nx) SB_CU(lane_copy(b->outx, t->outx, sizeof(int) * t->nx, cudaMemcpyHostToDevice));
    DFR_BLAS(cublasCreate(&b->blas));
    DFR_BLAS(cublasSetStream(b->blas, cudaStreamPerThread));
    return SB_OK;
}

extern "C" int dfr_batch_cuda_tensors(void *priv, const dfr_fun *f, int B, int *tabulated)
{
    dfr_batch_dev *b = (dfr_batch_dev *)priv;
    if (B < 1 || B > b->Bmax) {
        sb_error("dfratom_scf: %d candidates, but the batch buffers hold 1 .. %d", B, b->Bmax);
        return SB_EXIT_RUNTIME;
    }
    SB_CU(lane_copy(b->fun, f, sizeof(dfr_fun) * (size_t)B * b->nf, cudaMemcpyHostToDevice));
    const dfr_etab *tb = b->t.tab;
    for (int c0 = 0; c0 < B; c0 += b->group) {
        const int n = B - c0 < b->group ? B - c0 : b->group;
        int fits = 1;
        for (int c = c0; c < c0 + n; ++c) fits &= dfr_etab_fits(tb, &b->sym, f + (long)c * b->nf);
        const cudaStream_t st = cudaStreamPerThread;
        if (fits) {
            *tabulated += n;
            long etotal = (long)n * tb->per;
            dfr_e_kernel<<<t_grid(etotal), DFR_BLOCK, 0, st>>>(b->fun, b->nf, b->tb, c0, etotal, b->tab);
            SB_CU(cudaGetLastError());
        }
        long total = (long)n * b->t.per;
        auto *const t_kernel = fits ? dfr_t_kernel<true> : dfr_t_kernel<false>;
        t_kernel<<<t_grid(total), DFR_BLOCK, 0, st>>>(b->sym, b->fun, b->t, b->outd, b->outx, b->nf, b->tb, b->tab, c0,
                                                      total, b->T);
        SB_CU(cudaGetLastError());
    }
    SB_CU(cudaStreamSynchronize(cudaStreamPerThread));
    return SB_OK;
}

extern "C" int dfr_batch_cuda_contract(void *priv, int B, const double *x, double *yv)
{
    dfr_batch_dev *b = (dfr_batch_dev *)priv;
    const dfr_tshape *t = &b->t;
    const double one = 1.0, zero = 0.0;
    SB_CU(lane_copy(b->x, x, sizeof(double) * (size_t)B * t->xlen, cudaMemcpyHostToDevice));
    DFR_BLAS(cublasDgemvStridedBatched(b->blas, CUBLAS_OP_N, t->nd, t->nh * t->Ed, &one, b->T, t->nd, t->per, b->x, 1,
                                       t->xlen, &zero, b->y, 1, t->ylen, B));
    if (t->nx)
        DFR_BLAS(cublasDgemvStridedBatched(b->blas, CUBLAS_OP_N, t->nx, t->E, &one,
                                           b->T + (long)t->nd * t->nh * t->Ed, t->nx, t->per,
                                           b->x + (long)t->nh * t->Ed, 1, t->xlen, &zero, b->y + t->nd, 1, t->ylen, B));
    SB_CU(lane_copy(yv, b->y, sizeof(double) * (size_t)B * t->ylen, cudaMemcpyDeviceToHost));
    return SB_OK;
}

/* A device buffer of at least `need` elements of `size` bytes (grown, never shrunk) */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return SB_OK;
    cudaFree(*p);
    *p = NULL, *cap = 0;
    SB_CU(cudaMalloc(p, need * size));
    *cap = need;
    return SB_OK;
}

/* Buffers for n problems of dimension d */
static int eig_buffers(dfr_batch_dev *b, int d, int n)
{
    const size_t need = (size_t)n * d * d, nn = (size_t)n;
    int rc = grow((void **)&b->e.A, &b->e.cA, need, sizeof(double));
    if (!rc) rc = grow((void **)&b->e.L, &b->e.cL, need, sizeof(double));
    if (!rc) rc = grow((void **)&b->e.w, &b->e.cw, (size_t)n * d, sizeof(double));
    if (!rc) rc = grow((void **)&b->e.pA, &b->e.cpA, nn, sizeof(double *));
    if (!rc) rc = grow((void **)&b->e.pL, &b->e.cpL, nn, sizeof(double *));
    if (!rc) rc = grow((void **)&b->e.info, &b->e.cinfo, nn, sizeof(int));
    if (!rc && !b->e.solver) {
        if ((rc = new_solver(&b->e.solver))) return rc;
        DFR_SOLVER(cusolverDnSetStream(b->e.solver, cudaStreamPerThread));
        DFR_SOLVER(cusolverDnCreateParams(&b->e.params));
    }
    return rc;
}

/* F C = M C e as L^-1 F L^-T V = V e, C = L^-T V: two triangular solves, cuSOLVER's batched
 * symmetric eigensolver, one triangular solve, for n problems in one call each */
extern "C" int dfr_batch_cuda_eig(void *priv, int d, int n, double *F, const double *L, double *w)
{
    dfr_batch_dev *b = (dfr_batch_dev *)priv;
    if (n < 1) return SB_OK;
    int rc = eig_buffers(b, d, n);
    if (rc) return rc;
    const size_t dd = (size_t)d * d;
    double **hp = (double **)malloc(sizeof(double *) * 2 * n);
    if (!hp) return SB_EXIT_RUNTIME;
    for (int i = 0; i < n; ++i) hp[i] = b->e.A + i * dd, hp[n + i] = b->e.L + i * dd;
    cudaError_t ce = lane_copy(b->e.pA, hp, sizeof(double *) * n, cudaMemcpyHostToDevice);
    if (ce == cudaSuccess) ce = lane_copy(b->e.pL, hp + n, sizeof(double *) * n, cudaMemcpyHostToDevice);
    free(hp);
    SB_CU(ce);
    SB_CU(lane_copy(b->e.A, F, sizeof(double) * n * dd, cudaMemcpyHostToDevice));
    SB_CU(lane_copy(b->e.L, L, sizeof(double) * n * dd, cudaMemcpyHostToDevice));
    const double one = 1.0;
    const double *const *pL = (const double *const *)b->e.pL;
    DFR_BLAS(cublasDtrsmBatched(b->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                d, d, &one, pL, d, b->e.pA, d, n));
    DFR_BLAS(cublasDtrsmBatched(b->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT,
                                d, d, &one, pL, d, b->e.pA, d, n));
    size_t ld = 0, lh = 0;
    DFR_SOLVER(cusolverDnXsyevBatched_bufferSize(b->e.solver, b->e.params, CUSOLVER_EIG_MODE_VECTOR,
                                                 CUBLAS_FILL_MODE_LOWER, d, CUDA_R_64F, b->e.A, d, CUDA_R_64F, b->e.w,
                                                 CUDA_R_64F, &ld, &lh, n));
    if ((rc = grow(&b->e.work, &b->e.lwork, ld, 1))) return rc;
    if (lh > b->e.lhwork) {
        free(b->e.hwork);
        b->e.lhwork = 0;
        if (!(b->e.hwork = malloc(lh))) return SB_EXIT_RUNTIME;
        b->e.lhwork = lh;
    }
    DFR_SOLVER(cusolverDnXsyevBatched(b->e.solver, b->e.params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, d,
                                      CUDA_R_64F, b->e.A, d, CUDA_R_64F, b->e.w, CUDA_R_64F, b->e.work, b->e.lwork,
                                      b->e.hwork, b->e.lhwork, b->e.info, n));
    DFR_BLAS(cublasDtrsmBatched(b->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT,
                                d, d, &one, pL, d, b->e.pA, d, n));
    int *info = (int *)malloc(sizeof(int) * n);
    if (!info) return SB_EXIT_RUNTIME;
    ce = lane_copy(info, b->e.info, sizeof(int) * n, cudaMemcpyDeviceToHost);
    int bad = -1;
    for (int i = 0; ce == cudaSuccess && i < n && bad < 0; ++i)
        if (info[i]) bad = i;
    if (bad >= 0)
        sb_error("dfratom_scf: cusolverDnXsyevBatched failed (info %d) for problem %d of %d (dimension %d): the basis "
                 "is numerically linearly dependent or the Fock matrix is not finite", info[bad], bad, n, d);
    free(info);
    SB_CU(ce);
    if (bad >= 0) return SB_EXIT_RUNTIME;
    SB_CU(lane_copy(F, b->e.A, sizeof(double) * n * dd, cudaMemcpyDeviceToHost));
    SB_CU(lane_copy(w, b->e.w, sizeof(double) * n * d, cudaMemcpyDeviceToHost));
    return SB_OK;
}

extern "C" void dfr_batch_cuda_destroy(void *priv)
{
    dfr_batch_dev *b = (dfr_batch_dev *)priv;
    if (!b) return;
    if (b->e.params) (void)cusolverDnDestroyParams(b->e.params);
    if (b->e.solver) (void)cusolverDnDestroy(b->e.solver);
    cudaFree(b->e.A), cudaFree(b->e.L), cudaFree(b->e.w), cudaFree(b->e.pA), cudaFree(b->e.pL), cudaFree(b->e.info);
    cudaFree(b->e.work);
    free(b->e.hwork);
    if (b->blas) (void)cublasDestroy(b->blas);
    cudaFree(b->outd);
    cudaFree(b->outx);
    cudaFree(b->tb);
    cudaFree(b->tab);
    cudaFree(b->fun);
    cudaFree(b->T);
    cudaFree(b->x);
    cudaFree(b->y);
    free(b);
}

extern "C" const dfr_ops dfr_ops_cuda = {dfr_g_cuda_init,        dfr_g_cuda_free,         dfr_g_cuda_launches,
                                         dfr_eig_cuda_create,    dfr_eig_cuda,            dfr_eig_cuda_destroy,
                                         dfr_batch_cuda_create,  dfr_batch_cuda_tensors,  dfr_batch_cuda_contract,
                                         dfr_batch_cuda_eig,     dfr_batch_cuda_destroy,  dfr_batch_cuda_launches};
