/* Shared by the fuzz harnesses: the input as a file the parser under test opens by path,
 * and the project's one-error-line rule checked on every input. */
#ifndef SB_FUZZ_UTIL_H
#define SB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A path whose file holds exactly data[0..size) (an in-memory file, rewritten per call). */
const char *fuzz_file(const uint8_t *data, size_t size);

/* sb_error lines since the last fuzz_errors_reset() (fuzz_stubs.c counts them). */
void fuzz_errors_reset(void);
int fuzz_errors(void);

/* Traps (a crash libFuzzer saves) unless a call that returned rc printed exactly one
 * error line when rc != 0 and none when rc == 0. */
void fuzz_expect_one_line(int rc);

/* Traps with a message when cond is false: an invariant of a parser's output. */
#define FUZZ_ASSERT(cond) ((cond) ? (void)0 : fuzz_fail(#cond, __FILE__, __LINE__))
void fuzz_fail(const char *what, const char *file, int line) __attribute__((noreturn));

#endif
