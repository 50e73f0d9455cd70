/* Carries out a parsed command line; returns the process exit code. */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

#include "cli.h"

int sb_command_run(sb_cli *c, const char *exe);

#endif
