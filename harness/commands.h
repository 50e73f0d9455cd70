/* Carries out a parsed command line; returns the process exit code. */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

#include "cli.h"

int sb_command_run(sb_cli *c, const char *exe);

/* A command reports its first error only (messages.c): what follows it (allocations after a
 * failed one, a teardown after a failed launch) is its consequence, not news. main sets it;
 * the unit tests, which call the harness directly, keep every message. */
void sb_errors_first_only(void);

#endif
