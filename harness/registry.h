/* The kernel table: the one place in the harness that names kernels. */
#ifndef SB_REGISTRY_H
#define SB_REGISTRY_H

#include "sb.h"

int sb_registry_count(void);
const sb_kernel *sb_registry_at(int i);
/* SB_OK, or SB_EXIT_USAGE with a message listing the kernels. */
int sb_registry_find(const char *name, const sb_kernel **out);

#endif
