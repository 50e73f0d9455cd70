/* fullerene_ff: constants of the start geometry (layout.c), shared with cuda.cu so that
 * both build the same Tutte layout and spherical projection. */
#ifndef FULLERENE_FF_LAYOUT_H
#define FULLERENE_FF_LAYOUT_H

#ifdef __CUDACC__
#define FF_LAYOUT_HD __host__ __device__ static inline
#else
#define FF_LAYOUT_HD static inline
#endif

/* Mean bond length of the projected start geometry, Angstrom (the optimised bonds are
 * 1.40..1.48 A). */
#define FF_PROJECT_BOND 1.4
/* Smoothing sweeps on the unit sphere after the projection (layout.c, step 5). */
#define FF_PROJECT_SMOOTH 10
/* Layers per sqrt(N) above which the cage is stretched along the axis (layout.c, step 6):
 * C60..C80 isomers have 1.1..1.3 sqrt(N) layers from face 0, nanotube-like ones up to 1.8. */
#define FF_PROJECT_ELONG 1.25

/* Corner k of the regular d-gon (d = 5, 6) on the unit circle, at angle 2 pi k / d, as
 * literals: both backends pin the same bits (no libm sin/cos involved). */
FF_LAYOUT_HD double ff_polygon_x(int d, int k)
{
    if (d == 5)
        return k == 0 ? 1.0 : (k == 1 || k == 4) ? 0.30901699437494742 : -0.80901699437494742;
    return k == 0 ? 1.0 : (k == 1 || k == 5) ? 0.5 : (k == 2 || k == 4) ? -0.5 : -1.0;
}
FF_LAYOUT_HD double ff_polygon_y(int d, int k)
{
    if (d == 5)
        return k == 0 ? 0.0
               : k == 1 ? 0.95105651629515357
               : k == 2 ? 0.58778525229247313
               : k == 3 ? -0.58778525229247313
                        : -0.95105651629515357;
    return (k == 0 || k == 3) ? 0.0 : (k == 1 || k == 2) ? 0.86602540378443865 : -0.86602540378443865;
}

#endif
