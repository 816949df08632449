/* proc.c: posix_spawnp + pipes + poll; see proc.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
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
	Proc p;
	if (proc_start(argv, envp, in, inlen, &p, r) < 0)
		return -1;
	return proc_finish(&p, timeout_ms, r);
}

/* The child of a tied start: killed (SIGKILL) when the thread that started it
 * ends, its process killed or exiting included (prctl PR_SET_PDEATHSIG).
 * Between vfork and execve the child only makes system calls, with every
 * signal blocked (no handler of ours may run in it), as glibc's posix_spawn. */
static int spawn_tied(pid_t *pid, const char *path, char *const argv[], char *const envp[], const int fds[3])
{
	pid_t parent = getpid();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pid_t c = vfork();
	if (c == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
		for (int k = 0; k < 3; k++)
			if (dup2(fds[k], k) < 0)
				_exit(127);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		execve(path, argv, envp);
		_exit(127);
	}
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (c < 0)
		return e;
	*pid = c;
	return 0;
}

int proc_start(char *const argv[], char *const envp[], const void *in, size_t inlen, Proc *p, ProcResult *r)
{
	return proc_start_ex(argv, envp, in, inlen, false, p, r);
}

int proc_start_ex(char *const argv[], char *const envp[], const void *in, size_t inlen, bool tied, Proc *p,
		  ProcResult *r)
{
	memset(r, 0, sizeof *r);
	memset(p, 0, sizeof *p);
	p->in_fd = p->out_fd = p->err_fd = -1;
	int pin[2], pout[2], perr[2];
	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		r->end = PROC_NOT_STARTED;
		r->code = errno;
		return -1;
	}
	pid_t pid;
	int rc;
	if (tied && strchr(argv[0], '/')) {
		/* execve fails in the child (127, as a shell says) where posix_spawn
		 * would say why here: check what can be checked first */
		rc = access(argv[0], X_OK) == 0 ? spawn_tied(&pid, argv[0], argv, envp ? envp : environ,
							     (int[3]){ pin[0], pout[1], perr[1] })
						: errno;
	} else {
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
		posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
		posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
		rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp ? envp : environ);
		posix_spawn_file_actions_destroy(&fa);
	}
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
	p->pid = pid;
	p->in_fd = pin[1];
	p->out_fd = pout[0];
	p->err_fd = perr[0];
	p->in = in;
	p->inlen = inlen;
	if (!in || inlen == 0) {
		close(p->in_fd);
		p->in_fd = -1;
	}
	return 0;
}

int proc_finish(Proc *p, int timeout_ms, ProcResult *r)
{
	int *pin = &p->in_fd, *pout = &p->out_fd, *perr = &p->err_fd;
	long long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	int open_out = (*pout >= 0) + (*perr >= 0);
	bool timed_out = false;
	while (open_out > 0 || *pin >= 0) {
		struct pollfd fds[3];
		int nf = 0, iout = -1, ierr = -1, iin = -1;
		if (*pout >= 0) { iout = nf; fds[nf++] = (struct pollfd){ *pout, POLLIN, 0 }; }
		if (*perr >= 0) { ierr = nf; fds[nf++] = (struct pollfd){ *perr, POLLIN, 0 }; }
		if (*pin >= 0) { iin = nf; fds[nf++] = (struct pollfd){ *pin, POLLOUT, 0 }; }
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
		int *fdp[2] = { pout, perr };
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
			ssize_t n = write(*pin, (const char *)p->in + p->sent, p->inlen - p->sent);
			if (n > 0)
				p->sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || p->sent == p->inlen) {
				close(*pin);
				*pin = -1;
			}
		}
	}
	if (timed_out)
		kill(p->pid, SIGKILL);
	int *fds[3] = { pin, pout, perr };
	for (int k = 0; k < 3; k++)
		if (*fds[k] >= 0) {
			close(*fds[k]);
			*fds[k] = -1;
		}
	int status = 0;
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
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

bool proc_exited(const Proc *p)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid != 0;
}

void proc_cancel(Proc *p, ProcResult *r)
{
	kill(p->pid, SIGKILL);
	proc_finish(p, 0, r);
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
