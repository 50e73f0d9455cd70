/* GPU tests: skip with the reason when no GPU is present, unless SB_REQUIRE_GPU
 * is set (make test-gpu on the device), where a missing GPU is a failure.
 * Include after <cmocka.h>. */
#ifndef SB_TESTS_GPU_UTIL_H
#define SB_TESTS_GPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_cuda.h"

static int skip_said; /* the reason is printed once */

static int gpu_required(void)
{
    const char *s = getenv("SB_REQUIRE_GPU");
    return s && *s && strcmp(s, "0") != 0;
}

/* Under compute-sanitizer (tools/compute_sanitizer.sh sets SB_UNDER_SANITIZER=1) kernels run
 * 10-100x slower and every failed CUDA call is a reported error: tests skip their speed
 * bounds and the failures they provoke on purpose. */
static inline int under_sanitizer(void)
{
    const char *s = getenv("SB_UNDER_SANITIZER");
    return s && *s && strcmp(s, "0") != 0;
}

/* Skips (or, when a GPU is required, fails) the calling test without a GPU;
 * otherwise selects and initialises the device. */
#define REQUIRE_GPU(info)                                                               \
    do {                                                                                \
        const char *why_ = NULL;                                                        \
        if (!sb_cuda_available(&why_)) {                                                \
            if (gpu_required()) fail_msg("SB_REQUIRE_GPU is set but no GPU: %s", why_); \
            if (!skip_said++) printf("SKIP: no GPU: %s\n", why_);                       \
            skip();                                                                     \
        }                                                                               \
        assert_int_equal(sb_cuda_init(info), SB_OK);                                    \
    } while (0)

#endif
