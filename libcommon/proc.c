/* proc.c: posix_spawnp + pipes + poll; see proc.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "proc.h"

extern char **environ;

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int proc_run(char *const argv[], const void *in, size_t inlen, int timeout_ms, ProcResult *r)
{
	return proc_run_env(argv, NULL, in, inlen, timeout_ms, r);
}

int proc_run_env(char *const argv[], char *const envp[], const void *in, size_t inlen, int timeout_ms,
		 ProcResult *r)
{
	memset(r, 0, sizeof *r);
	int pin[2], pout[2], perr[2];
	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		r->end = PROC_NOT_STARTED;
		r->code = errno;
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
	posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
	posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp ? envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	if (rc != 0) {
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		r->end = PROC_NOT_STARTED;
		r->code = rc;
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	fcntl(pin[1], F_SETFL, O_NONBLOCK);
	size_t sent = 0;
	if (!in || inlen == 0) {
		close(pin[1]);
		pin[1] = -1;
	}
	long long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	int open_out = 2;
	bool timed_out = false;
	while (open_out > 0 || pin[1] >= 0) {
		struct pollfd fds[3];
		int nf = 0, iout = -1, ierr = -1, iin = -1;
		if (pout[0] >= 0) { iout = nf; fds[nf++] = (struct pollfd){ pout[0], POLLIN, 0 }; }
		if (perr[0] >= 0) { ierr = nf; fds[nf++] = (struct pollfd){ perr[0], POLLIN, 0 }; }
		if (pin[1] >= 0) { iin = nf; fds[nf++] = (struct pollfd){ pin[1], POLLOUT, 0 }; }
		int wait = -1;
		if (deadline) {
			long long left = deadline - now_ms();
			if (left <= 0) {
				timed_out = true;
				break;
			}
			wait = (int)(left > 1000 ? 1000 : left);
		}
		if (poll(fds, (nfds_t)nf, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		char buf[65536];
		int idx[2] = { iout, ierr };
		int *fdp[2] = { &pout[0], &perr[0] };
		StrBuf *dst[2] = { &r->out, &r->err };
		for (int k = 0; k < 2; k++) {
			if (idx[k] < 0 || !(fds[idx[k]].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(*fdp[k], buf, sizeof buf);
			if (n > 0)
				sb_putn(dst[k], buf, (size_t)n);
			else if (n == 0 || errno != EINTR) {
				close(*fdp[k]);
				*fdp[k] = -1;
				open_out--;
			}
		}
		if (iin >= 0 && (fds[iin].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(pin[1], (const char *)in + sent, inlen - sent);
			if (n > 0)
				sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == inlen) {
				close(pin[1]);
				pin[1] = -1;
			}
		}
	}
	if (timed_out)
		kill(pid, SIGKILL);
	for (int k = 0; k < 3; k++) {
		int fd = k == 0 ? pin[1] : k == 1 ? pout[0] : perr[0];
		if (fd >= 0)
			close(fd);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sb_cstr(&r->out);
	sb_cstr(&r->err);
	if (timed_out) {
		r->end = PROC_TIMED_OUT;
		r->code = timeout_ms;
		return -1;
	}
	if (WIFSIGNALED(status)) {
		r->end = PROC_SIGNALED;
		r->code = WTERMSIG(status);
		return -1;
	}
	r->end = PROC_EXITED;
	r->code = WEXITSTATUS(status);
	return r->code == 0 ? 0 : -1;
}

const char *proc_describe(ProcResult *r)
{
	char *buf = r->what;
	switch (r->end) {
	case PROC_EXITED: snprintf(buf, sizeof r->what, "exited with status %d", r->code); break;
	case PROC_SIGNALED:
		snprintf(buf, sizeof r->what, "was killed by signal %d (%s)", r->code, strsignal(r->code));
		break;
	case PROC_TIMED_OUT: snprintf(buf, sizeof r->what, "timed out after %d ms", r->code); break;
	case PROC_NOT_STARTED:
		snprintf(buf, sizeof r->what, "could not be started: %s", strerror(r->code));
		break;
	}
	return buf;
}

void proc_result_free(ProcResult *r)
{
	sb_free(&r->out);
	sb_free(&r->err);
}
