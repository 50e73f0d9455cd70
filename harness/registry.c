/* Adding a kernel: include its header and append it to the table. */
#include <stdio.h>
#include <string.h>

#include "dfratom_scf/dfratom_scf.h"
#include "eri_brush/eri_brush.h"
#include "fullerene_ff/fullerene_ff.h"
#include "lattice_mc/lattice_mc.h"
#include "nlchains/nlchains.h"
#include "registry.h"

static const sb_kernel *const kernels[] = {
    &lattice_mc_kernel,
    &nlchains_kernel,
    &fullerene_ff_kernel,
    &eri_brush_kernel,
    &dfratom_scf_kernel,
};

#define NKERNELS ((int)(sizeof kernels / sizeof kernels[0]))

int sb_registry_count(void) { return NKERNELS; }

const sb_kernel *sb_registry_at(int i) { return (i >= 0 && i < NKERNELS) ? kernels[i] : NULL; }

int sb_registry_find(const char *name, const sb_kernel **out)
{
    char list[512] = "";
    size_t len = 0;
    for (int i = 0; i < NKERNELS; i++) {
        if (strcmp(name, kernels[i]->name) == 0) {
            *out = kernels[i];
            return SB_OK;
        }
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", kernels[i]->name);
    }
    sb_error("unknown kernel '%s'; accepted: %s (see 'scibench list')", name, list);
    return SB_EXIT_USAGE;
}
