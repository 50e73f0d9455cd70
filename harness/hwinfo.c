#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwinfo.h"

#define MAX_TOKENS 16
#define TOKEN_LEN 32

/* Brand words say nothing about the machine class. */
static int is_brand(const char *t)
{
    static const char *const brands[] = {"nvidia", "tesla", "geforce", "quadro", NULL};
    for (int i = 0; brands[i]; i++)
        if (strcmp(t, brands[i]) == 0) return 1;
    return 0;
}

/* Model numbers look like h100, a100, gh200, l40s, t4, a6000: 1-3 letters,
 * digits, at most one trailing letter. */
static int is_model(const char *t)
{
    size_t i = 0, letters, digits;
    while (isalpha((unsigned char)t[i])) i++;
    letters = i;
    while (isdigit((unsigned char)t[i])) i++;
    digits = i - letters;
    if (letters < 1 || letters > 3 || digits < 1) return 0;
    return t[i] == '\0' || (isalpha((unsigned char)t[i]) && t[i + 1] == '\0');
}

static int tokenize(const char *s, char tok[MAX_TOKENS][TOKEN_LEN])
{
    int n = 0;
    while (*s && n < MAX_TOKENS) {
        while (*s && !isalnum((unsigned char)*s)) s++;
        size_t len = 0;
        while (isalnum((unsigned char)*s)) {
            if (len < TOKEN_LEN - 1) tok[n][len++] = (char)tolower((unsigned char)*s);
            s++;
        }
        tok[n][len] = '\0';
        if (len && !is_brand(tok[n])) n++;
    }
    return n;
}

void sb_gpu_slug(const char *gpu_name, char *out, size_t n)
{
    char tok[MAX_TOKENS][TOKEN_LEN];
    int nt = tokenize(gpu_name, tok);
    for (int i = 0; i < nt; i++) {
        if (is_model(tok[i])) {
            snprintf(out, n, "%s", tok[i]);
            return;
        }
    }
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < nt && len + 1 < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "-" : "", tok[i]);
    if (!out[0]) snprintf(out, n, "gpu");
}

/* Prefer the sysfs maximum (stable) over /proc/cpuinfo's current clock. */
static double read_cpu_mhz(void)
{
    double mhz = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (f) {
        double khz;
        if (fscanf(f, "%lf", &khz) == 1) mhz = khz / 1000.0;
        fclose(f);
        if (mhz > 0) return mhz;
    }
    f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "cpu MHz", 7) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) mhz = atof(colon + 1);
            break;
        }
    }
    fclose(f);
    return mhz;
}

static void probe_gpu(sb_hwinfo *h)
{
    const char *why = NULL;
    h->have_gpu = 0;
    if (!sb_cuda_available(&why)) {
        snprintf(h->gpu_why, sizeof h->gpu_why, "%s", why ? why : "no CUDA device");
        return;
    }
    if (sb_cuda_init(&h->gpu) != 0) {
        snprintf(h->gpu_why, sizeof h->gpu_why, "CUDA device initialisation failed");
        return;
    }
    h->have_gpu = 1;
}

void sb_hwinfo_get(sb_hwinfo *h)
{
    memset(h, 0, sizeof *h);
    sb_cpu_get_info(&h->cpu);
    h->cpu_mhz = read_cpu_mhz();
    if (gethostname(h->hostname, sizeof h->hostname - 1) != 0) snprintf(h->hostname, sizeof h->hostname, "unknown");
    probe_gpu(h);
    const char *env = getenv("SB_MACHINE");
    if (env && *env)
        snprintf(h->machine, sizeof h->machine, "%s", env);
    else if (h->have_gpu)
        sb_gpu_slug(h->gpu.name, h->machine, sizeof h->machine);
    else
        snprintf(h->machine, sizeof h->machine, "cpu-%dcore", h->cpu.logical_cpus);
}
