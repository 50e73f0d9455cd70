#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_result.h"
#include "result_check.h"
#include "sb_mpi.h"
#include "stats.h"

int sb_mpi_alone(int rc)
{
    if (rc && sb_mpi_size() > 1) sb_mpi_abort(rc);
    return rc;
}

static double median_of(const double *x, int n)
{
    sb_stats s;
    return sb_stats_compute(x, n, &s) ? x[0] : s.median;
}

/* Each rank's verdict in rank 0's report: the others print nothing. */
static void check_ranks(sb_validation *v)
{
    int ranks = sb_mpi_size();
    long n = sb_validation_passed(v);
    sb_mpi_sum_long(&n, 1);
    sb_check_add(v, "ranks_passing_validation", (double)n, (double)ranks, 0.0, SB_TOL_ABS, "ranks",
                 "every MPI rank's own checks (rank 0's are listed)");
}

int sb_mpi_gather_result(sb_case *c, const double *own, const double *comm, const double *bytes, sb_result *r)
{
    sb_mpi_result *m = &r->mpi;
    int reps = c->params->reps, ranks = sb_mpi_size();
    m->ranks = ranks;
    m->hosts = sb_mpi_hosts();
    m->host_list = sb_mpi_host_list();
    m->library = sb_mpi_library();
    if (ranks == 1) return SB_OK;
    double *share = malloc(sizeof(double) * (size_t)reps), *all = malloc(sizeof(double) * 2 * (size_t)ranks);
    m->rank_median = malloc(sizeof(double) * (size_t)ranks * 2);
    if (!share || !all || !m->rank_median) {
        free(share), free(all);
        sb_error("out of memory gathering per-rank times");
        return sb_mpi_alone(SB_EXIT_RUNTIME);
    }
    m->rank_items = m->rank_median + ranks;
    for (int i = 0; i < reps; i++) share[i] = comm[i];
    sb_mpi_max(share, reps);
    for (int i = 0; i < reps; i++) share[i] = r->times[i] > 0 ? share[i] / r->times[i] : 0.0;
    m->comm_share = median_of(share, reps);
    for (int i = 0; i < reps; i++) share[i] = bytes[i];
    sb_mpi_max(share, reps);
    m->comm_bytes = median_of(share, reps);
    const double mine[2] = {median_of(own, reps), c->rank_items > 0 ? c->rank_items : c->work.items / ranks};
    sb_mpi_allgather(mine, sizeof mine, all);
    for (int k = 0; k < ranks; k++) {
        m->rank_median[k] = all[2 * k];
        m->rank_items[k] = all[2 * k + 1];
    }
    free(all), free(share);
    check_ranks(&r->validation);
    return SB_OK;
}

int sb_mpi_count_devices(int device)
{
    int ranks = sb_mpi_size();
    if (ranks == 1) return 1;
    int mine[2] = {sb_mpi_host_index(), device}, *all = malloc(sizeof(int) * 2 * (size_t)ranks);
    if (!all) return sb_mpi_alone(SB_EXIT_RUNTIME);
    sb_mpi_allgather(mine, sizeof mine, all);
    int distinct = 0;
    for (int r = 0; r < ranks; r++) {
        int seen = 0;
        for (int s = 0; s < r && !seen; s++) seen = all[2 * s] == all[2 * r] && all[2 * s + 1] == all[2 * r + 1];
        distinct += !seen;
    }
    free(all);
    return distinct;
}

double sb_mpi_efficiency(const sb_result *r)
{
    const sb_mpi_result *m = &r->mpi;
    if (m->baseline_rate <= 0 || m->ranks < 1 || r->stats.median <= 0) return 0.0;
    return r->work.items / r->stats.median / (m->ranks * m->baseline_rate);
}

static const char *str_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : "";
}

int sb_mpi_read_baseline(const char *path, const sb_kernel *k, sb_backend b, double *rate)
{
    json_error_t e;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        sb_error("--baseline %s: %s (line %d)", path, e.text, e.line);
        return SB_EXIT_USAGE;
    }
    int bad = sb_result_check(path, root);
    if (bad) {
        json_decref(root);
        return bad;
    }
    json_t *mpi = json_object_get(json_object_get(root, "context"), "mpi");
    json_t *nr = json_object_get(mpi, "ranks");
    const int ranks = json_is_integer(nr) ? (int)json_integer_value(nr) : 1;
    *rate = 0;
    size_t i;
    json_t *bm;
    json_array_foreach(json_object_get(root, "benchmarks"), i, bm)
    {
        if (strcmp(str_of(bm, "aggregate_name"), "median")) continue;
        if (strcmp(str_of(bm, "kernel"), k->name) || strcmp(str_of(bm, "backend"), sb_backend_name(b))) {
            sb_error("--baseline %s is %s on %s, not %s on %s", path, str_of(bm, "kernel"), str_of(bm, "backend"),
                     k->name, sb_backend_name(b));
            json_decref(root);
            return SB_EXIT_USAGE;
        }
        *rate = json_number_value(json_object_get(bm, "items_per_second"));
    }
    json_decref(root);
    if (!(*rate > 0) || !isfinite(*rate) || ranks != 1) {
        sb_error("--baseline %s: needs a one-rank scibench JSON with a median items_per_second (found %d ranks, "
                 "rate %g)", path, ranks, *rate);
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}
