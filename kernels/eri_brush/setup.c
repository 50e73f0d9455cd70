/* eri_brush: parameters, inputs, pairs, the screened worklist and the density at setup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eri_brush/boys.h"
#include "eri_brush/ericase.h"
#include "sb_omp.h"

static const char *const shipped_molecules[] = {"water", "benzene", "vitamin_c", "taxol", "valinomycin", NULL};
static const char *const shipped_bases[] = {"sto-3g", "6-31gs", "cc-pvdz", "def2-svp", "cc-pvtz", "def2-tzvp", NULL};

static int in_list(const char *s, const char *const *l)
{
    for (; *l; l++)
        if (!strcmp(s, *l)) return 1;
    return 0;
}

static int copy_str(char *dst, size_t n, const char *src, const char *key)
{
    if (strlen(src) >= n || !*src) {
        sb_error("eri_brush: %s='%s': empty or longer than %zu characters", key, src, n - 1);
        return SB_EXIT_USAGE;
    }
    strcpy(dst, src);
    return SB_OK;
}

int eri_case_parse(sb_params *p, eri_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->size = p->size;
    cfg->seed = p->seed;
    const char *m = sb_param_string(p, "molecule"), *b = sb_param_string(p, "basis");
    int rc = copy_str(cfg->molecule, sizeof cfg->molecule, m ? m : "cluster", "molecule");
    if (!rc) rc = copy_str(cfg->basis, sizeof cfg->basis, b ? b : "cc-pvdz", "basis");
    if (rc) return rc;
    if (strcmp(cfg->molecule, "cluster") && !in_list(cfg->molecule, shipped_molecules) &&
        !strstr(cfg->molecule, ".xyz")) {
        sb_error("eri_brush: molecule='%s': expected cluster (SIZE waters), water, benzene, vitamin_c, "
                 "taxol, valinomycin, or a path ending in .xyz", cfg->molecule);
        return SB_EXIT_USAGE;
    }
    if (!in_list(cfg->basis, shipped_bases) && !strstr(cfg->basis, ".g94")) {
        sb_error("eri_brush: basis='%s': expected sto-3g, 6-31gs, cc-pvdz, def2-svp, cc-pvtz, def2-tzvp, "
                 "or a path ending in .g94",
                 cfg->basis);
        return SB_EXIT_USAGE;
    }
    static const char *const modes[] = {"digest", "store", NULL};
    static const char *const paths[] = {"auto", "hgp", "md", "jeng", NULL};
    long cart = 0;
    int path = 0;
    rc = sb_param_choice(p, "mode", modes, ERI_MODE_DIGEST, &cfg->mode);
    if (!rc) rc = sb_param_choice(p, "path", paths, 0, &path);
    if (!rc) rc = sb_param_double(p, "screen", ERI_SCREEN_DEFAULT, 0.0, 1e-4, &cfg->screen);
    if (!rc) rc = sb_param_double(p, "prim_screen", ERI_PRIM_SCREEN_DEFAULT, 0.0, 1e-10, &cfg->prim_screen);
    if (!rc) rc = sb_param_double(p, "pq_screen", ERI_PQ_SCREEN_DEFAULT, 0.0, ERI_PQ_SCREEN_MAX, &cfg->pq_screen);
    if (!rc) rc = sb_param_long(p, "cartesian", 0, 0, 1, &cart);
    if (!rc) rc = sb_param_long(p, "oracle", 4, 0, 100000, &cfg->oracle);
    cfg->pure = !cart;
    cfg->path = path - 1; /* auto -> -1, hgp -> ERI_PATH_HGP, md -> ERI_PATH_MD, jeng -> ERI_PATH_JENG */
    if (!rc && cfg->path == ERI_PATH_JENG && cfg->mode == ERI_MODE_STORE) {
        sb_error("eri_brush: path=jeng computes J without forming the integrals, so it has no store mode "
                 "(use path=auto, hgp or md with mode=store)");
        return SB_EXIT_USAGE;
    }
    return rc;
}

const eri_ops *eri_ops_for(sb_backend be)
{
    switch (be) {
    case SB_BACKEND_OPENMP_SIMD: return &eri_ops_openmp_simd;
#ifdef SB_HAVE_CUDA
    case SB_BACKEND_CUDA: return &eri_ops_cuda;
#endif
    case SB_BACKEND_REFERENCE: return &eri_ops_reference;
    default: return NULL;
    }
}

static int load_inputs(eri_case *ec)
{
    const eri_config *cfg = &ec->cfg;
    char path[1024], rel[2048];
    int rc;
    if (!strcmp(cfg->molecule, "cluster")) {
        rc = eri_water_cluster(cfg->size, cfg->seed, &ec->mol);
    } else if (in_list(cfg->molecule, shipped_molecules)) {
        snprintf(rel, sizeof rel, "molecules/%s.xyz", cfg->molecule);
        rc = eri_data_path(rel, path, sizeof path);
        if (!rc) rc = eri_read_xyz(path, &ec->mol);
    } else {
        rc = eri_read_xyz(cfg->molecule, &ec->mol);
    }
    if (rc) return rc;
    if (in_list(cfg->basis, shipped_bases)) {
        snprintf(rel, sizeof rel, "basis/%s.g94", cfg->basis);
        rc = eri_data_path(rel, path, sizeof path);
        if (rc) return rc;
    } else {
        snprintf(path, sizeof path, "%s", cfg->basis);
    }
    if ((rc = eri_basis_build(path, &ec->mol, cfg->pure, &ec->bas))) return rc;
    /* the libint2 reference, where one was made for this molecule and basis */
    ec->ref_path[0] = '\0';
    if (in_list(cfg->molecule, shipped_molecules) && in_list(cfg->basis, shipped_bases)) {
        /* most cases have no reference: probe the directory quietly, not the file */
        char ref[1024];
        if (eri_data_path("ref/FORMAT.md", ref, sizeof ref) == SB_OK) {
            char *slash = strrchr(ref, '/');
            if (slash) *slash = '\0';
            snprintf(rel, sizeof rel, "%s/%s.%s%s.ref", ref, cfg->molecule, cfg->basis, cfg->pure ? "" : ".cart");
        }
        if (access(rel, R_OK) == 0)
            snprintf(ec->ref_path, sizeof ec->ref_path, "%s", rel);
    }
    /* read now, not at validation: a file that cannot be used stops the run before it starts */
    if (ec->ref_path[0]) return eri_ref_read(ec->ref_path, &ec->ref);
    return SB_OK;
}

int eri_case_create(eri_case *ec, const eri_config *cfg, sb_backend be)
{
    memset(ec, 0, sizeof *ec);
    ec->cfg = *cfg;
    double t0 = sb_clock_seconds();
    ec->ops = eri_ops_for(be);
    if (!ec->ops) {
        sb_error("eri_brush: not implemented for backend %s", sb_backend_name(be));
        return SB_EXIT_USAGE;
    }
    int rc = load_inputs(ec);
    if (rc) return rc;
    sb_progress("eri_brush: %d atoms, %d shells, %d basis functions: Schwarz factors...", ec->mol.natom,
                ec->bas.nshell, ec->bas.nbf);
    if ((rc = eri_pairs_build(&ec->bas, cfg->prim_screen, &ec->ps))) return rc;
    /* the CUDA and OpenMP backends' digests skip primitive quartets (their generated loops);
     * the reference computes every one */
    ec->ps.pq_screen =
        (be == SB_BACKEND_CUDA || be == SB_BACKEND_OPENMP_SIMD) && cfg->mode == ERI_MODE_DIGEST ? cfg->pq_screen : 0.0;
    sb_progress("eri_brush: screening quartets...");
    if ((rc = eri_worklist_build(&ec->bas, &ec->ps, cfg->screen, &ec->w))) return rc;
    if (cfg->path < 0 && cfg->mode == ERI_MODE_DIGEST) eri_worklist_digest_paths(&ec->w, cfg->pure, eri_jeng_lmin(be));
    eri_worklist_force_path(&ec->w, cfg->path, cfg->pure);
    sb_progress_done();
    const int nocode = eri_worklist_nocode_class(&ec->w);
    if (cfg->mode == ERI_MODE_STORE && nocode >= 0) {
        const eri_class_info *c = eri_class(nocode);
        sb_error("eri_brush: mode=store: basis %s has f shells, and class (%c%c|%c%c) has no generated code; "
                 "they are computed only by the J engine, in mode=digest",
                 cfg->basis, "spdf"[c->la], "spdf"[c->lb], "spdf"[c->lc], "spdf"[c->ld]);
        return SB_EXIT_USAGE;
    }
    size_t n = (size_t)ec->bas.nbf;
    ec->D = malloc(sizeof(double) * n * n);
    ec->M = calloc(n * n, sizeof(double));
    if (!ec->D || !ec->M) {
        sb_error("eri_brush: out of memory for %zu x %zu matrices", n, n);
        return SB_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) ec->D[i * n + j] = eri_density_elem(cfg->seed, (int)i, (int)j);
    ec->screen_bound = eri_screen_bound(&ec->bas, &ec->ps, cfg->screen, cfg->prim_screen, ec->D);
    if (ec->ps.pq_screen > 0) { /* the counters and the flop model count the primitive quartets run */
        ec->pq_kept = malloc(sizeof(double) * (size_t)(ec->w.nseg ? ec->w.nseg : 1));
        if (!ec->pq_kept || eri_pq_kept(&ec->ps, &ec->w, ec->pq_kept)) {
            sb_error("eri_brush: out of memory for the primitive-quartet counts");
            return SB_EXIT_RUNTIME;
        }
        ec->w.nprimq = ec->w.flops = 0;
        for (int k = 0; k < ec->w.nseg; k++) {
            ec->w.nprimq += ec->pq_kept[k];
            ec->w.flops += eri_case_seg_flops(ec, k, ec->w.seg[k].q0, ec->w.seg[k].q1);
        }
    }
    if (cfg->mode == ERI_MODE_STORE) {
        if (!ec->w.store_off || ec->w.neris > ERI_STORE_MAX_ERIS) {
            sb_error("eri_brush: mode=store needs %.3g integrals (%.3g GB); the limit is %.3g integrals: "
                     "use mode=digest or a smaller case", ec->w.neris, ec->w.neris * 8e-9, ERI_STORE_MAX_ERIS);
            return SB_EXIT_USAGE;
        }
        ec->store = malloc(sizeof(double) * (size_t)ec->w.store_off[ec->w.nq]);
        if (!ec->store) {
            sb_error("eri_brush: out of memory for %.3g stored integrals", ec->w.neris);
            return SB_EXIT_RUNTIME;
        }
    }
    eri_batch *b = &ec->b;
    b->bas = &ec->bas, b->ps = &ec->ps, b->w = &ec->w;
    b->boys = eri_boys_table();
    b->mode = cfg->mode, b->D = ec->D, b->M = ec->M, b->store = ec->store;
    ec->setup_seconds = sb_clock_seconds() - t0;
    return SB_OK;
}

double eri_case_seg_flops(const eri_case *ec, int k, long q0, long q1)
{
    const eri_segment *s = &ec->w.seg[k];
    const double n = (double)(q1 - q0), pure = ec->cfg.pure;
    if (!ec->pq_kept) return n * eri_quartet_flops(s->cls, s->path, s->nb, s->nk, pure);
    /* the per-quartet part for each quartet, the per-primitive part for the kept primitive
     * quartets (a slice: its share of the segment's) */
    const double per_q = eri_quartet_flops(s->cls, s->path, 0, 0, pure);
    const double per_pq = eri_quartet_flops(s->cls, s->path, 1, 1, pure) - per_q;
    const double len = (double)(s->q1 - s->q0);
    return n * per_q + (len > 0 ? ec->pq_kept[k] * n / len : 0.0) * per_pq;
}

static void worklist_flops(eri_worklist *w, int pure)
{
    w->flops = 0;
    for (int k = 0; k < w->nseg; k++)
        w->flops += (double)(w->seg[k].q1 - w->seg[k].q0) *
                    eri_quartet_flops(w->seg[k].cls, w->seg[k].path, w->seg[k].nb, w->seg[k].nk, pure);
}

int eri_jeng_lmin(sb_backend be) { return be == SB_BACKEND_CUDA ? ERI_JENG_LMIN_CUDA : ERI_JENG_LMIN; }

void eri_worklist_digest_paths(eri_worklist *w, int pure, int lmin)
{
    for (int k = 0; k < w->nseg; k++)
        if (eri_path_digest_jeng(w->seg[k].cls, lmin)) w->seg[k].path = ERI_PATH_JENG;
    worklist_flops(w, pure);
}

void eri_worklist_force_path(eri_worklist *w, int forced, int pure)
{
    if (forced < 0) return; /* the user overrides the flop model's choice */
    for (int k = 0; k < w->nseg; k++) w->seg[k].path = eri_path_choose(w->seg[k].cls, w->seg[k].nb, w->seg[k].nk, forced);
    worklist_flops(w, pure);
}

int eri_worklist_nocode_class(const eri_worklist *w)
{
    for (int k = 0; k < w->nseg; k++)
        if (!eri_class_has_code(w->seg[k].cls) && w->seg[k].q1 > w->seg[k].q0) return w->seg[k].cls;
    return -1;
}

int eri_store_run(const eri_case *ec, const eri_ops *ops, const eri_worklist *w, double **out)
{
    *out = NULL;
    if (!w->store_off) return SB_EXIT_RUNTIME;
    const int nocode = ops == &eri_ops_reference ? -1 : eri_worklist_nocode_class(w);
    if (nocode >= 0) {
        sb_error("eri_brush: store run of a worklist with class %d, which has no generated code (f shells: digest "
                 "mode only)", nocode);
        return SB_EXIT_RUNTIME;
    }
    double *st = malloc(sizeof(double) * (size_t)(w->store_off[w->nq] ? w->store_off[w->nq] : 1));
    if (!st) return SB_EXIT_RUNTIME;
    /* the J engine forms no integrals: its segments take the flop model's path here */
    eri_worklist ws = *w;
    ws.seg = malloc(sizeof(eri_segment) * (size_t)(w->nseg ? w->nseg : 1));
    if (!ws.seg) return free(st), SB_EXIT_RUNTIME;
    for (int k = 0; k < w->nseg; k++) {
        ws.seg[k] = w->seg[k];
        if (ws.seg[k].path == ERI_PATH_JENG) ws.seg[k].path = eri_path_choose(ws.seg[k].cls, ws.seg[k].nb, ws.seg[k].nk, -1);
    }
    eri_batch b = ec->b;
    b.w = &ws, b.mode = ERI_MODE_STORE, b.store = st, b.M = NULL, b.seg_seconds = NULL, b.dev = NULL, b.share = NULL;
    int rc = ops->prepare(&b);
    if (!rc) rc = ops->run(&b);
    if (!rc) rc = ops->download(&b);
    ops->release(&b);
    free(ws.seg);
    if (rc) free(st);
    else *out = st;
    return rc;
}

void eri_case_destroy(eri_case *ec)
{
    if (ec->ops && ec->prepared) ec->ops->release(&ec->b);
    eri_worklist_free(&ec->w);
    eri_pairs_free(&ec->ps);
    eri_basis_free(&ec->bas);
    eri_molecule_free(&ec->mol);
    eri_ref_free(&ec->ref);
    free(ec->D), free(ec->M), free(ec->store), free(ec->pq_kept);
    memset(ec, 0, sizeof *ec);
}
