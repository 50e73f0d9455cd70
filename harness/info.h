/* `scibench info [--runs N] [--json FILE]`: this machine, its measured peaks, and with --json
 * its stored peaks file (peaks_file.h). */
#ifndef SB_INFO_H
#define SB_INFO_H

#define SB_INFO_USAGE "info [--runs N] [--json FILE]"
#define SB_INFO_MAX_RUNS 50

typedef struct {
    int runs;         /* 1..SB_INFO_MAX_RUNS; default 1, 5 with --json */
    const char *json; /* --json FILE: the peaks file, or NULL */
} sb_info_options;

/* SB_OK, or SB_EXIT_USAGE after one line (info_args.c). */
int sb_info_parse(int argc, char **argv, sb_info_options *o);

/* Only checks the arguments (after "info"): SB_OK or SB_EXIT_USAGE after one line. */
int sb_info_check_args(int argc, char **argv);

/* Prints the report; with --json writes the peaks file. The process exit code. */
int sb_info_main(int argc, char **argv);

#endif
