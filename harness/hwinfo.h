/* What machine a result came from, and the id of its results/ folder. */
#ifndef SB_HWINFO_H
#define SB_HWINFO_H

#include <stddef.h>

#include "sb_cuda.h"
#include "sb_omp.h"

typedef struct {
    char machine[64];   /* results/<machine>/: "h100", "cpu-2core"; SB_MACHINE overrides */
    char hostname[256];
    sb_cpu_info cpu;
    double cpu_mhz;     /* nominal/max clock; 0 when unknown */
    int have_gpu;
    char gpu_why[192];  /* why not, when have_gpu is 0 */
    sb_cuda_info gpu;   /* valid when have_gpu */
} sb_hwinfo;

/* Fills everything; a missing GPU is not an error (gpu_why says why). */
void sb_hwinfo_get(sb_hwinfo *h);

/* "NVIDIA H100 80GB HBM3" -> "h100", "NVIDIA A100-SXM4-40GB" -> "a100";
 * without a model-number token, a '-'-joined slug of the name. */
void sb_gpu_slug(const char *gpu_name, char *out, size_t n);

#endif
