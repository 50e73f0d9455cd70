// GPU-to-GPU transfers between MPI ranks (sb_cuda_comm.h): NCCL, loaded at run time, or MPI
// through pinned host memory.
#include "sb_cuda_comm.h"
#include "sb.h"
#include "sb_mpi.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef SB_HAVE_NCCL
#include <nccl.h>
#endif

namespace {

enum { NONE = 0, NCCL = 1, HOST = 2 };
int g_mode = NONE;
char g_detail[256] = "one rank: nothing moves";
void *g_pin;          // host staging, pinned
size_t g_pin_bytes;
long g_fail_after = -1; // SB_COMM_FAIL_AFTER=n (tests): the transfer after the n-th fails

int cu_failed(cudaError_t e, const char *call)
{
    if (e == cudaSuccess) return 0;
    sb_error("GPU transfer between ranks: %s: %s", call, cudaGetErrorString(e));
    return 1;
}
#define CU(call) \
    if (cu_failed((call), #call)) return SB_EXIT_RUNTIME

int staging(size_t bytes)
{
    if (bytes <= g_pin_bytes) return SB_OK;
    if (g_pin) cudaFreeHost(g_pin);
    g_pin = nullptr, g_pin_bytes = 0;
    CU(cudaMallocHost(&g_pin, bytes));
    g_pin_bytes = bytes;
    return SB_OK;
}

bool injected(const char *what)
{
    if (g_fail_after < 0 || g_fail_after-- > 0) return false;
    sb_error("%s: %s failed: injected by SB_COMM_FAIL_AFTER", g_mode == NCCL ? "NCCL" : "MPI", what);
    return true;
}

int read_fail_after(void)
{
    const char *e = getenv("SB_COMM_FAIL_AFTER");
    if (!e || !*e) return SB_OK;
    char *end = nullptr;
    errno = 0;
    const long v = strtol(e, &end, 10);
    if (errno || end == e || *end || v < 0) {
        sb_error("SB_COMM_FAIL_AFTER='%s': expected a count of transfers >= 0 (a test's fault injection)", e);
        return SB_EXIT_USAGE;
    }
    g_fail_after = v;
    return SB_OK;
}

#ifdef SB_HAVE_NCCL
// The few NCCL entry points used, from the library found at run time.
struct nccl_api {
    decltype(&ncclGetVersion) GetVersion;
    decltype(&ncclGetUniqueId) GetUniqueId;
    decltype(&ncclCommInitRank) CommInitRank;
    decltype(&ncclCommDestroy) CommDestroy;
    decltype(&ncclCommAbort) CommAbort;
    decltype(&ncclGetErrorString) GetErrorString;
    decltype(&ncclGetLastError) GetLastError;
    decltype(&ncclAllReduce) AllReduce;
    decltype(&ncclSend) Send;
    decltype(&ncclRecv) Recv;
    decltype(&ncclGroupStart) GroupStart;
    decltype(&ncclGroupEnd) GroupEnd;
};
nccl_api N;
void *g_lib;
ncclComm_t g_comm;

#ifndef SB_NCCL_LIBDIR
#define SB_NCCL_LIBDIR ""
#endif

// NCCL_HOME's library when NCCL_HOME is set (and then only it: the user said where NCCL is);
// else the one the build found, then the loader's own search (LD_LIBRARY_PATH, the system's
// directories). 0 and why on failure.
int nccl_load(char *why, size_t n)
{
    if (g_lib) return 1;
    char cand[3][1024];
    int nc = 0;
    const char *home = getenv("NCCL_HOME");
    if (home && *home) {
        snprintf(cand[nc++], sizeof cand[0], "%s/lib/libnccl.so.2", home);
    } else {
        if (*SB_NCCL_LIBDIR) snprintf(cand[nc++], sizeof cand[0], "%s/libnccl.so.2", SB_NCCL_LIBDIR);
        snprintf(cand[nc++], sizeof cand[0], "libnccl.so.2");
    }
    const char *err = "";
    for (int i = 0; i < nc && !g_lib; i++)
        if (!(g_lib = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL))) err = dlerror();
    if (!g_lib) {
        snprintf(why, n, "libnccl.so.2 not found (%s): %s", home && *home ? "in NCCL_HOME/lib" :
                 "NCCL_HOME unset; not in the build's NCCL directory nor on the loader's path", err);
        return 0;
    }
    struct {
        void **slot;
        const char *name;
    } sym[] = {{(void **)&N.GetVersion, "ncclGetVersion"},   {(void **)&N.GetUniqueId, "ncclGetUniqueId"},
               {(void **)&N.CommInitRank, "ncclCommInitRank"}, {(void **)&N.CommDestroy, "ncclCommDestroy"},
               {(void **)&N.CommAbort, "ncclCommAbort"},     {(void **)&N.GetErrorString, "ncclGetErrorString"},
               {(void **)&N.GetLastError, "ncclGetLastError"}, {(void **)&N.AllReduce, "ncclAllReduce"},
               {(void **)&N.Send, "ncclSend"},               {(void **)&N.Recv, "ncclRecv"},
               {(void **)&N.GroupStart, "ncclGroupStart"},   {(void **)&N.GroupEnd, "ncclGroupEnd"}};
    for (auto &s : sym)
        if (!(*s.slot = dlsym(g_lib, s.name))) {
            snprintf(why, n, "the NCCL library lacks %s (NCCL 2.13 or later is needed)", s.name);
            dlclose(g_lib), g_lib = nullptr;
            return 0;
        }
    return 1;
}

// Nonzero after one line naming the call; the communicator is aborted, so that no later
// call waits on a peer that will not come.
int nccl_failed(ncclResult_t r, const char *call)
{
    if (r == ncclSuccess) return 0;
    const char *last = g_comm ? N.GetLastError(g_comm) : "";
    sb_error("NCCL: %s: %s%s%s", call, N.GetErrorString(r), last && *last ? ": " : "", last ? last : "");
    if (g_comm) N.CommAbort(g_comm), g_comm = nullptr;
    return 1;
}
#define NC(call) \
    if (nccl_failed((call), #call)) return SB_EXIT_RUNTIME

int nccl_start(void)
{
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    int bad = sb_mpi_rank() == 0 && nccl_failed(N.GetUniqueId(&id), "ncclGetUniqueId");
    if (sb_mpi_max_int(bad)) return SB_EXIT_RUNTIME;
    sb_mpi_bcast(&id, sizeof id, 0);
    bad = nccl_failed(N.CommInitRank(&g_comm, sb_mpi_size(), id, sb_mpi_rank()), "ncclCommInitRank");
    if (sb_mpi_max_int(bad)) return SB_EXIT_RUNTIME;
    int v = 0;
    N.GetVersion(&v);
    // 2.9.x and before: 1000 major + 100 minor + patch; since 2.10: 10000 major + 100 minor + patch
    const int major = v >= 10000 ? v / 10000 : v / 1000, minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
    snprintf(g_detail, sizeof g_detail, "NCCL %d.%d.%d", major, minor, v % 100);
    return SB_OK;
}
#else
int nccl_load(char *why, size_t n)
{
    snprintf(why, n, "this build has no NCCL (nccl.h was not found when it was built: NCCL_HOME or the "
                     "nvidia-nccl-cu13 wheel)");
    return 0;
}
int nccl_start(void) { return SB_EXIT_RUNTIME; }
#endif

int host_sum(double *dev, long n, cudaStream_t s)
{
    const size_t bytes = (size_t)n * sizeof(double);
    int rc = staging(bytes);
    if (rc) return rc;
    CU(cudaMemcpyAsync(g_pin, dev, bytes, cudaMemcpyDeviceToHost, s));
    CU(cudaStreamSynchronize(s));
    sb_mpi_sum(static_cast<double *>(g_pin), n);
    CU(cudaMemcpyAsync(dev, g_pin, bytes, cudaMemcpyHostToDevice, s));
    CU(cudaStreamSynchronize(s)); // the staging buffer is free for the next call on any stream
    return SB_OK;
}

enum { TAG = 0x5343 };
int host_sendrecv(const void *send, int to, void *recv, int from, size_t bytes, cudaStream_t s)
{
    int rc = staging(2 * bytes);
    if (rc) return rc;
    char *out = static_cast<char *>(g_pin), *in = out + bytes;
    CU(cudaMemcpyAsync(out, send, bytes, cudaMemcpyDeviceToHost, s));
    sb_mpi_reqs rq = {0, {0}};
    sb_mpi_irecv(&rq, in, bytes, from, TAG);
    CU(cudaStreamSynchronize(s));
    sb_mpi_isend(&rq, out, bytes, to, TAG);
    sb_mpi_waitall(&rq);
    CU(cudaMemcpyAsync(recv, in, bytes, cudaMemcpyHostToDevice, s));
    CU(cudaStreamSynchronize(s));
    return SB_OK;
}

} // namespace

extern "C" int sb_cuda_comm_init(int mode, int shared_gpu)
{
    g_mode = NONE;
    snprintf(g_detail, sizeof g_detail, "one rank: nothing moves");
    if (sb_mpi_size() == 1) return SB_OK;
    int rc = sb_mpi_max_int(read_fail_after());
    if (rc) return rc;
    setenv("NCCL_NVLS_ENABLE", "0", 0); // unless the user chose: multicast can disable a shared host's GPUs
    char why[512] = "";
    int ok = 0;
    if (mode == SB_COMM_HOST)
        snprintf(why, sizeof why, "comm=host");
    else if (shared_gpu)
        snprintf(why, sizeof why, "ranks share a GPU (share_gpu=1), which NCCL does not support");
    else
        ok = nccl_load(why, sizeof why);
    const int all = sb_mpi_min_int(ok);
    if (mode == SB_COMM_NCCL && !all) {
        sb_error("comm=nccl: %s", ok ? "another rank could not load NCCL" : why);
        return SB_EXIT_USAGE;
    }
    if (!all) {
        g_mode = HOST;
        snprintf(g_detail, sizeof g_detail, "MPI through pinned host memory%s%s", mode == SB_COMM_AUTO ? "; NCCL: " : "",
                 mode == SB_COMM_AUTO ? (ok ? "another rank could not load it" : why) : "");
        return SB_OK;
    }
    if ((rc = nccl_start())) return rc;
    g_mode = NCCL;
    return SB_OK;
}

extern "C" int sb_cuda_comm_nccl(void) { return g_mode == NCCL; }
extern "C" const char *sb_cuda_comm_path(void) { return g_mode == NCCL ? "nccl" : g_mode == HOST ? "host" : "none"; }
extern "C" const char *sb_cuda_comm_detail(void) { return g_detail; }

extern "C" int sb_cuda_comm_sum(double *dev, long n, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (g_mode == NONE || n <= 0) return SB_OK;
    if (injected("the sum over ranks")) return SB_EXIT_RUNTIME;
    if (g_mode == HOST) return host_sum(dev, n, s);
#ifdef SB_HAVE_NCCL
    sb_mpi_comm_add_bytes((double)n * sizeof(double));
    NC(N.AllReduce(dev, dev, (size_t)n, ncclFloat64, ncclSum, g_comm, s));
#endif
    return SB_OK;
}

extern "C" int sb_cuda_comm_sendrecv(const void *send, int to, void *recv, int from, size_t bytes, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (g_mode == NONE || bytes == 0) return SB_OK;
    if (injected("a send and receive")) return SB_EXIT_RUNTIME;
    if (g_mode == HOST) return host_sendrecv(send, to, recv, from, bytes, s);
#ifdef SB_HAVE_NCCL
    sb_mpi_comm_add_bytes((double)bytes);
    NC(N.GroupStart());
    NC(N.Send(send, bytes, ncclInt8, to, g_comm, s));
    NC(N.Recv(recv, bytes, ncclInt8, from, g_comm, s));
    NC(N.GroupEnd());
#endif
    return SB_OK;
}

extern "C" void sb_cuda_comm_finalize(void)
{
#ifdef SB_HAVE_NCCL
    if (g_comm) N.CommDestroy(g_comm), g_comm = nullptr;
#endif
    if (g_pin) cudaFreeHost(g_pin);
    g_pin = nullptr, g_pin_bytes = 0;
    g_mode = NONE;
}
