/* proc.h: run a program, feed its stdin, capture stdout and stderr, with a
 * timeout; decode how it ended. Used for ptxas and fatbinary. */
#ifndef TILE_PROC_H
#define TILE_PROC_H
#include <stddef.h>
#include "strbuf.h"

typedef enum ProcEnd { PROC_EXITED, PROC_SIGNALED, PROC_TIMED_OUT, PROC_NOT_STARTED } ProcEnd;

typedef struct ProcResult {
	ProcEnd end;
	int code;          /* exit status, signal number, or errno (PROC_NOT_STARTED) */
	StrBuf out, err;   /* captured output */
	char what[160];    /* proc_describe's text */
} ProcResult;

/* argv[0] is looked up on PATH. timeout_ms <= 0: no limit. Returns 0 when the
 * program exited with status 0, else -1 (see r->end, r->code). */
int proc_run(char *const argv[], const void *in, size_t inlen, int timeout_ms, ProcResult *r);
/* the same in environment envp (NULL: this process's) */
int proc_run_env(char *const argv[], char *const envp[], const void *in, size_t inlen, int timeout_ms,
		 ProcResult *r);
/* "exited with status 2", "was killed by signal 11 (Segmentation fault)", ...
 * (written into r->what, so it lives as long as r) */
const char *proc_describe(ProcResult *r);
void proc_result_free(ProcResult *r);
#endif
