/* Faults on the GPU, through the scibench binary beside this test (BUILD/scibench): out of
 * device memory is exit 3 with one error line and no JSON; a run on a GPU that another
 * process keeps busy still validates; a GPU run interrupted by SIGINT leaves no JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_util.h"

extern char **environ;

static char sb[PATH_MAX], dir[64];

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* The JSON writer's temporaries of FILE left in dir: ".FILE.XXXXXX" (harness/json_out.c). */
static int temporaries(const char *file)
{
    char prefix[80];
    int n = 0;
    snprintf(prefix, sizeof prefix, ".%s.", file);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d) closedir(d);
    return n;
}

static const char *at(const char *name)
{
    static char buf[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* scibench with args, stdout to /dev/null, stderr to err; returns its pid. */
static pid_t start(const char *const *args, const char *err)
{
    char *argv[32];
    int n = 0;
    argv[n++] = sb;
    while (args[n - 1] && n < 31) argv[n] = (char *)args[n - 1], n++;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    /* SIGINT as it is by default, even where this test was started in the background */
    posix_spawnattr_t at;
    sigset_t sigint;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigdefault(&at, &sigint);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, sb, &fa, &at, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return pid;
}

static int finish(pid_t pid)
{
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

/* Lines in a file; the first one in line. */
static int lines_of(const char *path, char *line, size_t n)
{
    FILE *f = fopen(path, "r");
    char buf[1024];
    int count = 0;
    line[0] = '\0';
    assert_non_null(f);
    while (fgets(buf, sizeof buf, f))
        if (count++ == 0) snprintf(line, n, "%s", buf);
    fclose(f);
    return count;
}

static int setup(void **state)
{
    (void)state;
    ssize_t len = readlink("/proc/self/exe", sb, sizeof sb - 16);
    if (len <= 0) return -1;
    sb[len] = '\0';
    char *slash = strrchr(sb, '/'); /* BUILD/tests/gpu_faults -> BUILD/scibench */
    if (!slash) return -1;
    *slash = '\0';
    slash = strrchr(sb, '/');
    if (!slash) return -1;
    strcpy(slash, "/scibench");
    snprintf(dir, sizeof dir, "/tmp/sb_gpu_faults_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* This process holds all but ~1.5 GB of the device; lattice_mc L = 512 needs 1.75 GB of
 * lattice on top of its own context (~0.5 GB). */
static void test_out_of_memory(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    size_t free_b = 0, total_b = 0, chunk = (size_t)1 << 30, keep = (size_t)1500 << 20;
    assert_int_equal(sb_cuda_mem_info(&free_b, &total_b), SB_OK);
    void *hold[256];
    int nh = 0;
    size_t held = 0;
    for (size_t want = free_b > keep ? free_b - keep : 0; want >= (chunk >> 6) && nh < 256; nh++) {
        size_t c = want < chunk ? want : chunk;
        if (!(hold[nh] = sb_cuda_malloc(c))) break;
        want -= c, held += c;
    }
    const char *args[] = {"run", "lattice_mc", "--backend", "cuda", "--size", "512", "--reps", "1", "--warmup", "0",
                          "--quiet", "--json", at("oom.json"), NULL};
    int st = finish(start(args, at("oom.err")));
    for (int i = 0; i < nh; i++) sb_cuda_free(hold[i]);
    char line[1024];
    int n = lines_of(at("oom.err"), line, sizeof line);
    printf("  %.1f of %.1f GB free, %.1f GB held: exit %d, %d stderr line(s): %s", free_b / 1e9, total_b / 1e9, held / 1e9,
           WIFEXITED(st) ? WEXITSTATUS(st) : -1, n, line);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), SB_EXIT_RUNTIME);
    assert_int_equal(n, 1);
    assert_non_null(strstr(line, "out of GPU memory"));
    assert_false(exists(at("oom.json")));
    assert_int_equal(temporaries("oom.json"), 0);
}

/* Another process keeps the GPU busy (lattice_mc, endless repetitions) while every kernel
 * validates at its CI size; then SIGINT stops that process, which leaves no JSON. */
static void test_busy_gpu(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    const char *busy[] = {"run", "lattice_mc", "--backend", "cuda", "--size", "256", "--reps", "100000", "--warmup", "0",
                          "--quiet", "--json", at("busy.json"), NULL};
    pid_t pid = start(busy, at("busy.err"));
    struct timespec two = {2, 0};
    nanosleep(&two, NULL);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* still running */
    static const char *const cases[][2] = {
        {"lattice_mc", "32"}, {"nlchains", "64"}, {"fullerene_ff", "50"}, {"eri_brush", "4"}, {"dfratom_scf", "12"}};
    for (int i = 0; i < 5; i++) {
        const char *args[] = {"validate", cases[i][0], "--backend", "cuda", "--size", cases[i][1], "--quiet", NULL};
        char line[1024];
        int rc = finish(start(args, at("case.err")));
        printf("  %s --size %s beside a busy GPU: exit %d\n", cases[i][0], cases[i][1], WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
        if (lines_of(at("case.err"), line, sizeof line)) printf("    %s", line);
        assert_true(WIFEXITED(rc));
        assert_int_equal(WEXITSTATUS(rc), SB_OK);
    }
    assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
    assert_int_equal(kill(pid, SIGINT), 0);
    st = finish(pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGINT);
    assert_false(exists(at("busy.json")));
    assert_int_equal(temporaries("busy.json"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_out_of_memory), cmocka_unit_test(test_busy_gpu)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
