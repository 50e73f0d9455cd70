/* GPU data between the MPI ranks' GPUs: halos and reductions that start and end in device
 * memory. Through NCCL where it is available (loaded at run time, so that one binary runs
 * with or without it), bootstrapped over MPI; otherwise staged through pinned host memory
 * and MPI. Each call is enqueued on a CUDA stream: through NCCL it returns at once, the
 * transfer ordered on the stream like a kernel; host-staged, it returns when the data has
 * arrived. With one rank nothing is moved. Built without CUDA, cuda_stub.c. */
#ifndef SB_CUDA_COMM_H
#define SB_CUDA_COMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SB_COMM_AUTO = 0, SB_COMM_NCCL = 1, SB_COMM_HOST = 2 } sb_comm_mode;

/* Collective over the ranks, after every rank has chosen its GPU. AUTO takes NCCL when every
 * rank loaded it and has a GPU of its own (NCCL cannot put two ranks on one GPU), host
 * staging otherwise. NCCL asked for and unavailable: one line, SB_EXIT_USAGE. NCCL's
 * initialisation failing: SB_EXIT_RUNTIME. Sets NCCL_NVLS_ENABLE=0 unless the user set it:
 * NVLink multicast can take a shared host's GPUs out of service. */
int sb_cuda_comm_init(int mode, int shared_gpu);
/* 1 when device data moves through NCCL, 0 host-staged (or a single rank). */
int sb_cuda_comm_nccl(void);
/* "nccl" or "host", and what carried it ("NCCL 2.28.9", "MPI through pinned host memory"). */
const char *sb_cuda_comm_path(void);
const char *sb_cuda_comm_detail(void);
/* In-place sum of n doubles in device memory over all ranks, on stream (a cudaStream_t;
 * NULL is the legacy default stream). */
int sb_cuda_comm_sum(double *dev, long n, void *stream);
/* Sends bytes at send to rank `to` and receives as many into recv from rank `from`, both in
 * device memory, on stream. Every rank calls it in the same phase of the same step. */
int sb_cuda_comm_sendrecv(const void *send, int to, void *recv, int from, size_t bytes, void *stream);
/* Ends the communicator (before MPI ends). */
void sb_cuda_comm_finalize(void);

#ifdef __cplusplus
}
#endif
#endif
