/* Counters and validation checks: what a kernel hands back besides its time. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb.h"

void sb_counter_set(sb_counters *cs, const char *name, double value, const char *unit)
{
    sb_counter *c = NULL;
    for (int i = 0; i < cs->n && !c; i++)
        if (strncmp(cs->c[i].name, name, sizeof cs->c[i].name - 1) == 0) c = &cs->c[i];
    if (!c) {
        if (cs->n >= SB_MAX_COUNTERS) {
            /* A kernel bug, but a lost output must not pass unnoticed. */
            sb_error("counter '%s' dropped: more than %d counters", name, SB_MAX_COUNTERS);
            return;
        }
        c = &cs->c[cs->n++];
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->unit, sizeof c->unit, "%s", unit ? unit : "");
    c->value = value;
}

static int verdict(double value, double reference, double tolerance, sb_tol_kind kind)
{
    if (!isfinite(value) || !isfinite(reference)) return 0;
    double diff = fabs(value - reference);
    switch (kind) {
    case SB_TOL_ABS: return isfinite(tolerance) && diff <= tolerance;
    case SB_TOL_REL: return isfinite(tolerance) && diff <= tolerance * fabs(reference);
    case SB_TOL_MAX: return value <= reference;
    }
    return 0;
}

int sb_check_add(sb_validation *v, const char *name, double value, double reference,
                 double tolerance, sb_tol_kind kind, const char *unit, const char *source)
{
    int pass = verdict(value, reference, tolerance, kind);
    sb_check *c;
    if (v->n < SB_MAX_CHECKS) {
        c = &v->check[v->n++];
    } else {
        /* Overflow must fail the run visibly rather than drop a check. */
        c = &v->check[SB_MAX_CHECKS - 1];
        name = "too many checks (kernel bug)";
        pass = 0;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->unit, sizeof c->unit, "%s", unit ? unit : "");
    snprintf(c->source, sizeof c->source, "%s", source ? source : "");
    c->value = value;
    c->reference = reference;
    c->tolerance = tolerance;
    c->kind = kind;
    c->pass = pass;
    return pass;
}

/* No checks at all is not a validated run. */
int sb_validation_passed(const sb_validation *v)
{
    if (v->n == 0) return 0;
    for (int i = 0; i < v->n; i++)
        if (!v->check[i].pass) return 0;
    return 1;
}
