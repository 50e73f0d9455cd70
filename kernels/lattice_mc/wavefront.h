/* lattice_mc: the schedule of the fused CUDA sweep (cuda_fused.cu), one rank.
 *
 * Work items are (tick t, storage plane z, chunk c): tick t (sub-lattice
 * lmc_tick_order[t] = t ^ (t >> 1)) on rows [c R, c R + R) of plane z, all x. A sweep's
 * items run in one launch; each block takes the next ticket, waits until the items its
 * item depends on are complete, updates, and publishes its own completion.
 *
 * Order (tickets): a z wavefront in steps. Step w runs tick t on the planes of group
 * g = w - t - [t >= 4], groups being G consecutive planes. Tick t + 1 of a plane thus
 * comes one step after tick t, so the items between them (8 G plane-ticks) keep the
 * GPU busy while tick t completes; the first tick of the second half sweep (t = 4) comes
 * two steps after t = 3, because it reads plane z + 1's t = 3 too (parity-1 plane z reads
 * parity-0 planes z and z + 1). The live planes, about 9 G + 2, stay in L2.
 *
 * Dependencies (what an item reads or overwrites that an earlier tick of the sweep
 * writes or reads): tick t on plane z, chunk c, reads its own rows and the same rows of
 * the x neighbour sub-lattice, the rows one up or down of the y neighbour (chunks
 * c - 1 .. c + 1, wrapped in y), and the z neighbour sub-lattice on planes z - 1 .. z + 1
 * (other z parity, the same rows). So it waits for tick t - 1 of chunks c - 1 .. c + 1
 * of the same plane, and tick 4 also for tick 3 of plane z + 1 (wrapped). Transitively
 * that orders every conflicting pair as the tick-by-tick sweep does; tick 0 waits for
 * nothing (the previous sweep is the previous launch). Every dependency has an earlier
 * ticket, so blocks that wait only wait for blocks already running: no deadlock whatever
 * the number of resident blocks. tests/kernels/lattice_mc/test_lattice_mc.c checks all of this item by item
 * against the read and write sets of the tick-by-tick sweep. */
#ifndef LATTICE_MC_WAVEFRONT_H
#define LATTICE_MC_WAVEFRONT_H

#include <stdint.h>

#include "lattice_mc/physics.h" /* LMC_HD */

/* Plane-ticks (t | z << 3) in ticket order, 8 zs of them; item k has plane-tick k / nch
 * and chunk k % nch. Returns the number of steps. */
LMC_HD int lmc_wave_order(int zs, int G, uint32_t *plane_ticks)
{
    const int ngroups = (zs + G - 1) / G;
    int n = 0, w = 0;
    for (; w < ngroups + 8; w++)
        for (int t = 0; t < 8; t++) {
            const int g = w - t - (t >= 4);
            if (g < 0 || g >= ngroups) continue;
            for (int z = g * G; z < zs && z < (g + 1) * G; z++) plane_ticks[n++] = (uint32_t)t | (uint32_t)z << 3;
        }
    return w;
}

/* Completion slot of item (t, z, c): one per item of a sweep. */
LMC_HD uint32_t lmc_wave_slot(int t, int z, int c, int zs, int nch)
{
    return ((uint32_t)t * (uint32_t)zs + (uint32_t)z) * (uint32_t)nch + (uint32_t)c;
}

/* Item (t, z, c) waits for lmc_wave_ndeps items; lmc_wave_dep gives the slot of the i-th. */
LMC_HD int lmc_wave_ndeps(int t, int nch)
{
    return t == 0 ? 0 : (nch < 3 ? nch : 3) * (t == 4 ? 2 : 1);
}

LMC_HD uint32_t lmc_wave_dep(int i, int t, int z, int c, int zs, int nch)
{
    const int nc = nch < 3 ? nch : 3, p = i / nc, d = i % nc;
    const int zp = z + p == zs ? 0 : z + p, cd = nch < 3 ? d : (c - 1 + d + nch) % nch;
    return lmc_wave_slot(t - 1, zp, cd, zs, nch);
}

#endif
