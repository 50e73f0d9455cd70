/* `scibench table [--format csv|markdown] PATH...`: one line per case of the
 * result files or folders. CSV for tools (plots, rerun, report); markdown for
 * READMEs, compact, every cell a number with its unit. */
#ifndef SB_TABLE_H
#define SB_TABLE_H

#include <stdio.h>

#define SB_TABLE_USAGE "table [--format csv|markdown] PATH..."

/* argv holds the arguments after "table". SB_OK, or SB_EXIT_USAGE after one
 * line on stderr (a bad option, an unreadable path). */
int sb_table_main(int argc, char **argv, FILE *out);

#endif
