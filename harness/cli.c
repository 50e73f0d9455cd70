#include <limits.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "info.h"
#include "params.h"
#include "registry.h"

#define OPTION_LIST "--backend, --size, --reps, --warmup, --seed, --param, --json, --baseline, --profile, --quiet"

typedef struct {
    int reps_given, warmup_given;
} seen;

/* Range-checked integer option; lo..hi in the message is what the user may type. */
static int int_option(const char *opt, const char *s, long lo, long hi, int *out)
{
    long v;
    int rc = sb_parse_long(s, &v);
    if (rc < 0) {
        sb_error("%s '%s' is not an integer; accepted: %ld..%ld", opt, s, lo, hi);
        return SB_EXIT_USAGE;
    }
    if (rc > 0 || v < lo || v > hi) {
        sb_error("%s %s is out of range; accepted: %ld..%ld", opt, s, lo, hi);
        return SB_EXIT_USAGE;
    }
    *out = (int)v;
    return SB_OK;
}

static int seed_option(const char *s, uint64_t *out)
{
    if (sb_parse_u64(s, out) == 0) return SB_OK;
    sb_error("--seed '%s' is not an unsigned 64-bit integer; accepted: 0..18446744073709551615", s);
    return SB_EXIT_USAGE;
}

static int path_option(const char *opt, const char *s, const char **out)
{
    if (!*s) {
        sb_error("%s needs a file path, got an empty string", opt);
        return SB_EXIT_USAGE;
    }
    *out = s;
    return SB_OK;
}

static int json_option(const char *s, const char **out) { return path_option("--json", s, out); }

static int apply(sb_cli *c, seen *sn, const char *name, const char *val)
{
    sb_params *p = &c->params;
    if (!strcmp(name, "backend")) return sb_backend_parse(val, &c->backend);
    if (!strcmp(name, "size")) return c->size_text = val, SB_OK;
    if (!strcmp(name, "reps")) {
        sn->reps_given = 1;
        return int_option("--reps", val, 1, SB_MAX_REPS, &p->reps);
    }
    if (!strcmp(name, "warmup")) {
        sn->warmup_given = 1;
        return int_option("--warmup", val, 0, SB_MAX_WARMUP, &p->warmup);
    }
    if (!strcmp(name, "seed")) return seed_option(val, &p->seed);
    if (!strcmp(name, "param")) return sb_params_add(p, val);
    if (!strcmp(name, "json")) return json_option(val, &p->json_path);
    if (!strcmp(name, "baseline")) return path_option("--baseline", val, &p->baseline_path);
    return SB_EXIT_USAGE; /* unreachable: names are checked by the caller */
}

static int takes_value(const char *name)
{
    static const char *const with_value[] = {"backend", "size", "reps", "warmup", "seed", "param", "json", "baseline", NULL};
    for (int i = 0; with_value[i]; i++)
        if (!strcmp(name, with_value[i])) return 1;
    return strcmp(name, "quiet") == 0 || strcmp(name, "profile") == 0 ? 0 : -1;
}

#define OPTION_NAME_MAX 32
/* arg as "--name" or "--name=value": the name into name, and takes_value's kind; -1 where arg
 * names no option ("-x", a lone "-", an unknown or overlong name) */
static int option_kind(const char *arg, char name[OPTION_NAME_MAX])
{
    if (strncmp(arg, "--", 2)) return -1;
    const size_t len = strcspn(arg + 2, "=");
    if (len >= OPTION_NAME_MAX) return -1;
    snprintf(name, OPTION_NAME_MAX, "%.*s", (int)len, arg + 2);
    return takes_value(name);
}

/* One "--opt", "--opt value" or "--opt=value" at argv[*i]; advances *i past a separate value. */
static int option(sb_cli *c, seen *sn, int argc, char **argv, int *i)
{
    const char *arg = argv[*i], *eq = strchr(arg, '=');
    char name[OPTION_NAME_MAX], next[OPTION_NAME_MAX];
    const int kind = option_kind(arg, name);
    if (kind < 0) {
        sb_error("unknown option '%s'; accepted: " OPTION_LIST, arg);
        return SB_EXIT_USAGE;
    }
    if (kind == 0) {
        if (eq) {
            sb_error("option --%s takes no value, got '%s'", name, arg);
            return SB_EXIT_USAGE;
        }
        if (!strcmp(name, "quiet"))
            c->params.quiet = 1;
        else
            c->profile = 1;
        return SB_OK;
    }
    if (eq) return apply(c, sn, name, eq + 1);
    if (*i + 1 >= argc) {
        sb_error("option --%s needs a value", name);
        return SB_EXIT_USAGE;
    }
    const char *val = argv[*i + 1];
    if (option_kind(val, next) >= 0) { /* "--json --quiet": a forgotten value, not a file named --quiet */
        sb_error("option --%s needs a value, got the option '%s'; for a value that starts with two dashes "
                 "write --%s=%s",
                 name, val, name, val);
        return SB_EXIT_USAGE;
    }
    ++*i;
    return apply(c, sn, name, val);
}

/* --size against the kernel's own range (0: its default). An unknown kernel is reported when
 * the command looks it up; its size is held only to an int >= 0 here. */
static int size_option(sb_cli *c)
{
    const sb_kernel *k = NULL;
    char range[160];
    long v;
    if (!c->size_text) return SB_OK;
    for (int i = 0; i < sb_registry_count() && !k; i++)
        if (!strcmp(sb_registry_at(i)->name, c->kernel)) k = sb_registry_at(i);
    if (k)
        snprintf(range, sizeof range, "%d..%d for %s (%s), or 0 for its default %d", k->min_size, k->max_size, k->name,
                 k->size_meaning ? k->size_meaning : "size", k->default_size);
    else
        snprintf(range, sizeof range, "the kernel's range (see 'scibench list'), or 0 for its default");
    int rc = sb_parse_long(c->size_text, &v);
    if (rc < 0) {
        sb_error("--size '%s' is not an integer; accepted: %s", c->size_text, range);
        return SB_EXIT_USAGE;
    }
    if (rc > 0 || v < 0 || v > INT_MAX || (k && v != 0 && (v < k->min_size || v > k->max_size))) {
        sb_error("--size %s is out of range; accepted: %s", c->size_text, range);
        return SB_EXIT_USAGE;
    }
    c->params.size = (int)v;
    return SB_OK;
}

static int parse_case(sb_cli *c, int argc, char **argv)
{
    seen sn = {0, 0};
    for (int i = 2; i < argc; i++) {
        int rc;
        if (argv[i][0] == '-') {
            rc = option(c, &sn, argc, argv, &i);
        } else if (!c->kernel) {
            c->kernel = argv[i];
            rc = SB_OK;
        } else {
            sb_error("unexpected argument '%s'; %s takes one KERNEL (already '%s')", argv[i], argv[1], c->kernel);
            rc = SB_EXIT_USAGE;
        }
        if (rc) return rc;
    }
    if (!c->kernel) {
        sb_error("%s needs a KERNEL; see 'scibench list'", argv[1]);
        return SB_EXIT_USAGE;
    }
    int rc = size_option(c);
    if (rc) return rc;
    /* A validation needs one repetition and no warm-up unless asked otherwise. */
    if (c->cmd == SB_CMD_VALIDATE) {
        if (!sn.reps_given) c->params.reps = 1;
        if (!sn.warmup_given) c->params.warmup = 0;
    }
    return SB_OK;
}

static int command(const char *s, sb_command *out)
{
    static const struct {
        const char *name;
        sb_command cmd;
    } table[] = {{"help", SB_CMD_HELP},   {"--help", SB_CMD_HELP}, {"-h", SB_CMD_HELP},
                 {"--version", SB_CMD_VERSION}, {"list", SB_CMD_LIST}, {"info", SB_CMD_INFO},
                 {"run", SB_CMD_RUN},     {"validate", SB_CMD_VALIDATE}, {"compare", SB_CMD_COMPARE},
                 {"table", SB_CMD_TABLE}, {"machine", SB_CMD_MACHINE}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!strcmp(s, table[i].name)) {
            *out = table[i].cmd;
            return SB_OK;
        }
    }
    sb_error("unknown command '%s'; accepted: list, info, run, validate, compare, table, machine, help, --version", s);
    return SB_EXIT_USAGE;
}

int sb_cli_parse(int argc, char **argv, sb_cli *out)
{
    memset(out, 0, sizeof *out);
    sb_params_init(&out->params);
    out->backend = SB_BACKEND_OPENMP_SIMD;
    if (argc < 2) {
        sb_error("no command given; try 'scibench help'");
        return SB_EXIT_USAGE;
    }
    int rc = command(argv[1], &out->cmd);
    if (rc) return rc;
    if (out->cmd == SB_CMD_RUN || out->cmd == SB_CMD_VALIDATE) return parse_case(out, argc, argv);
    if (out->cmd == SB_CMD_COMPARE || out->cmd == SB_CMD_TABLE || out->cmd == SB_CMD_INFO) {
        out->nargs = argc - 2;
        out->args = argv + 2;
        if (out->cmd == SB_CMD_COMPARE) return sb_compare_check_args(out->nargs, out->args);
        if (out->cmd == SB_CMD_INFO) return sb_info_check_args(out->nargs, out->args);
        if (out->nargs > 0) return SB_OK;
        sb_error("table needs result files or folders, e.g. 'scibench table results/h200'");
        return SB_EXIT_USAGE;
    }
    if (argc > 2) {
        sb_error("'%s' takes no arguments, got '%s'", argv[1], argv[2]);
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}

void sb_cli_help(FILE *out)
{
    fputs("usage: scibench COMMAND [...]\n"
          "\n"
          "commands\n"
          "  list                     kernels, their sizes and parameters; backends available here\n"
          "  info [--runs N] [--json FILE]  this machine, with measured peak bandwidth and FMA rates;\n"
          "                           --runs N measures them in N processes (median, range); --json\n"
          "                           writes the machine's stored peaks (default 5 runs), what\n"
          "                           results/<machine>/peaks.json holds (see 'stored peaks' below)\n"
          "  run KERNEL [options]     time KERNEL, validate it, print the report\n"
          "  validate KERNEL [opts]   run once (1 rep, 0 warm-ups by default) and print the validation\n"
          "  compare OLD NEW [...]    compare two result files or folders: ratio, noise band, validation;\n"
          "                           exit 1 on a regression or a validation change (see below)\n"
          "  table [--format F] PATH...  every result in files or folders, one line each: csv (default,\n"
          "                           what 'make plot' reads) or markdown (README tables)\n"
          "  machine                  this machine's id: the results/<machine>/ folder its results go to\n"
          "  help, --help             this text\n"
          "  --version                build provenance: git commit, compilers, -march\n"
          "\n"
          "options (also as --option=value)\n"
          "  --backend B     openmp_simd (default), cuda, reference (the scalar oracle)\n"
          "  --size N        problem size in the kernel's range; 0 or absent = the kernel's default\n"
          "                  (both in 'list')\n"
          "  --reps R        timed repetitions, 1..100000 (default 5)\n"
          "  --warmup W      untimed repetitions first, 0..100000 (default 1)\n"
          "  --seed S        input seed, 0..2^64-1 (default 1)\n"
          "  --param K=V     kernel parameter, repeatable (see 'list')\n"
          "  --json FILE     also write Google Benchmark JSON to FILE (never a partial file); a FILE\n"
          "                  that cannot be written is refused before the run\n"
          "  --baseline FILE a one-rank JSON of the same kernel and backend: under mpirun, report the\n"
          "                  parallel efficiency, items/s / (ranks x its items/s) (weak or strong\n"
          "                  scaling alike: items count the whole problem)\n"
          "  --profile       after the timed repetitions, one untimed repetition read by hardware\n"
          "                  counters: GPU through Nsight Compute's ncu (SB_NCU=path; SB_PROFILE_REPS=N\n"
          "                  counts N and reports their mean), CPU through PAPI;\n"
          "                  measured DRAM bytes, occupancy, pipe use, cache hit rates and access\n"
          "                  efficiency per CUDA kernel, measured/model ratios; one line and the normal\n"
          "                  results where this machine has no readable counters\n"
          "  --quiet         no progress line on stderr\n"
          "\n"
          "compare OLD NEW (files or folders: *.json and one level of subfolders, hyperfine/ skipped)\n"
          "  --threshold T   a drop of more than T (default 0.10) beyond the noise band is a REGRESSION;\n"
          "                  noise = sqrt(a^2 + b^2), a and b each side's 3 x median absolute\n"
          "                  deviation / median of its repetitions' items/s (half the min..max\n"
          "                  range when a file has fewer than 3 repetitions)\n"
          "  --format F      table (default), markdown, csv, json\n"
          "  --normalise N   none (default): items/s; peak: % of roofline on each file's machine\n"
          "                  (measured peak bandwidth and FMA rate), to compare across hardware\n"
          "  different machines: the files' machine class differs (context.machine, what 'scibench\n"
          "  machine' prints), or within one class the model of what the backend ran on (the GPU for\n"
          "  cuda, the CPU otherwise). Without --normalise peak such rows get no speed verdict\n"
          "  ('other machine', never REGRESSION) and one line names the machines.\n"
          "  cases match on kernel, backend, size, params and seed; a case on one side only is listed;\n"
          "  no case in common is a usage error (exit 2).\n"
          "  A validation change: PASS -> FAIL, a check gone, a check value moved beyond its own\n"
          "  tolerance, or a stored verdict its own numbers contradict.\n"
          "  FMA roof per ISA: two CPU rows of one machine whose FMA probes ran with different\n"
          "  instruction sets (AVX2, AVX-512: files of two builds from before the probe chose its own)\n"
          "  are both divided by the higher FMA roof, so builds compare by throughput.\n"
          "  Other Google Benchmark JSON: an entry without items_per_second is compared by its\n"
          "  real_time (lower is better); one with error_occurred fails in NEW (exit 1); Complexity()\n"
          "  fits (BigO, RMS) are listed and skipped.\n"
          "\n"
          "stored peaks\n"
          "  results/<machine>/peaks.json ('scibench info --json FILE', 5 runs, a process each: the\n"
          "  median and range of each probe) is the one probe set of that folder: table, compare and\n"
          "  the tools divide the folder's runs of that machine (class and CPU or GPU model) by it\n"
          "  instead of each run's own probes; MPI runs by it times their devices.\n"
          "\n"
          "units\n"
          "  time per repetition in ms (median, min, max; CUDA events on GPU, monotonic clock on CPU);\n"
          "  throughput in the kernel's items/s; bandwidth in GB/s (10^9 B/s) from the kernel's byte\n"
          "  model; FLOP rate in GFLOP/s (an FMA counts 2); % of peak against this machine's measured\n"
          "  copy (GPU) or STREAM triad (CPU) bandwidth and FMA rate. JSON times are in ms, rates per s.\n"
          "\n"
          "exit codes\n"
          "  0  ran and validation passed      2  usage error or backend unavailable\n"
          "  1  validation failed              3  runtime error\n"
          "  compare: 0 no regression, 1 a regression, a validation change or a benchmark error in\n"
          "  NEW, 2 usage (also: no case in common)\n",
          out);
}
