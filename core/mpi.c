/* sb_mpi.h over MPI (built with -DSB_MPI by `make MPI=1`), or as one rank without it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "messages.h"
#include "sb.h"
#include "sb_mpi.h"

static double comm_s, comm_bytes;

void sb_mpi_block(long n, long *lo, long *hi)
{
    long r = sb_mpi_rank(), size = sb_mpi_size(), q = n / size, rem = n % size;
    *lo = r * q + (r < rem ? r : rem);
    *hi = *lo + q + (r < rem ? 1 : 0);
}

double sb_mpi_comm_seconds(void) { return comm_s; }
double sb_mpi_comm_bytes(void) { return comm_bytes; }
void sb_mpi_comm_add_bytes(double bytes) { comm_bytes += bytes; }
void sb_mpi_comm_reset(void) { comm_s = comm_bytes = 0; }

/* A single rank: what the collectives reduce to (used without MPI, and with MPI on one rank
 * or before MPI_Init, e.g. in the unit tests of an MPI build). */
static void copy_mine(const void *mine, size_t bytes, void *all)
{
    if (all != mine) memmove(all, mine, bytes);
}

static void no_peer(const char *what)
{
    sb_error("%s on a single rank: a kernel bug (a rank has no peer)", what);
    abort();
}

struct sb_mpi_counter {
    long v;        /* the counter itself on a single rank */
    void *win;     /* MPI: the window holding it on rank 0 */
    long *base;
};

#ifdef SB_MPI
#include <mpi.h>

_Static_assert(sizeof(MPI_Request) <= sizeof(void *), "MPI_Request must fit a pointer slot");

static int rank, size = 1, local_rank, local_size = 1, nhosts = 1, host_index;
static char *hosts;
static char library[MPI_MAX_LIBRARY_VERSION_STRING];

static double now(void) { return MPI_Wtime(); }
#define TIMED(call)                                                                                                    \
    do {                                                                                                               \
        double t0_ = now();                                                                                            \
        call;                                                                                                          \
        comm_s += now() - t0_;                                                                                         \
    } while (0)

static void gather_hosts(void)
{
    enum { W = 64 };
    char me[W] = {0};
    gethostname(me, W - 1);
    char *all = calloc((size_t)size, W);
    hosts = calloc((size_t)size, W + 1);
    if (!all || !hosts) sb_mpi_abort(SB_EXIT_RUNTIME);
    MPI_Allgather(me, W, MPI_CHAR, all, W, MPI_CHAR, MPI_COMM_WORLD);
    nhosts = 0;
    for (int r = 0; r < size; r++) {
        int seen = 0;
        for (int s = 0; s < r && !seen; s++) seen = !strncmp(all + r * W, all + s * W, W);
        if (!strncmp(all + r * W, me, W) && !seen) host_index = nhosts;
        if (seen) continue;
        if (nhosts++) strcat(hosts, ",");
        strncat(hosts, all + r * W, W);
    }
    free(all);
}

void sb_mpi_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sb_messages_set_rank(rank, size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    int len = 0;
    MPI_Get_library_version(library, &len);
    char *nl = strchr(library, '\n');
    if (nl) *nl = 0;
    char *comma = strchr(library, ',');
    if (comma) *comma = 0;
    gather_hosts();
}

void sb_mpi_finalize(void)
{
    free(hosts);
    MPI_Finalize();
}

int sb_mpi_rank(void) { return rank; }
int sb_mpi_size(void) { return size; }
int sb_mpi_local_rank(void) { return local_rank; }
int sb_mpi_local_size(void) { return local_size; }
int sb_mpi_hosts(void) { return nhosts; }
int sb_mpi_host_index(void) { return host_index; }
const char *sb_mpi_host_list(void) { return hosts ? hosts : ""; }
const char *sb_mpi_library(void) { return library; }

/* size == 1 (one rank, or MPI not initialised): no MPI call at all */
void sb_mpi_barrier(void)
{
    if (size > 1) TIMED(MPI_Barrier(MPI_COMM_WORLD));
}

static void allreduce(void *buf, long n, MPI_Datatype t, MPI_Op op)
{
    if (size == 1) return;
    int tb = 0;
    MPI_Type_size(t, &tb);
    comm_bytes += (double)n * tb;
    TIMED(MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, t, op, MPI_COMM_WORLD));
}

void sb_mpi_sum(double *buf, long n) { allreduce(buf, n, MPI_DOUBLE, MPI_SUM); }
void sb_mpi_sum_long(long *buf, long n) { allreduce(buf, n, MPI_LONG, MPI_SUM); }
void sb_mpi_max(double *buf, long n) { allreduce(buf, n, MPI_DOUBLE, MPI_MAX); }

int sb_mpi_max_int(int v)
{
    allreduce(&v, 1, MPI_INT, MPI_MAX);
    return v;
}

int sb_mpi_min_int(int v)
{
    allreduce(&v, 1, MPI_INT, MPI_MIN);
    return v;
}

void sb_mpi_allgather(const void *mine, size_t bytes, void *all)
{
    if (size == 1) {
        copy_mine(mine, bytes, all);
        return;
    }
    TIMED(MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD));
}

void sb_mpi_allgatherv(const void *mine, size_t bytes, void *all, const size_t *counts)
{
    if (size == 1) {
        copy_mine(mine, bytes, all);
        return;
    }
    int *cnt = malloc(sizeof(int) * (size_t)size * 2), *disp = cnt + size;
    if (!cnt) sb_mpi_abort(SB_EXIT_RUNTIME);
    long off = 0;
    for (int r = 0; r < size; r++) {
        cnt[r] = (int)counts[r];
        disp[r] = (int)off;
        off += (long)counts[r];
    }
    TIMED(MPI_Allgatherv(mine, (int)bytes, MPI_BYTE, all, cnt, disp, MPI_BYTE, MPI_COMM_WORLD));
    free(cnt);
}

void sb_mpi_bcast(void *buf, size_t bytes, int root)
{
    if (size > 1) TIMED(MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD));
}

static MPI_Request *slot(sb_mpi_reqs *r)
{
    if (r->n >= (int)(sizeof r->req / sizeof r->req[0])) {
        sb_error("sb_mpi: more than %zu outstanding requests", sizeof r->req / sizeof r->req[0]);
        sb_mpi_abort(SB_EXIT_RUNTIME);
    }
    return (MPI_Request *)&r->req[r->n++];
}

void sb_mpi_isend(sb_mpi_reqs *r, const void *buf, size_t bytes, int peer, int tag)
{
    if (size == 1) no_peer("sb_mpi_isend");
    comm_bytes += (double)bytes;
    TIMED(MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, slot(r)));
}

void sb_mpi_irecv(sb_mpi_reqs *r, void *buf, size_t bytes, int peer, int tag)
{
    if (size == 1) no_peer("sb_mpi_irecv");
    TIMED(MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, slot(r)));
}

void sb_mpi_waitall(sb_mpi_reqs *r)
{
    for (int i = 0; i < r->n; i++) TIMED(MPI_Wait((MPI_Request *)&r->req[i], MPI_STATUS_IGNORE));
    r->n = 0;
}

_Static_assert(sizeof(MPI_Win) <= sizeof(void *), "MPI_Win must fit a pointer slot");
#define WIN(c) (*(MPI_Win *)&(c)->win)

sb_mpi_counter *sb_mpi_counter_create(void)
{
    sb_mpi_counter *c = calloc(1, sizeof *c);
    if (!c) sb_mpi_abort(SB_EXIT_RUNTIME);
    if (size == 1) return c;
    MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof(long) : 0, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &c->base,
                     &WIN(c));
    if (rank == 0) *c->base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, WIN(c));
    return c;
}

long sb_mpi_counter_next(sb_mpi_counter *c, long take)
{
    long old = c->v;
    if (size == 1) return c->v += take, old;
    TIMED(MPI_Fetch_and_op(&take, &old, MPI_LONG, 0, 0, MPI_SUM, WIN(c)); MPI_Win_flush(0, WIN(c)));
    return old;
}

void sb_mpi_counter_reset(sb_mpi_counter *c)
{
    long zero = 0, old;
    c->v = 0;
    if (size == 1) return;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Fetch_and_op(&zero, &old, MPI_LONG, 0, 0, MPI_REPLACE, WIN(c));
        MPI_Win_flush(0, WIN(c));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

void sb_mpi_counter_free(sb_mpi_counter *c)
{
    if (!c) return;
    if (size > 1) {
        MPI_Win_unlock_all(WIN(c));
        MPI_Win_free(&WIN(c));
    }
    free(c);
}

void sb_mpi_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

#else /* one rank */

void sb_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}
void sb_mpi_finalize(void) {}
int sb_mpi_rank(void) { return 0; }
int sb_mpi_size(void) { return 1; }
int sb_mpi_local_rank(void) { return 0; }
int sb_mpi_local_size(void) { return 1; }
int sb_mpi_hosts(void) { return 1; }
int sb_mpi_host_index(void) { return 0; }
const char *sb_mpi_host_list(void) { return ""; }
const char *sb_mpi_library(void) { return "none"; }
void sb_mpi_barrier(void) {}
void sb_mpi_sum(double *buf, long n) { (void)buf, (void)n; }
void sb_mpi_sum_long(long *buf, long n) { (void)buf, (void)n; }
void sb_mpi_max(double *buf, long n) { (void)buf, (void)n; }
int sb_mpi_max_int(int v) { return v; }
int sb_mpi_min_int(int v) { return v; }
void sb_mpi_allgather(const void *mine, size_t bytes, void *all) { copy_mine(mine, bytes, all); }
void sb_mpi_bcast(void *buf, size_t bytes, int root) { (void)buf, (void)bytes, (void)root; }
void sb_mpi_allgatherv(const void *mine, size_t bytes, void *all, const size_t *counts)
{
    (void)counts;
    copy_mine(mine, bytes, all);
}
void sb_mpi_isend(sb_mpi_reqs *r, const void *buf, size_t bytes, int peer, int tag)
{
    (void)r, (void)buf, (void)bytes, (void)peer, (void)tag;
    no_peer("sb_mpi_isend");
}
void sb_mpi_irecv(sb_mpi_reqs *r, void *buf, size_t bytes, int peer, int tag)
{
    (void)r, (void)buf, (void)bytes, (void)peer, (void)tag;
    no_peer("sb_mpi_irecv");
}
void sb_mpi_waitall(sb_mpi_reqs *r) { r->n = 0; }

sb_mpi_counter *sb_mpi_counter_create(void) { return calloc(1, sizeof(sb_mpi_counter)); }
long sb_mpi_counter_next(sb_mpi_counter *c, long take)
{
    long old = c->v;
    c->v += take;
    return old;
}
void sb_mpi_counter_reset(sb_mpi_counter *c) { c->v = 0; }
void sb_mpi_counter_free(sb_mpi_counter *c) { free(c); }
void sb_mpi_abort(int code) { exit(code); }
#endif
