/* scibench: see `scibench help` and DESIGN.md. */
#include "cli.h"
#include "commands.h"

int main(int argc, char **argv)
{
    sb_cli c;
    int rc = sb_cli_parse(argc, argv, &c);
    return rc ? rc : sb_command_run(&c, argv[0]);
}
