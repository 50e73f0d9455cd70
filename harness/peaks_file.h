/* A machine's stored peaks (results/<machine>/peaks.json, written by `scibench info --json`):
 * the one probe set its folder's tables, pictures and `compare --normalise peak` divide by,
 * instead of each run's own probes. */
#ifndef SB_PEAKS_FILE_H
#define SB_PEAKS_FILE_H

#include <jansson.h>

#define SB_PEAKS_FILE "peaks.json"

/* One probe over the runs that measured it: value is their median, min and max their range. */
typedef struct {
    double value, min, max;
    int runs;
} sb_stored_probe;

typedef struct {
    char machine[64];   /* the machine class the peaks are of ("h100", "cpu-16core") */
    char cpu_model[128], gpu_name[128];
    char commit[48];
    int have_cpu, have_gpu;
    sb_stored_probe cpu[3]; /* triad bandwidth, FMA fp32, FMA fp64 */
    sb_stored_probe gpu[3]; /* copy bandwidth, FMA fp32, FMA fp64 */
    char fma_isa[32];   /* the CPU FMA probe's instruction set */
} sb_stored_peaks;

/* Reads path. SB_OK; SB_EXIT_USAGE after one line naming the file and the field. */
int sb_peaks_file_read(const char *path, sb_stored_peaks *out);

/* The JSON object of one probe: {"value", "min", "max", "runs", "relative_spread"}. */
json_t *sb_stored_probe_json(const sb_stored_probe *p);

#endif
