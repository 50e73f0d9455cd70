/* scibench compare on JSON written by the real writer (a fake kernel through
 * sb_session_run), then doctored: throughput, noise, validation, missing
 * cases, peak normalisation, output formats, usage errors, and the committed
 * CI baseline with one validation value changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "result_fixture.h"
#include "table.h"

static char out[65536]; /* the last compare's report */
static int table(const char *path);

/* The repetitions get a fixed +-1% jitter (median absolute deviation 1%) and the aggregates a
 * 0.99..1.01 range, so verdicts do not depend on this machine's timing noise. */
static void jitter(json_t *root)
{
    json_t *bs = json_object_get(root, "benchmarks"), *b;
    size_t i;
    double median = 0;
    json_array_foreach(bs, i, b) if (!strcmp(json_string_value(json_object_get(b, "name")), "fake/openmp_simd/100000_median"))
        median = json_number_value(json_object_get(b, "items_per_second"));
    int it = 0;
    json_array_foreach(bs, i, b)
    {
        json_t *agg = json_object_get(b, "aggregate_name");
        double f = !agg ? 1 + 0.01 * (it++ % 3 - 1)
                   : !strcmp(json_string_value(agg), "min") ? 0.99
                   : !strcmp(json_string_value(agg), "max") ? 1.01 : 1;
        if (median > 0) json_object_set_new(b, "items_per_second", json_real(median * f));
        if (median > 0) json_object_set_new(b, "bytes_per_second", json_real(8 * median * f));
        if (median > 0) json_object_set_new(b, "flops_per_second", json_real(median * f));
    }
}

static edit_fn doctor_edit;
static void jitter_then_edit(json_t *root, double x)
{
    jitter(root);
    if (doctor_edit) doctor_edit(root, x);
    resync(root);
}

/* dst = src jittered, then with edit applied. */
static void doctor(const char *src, const char *dst, edit_fn edit, double x)
{
    doctor_edit = edit;
    rewrite(src, dst, jitter_then_edit, x);
}

/* Multiplies a numeric field of every benchmark entry. */
static void scale_field(json_t *root, const char *key, double x)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_t *v = json_object_get(b, key);
        if (json_is_number(v)) json_object_set_new(b, key, json_real(json_number_value(v) * x));
    }
}

static void rates(json_t *root, double x)
{
    scale_field(root, "items_per_second", x);
    scale_field(root, "bytes_per_second", x);
    scale_field(root, "flops_per_second", x);
}

/* A slower run on the same machine: every rate and its share of the (same) peaks times x. */
static void throughput(json_t *root, double x)
{
    rates(root, x);
    scale_field(root, "percent_peak_bandwidth", x);
    scale_field(root, "percent_peak_flops", x);
}

/* A uniformly slower machine: every rate and every measured peak times x (shares unchanged). */
static void machine_speed(json_t *root, double x)
{
    json_t *peaks = json_object_get(json_object_get(root, "context"), "peaks"), *v;
    const char *k;
    rates(root, x);
    json_object_foreach(peaks, k, v) json_object_set_new(peaks, k, json_real(json_number_value(v) * x));
}

/* Repetitions jittered by +-x around the median: a wide noise band (3x) on this side. */
static void spread(json_t *root, double x)
{
    json_t *b, *bs = json_object_get(root, "benchmarks");
    size_t i;
    double median = json_number_value(json_object_get(json_array_get(bs, json_array_size(bs) - 3), "items_per_second"));
    int it = 0;
    json_array_foreach(bs, i, b) if (!json_object_get(b, "aggregate_name"))
        json_object_set_new(b, "items_per_second", json_real(median * (1 + x * (it++ % 3 - 1))));
}

/* One repetition far off: the band must not follow a single outlier. */
static void outlier(json_t *root, double x)
{
    json_t *b = json_array_get(json_object_get(root, "benchmarks"), 0);
    json_object_set_new(b, "items_per_second", json_real(json_number_value(json_object_get(b, "items_per_second")) * x));
}

/* Sets check number x's value to 0.9 in every entry ("offset": abs tol 0.01,
 * reference 0.5) and keeps its stored verdict: a hand-edited file. */
static void edit_value(json_t *root, double x)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_t *c = json_array_get(json_object_get(json_object_get(b, "validation"), "checks"), (size_t)x);
        json_object_set_new(c, "value", json_real(0.9));
    }
}

/* Check "offset" fails, honestly: value 0.9, pass false, passed false. */
static void fail_check(json_t *root, double x)
{
    json_t *b;
    size_t i;
    (void)x;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_t *v = json_object_get(b, "validation"), *c = json_array_get(json_object_get(v, "checks"), 1);
        json_object_set_new(c, "value", json_real(0.9));
        json_object_set_new(c, "pass", json_false());
        json_object_set_new(v, "passed", json_false());
    }
}

/* "offset" moves by x, within or beyond its tolerance, verdict recomputed honestly. */
static void move_value(json_t *root, double x)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_t *c = json_array_get(json_object_get(json_object_get(b, "validation"), "checks"), 1);
        json_object_set_new(c, "value", json_real(0.5 + x));
    }
}

static void drop_check(json_t *root, double x)
{
    json_t *b;
    size_t i;
    (void)x;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
        json_array_remove(json_object_get(json_object_get(b, "validation"), "checks"), 2);
}

/* Runs compare; the report lands in out. */
static int compare(const char *a, const char *b, const char *o1, const char *o2, const char *o3, const char *o4)
{
    char *argv[8] = {(char *)a, (char *)b, (char *)o1, (char *)o2, (char *)o3, (char *)o4, NULL};
    return capture(sb_compare_main, argv, out, sizeof out);
}

static void expect(int rc, int want, const char *needle)
{
    if (rc != want || (needle && !strstr(out, needle)))
        print_error("exit %d (want %d), looking for '%s' in:\n%s\n", rc, want, needle ? needle : "", out);
    assert_int_equal(rc, want);
    if (needle) assert_non_null(strstr(out, needle));
}

static int setup(void **state)
{
    (void)state;
    if (fixture_mkdir("sb_test_compare")) return -1;
    write_result("raw.json", 100000);
    write_result("raw_small.json", 1000);
    doctor(at("raw.json"), at("base.json"), NULL, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return fixture_rmdir();
}

/* Renames the case to a real kernel (lattice_mc) and, with x > 0, lists one more of its
 * parameters at its default value, as a file written after the parameter was added does. */
static void as_lattice_mc(json_t *root, double x)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_object_set_new(b, "kernel", json_string("lattice_mc"));
        json_t *params = json_object_get(b, "params");
        if (x > 0 && params) json_object_set_new(params, "init", json_string("random"));
        if (x > 1 && params) json_object_set_new(params, "T", json_string("0.5"));
    }
}

/* ---- tests -------------------------------------------------------------- */
static void test_identical(void **state)
{
    (void)state;
    expect(compare(at("base.json"), at("base.json"), NULL, NULL, NULL, NULL), 0, "verdict: OK");
    assert_non_null(strstr(out, "fake/openmp_simd/100000"));
    assert_non_null(strstr(out, "PASS->PASS"));
    assert_non_null(strstr(out, "1.000"));
    assert_non_null(strstr(out, "4.2%")); /* noise: 3 MAD/median = 3% a side, added in quadrature */
}

/* A parameter at its kernel's default is not a new case; any other value is. */
static void test_default_params(void **state)
{
    (void)state;
    doctor(at("base.json"), at("lmc_old.json"), as_lattice_mc, 0);
    doctor(at("base.json"), at("lmc_new.json"), as_lattice_mc, 1);
    doctor(at("base.json"), at("lmc_T.json"), as_lattice_mc, 2);
    expect(compare(at("lmc_old.json"), at("lmc_new.json"), NULL, NULL, NULL, NULL), 0, "1 compared, 0 regressions");
    /* no case in common: a gate that compared nothing fails as a usage error, and prints nothing */
    expect(compare(at("lmc_old.json"), at("lmc_T.json"), NULL, NULL, NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
}

/* Two folders with no case in common: exit 2, not an OK verdict on nothing. */
static void test_nothing_in_common(void **state)
{
    (void)state;
    mkdir(at("disjoint"), 0755);
    doctor(at("raw_small.json"), at("disjoint/small.json"), NULL, 0);
    expect(compare(at("base.json"), at("disjoint"), NULL, NULL, NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
    expect(compare(at("disjoint"), at("base.json"), "--format", "json", NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
}

static void test_throughput(void **state)
{
    (void)state;
    doctor(at("raw.json"), at("slow.json"), throughput, 0.7);
    expect(compare(at("base.json"), at("slow.json"), NULL, NULL, NULL, NULL), 1, "REGRESSION");
    assert_non_null(strstr(out, "0.700"));
    assert_non_null(strstr(out, "verdict: FAIL"));
    doctor(at("raw.json"), at("fast.json"), throughput, 1.3);
    expect(compare(at("base.json"), at("fast.json"), NULL, NULL, NULL, NULL), 0, "faster");
    doctor(at("raw.json"), at("bit_slow.json"), throughput, 0.95);
    expect(compare(at("base.json"), at("bit_slow.json"), NULL, NULL, NULL, NULL), 0, "ok");
    expect(compare(at("base.json"), at("bit_slow.json"), "--threshold", "0.005", NULL, NULL), 1, "REGRESSION"); /* 0.95 < 1 - 0.005 - 0.042 */
    expect(compare(at("base.json"), at("slow.json"), "--threshold=0.4", NULL, NULL, NULL), 0, "ok");
    /* A noisy NEW side (repetitions +-10%: noise 30%) widens the band: 0.7 > 1 - 0.1 - 0.30. */
    doctor(at("raw.json"), at("noisy_slow.json"), throughput, 0.7);
    json_error_t err;
    json_t *root = json_load_file(at("noisy_slow.json"), 0, &err);
    spread(root, 0.1);
    resync(root);
    json_dump_file(root, at("noisy_slow.json"), 0);
    json_decref(root);
    expect(compare(at("base.json"), at("noisy_slow.json"), NULL, NULL, NULL, NULL), 0, "30.1%");
    /* One repetition 5x slower does not: 0.7 is still a regression. */
    root = json_load_file(at("slow.json"), 0, &err);
    outlier(root, 0.2);
    resync(root);
    json_dump_file(root, at("outlier_slow.json"), 0);
    json_decref(root);
    expect(compare(at("base.json"), at("outlier_slow.json"), NULL, NULL, NULL, NULL), 1, "REGRESSION");
}

static void test_validation(void **state)
{
    (void)state;
    doctor(at("raw.json"), at("failed.json"), fail_check, 0);
    expect(compare(at("base.json"), at("failed.json"), NULL, NULL, NULL, NULL), 1, "VALIDATION CHANGED");
    assert_non_null(strstr(out, "PASS->FAIL"));
    assert_non_null(strstr(out, "check 'offset' PASS -> FAIL"));
    /* A failing OLD that still fails is not a change. */
    expect(compare(at("failed.json"), at("failed.json"), NULL, NULL, NULL, NULL), 0, "still failing");
    /* A doctored baseline: a value changed by hand, its PASS left standing. */
    doctor(at("raw.json"), at("edited.json"), edit_value, 1);
    expect(compare(at("edited.json"), at("base.json"), NULL, NULL, NULL, NULL), 1, "edited file?");
    assert_non_null(strstr(out, "more than its own tolerance"));
    doctor(at("raw.json"), at("edited_max.json"), edit_value, 2); /* "drift" <= 1e-6 now 0.9 */
    expect(compare(at("edited_max.json"), at("base.json"), NULL, NULL, NULL, NULL), 1, "check 'drift' says PASS");
    /* Moved within the tolerance (abs 0.01): fine; beyond it while still passing: a change. */
    doctor(at("raw.json"), at("moved_a_bit.json"), move_value, 0.004);
    expect(compare(at("base.json"), at("moved_a_bit.json"), NULL, NULL, NULL, NULL), 0, "ok");
    doctor(at("raw.json"), at("moved.json"), move_value, -0.008);
    expect(compare(at("moved_a_bit.json"), at("moved.json"), NULL, NULL, NULL, NULL), 1, "more than its own tolerance");
    doctor(at("raw.json"), at("dropped.json"), drop_check, 0);
    expect(compare(at("base.json"), at("dropped.json"), NULL, NULL, NULL, NULL), 1, "check 'drift' is gone in NEW");
    expect(compare(at("dropped.json"), at("base.json"), NULL, NULL, NULL, NULL), 0, "new check 'drift' (PASS)");
}

static void test_missing_rows(void **state)
{
    (void)state;
    mkdir(at("old"), 0755);
    mkdir(at("new"), 0755);
    mkdir(at("new/hyperfine"), 0755);
    doctor(at("raw.json"), at("old/fake.json"), NULL, 0);
    doctor(at("raw.json"), at("new/fake.json"), NULL, 0);
    doctor(at("raw_small.json"), at("new/fake_small.json"), NULL, 0);
    mkdir(at("new/libint2"), 0755);
    FILE *f = fopen(at("new/hyperfine/x.json"), "w"); /* not a result: skipped */
    fputs("{\"results\": []}\n", f);
    fclose(f);
    f = fopen(at("new/libint2/y.json"), "w"); /* tools/eri_libint2's bench line: skipped */
    fputs("{\"molecule\": \"water\", \"eris_per_s\": 1e6}\n", f);
    fclose(f);
    expect(compare(at("old"), at("new"), NULL, NULL, NULL, NULL), 0, "only in NEW");
    assert_non_null(strstr(out, "fake/openmp_simd/1000 "));
    assert_non_null(strstr(out, "1 only in NEW"));
    expect(compare(at("new"), at("old"), NULL, NULL, NULL, NULL), 0, "only in OLD");
    assert_non_null(strstr(out, "1 only in OLD"));
}

/* The commit the file records: x = 0 "aaaaaaaaaaaa", 1 "bbbbbbbbbbbb-dirty". */
static void commit_of(json_t *root, double x)
{
    json_object_set_new(json_object_get(root, "context"), "git_commit", json_string(x > 0 ? "bbbbbbbbbbbb-dirty" : "aaaaaaaaaaaa"));
}

/* compare names each side's commits and flags a side that mixes them or holds -dirty results. */
static void test_commits(void **state)
{
    (void)state;
    mkdir(at("one_commit"), 0755);
    mkdir(at("mixed"), 0755);
    doctor(at("raw.json"), at("one_commit/a.json"), commit_of, 0);
    doctor(at("raw_small.json"), at("one_commit/b.json"), commit_of, 0);
    doctor(at("raw.json"), at("mixed/a.json"), commit_of, 0);
    doctor(at("raw_small.json"), at("mixed/b.json"), commit_of, 1);
    expect(compare(at("one_commit"), at("one_commit"), NULL, NULL, NULL, NULL), 0, "commit aaaaaaaaaaaa, 2 files");
    assert_null(strstr(out, "warning"));
    expect(compare(at("one_commit"), at("mixed"), NULL, NULL, NULL, NULL), 0,
           "  warning: NEW mixes 2 commits: its results are not of one build\n");
    assert_non_null(strstr(out, "  warning: NEW holds 1 result of a -dirty build (uncommitted changes)\n"));
    assert_null(strstr(out, "warning: OLD"));
    expect(compare(at("mixed"), at("one_commit"), "--format", "json", NULL, NULL), 0, "\"old_commits\": 2");
    assert_non_null(strstr(out, "\"old_dirty_results\": 1"));
}

/* OMP_NUM_THREADS=1 on a 16-CPU machine, or all 16 threads. */
static void threads_of_16(json_t *root, double x)
{
    json_t *b;
    size_t i;
    json_object_set_new(json_object_get(json_object_get(root, "context"), "cpu"), "logical_cpus", json_integer(16));
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) json_object_set_new(b, "threads", json_integer((json_int_t)x));
}

/* A CPU run on part of the machine is another case: one folder may hold both, and they
 * are not compared with each other. */
static void test_partial_threads(void **state)
{
    (void)state;
    mkdir(at("th"), 0755);
    doctor(at("raw.json"), at("th/all.json"), threads_of_16, 16);
    doctor(at("raw.json"), at("th/one.json"), threads_of_16, 1);
    doctor(at("raw.json"), at("all_again.json"), threads_of_16, 16);
    expect(compare(at("th"), at("th"), NULL, NULL, NULL, NULL), 0, "2 compared");
    assert_non_null(strstr(out, "fake/openmp_simd/100000 threads=1 ")); /* the label tells them apart */
    expect(compare(at("th"), at("all_again.json"), NULL, NULL, NULL, NULL), 0, "1 compared, 0 regressions");
    assert_non_null(strstr(out, "1 only in OLD"));
}

/* Flop-bound: a huge triad bandwidth and a known FMA peak (both precisions 1 TFLOP/s), rates times x. */
static void flop_bound(json_t *root, double x)
{
    json_t *peaks = json_object_get(json_object_get(root, "context"), "peaks");
    json_object_set_new(peaks, "triad_bandwidth_Bps", json_real(1e18));
    json_object_set_new(peaks, "fma_fp64_flops", json_real(1e12));
    json_object_set_new(peaks, "fma_fp32_flops", json_real(1e12));
    throughput(root, x);
}

static void test_normalise(void **state)
{
    (void)state;
    /* the peak comes from the context, not from the file's rate over its percentage: a slower
     * run on the same flop-bound machine is 0.7 of the roofline, not 1.0 */
    doctor(at("raw.json"), at("fb_base.json"), flop_bound, 1.0);
    doctor(at("raw.json"), at("fb_slow.json"), flop_bound, 0.7);
    expect(compare(at("fb_base.json"), at("fb_slow.json"), "--normalise", "peak", "--format", "json"), 1, NULL);
    json_error_t err;
    json_t *root = json_loads(out, 0, &err), *r = json_array_get(json_object_get(root, "rows"), 0);
    assert_true(fabs(json_number_value(json_object_get(r, "ratio")) - 0.7) < 1e-9);
    json_decref(root);
    doctor(at("raw.json"), at("half.json"), machine_speed, 0.5);
    expect(compare(at("base.json"), at("half.json"), NULL, NULL, NULL, NULL), 1, "REGRESSION");
    expect(compare(at("base.json"), at("half.json"), "--normalise", "peak", NULL, NULL), 0, "% roofline");
    assert_non_null(strstr(out, "1.000"));
    /* Throughput halved on an unchanged machine is still a regression of % roofline. */
    doctor(at("raw.json"), at("slow_same_machine.json"), throughput, 0.5);
    expect(compare(at("base.json"), at("slow_same_machine.json"), "--normalize=peak", NULL, NULL, NULL), 1, "REGRESSION");
}

/* The file ran on another machine: x = 0 another machine class and CPU, 1 the same class with
 * another CPU model; its rates times 0.5 (a slower machine). */
static void other_machine(json_t *root, double x)
{
    json_t *ctx = json_object_get(root, "context");
    if (x == 0) json_object_set_new(ctx, "machine", json_string("cpu-64core"));
    json_object_set_new(json_object_get(ctx, "cpu"), "model", json_string("Other CPU 9000"));
    machine_speed(root, 0.5);
}

/* Without --normalise peak, items/s of two machines gets no speed verdict: one line names the
 * machines and the way to compare them; a validation change still fails. */
static void test_other_machine(void **state)
{
    (void)state;
    doctor(at("raw.json"), at("other_class.json"), other_machine, 0);
    doctor(at("raw.json"), at("other_cpu.json"), other_machine, 1);
    expect(compare(at("base.json"), at("other_class.json"), NULL, NULL, NULL, NULL), 0, "other machine");
    assert_null(strstr(out, "REGRESSION\n"));
    assert_non_null(strstr(out, "verdict: OK"));
    assert_non_null(strstr(out, "machines differ: OLD "));
    assert_non_null(strstr(out, " vs NEW cpu-64core (Other CPU 9000)"));
    assert_non_null(strstr(out, "compare them with --normalise peak"));
    assert_non_null(strstr(out, "1 on other machines (no speed verdict)"));
    expect(compare(at("base.json"), at("other_cpu.json"), NULL, NULL, NULL, NULL), 0, "(Other CPU 9000)");
    expect(compare(at("base.json"), at("other_cpu.json"), "--format", "csv", NULL, NULL), 0, "\"other machine\"");
    expect(compare(at("base.json"), at("other_cpu.json"), "--format", "json", NULL, NULL), 0, "\"other_machine\": 1");
    /* normalised: the machines' peaks taken out (both halved), the same % of roofline */
    expect(compare(at("base.json"), at("other_class.json"), "--normalise", "peak", NULL, NULL), 0, "ok");
    assert_null(strstr(out, "machines differ"));
    /* a validation change on another machine is still one */
    doctor(at("failed.json"), at("failed_other.json"), other_machine, 0);
    expect(compare(at("base.json"), at("failed_other.json"), NULL, NULL, NULL, NULL), 1, "VALIDATION CHANGED");
}

/* A flop-bound file (1 TFLOP/s FMA peaks) whose FMA probe ran with instruction set x: 0 AVX2+FMA,
 * 1 AVX-512 with twice the FMA peaks (the widest vectors, the same throughput). */
static void fma_isa_of(json_t *root, double x)
{
    json_t *ctx = json_object_get(root, "context"), *peaks = json_object_get(ctx, "peaks");
    flop_bound(root, 1.0);
    json_object_set_new(ctx, "fma_isa", json_string(x > 0 ? "AVX-512" : "AVX2+FMA"));
    json_object_set_new(peaks, "fma_fp64_flops", json_real(x > 0 ? 2e12 : 1e12));
    json_object_set_new(peaks, "fma_fp32_flops", json_real(x > 0 ? 2e12 : 1e12));
}

static double json_ratio(void)
{
    json_error_t err;
    json_t *root = json_loads(out, 0, &err);
    double r = json_number_value(json_object_get(json_array_get(json_object_get(root, "rows"), 0), "ratio"));
    json_decref(root);
    return r;
}

/* One machine has one FMA roof: builds whose FMA probes ran with different instruction sets are
 * divided by the higher one, so equal throughput is a ratio of 1, not 0.5. */
static void test_fma_roof(void **state)
{
    (void)state;
    doctor(at("raw.json"), at("isa_avx2.json"), fma_isa_of, 0);
    doctor(at("raw.json"), at("isa_avx512.json"), fma_isa_of, 1);
    expect(compare(at("isa_avx2.json"), at("isa_avx512.json"), "--normalise", "peak", "--format", "json"), 0, NULL);
    assert_true(fabs(json_ratio() - 1.0) < 1e-9);
    expect(compare(at("isa_avx2.json"), at("isa_avx512.json"), "--normalise", "peak", NULL, NULL), 0,
           "FMA probes of different instruction sets (OLD AVX2+FMA, NEW AVX-512) on one machine: both divided by the "
           "higher FMA roof, 2000 GFLOP/s");
    /* on another machine the roofs are that machine's own */
    doctor(at("isa_avx512.json"), at("isa_other.json"), other_machine, 0);
    expect(compare(at("isa_avx2.json"), at("isa_other.json"), "--normalise", "peak", "--format", "json"), 1, NULL);
    assert_true(fabs(json_ratio() - 0.5) < 1e-9); /* the same share of a slower machine's twice-as-high roof */
}

static void write_peaks(const char *name, const char *machine, const char *cpu_model, const char *isa, double triad,
                        double fma)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"scibench_peaks\": 1, \"machine\": \"%s\", \"git_commit\": \"abc\", \"cpu\": {\"model\": \"%s\", "
             "\"fma_isa\": \"%s\", "
             "\"triad_bandwidth_Bps\": {\"value\": %g, \"min\": %g, \"max\": %g, \"runs\": 5}, "
             "\"fma_fp32_flops\": {\"value\": %g, \"min\": %g, \"max\": %g, \"runs\": 5}, "
             "\"fma_fp64_flops\": {\"value\": %g, \"min\": %g, \"max\": %g, \"runs\": 5}}, \"gpu\": null}\n",
             machine, cpu_model, isa, triad, triad, triad, fma, fma, fma, fma, fma, fma);
    FILE *f = fopen(at(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A folder's stored peaks (peaks.json) replace its runs' own probes for the rows of its
 * machine: compare --normalise peak and table divide by them. */
static void test_stored_peaks(void **state)
{
    (void)state;
    json_error_t err;
    doctor(at("raw.json"), at("fb_one.json"), flop_bound, 1.0);
    json_t *root = json_load_file(at("fb_one.json"), 0, &err), *ctx = json_object_get(root, "context");
    char machine[64], model[128], isa[32];
    snprintf(machine, sizeof machine, "%s", json_string_value(json_object_get(ctx, "machine")));
    snprintf(isa, sizeof isa, "%s", json_string_value(json_object_get(ctx, "fma_isa")));
    snprintf(model, sizeof model, "%s", json_string_value(json_object_get(json_object_get(ctx, "cpu"), "model")));
    json_decref(root);
    mkdir(at("stored"), 0755);
    rewrite(at("fb_one.json"), at("stored/fb.json"), NULL, 0);
    write_peaks("stored/peaks.json", machine, model, isa, 1e18, 2e12); /* twice the run's FMA peak */
    expect(compare(at("fb_one.json"), at("stored"), "--normalise", "peak", "--format", "json"), 1, NULL);
    assert_true(fabs(json_ratio() - 0.5) < 1e-9);
    assert_int_equal(table(at("stored")), 0);
    assert_non_null(strstr(out, "/stored/peaks.json,"));
    assert_non_null(strstr(out, ",2e+12,2e+12,2e+12,")); /* peak_fp32, peak_fp64, the one used */
    /* stored peaks of another machine are not this run's */
    write_peaks("stored/peaks.json", "cpu-4096core", model, isa, 1e18, 2e12);
    expect(compare(at("fb_one.json"), at("stored"), "--normalise", "peak", "--format", "json"), 0, NULL);
    assert_true(fabs(json_ratio() - 1.0) < 1e-9);
    /* a malformed peaks file: one line, exit 2 */
    write_peaks("stored/peaks.json", machine, model, isa, 1e18, -1);
    expect(compare(at("fb_one.json"), at("stored"), NULL, NULL, NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
    assert_int_equal(table(at("stored")), 2);
}

static int csv_fields(const char *line)
{
    int n = 1, quoted = 0;
    for (; *line && *line != '\n'; line++) {
        if (*line == '"') quoted = !quoted;
        if (*line == ',' && !quoted) n++;
    }
    return n;
}

/* A --profile block in the median entry, its measured bytes per item x. */
static void add_profile(json_t *root, double x)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        const char *agg = json_string_value(json_object_get(b, "aggregate_name"));
        if (agg && !strcmp(agg, "median"))
            json_object_set_new(b, "profile", json_pack("{s:s, s:s, s:f, s:f, s:f}", "tool", "ncu test", "kind", "gpu",
                                                        "bytes_per_item", x, "model_bytes_per_item", 24.0,
                                                        "bytes_ratio", x / 24.0));
    }
}

static void test_measured_column(void **state)
{
    (void)state;
    doctor(at("raw.json"), at("prof.json"), add_profile, 55.5);
    expect(compare(at("base.json"), at("prof.json"), NULL, NULL, NULL, NULL), 0, "measured DRAM B/item");
    assert_non_null(strstr(out, "-->55.5"));
    expect(compare(at("prof.json"), at("prof.json"), "--format", "csv", NULL, NULL), 0, "new_measured_bytes_per_item");
    assert_non_null(strstr(out, ",55.5,55.5\n"));
    /* without a profile on either side the table has no such column */
    expect(compare(at("base.json"), at("base.json"), NULL, NULL, NULL, NULL), 0, "verdict: OK");
    assert_null(strstr(out, "measured DRAM"));
}

static void test_formats(void **state)
{
    (void)state;
    doctor(at("raw.json"), at("slow2.json"), throughput, 0.7);
    expect(compare(at("base.json"), at("slow2.json"), "--format", "csv", NULL, NULL), 1, "case,kernel,backend,size");
    const char *row = strchr(out, '\n') + 1;
    assert_int_equal(csv_fields(out), 21);
    assert_int_equal(csv_fields(row), 21);
    assert_non_null(strstr(row, "\"REGRESSION\""));
    assert_null(strchr(strchr(row, '\n') + 1, '\n')); /* header + one row */
    expect(compare(at("base.json"), at("slow2.json"), "--format=markdown", NULL, NULL, NULL), 1, "| case");
    assert_non_null(strstr(out, "|---|---:|"));
    assert_non_null(strstr(out, "**verdict: FAIL**"));
    expect(compare(at("base.json"), at("slow2.json"), "--format", "json", "--normalise", "peak"), 1, NULL);
    json_error_t err;
    json_t *root = json_loads(out, 0, &err);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "verdict")), "fail");
    assert_string_equal(json_string_value(json_object_get(root, "metric")), "percent_roofline");
    json_t *s = json_object_get(root, "summary"), *r = json_array_get(json_object_get(root, "rows"), 0);
    assert_int_equal(json_integer_value(json_object_get(s, "regressions")), 1);
    assert_true(json_is_true(json_object_get(r, "regression")));
    assert_true(json_number_value(json_object_get(r, "ratio")) > 0.69 && json_number_value(json_object_get(r, "ratio")) < 0.71);
    json_decref(root);
}

static void test_usage(void **state)
{
    (void)state;
    expect(compare(at("base.json"), "/nonexistent.json", NULL, NULL, NULL, NULL), 2, NULL);
    expect(compare(at("base.json"), at("base.json"), "--format", "xml", NULL, NULL), 2, NULL);
    expect(compare(at("base.json"), at("base.json"), "--threshold", "1.5", NULL, NULL), 2, NULL);
    expect(compare(at("base.json"), at("base.json"), "--normalise", "roof", NULL, NULL), 2, NULL);
    expect(compare(at("base.json"), at("base.json"), "--bogus", NULL, NULL, NULL), 2, NULL);
    expect(compare(at("base.json"), at("base.json"), "--threshold", NULL, NULL, NULL), 2, NULL);
    expect(compare(at("base.json"), at("base.json"), at("base.json"), NULL, NULL, NULL), 2, NULL);
    char *one[] = {(char *)at("base.json"), NULL};
    assert_int_equal(sb_compare_main(1, one, stdout), 2);
    FILE *f = fopen(at("not_json.json"), "w");
    fputs("{ nope", f);
    fclose(f);
    expect(compare(at("not_json.json"), at("base.json"), NULL, NULL, NULL, NULL), 2, NULL);
    mkdir(at("empty"), 0755);
    expect(compare(at("empty"), at("base.json"), NULL, NULL, NULL, NULL), 2, NULL);
    mkdir(at("dup"), 0755);
    doctor(at("raw.json"), at("dup/a.json"), NULL, 0);
    doctor(at("raw.json"), at("dup/b.json"), NULL, 0);
    expect(compare(at("dup"), at("base.json"), NULL, NULL, NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
}

/* Google Benchmark's own output (tests/data/gbench_*.json, written as its JSON reporter writes
 * them): Complexity() fits are listed and skipped, an entry without items_per_second is
 * compared by its time, an entry that reported an error is a failure (exit 1), never a usage
 * error. Run from the repository root (make test does). */
static void test_google_benchmark(void **state)
{
    (void)state;
    const char *old = "tests/data/gbench_old.json", *new = "tests/data/gbench_new.json";
    expect(compare(old, new, NULL, NULL, NULL, NULL), 1, "verdict: FAIL");
    assert_non_null(strstr(out, "BM_Alloc/4096 "));
    assert_non_null(strstr(out, "FAIL (benchmark error)"));
    assert_non_null(strstr(out, "NEW reported an error: mmap of 4096 MiB failed: Cannot allocate memory"));
    assert_non_null(strstr(out, "Complexity() fit BM_Sort_BigO (O(NlgN)), BM_Sort_RMS: skipped"));
    assert_non_null(strstr(out, "skipped (complexity fit)"));
    /* BM_Hash/64 has no items_per_second: its median time 24.40 ns -> 31.75 ns is a regression */
    assert_non_null(strstr(out, "24.4ns"));
    assert_non_null(strstr(out, "31.75ns   0.769"));
    assert_non_null(strstr(out, "1 regression,"));
    assert_non_null(strstr(out, "BM_Sort/4096 "));
    expect(compare(old, old, NULL, NULL, NULL, NULL), 0, "verdict: OK  5 compared");
    expect(compare(new, new, NULL, NULL, NULL, NULL), 1, "1 benchmark error in NEW");
    /* the error alone on the OLD side: listed, not a failure of NEW */
    expect(compare(new, old, NULL, NULL, NULL, NULL), 0, "error in OLD");
    expect(compare(old, new, "--format", "json", NULL, NULL), 1, "\"errors\": 1");
    assert_non_null(strstr(out, "\"real_time_s\""));
    expect(compare(old, new, "--format", "csv", NULL, NULL), 1, "\"real_time_s\"");
    /* normalised: no peaks in such files, no metric; the error still fails */
    expect(compare(old, new, "--normalise", "peak", NULL, NULL), 1, "cannot normalise");
    assert_int_equal(table(new), 0);
    assert_null(strstr(out, "BM_Sort,"));  /* the fit is no case of the table */
    assert_non_null(strstr(out, ",mmap of 4096 MiB failed: Cannot allocate memory,"));
}

/* ---- strict reading: malformed or inconsistent files ---------------------- */

static json_t *entry_at(json_t *root, double x) { return json_array_get(json_object_get(root, "benchmarks"), (size_t)x); }
static void drop_rate(json_t *root, double x) { json_object_del(entry_at(root, x), "items_per_second"); }
static void drop_entry(json_t *root, double x) { json_array_remove(json_object_get(root, "benchmarks"), (size_t)x); }
static void slow_median(json_t *root, double x)
{
    json_t *b = entry_at(root, json_array_size(json_object_get(root, "benchmarks")) - 3); /* median, min, max last */
    json_object_set_new(b, "real_time", json_real(x * json_number_value(json_object_get(b, "real_time"))));
}
/* A file as written before the validation moved to the median entry: every entry holds it. */
static void validation_per_entry(json_t *root)
{
    json_t *b, *v = NULL;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) if (json_object_get(b, "validation")) v = json_deep_copy(json_object_get(b, "validation"));
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) json_object_set_new(b, "validation", json_deep_copy(v));
    json_decref(v);
}

/* In a file with the validation in every entry, repetition x says FAIL, every other entry (and
 * its own checks) PASS. */
static void split_verdict(json_t *root, double x)
{
    validation_per_entry(root);
    json_object_set_new(json_object_get(entry_at(root, x), "validation"), "passed", json_false());
}

static void per_entry(json_t *root, double x)
{
    (void)x;
    validation_per_entry(root);
}

/* The validation once, in the median entry: a file written with it in every entry (the files
 * under results/ before) reads the same; one whose median entry lacks it is refused. */
static void test_validation_once(void **state)
{
    (void)state;
    json_error_t err;
    json_t *root = json_load_file(at("base.json"), 0, &err), *b;
    size_t i, n = 0;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) n += json_object_get(b, "validation") != NULL;
    assert_int_equal(n, 1);
    json_decref(root);
    rewrite(at("base.json"), at("per_entry.json"), per_entry, 0);
    expect(compare(at("base.json"), at("per_entry.json"), NULL, NULL, NULL, NULL), 0, "PASS->PASS");
    assert_non_null(strstr(out, "1.000"));
    rewrite(at("base.json"), at("no_validation.json"), slow_median, 1.0); /* a copy */
    root = json_load_file(at("no_validation.json"), 0, &err);
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) json_object_del(b, "validation");
    json_dump_file(root, at("no_validation.json"), 0);
    json_decref(root);
    expect(compare(at("base.json"), at("no_validation.json"), NULL, NULL, NULL, NULL), 2, NULL);
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs `scibench table` on one path; the CSV lands in out. */
static int table(const char *path)
{
    char *argv[] = {(char *)path, NULL};
    return capture(sb_table_main, argv, out, sizeof out);
}

static void test_strict(void **state)
{
    (void)state;
    write_text("name_int.json", "{\"benchmarks\":[{\"name\":1}]}");
    expect(compare(at("name_int.json"), at("name_int.json"), NULL, NULL, NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
    assert_int_equal(table(at("name_int.json")), 2);
    write_text("dup_key.json", "{\"benchmarks\":[], \"benchmarks\":[]}");
    expect(compare(at("dup_key.json"), at("base.json"), NULL, NULL, NULL, NULL), 2, NULL);
    write_text("empty_list.json", "{\"benchmarks\":[]}");
    expect(compare(at("base.json"), at("empty_list.json"), NULL, NULL, NULL, NULL), 2, NULL);
    rewrite(at("base.json"), at("no_rate.json"), drop_rate, 2);
    expect(compare(at("base.json"), at("no_rate.json"), NULL, NULL, NULL, NULL), 2, NULL);
    assert_string_equal(out, "");
    assert_int_equal(table(at("no_rate.json")), 2);
    rewrite(at("base.json"), at("slow_median.json"), slow_median, 1.5);
    expect(compare(at("slow_median.json"), at("base.json"), NULL, NULL, NULL, NULL), 2, NULL);
    rewrite(at("base.json"), at("lost_rep.json"), drop_entry, 0);
    expect(compare(at("base.json"), at("lost_rep.json"), NULL, NULL, NULL, NULL), 2, NULL);
    /* A repetition that disagrees with the aggregates on the verdict: FAILED, on either side. */
    rewrite(at("base.json"), at("split.json"), split_verdict, 1);
    expect(compare(at("base.json"), at("split.json"), NULL, NULL, NULL, NULL), 1, "VALIDATION CHANGED");
    assert_non_null(strstr(out, "PASS->FAIL"));
    assert_non_null(strstr(out, "NEW entries disagree on the validation verdict (7 PASS, 1 FAIL"));
    expect(compare(at("split.json"), at("split.json"), NULL, NULL, NULL, NULL), 1, "OLD entries disagree");
    assert_int_equal(table(at("split.json")), 0);
    assert_non_null(strstr(out, ",false,"));
    assert_int_equal(table(at("base.json")), 0);
    assert_non_null(strstr(out, ",true,"));
}

/* The committed CI baseline against itself passes; with one validation value
 * changed by hand it fails. Run from the repository root (make test does). */
static void test_ci_baseline_doctored(void **state)
{
    (void)state;
    DIR *d = opendir("results/ci");
    struct dirent *e;
    int n = 0;
    if (!d) skip();
    mkdir(at("ci"), 0755);
    while ((e = readdir(d))) {
        char src[512], dst[512];
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
        snprintf(src, sizeof src, "results/ci/%s", e->d_name);
        snprintf(dst, sizeof dst, "%s/ci/%s", dir, e->d_name);
        json_error_t err;
        json_t *root = json_load_file(src, 0, &err), *b;
        size_t i;
        assert_non_null(root);
        json_array_foreach(json_object_get(root, "benchmarks"), i, b)
        {
            json_t *checks = json_object_get(json_object_get(b, "validation"), "checks"), *c;
            size_t j;
            json_array_foreach(checks, j, c)
            {
                const char *kind = json_string_value(json_object_get(c, "kind"));
                if (strcmp(kind, "abs") && strcmp(kind, "rel")) continue;
                double ref = json_number_value(json_object_get(c, "reference"));
                double tol = json_number_value(json_object_get(c, "tolerance"));
                json_object_set_new(c, "value", json_real(ref + 3 * tol * (strcmp(kind, "rel") ? 1 : fabs(ref)) + 1));
                break; /* the first value check of each entry, left marked PASS */
            }
        }
        assert_int_equal(json_dump_file(root, dst, JSON_INDENT(2)), 0);
        json_decref(root);
        n++;
    }
    closedir(d);
    assert_true(n > 0);
    expect(compare("results/ci", "results/ci", "--normalise", "peak", "--threshold", "0.5"), 0, "verdict: OK");
    expect(compare(at("ci"), "results/ci", "--normalise", "peak", "--threshold", "0.5"), 1, "VALIDATION CHANGED");
    expect(compare("results/ci", at("ci"), "--normalise", "peak", "--threshold", "0.5"), 1, "edited file?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),     cmocka_unit_test(test_default_params), cmocka_unit_test(test_nothing_in_common), cmocka_unit_test(test_throughput), cmocka_unit_test(test_validation),
        cmocka_unit_test(test_missing_rows), cmocka_unit_test(test_commits),  cmocka_unit_test(test_partial_threads), cmocka_unit_test(test_normalise), cmocka_unit_test(test_other_machine), cmocka_unit_test(test_fma_roof), cmocka_unit_test(test_stored_peaks),  cmocka_unit_test(test_formats),
        cmocka_unit_test(test_usage),         cmocka_unit_test(test_ci_baseline_doctored), cmocka_unit_test(test_measured_column), cmocka_unit_test(test_strict), cmocka_unit_test(test_google_benchmark), cmocka_unit_test(test_validation_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
