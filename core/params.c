/* Backend names, --param tokens and the typed getters kernels call. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sb.h"

static const char *const backend_names[SB_BACKEND_COUNT] = {
    [SB_BACKEND_OPENMP_SIMD] = "openmp_simd",
    [SB_BACKEND_CUDA] = "cuda",
    [SB_BACKEND_REFERENCE] = "reference",
};

const char *sb_backend_name(sb_backend b)
{
    return ((int)b >= 0 && (int)b < SB_BACKEND_COUNT) ? backend_names[b] : "unknown";
}

int sb_backend_parse(const char *s, sb_backend *out)
{
    for (int b = 0; b < SB_BACKEND_COUNT; b++) {
        if (strcmp(s, backend_names[b]) == 0) {
            *out = (sb_backend)b;
            return SB_OK;
        }
    }
    sb_error("unknown backend '%s'; accepted: openmp_simd, cuda, reference", s);
    return SB_EXIT_USAGE;
}

void sb_params_init(sb_params *p)
{
    memset(p, 0, sizeof *p);
    p->reps = SB_DEFAULT_REPS;
    p->warmup = SB_DEFAULT_WARMUP;
    p->seed = SB_DEFAULT_SEED;
}

/* strtol and friends skip leading space and accept an empty string as 0. */
static int starts_clean(const char *s) { return s && *s && !isspace((unsigned char)*s); }

int sb_parse_long(const char *s, long *out)
{
    char *end;
    if (!starts_clean(s)) return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end) return -1;
    if (errno == ERANGE) return 1;
    *out = v;
    return 0;
}

int sb_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    /* strtoull silently negates "-1" into 2^64-1. */
    if (!starts_clean(s) || *s == '-' || *s == '+') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) return -1;
    if (errno == ERANGE) return 1;
    *out = (uint64_t)v;
    return 0;
}

int sb_parse_double(const char *s, double *out)
{
    char *end;
    if (!starts_clean(s)) return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || isnan(v)) return -1;
    if (isinf(v)) {
        /* "inf" typed by the user is malformed; 1e999 is merely too large. */
        return (errno == ERANGE) ? 1 : -1;
    }
    *out = v;
    return 0;
}

static sb_kv *find_kv(sb_params *p, const char *key)
{
    for (int i = 0; i < p->nkv; i++)
        if (strcmp(p->kv[i].key, key) == 0) return &p->kv[i];
    return NULL;
}

const char *sb_params_value(const sb_params *p, const char *key)
{
    for (int i = 0; i < p->nkv; i++)
        if (strcmp(p->kv[i].key, key) == 0) return p->kv[i].value;
    return NULL;
}

static int key_char_ok(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.'; }

static int check_key(const char *token, size_t klen)
{
    if (klen == 0) {
        sb_error("--param '%s' has an empty key; expected key=value", token);
        return SB_EXIT_USAGE;
    }
    if (klen >= sizeof(((sb_kv *)0)->key)) {
        sb_error("--param '%s': key longer than %zu characters", token, sizeof(((sb_kv *)0)->key) - 1);
        return SB_EXIT_USAGE;
    }
    for (size_t i = 0; i < klen; i++) {
        if (!key_char_ok(token[i])) {
            sb_error("--param '%s': key may only hold letters, digits, '_', '-', '.'", token);
            return SB_EXIT_USAGE;
        }
    }
    return SB_OK;
}

int sb_params_add(sb_params *p, const char *token)
{
    const char *eq = strchr(token, '=');
    if (!eq) {
        sb_error("--param '%s' lacks '='; expected key=value", token);
        return SB_EXIT_USAGE;
    }
    size_t klen = (size_t)(eq - token);
    int rc = check_key(token, klen);
    if (rc) return rc;
    const char *value = eq + 1;
    if (!*value) {
        sb_error("--param '%s' has an empty value; expected key=value", token);
        return SB_EXIT_USAGE;
    }
    if (strlen(value) >= sizeof p->kv[0].value) {
        sb_error("--param '%.*s': value longer than %zu characters", (int)klen, token, sizeof p->kv[0].value - 1);
        return SB_EXIT_USAGE;
    }
    char key[sizeof p->kv[0].key];
    memcpy(key, token, klen);
    key[klen] = '\0';
    const sb_kv *dup = find_kv(p, key);
    if (dup) {
        sb_error("--param %s given twice (%s=%s and %s)", key, dup->key, dup->value, token);
        return SB_EXIT_USAGE;
    }
    if (p->nkv >= SB_MAX_PARAMS) {
        sb_error("--param %s: more than %d parameters", token, SB_MAX_PARAMS);
        return SB_EXIT_USAGE;
    }
    sb_kv *kv = &p->kv[p->nkv++];
    memcpy(kv->key, key, klen + 1);
    memcpy(kv->value, value, strlen(value) + 1);
    kv->used = 0;
    return SB_OK;
}

/* Looks a key up for a getter and marks it used; NULL when absent. */
static const char *take(sb_params *p, const char *key)
{
    sb_kv *kv = find_kv(p, key);
    if (!kv) return NULL;
    kv->used = 1;
    return kv->value;
}

int sb_param_double(sb_params *p, const char *key, double def, double lo, double hi, double *out)
{
    const char *s = take(p, key);
    double v = def;
    if (s) {
        int rc = sb_parse_double(s, &v);
        if (rc < 0) {
            sb_error("--param %s=%s is not a finite number; accepted: a number in [%g, %g]", key, s, lo, hi);
            return SB_EXIT_USAGE;
        }
        if (rc > 0 || v < lo || v > hi) {
            sb_error("--param %s=%s is out of range; accepted: a number in [%g, %g]", key, s, lo, hi);
            return SB_EXIT_USAGE;
        }
    }
    *out = v;
    return SB_OK;
}

int sb_param_long(sb_params *p, const char *key, long def, long lo, long hi, long *out)
{
    const char *s = take(p, key);
    long v = def;
    if (s) {
        int rc = sb_parse_long(s, &v);
        if (rc < 0) {
            sb_error("--param %s=%s is not an integer; accepted: an integer in [%ld, %ld]", key, s, lo, hi);
            return SB_EXIT_USAGE;
        }
        if (rc > 0 || v < lo || v > hi) {
            sb_error("--param %s=%s is out of range; accepted: an integer in [%ld, %ld]", key, s, lo, hi);
            return SB_EXIT_USAGE;
        }
    }
    *out = v;
    return SB_OK;
}

/* choices is NULL-terminated; *out is the index of the match (def when absent). */
int sb_param_choice(sb_params *p, const char *key, const char *const *choices, int def, int *out)
{
    const char *s = take(p, key);
    if (!s) {
        *out = def;
        return SB_OK;
    }
    for (int i = 0; choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = i;
            return SB_OK;
        }
    }
    char list[512] = "";
    size_t len = 0;
    for (int i = 0; choices[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
    sb_error("--param %s=%s is not accepted; choices: %s", key, s, list);
    return SB_EXIT_USAGE;
}

const char *sb_param_string(sb_params *p, const char *key) { return take(p, key); }

const sb_param_spec sb_run_params[] = {
    {"comm", "auto",
     "MPI runs on cuda: how GPU data (halos, reductions) moves between ranks: auto (NCCL where every rank loads it "
     "and has a GPU of its own, else host), nccl (NCCL or exit 2), host (through pinned host memory and MPI)"},
    {"share_gpu", "0",
     "1: MPI ranks of one host may share a GPU (each then waits for the others' work); 0: more ranks than GPUs on "
     "a host is an error"},
    {NULL, NULL, NULL}};

int sb_params_check_unused(const sb_kernel *k, const sb_params *p)
{
    for (int i = 0; i < p->nkv; i++) {
        if (p->kv[i].used) continue;
        /* A parameter of the kernel that these settings never read (bsize_max without job=bsize):
         * its help says when it applies, which a list of accepted names would contradict. */
        for (int j = 0; k->params && k->params[j].key; j++)
            if (!strcmp(k->params[j].key, p->kv[i].key)) {
                sb_error("%s: --param %s is not used with these settings; it applies as its help says: %s", k->name,
                         p->kv[i].key, k->params[j].help ? k->params[j].help : "(no help)");
                return SB_EXIT_USAGE;
            }
        char list[512] = "";
        size_t len = 0;
        for (int j = 0; k->params && k->params[j].key && len < sizeof list; j++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", k->params[j].key);
        for (int j = 0; sb_run_params[j].key && len < sizeof list; j++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", sb_run_params[j].key);
        sb_error("%s does not accept --param %s; accepted: %s", k->name, p->kv[i].key, len ? list : "none");
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}
