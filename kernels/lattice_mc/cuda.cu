/* lattice_mc CUDA backend.
 * Same sub-lattice-major layout as the OpenMP backend (see openmp_simd.c): a tick
 * is one launch over the (L/2)^3 sites of one sub-lattice, a thread per site,
 * x fastest across a warp so all 21 float loads are coalesced. Rejected moves
 * write nothing. Accepted dE and the accept count are reduced per block and
 * added to two device accumulators; the host reads them only when asked.
 * A slab (MPI, see decomp.c): every half sweep, the edge plane the neighbour reads
 * goes device -> pinned host -> sb_mpi_isend on a second stream, while the four
 * ticks run on the planes that do not read the halo; the received halo goes back
 * on that stream and the four ticks of the edge plane follow. No CUDA-aware MPI. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"
#include "sb_cuda.h"
#include "sb_mpi.h"

namespace {

struct cuda_state {
    lmc_store g;
    float *x, *y, *z;
    uint8_t *f;
    double *acc; /* [0] sum of accepted dE, [1] accepted moves */
    dim3 block, grid;
    /* slab only: */
    cudaStream_t comm;   /* non-blocking: does not serialise with the legacy stream */
    cudaEvent_t ready, halo_in;
    float *sbuf, *rbuf;  /* pinned; rbuf has one half per phase (see cu_phase) */
};

struct tick_args {
    float *x, *y, *z;
    const uint8_t *f;
    int L, h, s;
    int zs, zlo, zg; /* planes per sub-lattice, first plane of the launch, global z of plane 0 */
    long sub;
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
    const int zl = blockIdx.z + a.zlo;
    const int px = a.s & 1, py = (a.s >> 1) & 1, pz = (a.s >> 2) & 1;
    float de = 0.0f;
    int accepted = 0;
    if (xh < a.h && yh < a.h) {
        const long h = a.h;
        const long own = a.s * a.sub + xh + h * (yh + h * zl);
        const long bx = (a.s ^ 1) * a.sub + h * (yh + h * zl);
        const long by = (a.s ^ 2) * a.sub + xh + h * h * zl;
        const long bz = (a.s ^ 4) * a.sub + xh + h * yh;
        /* periodic in z on one rank; in a slab the neighbours of owned planes are in range */
        long nb[6] = {bx + wrap(xh + px, a.h), bx + wrap(xh - 1 + px, a.h),
                      by + h * wrap(yh + py, a.h), by + h * wrap(yh - 1 + py, a.h),
                      bz + h * h * wrap(zl + pz, a.zs), bz + h * h * wrap(zl - 1 + pz, a.zs)};
        lmc_env e;
#pragma unroll
        for (int j = 0; j < 6; j++) {
            e.x[j] = __ldg(a.x + nb[j]);
            e.y[j] = __ldg(a.y + nb[j]);
            e.z[j] = __ldg(a.z + nb[j]);
            e.w[j] = DROPLET ? ((__ldg(a.f + nb[j]) & LMC_ACTIVE) ? 1.0f : 0.0f) : 1.0f;
        }
        const int x = 2 * xh + px, y = 2 * yh + py, z = 2 * zl + pz + a.zg; /* global: the random key */
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
            lmc_words w = lmc_site_words(a.seed, site, x, a.sweep, (uint32_t)a.s);
            lmc_result u = lmc_update(a.x[own], a.y[own], a.z[own], e, a.k, w, DROPLET);
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

/* Host natural layout <-> device storage (lmc_store), through a staging buffer of
 * one component; to the device with the halo planes, back without them. */
int stage(lmc *m, float *buf, bool to_device)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    float *host[3] = {m->nx, m->ny, m->nz}, *dev[3] = {st->x, st->y, st->z};
    const long n = 8 * st->g.sub;
    size_t bytes = (size_t)n * sizeof(float);
    for (int c = 0; c < 3; c++) {
        if (!to_device) SB_CU(cudaMemcpy(buf, dev[c], bytes, cudaMemcpyDeviceToHost));
        for (long i = 0; i < n; i++) {
            long j = lmc_store_to_host(m, &st->g, i);
            if (to_device)
                buf[i] = j == LMC_UNUSED ? 0.0f : host[c][j];
            else if (j >= 0 && j < m->nlocal)
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
    st->g = lmc_store_of(m);
    const int h = st->g.h;
    size_t n = (size_t)(8 * st->g.sub);
    SB_CU(cudaMalloc(&st->x, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->y, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->z, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->f, n));
    SB_CU(cudaMalloc(&st->acc, 2 * sizeof(double)));
    SB_CU(cudaMemset(st->acc, 0, 2 * sizeof(double)));
    if (m->halo) {
        size_t hb = 12 * (size_t)h * h * sizeof(float);
        SB_CU(cudaStreamCreateWithFlags(&st->comm, cudaStreamNonBlocking));
        SB_CU(cudaEventCreateWithFlags(&st->ready, cudaEventDisableTiming));
        SB_CU(cudaEventCreateWithFlags(&st->halo_in, cudaEventDisableTiming));
        SB_CU(cudaMallocHost(&st->sbuf, hb));
        SB_CU(cudaMallocHost(&st->rbuf, 2 * hb));
    }
    /* 256 threads, a whole number of warps (the block reduction relies on it),
     * x fastest; lanes past the row end idle on small lattices */
    int bx = h >= 128 ? 128 : (h + 31) / 32 * 32;
    int by = 256 / bx;
    st->block = dim3(bx, by, 1);
    st->grid = dim3((h + bx - 1) / bx, (h + by - 1) / by, st->g.nzh);
    uint8_t *fb = static_cast<uint8_t *>(malloc(n));
    float *buf = static_cast<float *>(malloc(n * sizeof(float)));
    if (!fb || !buf) {
        free(fb);
        free(buf);
        return SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < (long)n; i++) {
        long j = lmc_store_to_host(m, &st->g, i);
        fb[i] = j == LMC_UNUSED ? 0 : m->flags[j];
    }
    cudaError_t e = cudaMemcpy(st->f, fb, n, cudaMemcpyHostToDevice);
    int rc = e == cudaSuccess ? stage(m, buf, true) : sb_cuda_report(e, "cudaMemcpy(flags)", __FILE__, __LINE__);
    free(fb);
    free(buf);
    return rc;
}

/* The four ticks of half sweep `phase` on storage planes [lo, hi), tick by tick. */
int cu_ticks(lmc *m, tick_args a, int phase, int lo, int hi)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    if (hi <= lo) return SB_OK;
    dim3 grid(st->grid.x, st->grid.y, (unsigned)(hi - lo));
    a.zlo = lo;
    for (int t = 4 * phase; t < 4 * phase + 4; t++) {
        a.s = lmc_tick_order[t];
        if (m->cfg.geometry == LMC_DROPLET)
            lmc_tick<true><<<grid, st->block>>>(a, st->acc);
        else
            lmc_tick<false><<<grid, st->block>>>(a, st->acc);
        SB_CU_LAUNCH();
    }
    return SB_OK;
}

/* Planes p.send_zl (out) or p.recv_zl (in) of sub-lattices p.sub0..+3, all three
 * components, as one message: 3 strided copies on the comm stream. */
int cu_halo_copy(cuda_state *st, const lmc_halo_plan &p, float *host, bool out)
{
    const size_t hh = (size_t)st->g.h * st->g.h, row = hh * sizeof(float), pitch = (size_t)st->g.sub * sizeof(float);
    float *dev[3] = {st->x, st->y, st->z};
    for (int c = 0; c < 3; c++) {
        float *d = dev[c] + p.sub0 * st->g.sub + (out ? p.send_zl : p.recv_zl) * (long)hh, *hst = host + 4 * c * hh;
        if (out)
            SB_CU(cudaMemcpy2DAsync(hst, row, d, pitch, row, 4, cudaMemcpyDeviceToHost, st->comm));
        else
            SB_CU(cudaMemcpy2DAsync(d, pitch, hst, row, row, 4, cudaMemcpyHostToDevice, st->comm));
    }
    return SB_OK;
}

/* Half a sweep of a slab. The edge plane sent is not written in this phase and the
 * halo received is read only by the edge plane, so both copies overlap the ticks of
 * the other planes. rbuf alternates halves by phase: a half is refilled by irecv only
 * after the host has synchronised the comm stream past its last host-to-device copy. */
int cu_phase(lmc *m, tick_args a, int phase)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    lmc_halo_plan p = lmc_halo_plan_of(m, &st->g, phase);
    const size_t n = 12 * (size_t)st->g.h * st->g.h;
    float *rbuf = st->rbuf + phase * n;
    int rc;
    SB_CU(cudaEventRecord(st->ready, 0));
    SB_CU(cudaStreamWaitEvent(st->comm, st->ready, 0));
    if ((rc = cu_halo_copy(st, p, st->sbuf, true))) return rc;
    sb_mpi_reqs rq = {0, {0}};
    sb_mpi_irecv(&rq, rbuf, n * sizeof(float), p.from, p.tag);
    if ((rc = cu_ticks(m, a, phase, p.lo, p.hi))) return rc;
    SB_CU(cudaStreamSynchronize(st->comm));
    sb_mpi_isend(&rq, st->sbuf, n * sizeof(float), p.to, p.tag);
    sb_mpi_waitall(&rq);
    if ((rc = cu_halo_copy(st, p, rbuf, false))) return rc;
    SB_CU(cudaEventRecord(st->halo_in, st->comm));
    SB_CU(cudaStreamWaitEvent(0, st->halo_in, 0));
    return cu_ticks(m, a, phase, p.edge_zl, p.edge_zl + 1);
}

int cu_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    tick_args a = {st->x, st->y, st->z, st->f, m->cfg.L, st->g.h, 0, st->g.zs, 0,
                   2 * (st->g.zh0 - st->g.zoff), st->g.sub, sweep, m->cfg.seed,
                   (float)m->cfg.W, {beta, step, (float)m->cfg.chi}};
    int rc = SB_OK;
    for (int phase = 0; phase < 2 && !rc; phase++)
        rc = m->halo ? cu_phase(m, a, phase) : cu_ticks(m, a, phase, 0, st->g.zs);
    return rc;
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
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    float *buf = static_cast<float *>(malloc((size_t)(8 * st->g.sub) * sizeof(float)));
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
    if (st->comm) cudaStreamDestroy(st->comm);
    if (st->ready) cudaEventDestroy(st->ready);
    if (st->halo_in) cudaEventDestroy(st->halo_in);
    cudaFreeHost(st->sbuf);
    cudaFreeHost(st->rbuf);
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
