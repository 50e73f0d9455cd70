/* eri_brush: the libint2 reference files (data/ref/FORMAT.md). */
#ifndef ERI_REFDATA_H
#define ERI_REFDATA_H

typedef struct {
    int s[4], n;
    long v0; /* first value in vals */
} eri_ref_block;

typedef struct {
    int nbf, nshell, pure;
    double screen, seed;
    double nquartets, neris, sum, sum2, ej, jnorm;
    int has_sums, has_j;
    long nj;
    int *ji, *jj;
    double *jv;
    long nblock, nval;
    eri_ref_block *blk;
    double *vals;
    char producer[160]; /* first comment line */
} eri_ref;

/* 0, or SB_EXIT_USAGE with "file:line: reason". */
int eri_ref_read(const char *path, eri_ref *r);
void eri_ref_free(eri_ref *r);

#endif
