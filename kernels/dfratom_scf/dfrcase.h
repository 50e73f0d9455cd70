/* dfratom_scf: one benchmark case (atom, basis, options, backend state) */
#ifndef DFRCASE_H
#define DFRCASE_H
#include "dfratom_scf/dfr.h"

enum { DFR_JOB_SCF = 0, DFR_JOB_FOCK = 1 };

typedef struct {
    dfr_atom atom;
    dfr_wtbs w;
    dfr_sym y;
    dfr_fun *f;
    dfr_scf_opts o;
    dfr_gbuild g;
    dfr_result r;
    dfr_counts cnt;
    int job, oracle;
    sb_backend backend;
    double *D0, *G0;   /* job=fock: the input density and the output */
    double *Dfinal;    /* job=scf: the converged weighted density */
} dfr_case;

int dfr_case_parse(sb_params *p, dfr_case *d);
int dfr_validate(sb_case *c, sb_validation *v);
#endif
