// Measures what in-process counters through CUPTI's range profiler cost, against the
// same kernels profiled by Nsight Compute's CLI (which --profile uses): a copy kernel of
// known traffic launched N times, each launch its own range (auto range, kernel replay),
// DRAM bytes and achieved occupancy read back per launch.
//   nvcc -O2 -std=c++17 -arch=sm_90 tools/dev/cupti_copy_probe.cu -o build/tools/cupti_copy_probe -lcupti
//   build/tools/cupti_copy_probe [MiB per copy, default 512] [launches, default 8] [plain]
// "plain" runs the launches without CUPTI (the baseline, and what ncu profiles:
//   ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum build/tools/cupti_copy_probe 512 8 plain).
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(3);                                                                           \
        }                                                                                      \
    } while (0)
#define CP(x)                                                                                  \
    do {                                                                                       \
        CUptiResult r_ = (x);                                                                  \
        if (r_ != CUPTI_SUCCESS) {                                                             \
            const char *s_ = nullptr;                                                          \
            cuptiGetResultString(r_, &s_);                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");         \
            exit(3);                                                                           \
        }                                                                                      \
    } while (0)

__global__ void copy(const uint4 *__restrict__ s, uint4 *__restrict__ d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        d[i] = s[i];
}

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

static const char *metrics[] = {"dram__bytes_read.sum", "dram__bytes_write.sum",
                                "sm__warps_active.avg.pct_of_peak_sustained_active"};
static const size_t nmetrics = sizeof metrics / sizeof metrics[0];

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], nullptr, 10) : 512;
    int launches = argc > 2 ? atoi(argv[2]) : 8;
    bool plain = argc > 3 && !strcmp(argv[3], "plain");
    size_t n = (mib << 20) / sizeof(uint4);
    uint4 *s, *d;
    CK(cudaMalloc(&s, n * sizeof(uint4)));
    CK(cudaMalloc(&d, n * sizeof(uint4)));
    CK(cudaMemset(s, 1, n * sizeof(uint4)));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int grid = sms * 8, block = 256;
    copy<<<grid, block>>>(s, d, n); // warm-up, outside any range
    CK(cudaDeviceSynchronize());
    double t0 = now();
    if (plain) {
        for (int i = 0; i < launches; i++) copy<<<grid, block>>>(s, d, n);
        CK(cudaDeviceSynchronize());
        printf("plain: %d launches of a %zu MiB copy in %.3f ms\n", launches, mib, (now() - t0) * 1e3);
        return 0;
    }
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CP(cuptiProfilerInitialize(&ip));
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CP(cuptiDeviceGetChipName(&cn));
    CUpti_Profiler_GetCounterAvailability_Params ca = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = ctx;
    CP(cuptiProfilerGetCounterAvailability(&ca));
    std::vector<uint8_t> avail(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = avail.data();
    CP(cuptiProfilerGetCounterAvailability(&ca));

    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = cn.pChipName;
    hi.pCounterAvailabilityImage = avail.data();
    CP(cuptiProfilerHostInitialize(&hi));
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = hi.pHostObject;
    am.ppMetricNames = metrics;
    am.numMetrics = nmetrics;
    CP(cuptiProfilerHostConfigAddMetrics(&am));
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = hi.pHostObject;
    CP(cuptiProfilerHostGetConfigImageSize(&cs));
    std::vector<uint8_t> config(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params ci = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = hi.pHostObject;
    ci.configImageSize = config.size();
    ci.pConfigImage = config.data();
    CP(cuptiProfilerHostGetConfigImage(&ci));
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    CP(cuptiProfilerHostGetNumOfPasses(&np));

    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CP(cuptiRangeProfilerEnable(&en));
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = en.pRangeProfilerObject;
    ds.pMetricNames = metrics;
    ds.numMetrics = nmetrics;
    ds.maxNumOfRanges = (size_t)launches;
    ds.maxNumRangeTreeNodes = (uint32_t)launches;
    CP(cuptiRangeProfilerGetCounterDataSize(&ds));
    std::vector<uint8_t> data(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = en.pRangeProfilerObject;
    di.counterDataSize = data.size();
    di.pCounterData = data.data();
    CP(cuptiRangeProfilerCounterDataImageInitialize(&di));
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = en.pRangeProfilerObject;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = (size_t)launches;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    CP(cuptiRangeProfilerSetConfig(&sc));
    double t_setup = now() - t0, t1 = now();
    CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = en.pRangeProfilerObject;
    CP(cuptiRangeProfilerStart(&st));
    for (int i = 0; i < launches; i++) copy<<<grid, block>>>(s, d, n);
    CK(cudaDeviceSynchronize());
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = en.pRangeProfilerObject;
    CP(cuptiRangeProfilerStop(&sp));
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = en.pRangeProfilerObject;
    CP(cuptiRangeProfilerDecodeData(&dd));
    double t_run = now() - t1, t2 = now();
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    gi.pCounterDataImage = data.data();
    gi.counterDataImageSize = data.size();
    CP(cuptiRangeProfilerGetCounterDataInfo(&gi));
    double expect = 2.0 * (double)(n * sizeof(uint4));
    for (size_t r = 0; r < gi.numTotalRanges; r++) {
        double v[nmetrics];
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = hi.pHostObject;
        ev.pCounterDataImage = data.data();
        ev.counterDataImageSize = data.size();
        ev.rangeIndex = r;
        ev.ppMetricNames = metrics;
        ev.numMetrics = nmetrics;
        ev.pMetricValues = v;
        CP(cuptiProfilerHostEvaluateToGpuValues(&ev));
        printf("range %zu: DRAM read %.4g B, written %.4g B (%.4f of the copy's bytes), warps active %.1f %%\n", r, v[0],
               v[1], (v[0] + v[1]) / expect, v[2]);
    }
    printf("cupti: %d launches of a %zu MiB copy, %zu passes, %zu ranges (%zu dropped): set-up %.3f ms, "
           "profiled launches %.3f ms, evaluation %.3f ms, whole process from the first CUPTI call %.3f ms\n",
           launches, mib, np.numOfPasses, gi.numTotalRanges, dd.numOfRangeDropped, t_setup * 1e3, t_run * 1e3,
           (now() - t2) * 1e3, (now() - t0) * 1e3);
    CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = en.pRangeProfilerObject;
    CP(cuptiRangeProfilerDisable(&dis));
    CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    hd.pHostObject = hi.pHostObject;
    CP(cuptiProfilerHostDeinitialize(&hd));
    return 0;
}
