/* proc.h: run a program, feed its stdin, capture stdout and stderr, with a
 * timeout; decode how it ended. Used for ptxas and fatbinary. A run is
 * proc_start then proc_finish, so a caller may work while the program runs
 * (tile-pack starts ptxas before its inputs are all written). */
#ifndef TILE_PROC_H
#define TILE_PROC_H
#include <stdbool.h>
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
/* Start argv (in: its stdin, borrowed until proc_finish); 0, or -1 with
 * r->end PROC_NOT_STARTED. The program's output waits in pipes (it blocks
 * when one fills) until proc_finish, which drains them, feeds stdin, waits
 * for the exit (timeout_ms from the call; <= 0: no limit) and returns as
 * proc_run. proc_cancel kills the program and reaps it (r says how). Every
 * started Proc is finished or cancelled exactly once. */
typedef struct Proc {
	int pid;
	int in_fd, out_fd, err_fd;
	const void *in;
	size_t inlen, sent;
} Proc;
int proc_start(char *const argv[], char *const envp[], const void *in, size_t inlen, Proc *p, ProcResult *r);
/* tied: the program is killed when the thread that started it ends (its
 * process exiting or killed included), for a program that could otherwise
 * wait forever on this one (a ptxas blocked opening the FIFO of its PTX:
 * tile-pack cubin.c). argv[0] without a '/': not tied (PATH search). */
int proc_start_ex(char *const argv[], char *const envp[], const void *in, size_t inlen, bool tied, Proc *p,
		  ProcResult *r);
int proc_finish(Proc *p, int timeout_ms, ProcResult *r);
void proc_cancel(Proc *p, ProcResult *r);
/* Has it ended (not reaped: proc_finish still to come)? */
bool proc_exited(const Proc *p);
/* "exited with status 2", "was killed by signal 11 (Segmentation fault)", ...
 * (written into r->what, so it lives as long as r) */
const char *proc_describe(ProcResult *r);
void proc_result_free(ProcResult *r);
#endif
