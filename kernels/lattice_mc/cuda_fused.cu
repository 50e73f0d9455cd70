/* lattice_mc CUDA: the fused sweep (--param fuse=slab or slab_l2), one rank.
 *
 * Tick by tick (cuda.cu) every tick streams its own sub-lattice and reads three neighbour
 * sub-lattices from DRAM: 56 B an update. Here a sweep is one launch that walks the
 * lattice in a z wavefront (wavefront.h): tick t runs on a plane shortly after tick t - 1
 * on the same plane, so the few planes in flight (about 9 slab + 2) stay in L2 and each
 * plane comes from DRAM about once a sweep: the compulsory 24 B.
 *
 * Why a persistent kernel with completion slots, not a CUDA graph of per-slab launches:
 * at L = 256 a slab of 16 planes is 2.6e5 sites a tick, one partial wave of blocks, so a
 * graph of 64 launches a sweep would drain and refill the GPU 64 times a sweep; and
 * Nsight Compute flushes the caches before every launch it profiles, so --profile would
 * count each slab's re-reads from DRAM, which the timed run serves from L2. One launch
 * a sweep has neither cost.
 *
 * Blocks take tickets in wavefront order from a device counter; an item is a tick on a
 * chunk of rows of a plane (two rows a thread, site_pair). Thread 0 takes the next
 * ticket while the block works on this one; lanes of warp 0 spin (acquire loads) on the
 * completion slots the item depends on; after the item, thread 0 fences and stores the
 * launch's epoch into the item's slot (release). Slots hold the epoch of the sweep that
 * completed them, so nothing is reset between sweeps. Neighbours written during the
 * launch are read with plain loads, not the read-only path. */
#include <cuda/atomic>

#include <cstdint>
#include <cstdlib>

#include "lattice_mc/cuda_fused.h"
#include "lattice_mc/wavefront.h"
#include "sb_cuda.h"

namespace lmc_cu {

struct fused_args {
    lattice g;
    sweep_par sp;
    const uint32_t *order; /* plane-ticks in ticket order (lmc_wave_order) */
    uint32_t *done;        /* per item: the epoch of the sweep that completed it */
    unsigned long long *tickets; /* two counters, by epoch parity */
    uint32_t epoch;
    int nch, nitems;
    tick_par tick[8]; /* by sub-lattice */
};

struct fused {
    uint32_t *order, *done;
    unsigned long long *tickets;
    uint32_t epoch;
    int nch, nitems, slab, grid;
    dim3 block;
    bool droplet, l2;
};

__device__ __forceinline__ uint32_t take_ticket(const fused_args &a)
{
    const unsigned long long t = atomicAdd(a.tickets + (a.epoch & 1), 1ull);
    return t < (unsigned long long)a.nitems ? (uint32_t)t : (uint32_t)a.nitems;
}

/* 64 registers (4 blocks an SM) with L1 loads; 48 (5) with L2 loads in the bulk */
template <bool DROPLET, loads LD>
__global__ void __launch_bounds__(256, DROPLET || LD == loads::l1 ? 4 : 5) lmc_fused(fused_args a, double *acc)
{
    __shared__ uint32_t item[2];
    const int tid = threadIdx.x + blockDim.x * threadIdx.y;
    if (tid == 0) {
        if (blockIdx.x == 0) a.tickets[(a.epoch + 1) & 1] = 0; /* the next sweep's counter */
        item[0] = take_ticket(a);
    }
    __syncthreads();
    double d = 0.0;
    int n = 0;
    for (int b = 0;; b ^= 1) {
        const uint32_t k = item[b];
        if (k >= (uint32_t)a.nitems) break;
        if (tid == 0) item[b ^ 1] = take_ticket(a);
        const uint32_t pt = __ldg(a.order + k / a.nch);
        const int t = pt & 7, z = (int)(pt >> 3), c = (int)(k % a.nch);
        if (tid < lmc_wave_ndeps(t, a.nch)) {
            cuda::atomic_ref<uint32_t, cuda::thread_scope_device> f(a.done[lmc_wave_dep(tid, t, z, c, a.g.zs, a.nch)]);
            while (f.load(cuda::memory_order_acquire) != a.epoch) __nanosleep(64);
        }
        __syncthreads();
        const tick_par &p = a.tick[t ^ (t >> 1)];
        const int yA = c * 2 * (int)blockDim.y + (int)threadIdx.y, yB = yA + (int)blockDim.y;
        for (int x0 = 0; x0 < a.g.h; x0 += blockDim.x) {
            const int xh = x0 + (int)threadIdx.x;
            site_pair<DROPLET, LD>(a.g, a.sp, p, xh, yA, z, yB, z, yB < a.g.h, xh < a.g.h && yA < a.g.h, d, n);
        }
        __syncthreads();
        if (tid == 0) {
            __threadfence();
            cuda::atomic_ref<uint32_t, cuda::thread_scope_device> f(a.done[lmc_wave_slot(t, z, c, a.g.zs, a.nch)]);
            f.store(a.epoch, cuda::memory_order_release);
        }
    }
    block_add(d, n, acc);
}

/* The four kernels: droplet or bulk, L1 or L2 loads. */
typedef void (*fused_fn)(fused_args, double *);
fused_fn fused_kernel(bool droplet, bool l2)
{
    if (droplet) return l2 ? lmc_fused<true, loads::l2> : lmc_fused<true, loads::l1>;
    return l2 ? lmc_fused<false, loads::l2> : lmc_fused<false, loads::l1>;
}

int fused_create(fused **out, const lattice &g, bool droplet, bool l2, int slab)
{
    fused *f = static_cast<fused *>(calloc(1, sizeof(fused)));
    if (!f) return SB_EXIT_RUNTIME;
    *out = f;
    f->droplet = droplet, f->l2 = l2;
    /* rows of 32-lane multiples, x fastest; an item is 2 by rows, two a thread */
    const int bx = g.h >= 256 ? 256 : (g.h + 31) / 32 * 32, by = 256 / bx;
    f->block = dim3(bx, by, 1);
    f->nch = (g.h + 2 * by - 1) / (2 * by);
    f->nitems = 8 * g.zs * f->nch;
    int dev = 0, l2_bytes = 0, sms = 0, bps = 0;
    SB_CU(cudaGetDevice(&dev));
    SB_CU(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, dev));
    SB_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SB_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, fused_kernel(droplet, l2), bx * by, 0));
    /* all resident at once; more would only wait for a free SM */
    f->grid = sms * bps < f->nitems ? sms * bps : f->nitems;
    /* about 9 slabs + 2 planes live; keep them within 70 % of L2 */
    const double plane = 8.0 * g.h * g.h * (droplet ? 13.0 : 12.0);
    const int fit = (int)((0.7 * l2_bytes / plane - 2.0) / 9.0);
    f->slab = slab > 0 ? slab : (fit < 1 ? 1 : fit);
    if (f->slab > g.zs) f->slab = g.zs;
    const size_t nord = 8 * (size_t)g.zs;
    uint32_t *order = static_cast<uint32_t *>(malloc(nord * sizeof(uint32_t)));
    if (!order) return SB_EXIT_RUNTIME;
    lmc_wave_order(g.zs, f->slab, order);
    cudaError_t e = cudaMalloc(&f->order, nord * sizeof(uint32_t));
    if (e == cudaSuccess) e = cudaMemcpy(f->order, order, nord * sizeof(uint32_t), cudaMemcpyHostToDevice);
    free(order);
    if (e != cudaSuccess) return sb_cuda_report((int)e, "cudaMalloc/cudaMemcpy(wavefront order)", __FILE__, __LINE__);
    SB_CU(cudaMalloc(&f->done, (size_t)f->nitems * sizeof(uint32_t)));
    SB_CU(cudaMemset(f->done, 0, (size_t)f->nitems * sizeof(uint32_t)));
    SB_CU(cudaMalloc(&f->tickets, 2 * sizeof(unsigned long long)));
    SB_CU(cudaMemset(f->tickets, 0, 2 * sizeof(unsigned long long)));
    return SB_OK;
}

int fused_sweep(fused *f, const lattice &g, const sweep_par &sp, double *acc)
{
    fused_args a = {g, sp, f->order, f->done, f->tickets, ++f->epoch, f->nch, f->nitems, {}};
    for (int s = 0; s < 8; s++) a.tick[s] = tick_par_of(g, s);
    fused_kernel(f->droplet, f->l2)<<<f->grid, f->block>>>(a, acc);
    SB_CU_LAUNCH();
    return SB_OK;
}

int fused_launch_report(const fused *f, sb_launch *out)
{
    static const char *const names[2][2] = {{"lmc_fused<bulk,l1>", "lmc_fused<bulk,l2>"},
                                            {"lmc_fused<droplet,l1>", "lmc_fused<droplet,l2>"}};
    return sb_cuda_occupancy((const void *)fused_kernel(f->droplet, f->l2), names[f->droplet][f->l2],
                             (int)(f->block.x * f->block.y), 0, f->grid, out);
}

int fused_slab(const fused *f) { return f->slab; }

void fused_release(fused *f)
{
    if (!f) return;
    cudaFree(f->order);
    cudaFree(f->done);
    cudaFree(f->tickets);
    free(f);
}

} // namespace lmc_cu
