/* LD_PRELOAD shim for tests/harness/cli_test.sh: holds scibench's JSON writer at its rename(), the
 * complete temporary written and not yet renamed onto FILE, so that the test can send a
 * signal while the file is being written. With SB_STALL_READY and SB_STALL_GATE set, rename()
 * first writes the temporary's path to SB_STALL_READY, then waits until the test opens the FIFO
 * SB_STALL_GATE for writing and closes it; without them it is the plain rename(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *ready = getenv("SB_STALL_READY"), *gate = getenv("SB_STALL_GATE");
    if (ready && gate) {
        FILE *f = fopen(ready, "w");
        if (f) {
            fprintf(f, "%s\n", from);
            fclose(f);
        }
        int fd = open(gate, O_RDONLY); /* a FIFO: returns once a writer opens it */
        char c;
        while (fd >= 0 && read(fd, &c, 1) > 0) continue;
        if (fd >= 0) close(fd);
    }
    return real(from, to);
}
