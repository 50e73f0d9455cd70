/* --profile: ncu's CSV parser (hand-made and recorded output), the totals and model
 * ratios, and the CPU counters (a streaming loop's LLC-miss bytes against its size;
 * skipped, with the reason, where the machine exposes no counters). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_counters.h"
#include "profile.h"
#include "registry.h"
#include "sb_omp.h"

/* Header, units row and three launches of two kernels, as ncu --page raw --csv prints
 * them (units not in base form, to exercise the scaling; a thousands separator). */
static const char *csv_small =
    "==PROF== Connected to process 4242 (/x/scibench)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
    "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\","
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\","
    "\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\",\"smsp__sass_data_bytes_mem_global_op_ld.sum\","
    "\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"launch__registers_per_thread\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"Kbyte\",\"usecond\",\"%\",\"sector\",\"\",\"byte\",\"inst\","
    "\"register/thread\"\n"
    "\"0\",\"4242\",\"scibench\",\"h\",\"tick\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"2\",\"500\",\"30\",\"50\",\"100\","
    "\"25\",\"3,200\",\"1000\",\"48\"\n"
    "\"1\",\"4242\",\"scibench\",\"h\",\"void reduce<(int)4, \"\"x\"\">(const double *, int)\",\"(256, 1, 1)\",\"(1, 1, 1)\",\"0.5\",\"0\",\"10\","
    "\"n/a\",\"8\",\"8\",\"256\",\"0\",\"32\"\n"
    "\"2\",\"4242\",\"scibench\",\"h\",\"tick\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"4\",\"1500\",\"10\",\"90\",\"300\","
    "\"75\",\"9,600\",\"3000\",\"40\"\n"
    "==PROF== Disconnected from process 4242\n";

static void test_parse_groups(void **state)
{
    (void)state;
    static sb_profile p;
    char err[256] = "";
    memset(&p, 0, sizeof p);
    assert_int_equal(sb_ncu_parse_csv(csv_small, &p, err, sizeof err), SB_OK);
    assert_int_equal(p.nlaunch, 3);
    assert_int_equal(p.ngroups, 2);
    const sb_prof_group *t = &p.group[0], *r = &p.group[1];
    assert_string_equal(t->name, "tick");
    assert_string_equal(r->name, "reduce<(int)4, \"x\">"); /* quoted comma and quote; no return type, no parameters */
    assert_int_equal(t->launches, 2);
    /* Mbyte and Kbyte scaled to bytes, microseconds to seconds */
    assert_true(fabs(t->dram_read - 6e6) < 1e-6);
    assert_true(fabs(t->dram_write - 2e6) < 1e-6);
    assert_true(fabs(t->duration - 40e-6) < 1e-15);
    /* occupancy weighted by launch time: (50 x 30 + 90 x 10) / 40 = 60 */
    assert_true(fabs(t->occ_achieved - 60.0) < 1e-12);
    assert_true(isnan(r->occ_achieved)); /* n/a only */
    assert_true(fabs(t->ld_sectors / t->ld_requests - 4.0) < 1e-12);
    /* requested 12800 B of 400 sectors x 32 B: efficiency 1 */
    assert_true(fabs(t->ld_bytes_req / (32 * t->ld_sectors) - 1.0) < 1e-12);
    assert_true(fabs(t->flops32 - 8000.0) < 1e-9);
    assert_true(fabs(t->regs - 48.0) < 1e-12); /* the largest of its launches */
    assert_int_equal(t->block, 0);              /* launch__block_size was not in this CSV */
}

/* csv_small as a GPU profile of 10^5 items; the model beside it in small_work */
static void parse_small(sb_profile *p)
{
    char err[256];
    memset(p, 0, sizeof *p);
    assert_int_equal(sb_ncu_parse_csv(csv_small, p, err, sizeof err), SB_OK);
    p->kind = SB_PROF_GPU;
    p->items = 1e5;
}

static const sb_work small_work = {.items = 1e5, .bytes = 4e6, .flops = 1e4, .fp64 = 0};

static void test_totals_and_ratios(void **state)
{
    (void)state;
    static sb_profile p;
    parse_small(&p);
    sb_work w = small_work;
    sb_prof_totals t;
    sb_profile_totals(&p, &w, &t);
    assert_true(fabs(t.dram_bytes - 8.5e6) < 1e-6); /* 6e6 + 0.5e6 read, 2e6 written */
    assert_true(fabs(t.bytes_per_item - 85.0) < 1e-9);
    assert_true(fabs(t.model_bytes_per_item - 40.0) < 1e-9);
    assert_true(fabs(t.bytes_ratio - 85.0 / 40.0) < 1e-12);
    assert_true(fabs(t.flops_ratio - 0.8) < 1e-12);
    assert_non_null(sb_profile_hint("bytes", t.bytes_ratio));
    assert_null(sb_profile_hint("flops", t.flops_ratio));
    assert_non_null(sb_profile_hint("flops", 0.5));
    assert_null(sb_profile_hint("bytes", NAN));
    /* FP64 model: the FP32 instructions do not count */
    w.fp64 = 1;
    sb_profile_totals(&p, &w, &t);
    assert_true(t.flops == 0.0);
    /* without the instrumented metrics (SB_PROFILE_METRICS=hardware) flops are unknown, not 0 */
    p.have_flops = 0;
    sb_profile_totals(&p, &w, &t);
    assert_true(isnan(t.flops) && isnan(t.flops_ratio));
    assert_null(sb_profile_hint("flops", t.flops_ratio));
}

/* Counted over several repetitions, the report is their mean: sums divide, percentages,
 * registers and the model's items stay. */
static void test_mean_of_repetitions(void **state)
{
    (void)state;
    static sb_profile p;
    parse_small(&p);
    sb_profile_mean(&p, 2); /* "tick" launched once in each of two repetitions */
    assert_int_equal(p.reps, 2);
    const sb_prof_group *t = &p.group[0];
    assert_int_equal(t->launches, 1);
    assert_true(fabs(t->dram_read - 3e6) < 1e-6);
    assert_true(fabs(t->dram_write - 1e6) < 1e-6);
    assert_true(fabs(t->duration - 20e-6) < 1e-15);
    assert_true(fabs(t->flops32 - 4000.0) < 1e-9);
    assert_true(fabs(t->ld_sectors / t->ld_requests - 4.0) < 1e-12);
    assert_true(fabs(t->occ_achieved - 60.0) < 1e-12);
    assert_true(fabs(t->regs - 48.0) < 1e-12);
    sb_work w = small_work;
    sb_prof_totals s;
    sb_profile_totals(&p, &w, &s);
    assert_true(fabs(s.bytes_per_item - 42.5) < 1e-9); /* half of one repetition's 85 */
    sb_profile_mean(&p, 1);
    assert_true(fabs(t->dram_read - 3e6) < 1e-6);
}

/* SB_PROFILE_REPS: 1 when unset or empty, 1..64 taken, anything else refused. */
static void test_profile_reps(void **state)
{
    (void)state;
    int n = 0;
    unsetenv("SB_PROFILE_REPS");
    assert_int_equal(sb_profile_reps(&n), SB_OK);
    assert_int_equal(n, 1);
    const char *good[][2] = {{"", "1"}, {"16", "16"}, {"64", "64"}, {"1", "1"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv("SB_PROFILE_REPS", good[i][0], 1);
        assert_int_equal(sb_profile_reps(&n), SB_OK);
        assert_int_equal(n, atoi(good[i][1]));
    }
    const char *bad[] = {"0", "65", "-2", "3x", "x", " ", "1e3", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("SB_PROFILE_REPS", bad[i], 1);
        assert_int_equal(sb_profile_reps(&n), SB_EXIT_USAGE);
        assert_int_equal(n, 1);
    }
    unsetenv("SB_PROFILE_REPS");
}

static void expect_parse_error(const char *text, const char *needle)
{
    static sb_profile p;
    char err[256] = "";
    memset(&p, 0, sizeof p);
    assert_int_equal(sb_ncu_parse_csv(text, &p, err, sizeof err), SB_EXIT_RUNTIME);
    if (!strstr(err, needle)) fail_msg("error '%s' does not mention '%s'", err, needle);
}

static void test_malformed(void **state)
{
    (void)state;
    const char *hdr = "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\"\n";
    char buf[512];
    expect_parse_error("", "no CSV header");
    expect_parse_error("==PROF== nothing\n==ERROR== failed\n", "no CSV header");
    expect_parse_error("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"0\",\"k\",\"1\"\n", "dram__bytes_read.sum");
    expect_parse_error("\"Kernel Name\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\"\n", "\"ID\"");
    snprintf(buf, sizeof buf, "%s\"0\",\"k\",\"1\"\n", hdr);
    expect_parse_error(buf, "has 3 fields");
    snprintf(buf, sizeof buf, "%s\"0\",\"k\",\"12 MB\",\"1\"\n", hdr);
    expect_parse_error(buf, "not a number");
    snprintf(buf, sizeof buf, "%s\"0\",\"k,\"1\",\"1\"\n", hdr);
    expect_parse_error(buf, "not valid CSV");
    snprintf(buf, sizeof buf, "%s\"\",\"\",\"byte\",\"byte\"\n", hdr);
    expect_parse_error(buf, "no kernel launch");
}

/* Recorded: ncu's CSV of `scibench run lattice_mc --backend cuda --size 256 --profile` on
 * the H100 machine, its first 8 launches (one sweep). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static void test_recorded(void **state)
{
    (void)state;
    char *text = slurp("tests/data/ncu_lattice_mc_256.csv");
    if (!text) fail_msg("tests/data/ncu_lattice_mc_256.csv missing (run from the project root)");
    static sb_profile p;
    char err[256] = "";
    memset(&p, 0, sizeof p);
    int rc = sb_ncu_parse_csv(text, &p, err, sizeof err);
    free(text);
    if (rc) fail_msg("recorded CSV rejected: %s", err);
#include "data/ncu_lattice_mc_256.expect"
}

/* eri_brush asks to be counted as one range (its hundreds of launches a repetition), the others
 * launch by launch; SB_NCU_REPLAY overrides both. */
static void test_replay_mode(void **state)
{
    (void)state;
    const sb_kernel *eri = NULL, *lmc = NULL;
    assert_int_equal(sb_registry_find("eri_brush", &eri), 0);
    assert_int_equal(sb_registry_find("lattice_mc", &lmc), 0);
    unsetenv("SB_NCU_REPLAY");
    assert_string_equal(sb_ncu_replay_mode(eri->profile_as_range), "app-range");
    assert_string_equal(sb_ncu_replay_mode(lmc->profile_as_range), "application");
    setenv("SB_NCU_REPLAY", "application", 1);
    assert_string_equal(sb_ncu_replay_mode(eri->profile_as_range), "application");
    unsetenv("SB_NCU_REPLAY");
}

static void test_cpu_counters_stream(void **state)
{
    (void)state;
    char why[256];
    if (sb_cpu_counters_start(why, sizeof why)) {
        printf("SKIP: no CPU counters here: %s\n", why);
        skip();
    }
    /* 512 MiB streamed once, far beyond any last-level cache: each line misses once */
    const size_t n = (size_t)64 << 20;
    double *a = sb_aligned_alloc(n * sizeof *a), s = 0;
    assert_non_null(a);
    sb_cpu_counts c;
    assert_int_equal(sb_cpu_counters_stop(&c), 0);
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) a[i] = (double)i;
    assert_int_equal(sb_cpu_counters_start(why, sizeof why), 0);
#pragma omp parallel for reduction(+ : s)
    for (size_t i = 0; i < n; i++) s += a[i];
    assert_int_equal(sb_cpu_counters_stop(&c), 0);
    assert_true(s > 0);
    sb_aligned_free(a);
    print_message("cycles %.4g, instructions %.4g, %s %.4g\n", c.cycles, c.instructions, c.llc_event, c.llc_misses);
    if (!c.have_llc) {
        printf("SKIP: the PMU has no last-level-cache miss event\n");
        skip();
    }
    double bytes = c.llc_misses * 64.0, size = (double)n * sizeof(double);
    print_message("LLC-miss bytes %.4g for %.4g B streamed (ratio %.3f)\n", bytes, size, bytes / size);
    assert_true(fabs(bytes / size - 1.0) <= 0.20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_groups),
        cmocka_unit_test(test_totals_and_ratios),
        cmocka_unit_test(test_mean_of_repetitions),
        cmocka_unit_test(test_profile_reps),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_replay_mode),
        cmocka_unit_test(test_cpu_counters_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
