/* nvhost.c: a cubin's host object run as the CUDA driver runs it (tile-run
 * --nv-host OBJ; docs/abi.md section 5.3, docs/tile-run.md). NVIDIA's
 * tileiras hands ptxas an x86-64 relocatable object (--nv-host=) whose
 * callbacks derive a TMA kernel's hidden parameters (128-byte tensor maps)
 * from its user arguments; ours writes the same kind (tile-pack nvhost.c).
 *
 * The object is linked by the system C compiler ($CC, else cc) into a shared
 * object in a private temporary directory (removed afterwards), loaded in a
 * child process (a callback that crashes is an error of the object, not a
 * crash of tile-run), and called as the driver does: ON_PRE_LOAD (version 2:
 * it hands back its table of entries), then the entry's ON_ARGUMENTS_CHANGE
 * on the parameter block as constant bank 0 holds it (byte 0 at the bank's
 * parameter base: libcommon tmap_cbank_base; offsets as ptxas lays them out:
 * tmap_param_layout). The hidden parameters it wrote come back through a
 * pipe into tile-run's own parameter block. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run.h"
#include "tmap.h"
#include "toolkit.h"
#include "nvhost.h"

typedef int (*PreLoad)(const void *driver_table, void *handle, int version, void **out);
typedef int (*OnArgs)(void *, void *, void *, uint8_t *);

static int stub(void) { return 0; }

/* the first line of a file, for a message */
static void first_line(const char *path, char *out, size_t n)
{
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* cc -shared -o so obj, its messages into log; false after a message */
static bool link_object(const char *obj, const char *so, const char *log)
{
	const char *cc = toolkit_env(TK_CC);
	if (!cc || !*cc)
		cc = "cc";
	pid_t pid = fork();
	if (pid < 0) {
		diag_plain("--nv-host: cannot start %s: %s", cc, strerror(errno));
		return false;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execlp(cc, cc, "-shared", "-o", so, obj, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", cc, strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	char why[256];
	first_line(log, why, sizeof why);
	diag_plain("--nv-host: %s does not link as a host object (%s -shared: %s)", obj, cc, why[0] ? why : "failed");
	return false;
}

/* In the child: load so, find entry's callback, run it on block; the
 * result word, then the block, to fd. Exit status: 0 ran, 2 a message. */
static _Noreturn void child(const char *so, const char *obj, const char *entry, uint8_t *block, size_t bytes, int fd)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		diag_plain("--nv-host: %s does not load: %s", obj, dlerror());
		_exit(2);
	}
	const uint64_t *table = NULL;
	PreLoad pre = (PreLoad)(uintptr_t)dlsym(h, "__CUDA_TILEIR_ON_PRE_LOAD");
	void *stubs[16];
	for (int i = 0; i < 16; i++)
		stubs[i] = (void *)(uintptr_t)stub;
	void *out = NULL;
	if (pre && pre(stubs, NULL, 2, &out) == 0)
		table = out;
	if (!table)
		table = dlsym(h, "__CUDA_TILEIR_CALLBACKS");
	if (!table) {
		diag_plain("--nv-host: %s has no __CUDA_TILEIR_CALLBACKS (not a tile cubin's host object)", obj);
		_exit(2);
	}
	/* word 4 the record size in bytes, word 5 the records, word 6 their count;
	 * a record's word 0 the entry's name, word 5 its ON_ARGUMENTS_CHANGE */
	const uint64_t *recs = (const uint64_t *)(uintptr_t)table[5];
	uint64_t words = table[4] / 8, n = table[6];
	OnArgs cb = NULL;
	for (uint64_t i = 0; recs && words >= 6 && i < n && i < 4096; i++)
		if (recs[words * i] && strcmp((const char *)(uintptr_t)recs[words * i], entry) == 0)
			cb = (OnArgs)(uintptr_t)recs[words * i + 5];
	if (!cb) {
		diag_plain("--nv-host: %s has no callback for entry %s", obj, entry);
		_exit(2);
	}
	int rc = cb(NULL, NULL, NULL, block);
	if (write(fd, &rc, sizeof rc) != (ssize_t)sizeof rc || write(fd, block, bytes) != (ssize_t)bytes)
		_exit(2);
	_exit(0);
}

static bool read_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;
	while (n) {
		ssize_t k = read(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

/* run the callback of entry f on block (bytes long) in a child; false after a message */
static bool call_back(const char *so, const char *obj, const Func *f, uint8_t *block, size_t bytes)
{
	int p[2];
	if (pipe(p) != 0) {
		diag_plain("--nv-host: pipe: %s", strerror(errno));
		return false;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		diag_plain("--nv-host: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return false;
	}
	if (pid == 0) {
		close(p[0]);
		child(so, obj, f->name, block, bytes, p[1]);
	}
	close(p[1]);
	int rc = 0;
	bool got = read_all(p[0], &rc, sizeof rc) && read_all(p[0], block, bytes);
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		diag_plain("--nv-host: the host object's callback for %s was killed by signal %d (%s)", f->name, WTERMSIG(st),
			  strsignal(WTERMSIG(st)));
		return false;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !got)
		return false;   /* the child said why */
	if (rc != 0) {
		diag_plain("--nv-host: the host object's callback for %s returned %d", f->name, rc);
		return false;
	}
	return true;
}

bool nvhost_fill(const char *obj, const char *ptx, size_t len, const Func *f, int sm, uint8_t *kparams)
{
	int base = tmap_cbank_base(sm);
	TmapParam *lay = xcalloc((size_t)f->nparams + 1, sizeof *lay);
	int np = base ? tmap_param_layout(ptx, len, f->name, base, lay, f->nparams + 1) : -1;
	if (np != f->nparams) {
		diag_plain("--nv-host: the parameter block of %s on sm_%d is not known (%s)", f->name, sm,
			  base ? "its parameter list is not understood" : "no constant-bank base for the target");
		free(lay);
		return false;
	}
	size_t bytes = np ? (size_t)(lay[np - 1].offset + lay[np - 1].size) : 0;
	uint8_t *block = xcalloc(bytes + 512, 1);
	for (int k = 0; k < np; k++)
		if (!f->params[k].hidden)
			memcpy(block + lay[k].offset, kparams + f->params[k].offset, f->params[k].size);
	char dir[4096], so[4200], log[4200];
	const char *tmp = toolkit_env(TK_TMPDIR);
	snprintf(dir, sizeof dir, "%s/tile-run-nvhost.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	bool ok = false;
	if (!mkdtemp(dir)) {
		diag_plain("--nv-host: cannot make a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
	} else {
		snprintf(so, sizeof so, "%s/host.so", dir);
		snprintf(log, sizeof log, "%s/cc.log", dir);
		ok = link_object(obj, so, log) && call_back(so, obj, f, block, bytes + 512);
		unlink(so);
		unlink(log);
		rmdir(dir);
	}
	for (int k = 0; ok && k < np; k++)
		if (f->params[k].hidden)
			memcpy(kparams + f->params[k].offset, block + lay[k].offset, f->params[k].size);
	free(block);
	free(lay);
	return ok;
}
