/* `scibench info`'s arguments (apart from info.c, which measures: the CLI and its fuzz target
 * check them without the probes). */
#include <stdio.h>
#include <string.h>

#include "info.h"
#include "params.h"
#include "sb.h"

int sb_info_parse(int argc, char **argv, sb_info_options *o)
{
    o->runs = 0;
    o->json = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *val = NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        int runs = len == 6 && !strncmp(a, "--runs", 6), json = len == 6 && !strncmp(a, "--json", 6);
        if (!runs && !json) {
            sb_error("info: unknown argument '%s'; usage: scibench " SB_INFO_USAGE, a);
            return SB_EXIT_USAGE;
        }
        val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!val) {
            sb_error("info: option %.*s needs a value", (int)len, a);
            return SB_EXIT_USAGE;
        }
        if (!eq && (!strncmp(val, "--runs", 6) || !strncmp(val, "--json", 6))) { /* a forgotten value */
            sb_error("info: option %.*s needs a value, got the option '%s'", (int)len, a, val);
            return SB_EXIT_USAGE;
        }
        if (json) {
            if (!*val) {
                sb_error("info: --json needs a file path, got an empty string");
                return SB_EXIT_USAGE;
            }
            o->json = val;
            continue;
        }
        long n;
        if (sb_parse_long(val, &n) != 0 || n < 1 || n > SB_INFO_MAX_RUNS) {
            sb_error("info: --runs '%s' is not a count of runs; accepted: 1..%d", val, SB_INFO_MAX_RUNS);
            return SB_EXIT_USAGE;
        }
        o->runs = (int)n;
    }
    if (!o->runs) o->runs = o->json ? 5 : 1;
    return SB_OK;
}

int sb_info_check_args(int argc, char **argv)
{
    sb_info_options o;
    return sb_info_parse(argc, argv, &o);
}
