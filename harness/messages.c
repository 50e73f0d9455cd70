/* Diagnostics: errors always reach stderr; progress only decorates a terminal
 * (a redirected stderr or --quiet must stay clean for scripts and CI logs). */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "sb.h"

static int quiet;
static int progress_shown;

void sb_set_quiet(int q) { quiet = q; }

/* Erases the progress line so an error or the report starts on a clean line. */
void sb_progress_done(void)
{
    if (!progress_shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress_shown = 0;
}

void sb_error(const char *fmt, ...)
{
    va_list ap;
    sb_progress_done();
    fputs("scibench: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void sb_progress(const char *fmt, ...)
{
    va_list ap;
    if (quiet || !isatty(STDERR_FILENO)) return;
    fputs("\r\033[K", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = 1;
}
