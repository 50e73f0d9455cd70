/* scibench table on JSON written by the real writer (a fake kernel through
 * sb_session_run), rewritten to known numbers: the CSV columns tools read by
 * position, the markdown cells (units, % of peak and the peak, the other
 * backend's ratio, the case, validation), --profile's measured columns, and
 * usage errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>

#include "result_fixture.h"
#include "table.h"

static char out[65536]; /* the last table */

/* Sets a field of every median entry. */
static void set_median(json_t *root, const char *key, json_t *v)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_t *agg = json_object_get(b, "aggregate_name");
        if (agg && !strcmp(json_string_value(agg), "median")) json_object_set(b, key, v);
    }
    json_decref(v);
}

/* Sets a field of every entry. */
static void set_all(json_t *root, const char *key, json_t *v)
{
    json_t *b;
    size_t i;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) json_object_set(b, key, v);
    json_decref(v);
}

/* Known rates: x items/s at the median; 1.02 TB/s = 34 % of a 3 TB/s triad; 19.4 TFLOP/s =
 * 58 % of the FP64 FMA peak. */
static void known(json_t *root, double x)
{
    json_t *peaks = json_object_get(json_object_get(root, "context"), "peaks");
    json_object_set_new(peaks, "triad_bandwidth_Bps", json_real(3e12));
    json_object_set_new(peaks, "fma_fp64_flops", json_real(1.94e13 * 100.0 / 58.0));
    json_object_set_new(peaks, "fma_fp32_flops", json_real(2 * 1.94e13 * 100.0 / 58.0));
    /* the FMA probe's instruction set is this machine's; a known one here */
    json_object_set_new(json_object_get(root, "context"), "fma_isa", json_string("AVX2+FMA"));
    json_t *cpu = json_object_get(json_object_get(root, "context"), "cpu");
    json_object_set_new(cpu, "isa_compiled", json_string("AVX2+FMA"));
    json_object_set_new(cpu, "simd_float_lanes", json_integer(8));
    set_all(root, "items_per_second", json_real(x));
    resync(root); /* times and aggregates of those rates: table refuses an inconsistent file */
    set_median(root, "bytes_per_second", json_real(1.02e12));
    set_median(root, "percent_peak_bandwidth", json_real(34.0));
    set_median(root, "flops_per_second", json_real(1.94e13));
    set_median(root, "percent_peak_flops", json_real(58.0));
    set_median(root, "flops_precision", json_string("fp64"));
}

/* The same rates against the FP32 FMA peak (twice the FP64 one): 29 % of it. */
static void known_fp32(json_t *root, double x)
{
    known(root, x);
    set_median(root, "percent_peak_flops", json_real(29.0));
    set_median(root, "flops_precision", json_string("fp32"));
}

static void as_reference(json_t *root, double x)
{
    known(root, x);
    set_all(root, "backend", json_string("reference"));
}

static void as_cuda(json_t *root, double x)
{
    known(root, x);
    set_all(root, "backend", json_string("cuda"));
}

/* --profile's block, as the schema has it: 26.1 measured bytes an item against 24 modelled. */
static void profiled(json_t *root, double x)
{
    known(root, x);
    set_median(root, "profile",
               json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:n, s:n, s:n, s:n, s:[]}", "tool", "ncu 2025.1",
                         "kind", "gpu", "dram_read_bytes", 2.0e6, "dram_write_bytes", 0.61e6, "dram_bytes", 2.61e6,
                         "items", 1.0e5, "bytes_per_item", 26.1, "model_bytes_per_item", 24.0, "bytes_ratio", 1.0875,
                         "flops", "flops_per_item", "model_flops_per_item", "flops_ratio", "groups"));
}

/* lattice_mc with geometry=droplet (not its default) and init=random (its default), on 2 ranks. */
static void as_lattice_mc(json_t *root, double x)
{
    known(root, x);
    set_all(root, "kernel", json_string("lattice_mc"));
    set_all(root, "params", json_pack("{s:s, s:s}", "geometry", "droplet", "init", "random"));
    json_object_set_new(json_object_get(root, "context"), "mpi", json_pack("{s:i}", "ranks", 2));
}

/* A parameter value long enough to need cutting. */
static void long_param(json_t *root, double x)
{
    known(root, x);
    set_all(root, "params", json_pack("{s:s}", "label", "a-very-long-parameter-value-that-no-table-cell-should-show-whole"));
}

/* Run on 1 OpenMP thread of a 16-CPU machine (OMP_NUM_THREADS=1), or on all 16. */
static void on_threads(json_t *root, double x)
{
    known(root, 4.24e10);
    json_object_set_new(json_object_get(json_object_get(root, "context"), "cpu"), "logical_cpus", json_integer(16));
    set_all(root, "threads", json_integer((json_int_t)x));
}

/* The same machine's CPU backend built with AVX512=1. */
static void avx512_build(json_t *root, double x)
{
    known(root, x);
    json_t *cpu = json_object_get(json_object_get(root, "context"), "cpu");
    json_object_set_new(cpu, "isa_compiled", json_string("AVX-512"));
    json_object_set_new(cpu, "simd_float_lanes", json_integer(16));
}

static void other_machine(json_t *root, double x)
{
    known(root, x);
    json_object_set_new(json_object_get(root, "context"), "machine", json_string("h200"));
}

static void fails(json_t *root, double x)
{
    json_t *b;
    size_t i;
    known(root, x);
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
    {
        json_t *v = json_object_get(b, "validation");
        json_object_set_new(json_array_get(json_object_get(v, "checks"), 1), "pass", json_false());
        json_object_set_new(v, "passed", json_false());
    }
}

/* sb_table_main on up to five arguments, NULL-terminated; the output lands in out. */
static int table5(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    char *argv[6] = {(char *)a, (char *)b, (char *)c, (char *)d, (char *)e, NULL};
    return capture(sb_table_main, argv, out, sizeof out);
}

static int table(const char *a, const char *b, const char *c, const char *d) { return table5(a, b, c, d, NULL); }

static void has(const char *needle)
{
    if (!strstr(out, needle)) print_error("looking for '%s' in:\n%s\n", needle, out);
    assert_non_null(strstr(out, needle));
}

/* The markdown line holding needle. */
static const char *line_with(const char *needle, char *buf, size_t n)
{
    const char *p = strstr(out, needle);
    has(needle);
    while (p > out && p[-1] != '\n') p--;
    const char *end = strchr(p, '\n');
    snprintf(buf, n, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
    return buf;
}

static int fields(const char *line, char sep)
{
    int n = 1, quoted = 0;
    for (; *line && *line != '\n'; line++) {
        if (*line == '"') quoted = !quoted;
        if (*line == sep && !quoted) n++;
    }
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (fixture_mkdir("sb_test_table")) return -1;
    write_result("raw.json", 100000);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return fixture_rmdir();
}

/* ---- tests -------------------------------------------------------------- */

/* The first 25 columns are those plots and rerun read by position; new ones only follow. */
static void test_csv(void **state)
{
    (void)state;
    rewrite(at("raw.json"), at("known.json"), known, 4.24e10);
    assert_int_equal(table(at("known.json"), NULL, NULL, NULL), 0);
    static const char head[] =
        "machine,kernel,backend,size,params,seed,item,items_per_second,items_per_second_min,items_per_second_max,"
        "bytes_per_second,flops_per_second,bytes_per_item,flops_per_item,bw_kind,peak_bandwidth_Bps,"
        "peak_fp32_flops,peak_fp64_flops,peak_flops_used,roofline_items_per_second,percent_roofline,passed,"
        "commit,file,noise,";
    assert_memory_equal(out, head, strlen(head));
    const char *row = strchr(out, '\n') + 1;
    assert_int_equal(fields(row, ','), fields(out, ','));
    has(",fake,openmp_simd,100000,");
    has(",4.24e+10,");
    has(",1,,,,,,,,"); /* ranks 1, no case params, no profile, the whole machine */
    assert_int_equal(table("--format=csv", at("known.json"), NULL, NULL), 0);
    has(",4.24e+10,");
}

static void test_markdown(void **state)
{
    (void)state;
    char line[1024];
    rewrite(at("raw.json"), at("known.json"), known, 4.24e10);
    assert_int_equal(table("--format", "markdown", at("known.json"), NULL), 0);
    has("| kernel | backend | case | throughput | % of measured peak bandwidth | % of measured peak FLOP rate "
        "| vs other backend | validation |\n|---|---|---|---:|---:|---:|---:|---|\n");
    line_with("| fake |", line, sizeof line);
    assert_string_equal(line, "| fake | openmp_simd | size 100000 | 42.4 G terms/s | 34.0 % of 3 TB/s triad "
                              "| 58.0 % of 33.4 TFLOP/s FP64 AVX2+FMA | — | PASSED (3 checks) |");
    assert_null(strstr(out, "machine")); /* one machine: no machine column */
    rewrite(at("raw.json"), at("fp32.json"), known_fp32, 4.24e10);
    assert_int_equal(table("--format", "markdown", at("fp32.json"), NULL), 0);
    has("| 29.0 % of 66.9 TFLOP/s FP32 AVX2+FMA |");
    assert_null(strstr(out, "measured / model")); /* no profile: no profile columns */
}

/* Folder sub/ of one case's runs: cuda at 1.2e11 and openmp_simd at 4e9 items/s, and a third run
 * (file name, edit, rate); the markdown table of the folder. */
static void peer_folder(const char *sub, const char *third, edit_fn edit, double x)
{
    char name[3][128];
    snprintf(name[0], sizeof name[0], "%s/omp.json", sub);
    snprintf(name[1], sizeof name[1], "%s/cuda.json", sub);
    snprintf(name[2], sizeof name[2], "%s/%s", sub, third);
    mkdir(at(sub), 0755);
    rewrite(at("raw.json"), at(name[0]), known, 4.0e9);
    rewrite(at("raw.json"), at(name[1]), as_cuda, 1.2e11);
    rewrite(at("raw.json"), at(name[2]), edit, x);
    assert_int_equal(table("--format", "markdown", at(sub), NULL), 0);
}

/* CUDA against the CPU backend, the CPU backend against the reference; same case, same machine. */
static void test_peer(void **state)
{
    (void)state;
    char line[1024];
    peer_folder("peer", "ref.json", as_reference, 1.0e8);
    assert_non_null(strstr(line_with("| cuda |", line, sizeof line), "| 30× openmp_simd |"));
    assert_non_null(strstr(line_with("| openmp_simd |", line, sizeof line), "| 40× reference |"));
    assert_non_null(strstr(line_with("| reference |", line, sizeof line), "| — |"));
    /* rows in backend order: cuda, openmp_simd, reference */
    assert_true(strstr(out, "| cuda |") < strstr(out, "| openmp_simd |"));
    assert_true(strstr(out, "| openmp_simd |") < strstr(out, "| reference |"));
    /* another size is another case: no ratio */
    write_result("small.json", 1000);
    rewrite(at("small.json"), at("small_ref.json"), as_reference, 1.0e8);
    assert_int_equal(table("--format", "markdown", at("peer/omp.json"), at("small_ref.json")), 0);
    assert_non_null(strstr(line_with("| openmp_simd |", line, sizeof line), "| — |"));
}

/* Two CPU builds of one machine: each CPU row names its build, the two side by side (the narrower
 * first), and CUDA's ratio is against the default build, which a CUDA binary is. */
static void test_builds(void **state)
{
    (void)state;
    char line[1024];
    peer_folder("builds", "omp512.json", avx512_build, 6.0e9);
    assert_non_null(strstr(line_with("| cuda |", line, sizeof line), "| 30× openmp_simd |"));
    assert_non_null(line_with("| openmp_simd, AVX2+FMA build |", line, sizeof line));
    assert_non_null(line_with("| openmp_simd, AVX-512 build |", line, sizeof line));
    assert_true(strstr(out, "AVX2+FMA build") < strstr(out, "AVX-512 build"));
    /* one build: the backend alone, as in every other table */
    assert_int_equal(table("--format", "markdown", at("builds/omp.json"), at("builds/cuda.json")), 0);
    assert_null(strstr(out, " build |"));
}

static void test_profile(void **state)
{
    (void)state;
    char line[1024];
    rewrite(at("raw.json"), at("prof.json"), profiled, 4.24e10);
    rewrite(at("raw.json"), at("known.json"), as_cuda, 4.24e10);
    assert_int_equal(table("--format", "markdown", at("prof.json"), at("known.json")), 0);
    has("| validation | DRAM bytes/item, measured | measured / model bytes |\n");
    assert_non_null(strstr(line_with("| openmp_simd |", line, sizeof line), "| 26.1 B | 1.09× |"));
    assert_non_null(strstr(line_with("| cuda |", line, sizeof line), "| — | — |")); /* no profile in that file */
    assert_int_equal(table(at("prof.json"), NULL, NULL, NULL), 0);
    has(",26.1,1.0875,,,ncu 2025.1,,");
}

static void test_case_text(void **state)
{
    (void)state;
    char line[1024];
    rewrite(at("raw.json"), at("lmc.json"), as_lattice_mc, 4.24e10);
    rewrite(at("raw.json"), at("long.json"), long_param, 4.24e10);
    rewrite(at("raw.json"), at("h200.json"), other_machine, 4.24e10);
    rewrite(at("raw.json"), at("fail.json"), fails, 4.24e10);
    assert_int_equal(table5("--format", "markdown", at("lmc.json"), at("long.json"), at("h200.json")), 0);
    /* the size as the kernel names it, the parameters away from its defaults, the ranks */
    has("| lattice_mc | openmp_simd | L=100000 geometry=droplet, 2 ranks |");
    /* a case cell is cut at 60 characters */
    const char *cut = strstr(line_with("a-very-long", line, sizeof line), "size 100000 label=a-very-long");
    assert_non_null(cut);
    const char *end = strstr(cut, " |");
    assert_int_equal(end - cut, 60);
    assert_memory_equal(end - 3, "...", 3);
    /* two machines: a machine column first */
    has("| machine | kernel |");
    has("| h200 | fake |");
    /* no cell over 120 characters */
    for (const char *p = out; *p; p++) {
        const char *bar = strchr(p, '|');
        if (!bar) break;
        const char *next = strpbrk(bar + 1, "|\n");
        if (next && *next == '|') assert_true(next - bar - 1 <= 120);
        p = bar;
    }
    /* a CPU run on part of the machine says so, and comes after the whole machine's */
    rewrite(at("raw.json"), at("one.json"), on_threads, 1);
    rewrite(at("raw.json"), at("all.json"), on_threads, 16);
    assert_int_equal(table("--format", "markdown", at("one.json"), at("all.json")), 0);
    has("| fake | openmp_simd | size 100000 | 42.4 G terms/s |");
    has("| fake | openmp_simd | size 100000, 1 thread | 42.4 G terms/s |");
    assert_true(strstr(out, "size 100000 |") < strstr(out, "size 100000, 1 thread |"));
    assert_int_equal(table(at("one.json"), NULL, NULL, NULL), 0);
    has(",threads,real_time_s,error,peaks_file,fma_isa,repetitions\n");
    has(",1,,,,,,,1,"); /* ranks 1, ..., threads 1 */
    assert_int_equal(table("--format", "markdown", at("fail.json"), NULL), 0);
    has("| FAILED (1 of 3 checks) |");
}

static void test_usage(void **state)
{
    (void)state;
    assert_int_equal(table("--format", "xml", at("raw.json"), NULL), 2);
    assert_int_equal(table("--format", NULL, NULL, NULL), 2);
    assert_int_equal(table("--bogus", at("raw.json"), NULL, NULL), 2);
    assert_int_equal(table("--format", "markdown", NULL, NULL), 2); /* no path */
    assert_int_equal(table("/nonexistent.json", NULL, NULL, NULL), 2);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv),       cmocka_unit_test(test_markdown), cmocka_unit_test(test_peer), cmocka_unit_test(test_builds),
        cmocka_unit_test(test_profile),   cmocka_unit_test(test_case_text), cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
