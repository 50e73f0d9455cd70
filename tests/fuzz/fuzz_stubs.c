/* The harness side of a fuzz target: an in-memory input file, and the few harness symbols
 * the parsers call (sb_error and friends, one MPI rank), so a target links the parser's own
 * objects and nothing else. sb_error formats every message (so a bad argument is caught) and
 * counts it; the real one (messages.c) also keeps it to one line whatever it quotes. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "sb.h"
#include "sb_mpi.h"

static int errors;

void sb_error(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "scibench: error: %s\n", buf);
    errors++;
}

void sb_progress(const char *fmt, ...) { (void)fmt; }
void sb_progress_done(void) {}
void sb_set_quiet(int q) { (void)q; }
void sb_errors_from_all_ranks(int on) { (void)on; }
int sb_mpi_rank(void) { return 0; }
int sb_mpi_size(void) { return 1; }

void fuzz_errors_reset(void) { errors = 0; }
int fuzz_errors(void) { return errors; }

void fuzz_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n", file, line, what);
    __builtin_trap();
}

void fuzz_expect_one_line(int rc)
{
    if (rc && errors != 1) {
        fprintf(stderr, "fuzz: exit code %d with %d error lines (expected 1)\n", rc, errors);
        fuzz_fail("one error line per failure", __FILE__, __LINE__);
    }
    if (!rc && errors) {
        fprintf(stderr, "fuzz: success with %d error lines\n", errors);
        fuzz_fail("no error line on success", __FILE__, __LINE__);
    }
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-input", 0);
        if (fd < 0) fuzz_fail("memfd_create", __FILE__, __LINE__);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) fuzz_fail("ftruncate", __FILE__, __LINE__);
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0) fuzz_fail("pwrite", __FILE__, __LINE__);
        done += (size_t)n;
    }
    return path;
}

/* The registry, for results.c (a parameter at its kernel's default is left out of a case's
 * key): one kernel with two parameters stands in for the real table. */
static const sb_param_spec fake_params[] = {{"T", "0.5", "temperature"}, {"init", "random", "start"}, {NULL, NULL, NULL}};
static const sb_kernel fake_kernel = {.name = "lattice_mc", .item = "site updates", .params = fake_params};
int sb_registry_count(void) { return 1; }
const sb_kernel *sb_registry_at(int i) { return i == 0 ? &fake_kernel : NULL; }
