#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peaks_file.h"
#include "sb.h"

static const char *const CPU_KEY[3] = {"triad_bandwidth_Bps", "fma_fp32_flops", "fma_fp64_flops"};
static const char *const GPU_KEY[3] = {"copy_bandwidth_Bps", "fma_fp32_flops", "fma_fp64_flops"};

json_t *sb_stored_probe_json(const sb_stored_probe *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "value", json_real(p->value));
    json_object_set_new(o, "min", json_real(p->min));
    json_object_set_new(o, "max", json_real(p->max));
    json_object_set_new(o, "runs", json_integer(p->runs));
    json_object_set_new(o, "relative_spread", json_real(p->value > 0 ? (p->max - p->min) / p->value : 0));
    return o;
}

static int bad(const char *path, const char *field, const char *what)
{
    sb_error("%s: field \"%s\" %s", path, field, what);
    return SB_EXIT_USAGE;
}

static double number(json_t *o, const char *k) { return json_is_number(json_object_get(o, k)) ? json_number_value(json_object_get(o, k)) : NAN; }

static int probe(const char *path, const char *side, json_t *o, const char *key, sb_stored_probe *p)
{
    char field[96];
    json_t *v = json_object_get(o, key);
    snprintf(field, sizeof field, "%s.%s", side, key);
    if (!json_is_object(v)) return bad(path, field, "is missing or not an object; expected {value, min, max, runs}");
    p->value = number(v, "value");
    p->min = number(v, "min");
    p->max = number(v, "max");
    p->runs = json_is_integer(json_object_get(v, "runs")) ? (int)json_integer_value(json_object_get(v, "runs")) : 0;
    if (!(p->value > 0) || !isfinite(p->value) || !(p->min > 0) || !(p->max >= p->min) || !isfinite(p->max) ||
        p->runs < 1)
        return bad(path, field, "needs value > 0, 0 < min <= max and runs >= 1");
    return SB_OK;
}

static void copy_str(json_t *o, const char *key, char *out, size_t n)
{
    json_t *v = json_object_get(o, key);
    snprintf(out, n, "%s", json_is_string(v) ? json_string_value(v) : "");
}

int sb_peaks_file_read(const char *path, sb_stored_peaks *out)
{
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    int rc = SB_OK;
    memset(out, 0, sizeof *out);
    if (!root) {
        sb_error("cannot read %s: %s (line %d)", path, err.text, err.line);
        return SB_EXIT_USAGE;
    }
    json_t *cpu = json_object_get(root, "cpu"), *gpu = json_object_get(root, "gpu");
    if (!json_is_object(root) || !json_is_string(json_object_get(root, "machine")))
        rc = bad(path, "machine", "is missing; expected the machine class, a string (not a peaks file?)");
    else if ((cpu && !json_is_object(cpu) && !json_is_null(cpu)) || (gpu && !json_is_object(gpu) && !json_is_null(gpu)))
        rc = bad(path, json_is_object(cpu) || json_is_null(cpu) ? "gpu" : "cpu", "is not an object or null");
    copy_str(root, "machine", out->machine, sizeof out->machine);
    copy_str(root, "git_commit", out->commit, sizeof out->commit);
    out->have_cpu = json_is_object(cpu);
    out->have_gpu = json_is_object(gpu);
    for (int k = 0; !rc && out->have_cpu && k < 3; k++) rc = probe(path, "cpu", cpu, CPU_KEY[k], &out->cpu[k]);
    for (int k = 0; !rc && out->have_gpu && k < 3; k++) rc = probe(path, "gpu", gpu, GPU_KEY[k], &out->gpu[k]);
    copy_str(cpu, "model", out->cpu_model, sizeof out->cpu_model);
    copy_str(cpu, "fma_isa", out->fma_isa, sizeof out->fma_isa);
    copy_str(gpu, "name", out->gpu_name, sizeof out->gpu_name);
    if (!rc && !out->have_cpu && !out->have_gpu) rc = bad(path, "cpu", "and \"gpu\" are both missing: no peaks");
    json_decref(root);
    return rc;
}
