/* lattice_mc CUDA backend.
 * Same sub-lattice-major layout as the OpenMP backend (see openmp_simd.c): a tick
 * is one launch over the (L/2)^3 sites of one sub-lattice, a thread per two sites at
 * the same x and y in consecutive planes (cuda_site.cuh: they share one Philox call per
 * lane pair), x fastest across a warp so all 21 float loads are coalesced; neighbour loads
 * are evict-first in L2, and on one rank each tick is a programmatic dependent launch of
 * the one before (cu_ticks). The threads of a
 * plane run through its rows one after another (a row pitch rounded up to even, so that a
 * lane pair stays in one row), so that no lane idles at a row's end when L/2 is not a
 * multiple of the block (L = 644: 16 % of the lanes with a block a row). Rejected moves
 * write nothing. Accepted dE and the accept count are reduced per block and
 * added to two device accumulators; the host reads them only when asked.
 * A slab (MPI, see decomp.c): every half sweep, the edge plane the neighbour reads is
 * packed into a device buffer and sent GPU to GPU (sb_cuda_comm: NCCL, or host-staged) on a
 * second stream, while the four ticks run on the planes that do not read the halo; the
 * received halo is unpacked on that stream and the four ticks of the edge plane follow there,
 * beside the other planes' ticks: in a half sweep the edge plane reads across z only planes
 * of the other parity, which nothing writes then. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "lattice_mc/lmc.h"
#include "lattice_mc/cuda_fused.h"
#include "lattice_mc/cuda_site.cuh"
#include "sb_cuda.h"
#include "sb_cuda_comm.h"
#include "sb_mpi.h"

namespace {

struct cuda_state {
    lmc_store g;
    lmc_cu::round_keys rk;
    float *x, *y, *z;
    uint8_t *f;
    double *acc; /* [0] sum of accepted dE, [1] accepted moves */
    dim3 block, grid;
    /* slab only: */
    cudaStream_t comm;   /* non-blocking: does not serialise with the legacy stream */
    cudaEvent_t ready, halo_in;
    float *sbuf, *rbuf;  /* device: the packed edge planes going out and the halo coming in */
    lmc_cu::fused *fz;   /* fuse=slab on one rank: the fused sweep (cuda_fused.cu) */
};

lmc_cu::lattice lattice_of(const lmc *m, const cuda_state *st)
{
    return {st->x, st->y, st->z, st->f, st->g.h, st->g.zs, 2 * (st->g.zh0 - st->g.zoff), (uint32_t)m->cfg.L,
            (uint32_t)st->g.sub};
}

using namespace lmc_cu;

/* One launch: tick s on storage planes [zlo, zhi), two planes a thread (site_pair). */
struct tick_args {
    lattice g;
    sweep_par sp;
    tick_par p;
    int zlo, zhi;
};

template <bool DROPLET>
__global__ void __launch_bounds__(256, DROPLET ? 4 : 5) lmc_tick(tick_args a, double *acc)
{
#if __CUDA_ARCH__ >= 900
    /* the next tick may be scheduled once every block of this one has started (see cu_ticks) */
    asm volatile("griddepcontrol.launch_dependents;");
#endif
    const int h = (int)a.g.h, pitch = (h + 1) & ~1, i = blockIdx.x * blockDim.x + threadIdx.x;
    const int xh = i % pitch, yh = i / pitch;
    const int zl = a.zlo + 2 * blockIdx.z;
    double d = 0.0;
    int n = 0;
    site_pair<DROPLET, loads::read_only>(a.g, a.sp, a.p, xh, yh, zl, yh, zl + 1, zl + 1 < a.zhi, xh < h && yh < h, d, n);
    block_add(d, n, acc);
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
    st->rk = lmc_cu::make_round_keys(m->cfg.seed);
    const int h = st->g.h;
    /* the kernels index the 8 sub-lattices with 32-bit offsets */
    if (8 * st->g.sub > (long)UINT32_MAX) {
        sb_error("lattice_mc: cuda: %ld stored sites exceed the kernels' 32-bit offsets; accepted: at most 2^32 - 1 "
                 "(L <= 2048 on one rank)",
                 8 * st->g.sub);
        return SB_EXIT_USAGE;
    }
    size_t n = (size_t)(8 * st->g.sub);
    SB_CU(cudaMalloc(&st->x, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->y, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->z, n * sizeof(float)));
    SB_CU(cudaMalloc(&st->f, n));
    SB_CU(cudaMalloc(&st->acc, 2 * sizeof(double)));
    SB_CU(cudaMemset(st->acc, 0, 2 * sizeof(double)));
    if (m->halo) {
        size_t hb = 12 * (size_t)h * h * sizeof(float);
        /* the highest priority: the block scheduler dispatches the exchange's kernels (NCCL's,
         * the edge plane's ticks) before the pending blocks of the interior ticks, which would
         * otherwise all go first and leave the exchange at the end of the half sweep */
        int least = 0, greatest = 0;
        SB_CU(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        SB_CU(cudaStreamCreateWithPriority(&st->comm, cudaStreamNonBlocking, greatest));
        SB_CU(cudaEventCreateWithFlags(&st->ready, cudaEventDisableTiming));
        SB_CU(cudaEventCreateWithFlags(&st->halo_in, cudaEventDisableTiming));
        SB_CU(cudaMalloc(&st->sbuf, hb));
        SB_CU(cudaMalloc(&st->rbuf, hb));
    }
    /* 256 threads, a whole number of warps (the block reduction relies on it), over the
     * plane's rows at an even pitch (lmc_tick) */
    const long plane = (long)((h + 1) & ~1) * h;
    st->block = dim3(256, 1, 1);
    st->grid = dim3((unsigned)((plane + 255) / 256), 1, (st->g.nzh + 1) / 2); /* two planes a thread */
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
    /* the fused sweep needs the whole periodic lattice: a slab runs tick by tick */
    if (!rc && m->cfg.fuse && !m->halo) {
        rc = lmc_cu::fused_create(&st->fz, lattice_of(m, st), m->cfg.geometry == LMC_DROPLET, m->cfg.fuse == 2,
                                  m->cfg.slab);
        if (!rc) m->slab_used = lmc_cu::fused_slab(st->fz);
    }
    return rc;
}

/* The four ticks of half sweep `phase` on storage planes [lo, hi), tick by tick, on stream s. */
int cu_ticks(lmc *m, tick_args a, int phase, int lo, int hi, cudaStream_t s = 0)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    if (hi <= lo) return SB_OK;
    dim3 grid(st->grid.x, st->grid.y, (unsigned)(hi - lo + 1) / 2);
    a.zlo = lo, a.zhi = hi;
    /* On one rank, consecutive ticks overlap by programmatic dependent launch: the blocks of
     * tick t + 1 fill the SMs that tick t's last partial wave (of 6.2 at L = 256) leaves idle
     * and compute their Philox words there, then wait for tick t's grid before loading
     * (wait_previous_grid). Measured on the H200 at L = 256: 57.3 -> 59.6 G site updates/s.
     * Slabs keep plain stream order: their ticks interleave with halo copies on a second
     * stream. */
    cudaLaunchAttribute pdl;
    pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    pdl.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid, cfg.blockDim = st->block, cfg.stream = s;
    cfg.attrs = &pdl, cfg.numAttrs = m->halo ? 0 : 1;
    for (int t = 4 * phase; t < 4 * phase + 4; t++) {
        a.p = tick_par_of(a.g, lmc_tick_order[t]);
        if (m->cfg.geometry == LMC_DROPLET)
            SB_CU(cudaLaunchKernelEx(&cfg, lmc_tick<true>, a, st->acc));
        else
            SB_CU(cudaLaunchKernelEx(&cfg, lmc_tick<false>, a, st->acc));
    }
    return SB_OK;
}

/* Planes p.send_zl (pack) or p.recv_zl (unpack) of sub-lattices p.sub0..+3, all three
 * components, to or from one contiguous message: 3 strided copies on the comm stream. */
int cu_halo_copy(cuda_state *st, const lmc_halo_plan &p, float *buf, bool pack)
{
    const size_t hh = (size_t)st->g.h * st->g.h, row = hh * sizeof(float), pitch = (size_t)st->g.sub * sizeof(float);
    float *dev[3] = {st->x, st->y, st->z};
    for (int c = 0; c < 3; c++) {
        float *d = dev[c] + p.sub0 * st->g.sub + (pack ? p.send_zl : p.recv_zl) * (long)hh, *b = buf + 4 * c * hh;
        if (pack)
            SB_CU(cudaMemcpy2DAsync(b, row, d, pitch, row, 4, cudaMemcpyDeviceToDevice, st->comm));
        else
            SB_CU(cudaMemcpy2DAsync(d, pitch, b, row, row, 4, cudaMemcpyDeviceToDevice, st->comm));
    }
    return SB_OK;
}

/* Half a sweep of a slab. The edge plane sent is not written in this phase and the halo
 * received is read only by the edge plane, whose ticks read no plane the others write: pack,
 * transfer, unpack and the edge plane's ticks on the comm stream overlap the ticks of the
 * other planes on the legacy stream, which then waits for them. The comm stream starts after
 * everything before this phase (ready), so the buffers and the halo planes are free to
 * overwrite. Through NCCL the host only enqueues; host-staged, it waits in
 * sb_cuda_comm_sendrecv while the interior ticks, enqueued first, run. */
int cu_phase(lmc *m, tick_args a, int phase)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    lmc_halo_plan p = lmc_halo_plan_of(m, &st->g, phase);
    const size_t bytes = 12 * (size_t)st->g.h * st->g.h * sizeof(float);
    int rc;
    SB_CU(cudaEventRecord(st->ready, 0));
    SB_CU(cudaStreamWaitEvent(st->comm, st->ready, 0));
    if ((rc = cu_halo_copy(st, p, st->sbuf, true))) return rc;
    const bool waits = !sb_cuda_comm_nccl(); /* host-staged: the host waits for the data */
    if (waits && (rc = cu_ticks(m, a, phase, p.lo, p.hi))) return rc;
    if ((rc = sb_cuda_comm_sendrecv(st->sbuf, p.to, st->rbuf, p.from, bytes, st->comm))) return rc;
    if (!waits && (rc = cu_ticks(m, a, phase, p.lo, p.hi))) return rc;
    if ((rc = cu_halo_copy(st, p, st->rbuf, false))) return rc;
    if ((rc = cu_ticks(m, a, phase, p.edge_zl, p.edge_zl + 1, st->comm))) return rc;
    SB_CU(cudaEventRecord(st->halo_in, st->comm));
    SB_CU(cudaStreamWaitEvent(0, st->halo_in, 0));
    return SB_OK;
}

int cu_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    tick_args a;
    a.g = lattice_of(m, st);
    a.sp = {sweep, st->rk, (float)m->cfg.W, {beta, step, (float)m->cfg.chi}};
    a.zlo = 0, a.zhi = 0;
    if (st->fz) return lmc_cu::fused_sweep(st->fz, a.g, a.sp, st->acc);
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
    cudaFree(st->sbuf);
    cudaFree(st->rbuf);
    lmc_cu::fused_release(st->fz);
    free(st);
    m->dev = NULL;
}

int cu_launches(lmc *m, sb_launch *out, int max)
{
    cuda_state *st = static_cast<cuda_state *>(m->dev);
    if (max < 1) return 0;
    if (st->fz) return lmc_cu::fused_launch_report(st->fz, out) ? -1 : 1;
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
