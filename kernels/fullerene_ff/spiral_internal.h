/* fullerene_ff generator internals shared by spiral.c (windup, canonical spirals),
 * spiral_enum.c (enumeration, sampling) and spiral_io.c (file reader). Not part of ff.h:
 * nothing outside the generator needs them. */
#ifndef FULLERENE_FF_SPIRAL_INTERNAL_H
#define FULLERENE_FF_SPIRAL_INTERNAL_H

#include <stdint.h>

#include "fullerene_ff/ff.h"

/* Scratch of one spiral walker: placement marks, so that a walk needs no clearing. Start
 * with mark = 0 (e.g. calloc); ff_walker_init sets the degrees for each new triangulation. */
typedef struct {
    uint32_t mark;
    uint32_t stamp[FF_MAX_F];
    uint8_t deg[FF_MAX_F];
} ff_walker;

/* The windup reduced to what decides whether a spiral prefix can go on: row k holds the
 * remaining valencies of the open boundary (front to back, indices lo[k]..hi[k]-1) after
 * faces 0..k-1, so a depth-first search keeps every level and backtracks for free. */
typedef struct {
    int F, W;  /* faces; row width */
    int8_t *r; /* F + 1 rows */
    int lo[FF_MAX_F + 1], hi[FF_MAX_F + 1];
} ff_wind;

int ff_wind_init(ff_wind *w, int F); /* 0, or -1 out of memory; free(w->r) when done */
/* Level 2: faces 0 and 1 of degrees d0, d1, joined. */
void ff_wind_root(ff_wind *w, int d0, int d1);
/* Face k of degree d on level k gives level k + 1: 0, or -1 when the spiral cannot go on
 * (left: pentagons still to place after face k, for the boundary-length bound). */
int ff_wind_place(ff_wind *w, int k, int d, int left);
/* With left <= 1 pentagons to go: 0 when the faces still to place cannot close level k's
 * boundary (a necessary condition from the lattice development, see spiral_enum.c). */
int ff_wind_cap_closes(const ff_wind *w, int k, int left);

uint64_t ff_mix64(uint64_t x); /* splitmix64 finaliser */

/* N is even, FF_MIN_N <= N <= FF_MAX_N and not 22 (the one size without a fullerene). */
int ff_valid_n(int N);

/* The windup of ff_windup for F faces without argument checks: pent[] ascending in [0, F). */
int ff_windup_faces(int F, const uint16_t *pent, uint16_t *dual);

/* Prepares w for walks on dual (degrees, fresh marks). */
void ff_walker_init(ff_walker *w, int F, const uint16_t *dual);

/* 1 when no start of the triangulation gives a spiral lexicographically smaller than pent
 * (pent being a spiral of it that starts at a pentagon), else 0. */
int ff_is_canonical(int F, const uint16_t *dual, const uint16_t *pent, ff_walker *w);

/* 1 when some start at a pentagon gives a spiral, else 0. */
int ff_has_pentagon_spiral(int F, const uint16_t *dual, ff_walker *w);

/* The spiral from vertex v, its neighbour dual[6v+j], direction dir (+1: along the stored
 * rotation, -1: against it): 0 and out = its pentagon positions, or -1 if it has none. */
int ff_spiral_from(int F, const uint16_t *dual, int v, int j, int dir, uint16_t *out, ff_walker *w);

/* ff_canonical_spiral without the check of the triangulation. */
int ff_canonical_faces(int F, const uint16_t *dual, uint16_t *out, ff_walker *w);

/* 0 when dual is a consistently oriented triangulation of the sphere with 12 vertices of
 * degree 5 and F-12 of degree 6, else -1. */
int ff_check_dual(int F, const uint16_t *dual);

/* Lexicographic order of pentagon sequences (qsort comparator on ff_spiral). */
int ff_spiral_cmp(const void *a, const void *b);

#endif
