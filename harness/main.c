/* scibench: see `scibench help` and docs/DESIGN.md. */
#include "cli.h"
#include "commands.h"
#include "messages.h"
#include "sb_mpi.h"

int main(int argc, char **argv)
{
    sb_cli c;
    sb_mpi_init(&argc, &argv);
    sb_errors_first_only();
    int rc = sb_cli_parse(argc, argv, &c);
    /* Under mpirun every rank runs a case; any other command is rank 0's alone. */
    int cased = !rc && (c.cmd == SB_CMD_RUN || c.cmd == SB_CMD_VALIDATE);
    if (!rc && (cased || sb_mpi_rank() == 0)) rc = sb_command_run(&c, argv[0]);
    sb_mpi_finalize();
    return rc;
}
