/* lattice_mc CUDA backend.
 * Same sub-lattice-major layout as the OpenMP backend (see openmp_simd.c): a tick
 * is one launch over the (L/2)^3 sites of one sub-lattice, a thread per site,
 * x fastest across a warp so all 21 float loads are coalesced. Rejected moves
 * write nothing. Accepted dE and the accept count are reduced per block and
 * added to two device accumulators; the host reads them only when asked. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"
#include "sb_cuda.h"

namespace {

struct cuda_state {
    int h;
    long h3;
    float *x, *y, *z;
    uint8_t *f;
    double *acc; /* [0] sum of accepted dE, [1] accepted moves */
    dim3 block, grid;
};

struct tick_args {
    float *x, *y, *z;
    const uint8_t *f;
    int L, h, s;
    long h3;
    uint32_t sweep;
    uint64_t seed;
    float W;
    lmc_consts k;
};

__device__ __forceinline__ int wrap(int i, int h) { return i < 0 ? i + h : (i >= h ? i - h : i); }

template <bool DROPLET>
__global__ void __launch_bounds__(256) lmc_tick(tick_args a, double *acc)
{
    const int xh = blockIdx.x * blockDim.x + threadIdx.x;
    const int yh = blockIdx.y * blockDim.y + threadIdx.y;
    const int zh = blockIdx.z;
    const int px = a.s & 1, py = (a.s >> 1) & 1, pz = (a.s >> 2) & 1;
    float de = 0.0f;
    int accepted = 0;
    if (xh < a.h && yh < a.h) {
        const long h = a.h;
        const long own = a.s * a.h3 + xh + h * (yh + h * zh);
        const long bx = (a.s ^ 1) * a.h3 + h * (yh + h * zh);
        const long by = (a.s ^ 2) * a.h3 + xh + h * h * zh;
        const long bz = (a.s ^ 4) * a.h3 + xh + h * yh;
        long nb[6] = {bx + wrap(xh + px, a.h), bx + wrap(xh - 1 + px, a.h),
                      by + h * wrap(yh + py, a.h), by + h * wrap(yh - 1 + py, a.h),
                      bz + h * h * wrap(zh + pz, a.h), bz + h * h * wrap(zh - 1 + pz, a.h)};
        lmc_env e;
#pragma unroll
        for (int j = 0; j < 6; j++) {
            e.x[j] = __ldg(a.x + nb[j]);
            e.y[j] = __ldg(a.y + nb[j]);
            e.z[j] = __ldg(a.z + nb[j]);
            e.w[j] = DROPLET ? ((__ldg(a.f + nb[j]) & LMC_ACTIVE) ? 1.0f : 0.0f) : 1.0f;
        }
        const int x = 2 * xh + px, y = 2 * yh + py, z = 2 * zh + pz;
        e.nux = e.nuy = e.nuz = e.wi = 0.0f;
        bool active = true;
        if (DROPLET) {
            uint8_t fl = a.f[own];
            active = fl & LMC_ACTIVE;
            if (fl & LMC_SURFACE) {
                lmc_normal(a.L, x, y, z, &e.nux, &e.nuy, &e.nuz);
                e.wi = a.W;
            }
        }
        if (active) {
            uint32_t site = (uint32_t)(x + a.L * (y + a.L * z));
            philox4x32_ctr_t r = lmc_random(a.seed, site, a.sweep, (uint32_t)a.s, LMC_TAG_MOVE);
            lmc_result u = lmc_update(a.x[own], a.y[own], a.z[own], e, a.k, r, DROPLET);
            if (u.accepted) {
                a.x[own] = u.x;
                a.y[own] = u.y;
                a.z[own] = u.z;
            }
            de = u.de;
            accepted = u.accepted;
        }
    }
    /* block reduction: warp shuffles, then one shared slot per warp */
    double d = de, n = accepted;
    for (int o = 16; o > 0; o >>= 1) {
        d += __shfl_down_sync(0xffffffffu, d, o);
        n += __shfl_down_sync(0xffffffffu, n, o);
    }
    __shared__ double sd[8], sn[8];
    const int t = threadIdx.x + blockDim.x * threadIdx.y, warp = t >> 5, nwarps = (blockDim.x * blockDim.y) >> 5;
    /* blockDim is 256 = 8 full warps: every lane exists for the full-mask shuffles */
    if ((t & 31) == 0) sd[warp] = d, sn[warp] = n;
    __syncthreads();
    if (t == 0) {
        for (int i = 1; i < nwarps; i++) d += sd[i], n += sn[i];
        atomicAdd(acc, d);
        atomicAdd(acc + 1, n);
    }
}

/* The lattice's float data is mirrored in a sub-lattice-major staging copy. */
int stage(lmc *m, float *buf, bool to_device)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    float *host[3] = {m->nx, m->ny, m->nz}, *dev[3] = {st->x, st->y, st->z};
    size_t bytes = (size_t)m->nsites * sizeof(float);
    for (int c = 0; c < 3; c++) {
        if (!to_device) SB_CU(cudaMemcpy(buf, dev[c], bytes, cudaMemcpyDeviceToHost));
        for (long i = 0; i < m->nsites; i++) {
            long j = lmc_sub_to_natural(m->cfg.L, (int)(i / st->h3), i % st->h3);
            if (to_device)
                buf[i] = host[c][j];
            else
                host[c][j] = buf[i];
        }
        if (to_device) SB_CU(cudaMemcpy(dev[c], buf, bytes, cudaMemcpyHostToDevice));
    }
    return SB_OK;
}

int cu_upload(lmc *m)
{
    cuda_state *st = static_cast<cuda_state *>(calloc(1, sizeof(cuda_state)));
    if (!st) return SB_EXIT_RUNTIME;
    m->dev = st;
    st->h = m->cfg.L / 2;
    st->h3 = (long)st->h * st->h * st->h;
    size_t n = (size_t)m->nsites;
    SB_CU(cudaMalloc(&st->x, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->y, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->z, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->f, n));
    SB_CU(cudaMalloc(&st->acc, 2 * sizeof(double)));
    SB_CU(cudaMemset(st->acc, 0, 2 * sizeof(double)));
    /* 256 threads, a whole number of warps (the block reduction relies on it),
     * x fastest; lanes past the row end idle on small lattices */
    int bx = st->h >= 128 ? 128 : (st->h + 31) / 32 * 32;
    int by = 256 / bx;
    st->block = dim3(bx, by, 1);
    st->grid = dim3((st->h + bx - 1) / bx, (st->h + by - 1) / by, st->h);
    /* flags through the same staging path: widen to float and back is wasteful; copy directly */
    uint8_t *fb = static_cast<uint8_t *>(malloc(n));
    float *buf = static_cast<float *>(malloc(n * sizeof(float)));
    if (!fb || !buf) {
        free(fb);
        free(buf);
        return SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < m->nsites; i++) fb[i] = m->flags[lmc_sub_to_natural(m->cfg.L, (int)(i / st->h3), i % st->h3)];
    cudaError_t e = cudaMemcpy(st->f, fb, n, cudaMemcpyHostToDevice);
    int rc = e == cudaSuccess ? stage(m, buf, true) : sb_cuda_report(e, "cudaMemcpy(flags)", __FILE__, __LINE__);
    free(fb);
    free(buf);
    return rc;
}

int cu_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    tick_args a = {st->x, st->y, st->z, st->f, m->cfg.L, st->h, 0, st->h3, sweep, m->cfg.seed,
                   (float)m->cfg.W, {beta, step, (float)m->cfg.chi}};
    for (int t = 0; t < 8; t++) {
        a.s = lmc_tick_order[t];
        if (m->cfg.geometry == LMC_DROPLET)
            lmc_tick<true><<<st->grid, st->block>>>(a, st->acc);
        else
            lmc_tick<false><<<st->grid, st->block>>>(a, st->acc);
        SB_CU_LAUNCH();
    }
    return SB_OK;
}

int cu_totals(lmc *m, double *dE, double *accepted)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    double h[2];
    SB_CU(cudaMemcpy(h, st->acc, sizeof h, cudaMemcpyDeviceToHost));
    *dE = h[0];
    *accepted = h[1];
    return SB_OK;
}

int cu_download(lmc *m)
{
    float *buf = static_cast<float *>(malloc((size_t)m->nsites * sizeof(float)));
    if (!buf) return SB_EXIT_RUNTIME;
    int rc = stage(m, buf, false);
    free(buf);
    return rc;
}

void cu_release(lmc *m)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    if (!st) return;
    cudaFree(st->x);
    cudaFree(st->y);
    cudaFree(st->z);
    cudaFree(st->f);
    cudaFree(st->acc);
    free(st);
    m->dev = NULL;
}

int cu_launches(lmc *m, sb_launch *out, int max)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    if (max < 1) return 0;
    int threads = (int)(st->block.x * st->block.y);
    int blocks = (int)(st->grid.x * st->grid.y * st->grid.z);
    bool droplet = m->cfg.geometry == LMC_DROPLET;
    const void *fn = droplet ? (const void *)lmc_tick<true> : (const void *)lmc_tick<false>;
    if (sb_cuda_occupancy(fn, droplet ? "lmc_tick<droplet>" : "lmc_tick<bulk>", threads, 0, blocks, out))
        return -1;
    return 1;
}

} // namespace

extern "C" const lmc_ops lmc_ops_cuda = {cu_upload, cu_sweep, cu_totals, cu_download, cu_release, cu_launches};
