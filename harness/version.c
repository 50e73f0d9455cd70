/* The Makefile defines these for this object only; a build outside make
 * still links. */
#include "version.h"

#ifndef SB_GIT_COMMIT
#define SB_GIT_COMMIT "unknown"
#endif
#ifndef SB_CC_VERSION
#define SB_CC_VERSION "unknown"
#endif
#ifndef SB_NVCC_VERSION
#define SB_NVCC_VERSION "unknown"
#endif
#ifndef SB_CFLAGS_ARCH
#define SB_CFLAGS_ARCH "unknown"
#endif

const char *sb_version_commit(void) { return SB_GIT_COMMIT; }
const char *sb_version_cc(void) { return SB_CC_VERSION; }
const char *sb_version_nvcc(void) { return SB_NVCC_VERSION; }
const char *sb_version_arch(void) { return SB_CFLAGS_ARCH; }

/* USE_OPENMP in it means the build that small solves from many threads at once do not serialise */
char *openblas_get_config(void);
const char *sb_version_blas(void) { return openblas_get_config(); }
