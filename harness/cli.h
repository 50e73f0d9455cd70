/* Command-line parsing: argv to a command and its sb_params, nothing run. */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdio.h>

#include "sb.h"

typedef enum {
    SB_CMD_HELP, SB_CMD_VERSION, SB_CMD_LIST, SB_CMD_INFO, SB_CMD_RUN, SB_CMD_VALIDATE,
    SB_CMD_COMPARE, SB_CMD_TABLE, SB_CMD_MACHINE
} sb_command;

typedef struct {
    sb_command cmd;
    const char *kernel; /* run/validate: points into argv */
    sb_backend backend;
    sb_params params;
    int profile;       /* --profile */
    const char *size_text; /* --size as given: checked once the kernel (its range) is known */
    int nargs;   /* compare/table: the arguments after the command, parsed by them */
    char **args;
} sb_cli;

/* SB_OK, or SB_EXIT_USAGE after one line on stderr naming the bad option or
 * value and what is accepted. validate defaults to 1 rep and 0 warm-ups. */
int sb_cli_parse(int argc, char **argv, sb_cli *out);

void sb_cli_help(FILE *out);

#endif
