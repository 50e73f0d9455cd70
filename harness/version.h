/* Provenance baked in at build time (the binary runs away from its git tree). */
#ifndef SB_VERSION_H
#define SB_VERSION_H

const char *sb_version_commit(void);   /* short hash, "-dirty" when the tree had changes */
const char *sb_version_cc(void);       /* first line of $(CC) --version */
const char *sb_version_nvcc(void);     /* last line of nvcc --version, "none" without CUDA */
const char *sb_version_arch(void);     /* -march target, e.g. x86-64-v3 */
const char *sb_version_blas(void);     /* the linked OpenBLAS: version, threading, kernel set */

#endif
