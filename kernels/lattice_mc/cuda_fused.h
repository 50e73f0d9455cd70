/* lattice_mc CUDA: the fused sweep (fuse=slab), for cuda.cu. One rank only. */
#ifndef LATTICE_MC_CUDA_FUSED_H
#define LATTICE_MC_CUDA_FUSED_H

#include "lattice_mc/cuda_site.cuh"
#include "sb.h"

namespace lmc_cu {

struct fused;

/* Plans the fused sweep of lattice g (one rank, so zs planes with periodic z): the
 * wavefront order, one completion slot per item, the block shape, and as many blocks
 * as fit on the device at once. l2: neighbours by L2-only loads (else L1-cached);
 * slab: planes a wavefront step advances, 0 = from the L2 size. SB_OK, or an error
 * code after one error line; *out is set either way (fused_release frees it). */
int fused_create(fused **out, const lattice &g, bool droplet, bool l2, int slab);
/* One sweep, one launch on the legacy stream; adds to acc[0] (dE) and acc[1] (moves). */
int fused_sweep(fused *f, const lattice &g, const sweep_par &sp, double *acc);
/* The kernel's launch report (registers, occupancy, grid) for the harness. */
int fused_launch_report(const fused *f, sb_launch *out);
/* Planes a wavefront step advances (the slab actually used). */
int fused_slab(const fused *f);
void fused_release(fused *f);

} // namespace lmc_cu

#endif
