/* Diagnostics: errors always reach stderr; progress only decorates a terminal
 * (a redirected stderr or --quiet must stay clean for scripts and CI logs). */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "messages.h"
#include "sb.h"

static int quiet;
static int rank, ranks = 1;
static int all_ranks_speak; /* before a case's setup every rank fails alike: rank 0 speaks */

void sb_errors_from_all_ranks(int on) { all_ranks_speak = on; }
static int progress_shown;
static int first_only, errors_said;

void sb_errors_first_only(void) { first_only = 1; }

void sb_set_quiet(int q) { quiet = q; }

void sb_messages_set_rank(int r, int n) { rank = r, ranks = n; }

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
    char msg[2048];
    if (rank > 0 && !all_ranks_speak) return;
    if (first_only && errors_said++) return;
    sb_progress_done();
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one line, whatever a message quotes from a file (a name holding a newline, a CR) */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    if (ranks > 1)
        fprintf(stderr, "scibench[rank %d]: error: %s\n", rank, msg);
    else
        fprintf(stderr, "scibench: error: %s\n", msg);
}

void sb_progress(const char *fmt, ...)
{
    va_list ap;
    if (quiet || rank > 0 || !isatty(STDERR_FILENO)) return;
    fputs("\r\033[K", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = 1;
}
