/* nlchains dnls: is a stage faster with cuFFT store callbacks? (issue 3: "evaluate cuFFT
 * callbacks for DNLS, measure, keep the faster"). The production backend (cuda.cu) runs a
 * stage as four passes over the ensemble: forward Z2Z, phase multiply, inverse Z2Z,
 * nonlinear rotation. This program times that against the same stage with the two
 * element-wise passes folded into the transforms' stores, as legacy callbacks (device
 * function pointers; static cuFFT with separate compilation, which the dev machine's
 * toolkit lacks: run.sh builds it on the GPU machine) and, when a fatbin is given, as
 * LTO callbacks (cufftXtSetJITCallback). It checks that every variant gives the same
 * state after 5 stages and prints microseconds per stage (CUDA events, 700 stages, 3
 * repetitions). Usage: bench N C [lto.fatbin] */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "callbacks.cuh"

CB_DEFINE(leg_, size_t)
__device__ cufftCallbackStoreZ d_phase = leg_store_phase, d_rot = leg_store_rot;

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_) {                                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define FK(x)                                                                              \
    do {                                                                                   \
        cufftResult r_ = (x);                                                              \
        if (r_) {                                                                          \
            fprintf(stderr, "%s:%d: cuFFT error %d\n", __FILE__, __LINE__, (int)r_);       \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

__global__ void k_phase(cufftDoubleComplex *x, const cufftDoubleComplex *ph, long n, int N)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        const cufftDoubleComplex e = x[i], b = ph[i % N];
        x[i] = make_double2(e.x * b.x - e.y * b.y, e.x * b.y + e.y * b.x);
    }
}
__global__ void k_rot(cufftDoubleComplex *x, long n, double beta, double t)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        nlc_dnls_nonlinear(&x[i].x, &x[i].y, beta, t);
}

static std::vector<char> slurp(const char *path)
{
    std::vector<char> v;
    FILE *f = fopen(path, "rb");
    if (!f) return v;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) v.insert(v.end(), buf, buf + k);
    fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s N C [lto.fatbin]\n", argv[0]);
        return 2;
    }
    const int N = atoi(argv[1]);
    const long C = atol(argv[2]), n = (long)N * C;
    if (N < 2 || C < 1 || n > (1L << 28)) {
        fprintf(stderr, "bench: N = %s, C = %s: need N >= 2, C >= 1 and N C <= 2^28\n", argv[1], argv[2]);
        return 2;
    }
    const int stages = 700, grid = 132 * 8;
    const double beta = 1.0, t = 0.05;
    std::vector<cufftDoubleComplex> h(n), hp(N);
    srand(1);
    for (auto &e : h) e = make_double2(rand() / (double)RAND_MAX - 0.5, rand() / (double)RAND_MAX - 0.5);
    for (int k = 0; k < N; k++) {
        const double a = nlc_dnls_linear_phase(k, N, t);
        hp[k] = make_double2(cos(a) / N, sin(a) / N);
    }
    cufftDoubleComplex *x, *ph;
    cb_par *dpar;
    CK(cudaMalloc(&x, n * sizeof *x));
    CK(cudaMalloc(&ph, N * sizeof *ph));
    CK(cudaMalloc(&dpar, 2 * sizeof *dpar));
    CK(cudaMemcpy(ph, hp.data(), N * sizeof *ph, cudaMemcpyHostToDevice));
    const cb_par hpar[2] = {{ph, 0, 0, N}, {NULL, beta, t, N}};
    CK(cudaMemcpy(dpar, hpar, sizeof hpar, cudaMemcpyHostToDevice));
    void *info_f = dpar, *info_i = dpar + 1;

    int nn = N;
    size_t ws;
    cufftHandle plain, lf, li, jf = 0, ji = 0;
    FK(cufftPlanMany(&plain, 1, &nn, NULL, 1, N, NULL, 1, N, CUFFT_Z2Z, (int)C));
    FK(cufftCreate(&lf));
    FK(cufftMakePlanMany(lf, 1, &nn, NULL, 1, N, NULL, 1, N, CUFFT_Z2Z, (int)C, &ws));
    FK(cufftCreate(&li));
    FK(cufftMakePlanMany(li, 1, &nn, NULL, 1, N, NULL, 1, N, CUFFT_Z2Z, (int)C, &ws));
    cufftCallbackStoreZ hf, hi;
    CK(cudaMemcpyFromSymbol(&hf, d_phase, sizeof hf));
    CK(cudaMemcpyFromSymbol(&hi, d_rot, sizeof hi));
    FK(cufftXtSetCallback(lf, (void **)&hf, CUFFT_CB_ST_COMPLEX_DOUBLE, &info_f));
    FK(cufftXtSetCallback(li, (void **)&hi, CUFFT_CB_ST_COMPLEX_DOUBLE, &info_i));
    int have_lto = 0;
    std::vector<char> fb = argc > 3 ? slurp(argv[3]) : std::vector<char>();
    if (!fb.empty()) {
        cufftResult r1 = cufftCreate(&jf), r2 = r1 ? r1 : cufftXtSetJITCallback(jf, "lto_store_phase", fb.data(), fb.size(), CUFFT_CB_ST_COMPLEX_DOUBLE, &info_f);
        cufftResult r3 = r2 ? r2 : cufftMakePlanMany(jf, 1, &nn, NULL, 1, N, NULL, 1, N, CUFFT_Z2Z, (int)C, &ws);
        cufftResult r4 = r3 ? r3 : cufftCreate(&ji), r5 = r4 ? r4 : cufftXtSetJITCallback(ji, "lto_store_rot", fb.data(), fb.size(), CUFFT_CB_ST_COMPLEX_DOUBLE, &info_i);
        cufftResult r6 = r5 ? r5 : cufftMakePlanMany(ji, 1, &nn, NULL, 1, N, NULL, 1, N, CUFFT_Z2Z, (int)C, &ws);
        have_lto = r6 == CUFFT_SUCCESS;
        if (!have_lto) printf("LTO callbacks: planning failed, cuFFT error %d (not timed)\n", (int)r6);
    } else if (argc > 3) {
        printf("LTO callbacks: cannot read %s (not timed)\n", argv[3]);
    }

    struct variant {
        const char *name;
        int kind; /* 0 four passes, 1 legacy callbacks, 2 LTO callbacks, 3 transforms only, 4 element-wise only */
    } vs[] = {{"four passes (production)", 0},           {"legacy store callbacks", 1}, {"LTO store callbacks", 2},
              {"the two transforms alone", 3},          {"the two element-wise passes alone", 4}};
    auto stage = [&](int kind) -> int {
        if (kind == 0 || kind == 3) FK(cufftExecZ2Z(plain, x, x, CUFFT_FORWARD));
        if (kind == 0 || kind == 4) k_phase<<<grid, 256>>>(x, ph, n, N);
        if (kind == 0 || kind == 3) FK(cufftExecZ2Z(plain, x, x, CUFFT_INVERSE));
        if (kind == 0 || kind == 4) k_rot<<<grid, 256>>>(x, n, beta, t);
        if (kind == 1) FK(cufftExecZ2Z(lf, x, x, CUFFT_FORWARD));
        if (kind == 1) FK(cufftExecZ2Z(li, x, x, CUFFT_INVERSE));
        if (kind == 2) FK(cufftExecZ2Z(jf, x, x, CUFFT_FORWARD));
        if (kind == 2) FK(cufftExecZ2Z(ji, x, x, CUFFT_INVERSE));
        return 0;
    };
    std::vector<cufftDoubleComplex> ref(n), got(n);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("N %d, C %ld: %.0f MB of state, a pass reads and writes it once\n", N, C, n * 16e-6);
    for (const variant &v : vs) {
        if (v.kind == 2 && !have_lto) continue;
        CK(cudaMemcpy(x, h.data(), n * sizeof *x, cudaMemcpyHostToDevice));
        for (int s = 0; s < 5; s++)
            if (stage(v.kind)) return 1;
        CK(cudaMemcpy(got.data(), x, n * sizeof *x, cudaMemcpyDeviceToHost));
        if (v.kind == 0) ref = got;
        double diff = 0;
        for (long i = 0; i < n; i++) diff = fmax(diff, fabs(got[i].x - ref[i].x) + fabs(got[i].y - ref[i].y));
        float best = 1e30f, ms;
        for (int rep = 0; rep < 3; rep++) {
            CK(cudaEventRecord(e0));
            for (int s = 0; s < stages; s++)
                if (stage(v.kind)) return 1;
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            best = fminf(best, ms);
        }
        CK(cudaGetLastError());
        if (v.kind <= 2)
            printf("%-36s %7.1f us/stage (best of 3 x %d stages); state after 5 stages vs four passes: max |diff| %.1e\n",
                   v.name, 1e3 * best / stages, stages, diff);
        else
            printf("%-36s %7.1f us/stage\n", v.name, 1e3 * best / stages);
    }
    return 0;
}
