/* Where a kernel's data files are. In the source tree kernel k's file <rel> is
 * kernels/k/data/<rel>; `make install PREFIX=P` puts it at P/share/scibench/k/<rel> beside
 * P/bin/scibench. Looked for, in order:
 *  1. $SB_DATA, when set: SB_DATA/kernels/k/data/<rel> (SB_DATA a repository root),
 *     SB_DATA/k/<rel> (an installed share/scibench), SB_DATA/<rel> (k's data directory
 *     itself). Nothing else is tried, so a wrong SB_DATA is an error, never a fallback to
 *     other files.
 *  2. From the executable (/proc/self/exe, symbolic links resolved), so that a binary finds
 *     its own data whatever the working directory: ../share/scibench/k/<rel> (installed),
 *     then ../kernels/k/data/<rel> and ../../kernels/k/data/<rel> (build/scibench and
 *     build/tests/<test> in a source tree).
 *  3. ./kernels/k/data/<rel>: a binary copied out of its tree, run from the repository root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb.h"

static int found(char *out, size_t n, const char *a, const char *b, const char *c, const char *rel)
{
    const int len = snprintf(out, n, "%s%s%s%s", a, b, c, rel);
    return len > 0 && (size_t)len < n && access(out, R_OK) == 0;
}

int sb_data_path(const char *kernel, const char *rel, char *out, size_t n)
{
    char sub[256], kdir[256];
    snprintf(sub, sizeof sub, "kernels/%s/data/", kernel);
    snprintf(kdir, sizeof kdir, "%s/", kernel);
    const char *env = getenv("SB_DATA");
    if (env && env[0]) {
        if (found(out, n, env, "/", sub, rel) || found(out, n, env, "/", kdir, rel) ||
            found(out, n, env, "/", "", rel))
            return SB_OK;
        sb_error("%s: data file %s not found under SB_DATA=%s (expected a repository root, an installed "
                 "share/scibench or kernels/%s/data)",
                 kernel, rel, env, kernel);
        return SB_EXIT_USAGE;
    }
    char exe[4096];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            slash[1] = '\0'; /* the executable's directory, with its slash */
            if (found(out, n, exe, "../share/scibench/", kdir, rel) || found(out, n, exe, "../", sub, rel) ||
                found(out, n, exe, "../../", sub, rel))
                return SB_OK;
        }
    }
    if (found(out, n, "", "", sub, rel)) return SB_OK;
    sb_error("%s: data file %s not found beside the executable (../share/scibench/%s/ installed, "
             "kernels/%s/data/ in a source tree) nor in the working directory; set SB_DATA to the repository root "
             "or to the installed share/scibench",
             kernel, rel, kernel, kernel);
    return SB_EXIT_USAGE;
}
