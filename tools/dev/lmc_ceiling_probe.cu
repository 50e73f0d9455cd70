// lattice_mc's CUDA tick kernel with its memory traffic taken away: the ceiling that the
// instruction stream alone allows, against which a sweep that moves fewer bytes is judged.
// The same site code as lmc_tick (cuda_site.cuh, two sites a thread, 256-thread blocks at 5 an
// SM, launched as the harness launches it on one rank, with programmatic dependent launch), on
// an L x L x L bulk lattice of random unit directors, timed tick by tick (8 launches a sweep)
// in three modes:
//   dram    every plane of the lattice, as the harness runs it;
//   l2      the blocks of each launch fold onto the first W storage planes, so every load is
//           served by L2 (W = 32 at L = 256: a tick touches 25 MB); same grid, same launches;
//   l2x8    as l2 with 8 times the blocks a launch, so launch gaps and the last partial wave of
//           blocks weigh 8 times less: the rate the instruction stream itself allows.
// Blocks that fold onto the same planes are W / 2 block rows apart in launch order (1024 blocks
// at W = 32, L = 256, more than the 660 resident at once), so no two resident blocks update the
// same site; later ones update it again with the same random numbers. The acceptance rate is
// printed beside each mode (it decides how many stores a site makes). The trajectory is not
// the harness's and is not validated.
//   nvcc -O3 -std=c++17 -fmad=false -arch=sm_90 -Ikernels -Iruntime/cuda \
//        tools/dev/lmc_ceiling_probe.cu -o build/tools/lmc_ceiling_probe
//   build/tools/lmc_ceiling_probe [L, default 256] [W, default 32] [repetitions, default 7]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lattice_mc/cuda_site.cuh"

using namespace lmc_cu;

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct probe_args {
    lattice g;
    sweep_par sp;
    tick_par p;
    int planes; /* storage planes the grid's z blocks fold onto (2 a block); 0: no folding */
};

__global__ void __launch_bounds__(256, 5) probe_tick(probe_args a, double *acc)
{
    asm volatile("griddepcontrol.launch_dependents;");
    const int h = (int)a.g.h, pitch = (h + 1) & ~1, i = blockIdx.x * blockDim.x + threadIdx.x;
    const int xh = i % pitch, yh = i / pitch;
    const int zl = a.planes ? (2 * (int)blockIdx.z) % a.planes : 2 * (int)blockIdx.z;
    double d = 0.0;
    int n = 0;
    site_pair<false, loads::read_only>(a.g, a.sp, a.p, xh, yh, zl, yh, zl + 1, zl + 1 < a.g.zs, xh < h && yh < h,
                                       d, n);
    block_add(d, n, acc);
}

int main(int argc, char **argv)
{
    const int L = argc > 1 ? atoi(argv[1]) : 256, W = argc > 2 ? atoi(argv[2]) : 32;
    const int reps = argc > 3 ? atoi(argv[3]) : 7, sweeps = 10;
    if (L < 8 || L % 4 || L > 1024 || W < 2 || W % 2 || W > L / 2 || reps < 1) {
        fprintf(stderr, "usage: %s [L: 8..1024, a multiple of 4] [W: even, 2..L/2] [repetitions >= 1]\n", argv[0]);
        return 2;
    }
    const int h = L / 2;
    const size_t sub = (size_t)h * h * h, n = 8 * sub;
    std::vector<float> hx(n), hy(n), hz(n);
    for (size_t i = 0; i < n; i++) {
        const philox4x32_ctr_t r = lmc_random(12345, (uint32_t)i, 0, 0, LMC_TAG_INIT);
        lmc_sphere(lmc_u01(r.v[0]), lmc_u01(r.v[1]), &hx[i], &hy[i], &hz[i]);
    }
    float *x, *y, *z;
    double *acc;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    CK(cudaMalloc(&z, n * 4));
    CK(cudaMalloc(&acc, 16));
    lattice g = {x, y, z, nullptr, h, h, 0, (uint32_t)L, (uint32_t)sub};
    const long plane = (long)((h + 1) & ~1) * h;
    const dim3 block(256), grid((unsigned)((plane + 255) / 256), 1, (unsigned)(h / 2));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int dev = 0;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("%s, %d SMs, L2 %.1f MB; L = %d, %d sweeps a repetition, median of %d\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize / 1e6, L, sweeps, reps);
    printf("%-6s %10s %12s %16s %10s\n", "mode", "planes", "ms/rep", "site updates/s", "accepted");
    const char *names[3] = {"dram", "l2", "l2x8"};
    for (int mode = 0; mode < 3; mode++) {
        const int fold = mode ? W : 0, mult = mode == 2 ? 8 : 1;
        cudaLaunchAttribute pdl;
        pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        pdl.val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(grid.x, grid.y, grid.z * mult), cfg.blockDim = block, cfg.attrs = &pdl, cfg.numAttrs = 1;
        std::vector<float> ms;
        double accepted = 0;
        for (int r = 0; r <= reps; r++) { /* r = 0: warm-up */
            CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(y, hy.data(), n * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(z, hz.data(), n * 4, cudaMemcpyHostToDevice));
            CK(cudaMemset(acc, 0, 16));
            CK(cudaEventRecord(e0));
            for (int s = 0; s < sweeps; s++)
                for (int t = 0; t < 8; t++) {
                    probe_args a = {g, {(uint32_t)s, make_round_keys(1), 1.0f, {1.0f, 0.3f, 0.0f}},
                                    tick_par_of(g, t ^ (t >> 1)), fold};
                    CK(cudaLaunchKernelEx(&cfg, probe_tick, a, acc));
                }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float t = 0;
            CK(cudaEventElapsedTime(&t, e0, e1));
            double hacc[2];
            CK(cudaMemcpy(hacc, acc, 16, cudaMemcpyDeviceToHost));
            if (r) ms.push_back(t), accepted = hacc[1];
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2], updates = (double)L * L * L * sweeps * mult;
        printf("%-6s %10d %12.4f %16.4e %10.4f\n", names[mode], fold ? fold : h, med, updates / (med * 1e-3),
               accepted / updates);
    }
    return 0;
}
