/* ptxas_pick.c: choose the ptxas tile-pack runs: the newest one installed.
 *
 * Candidates, in this order (the order breaks ties between equal versions):
 *   1. $TILEIRAS_PTXAS (a path; then it is the only candidate);
 *   2. <root>/bin/ptxas, <root> the first of $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH
 *      that is set, else /usr/local/cuda (the toolkit);
 *   3. ptxas in each $PATH directory;
 *   4. pip's nvidia-cuda-nvcc: <prefix>/lib/python3.* /site-packages/nvidia/cu13/bin/ptxas
 *      for the prefixes $VIRTUAL_ENV, those of `python3` and `python` on
 *      $PATH (a venv's bin/..), ~/.local, /usr/local (and its dist-packages);
 *   5. a ptxas beside the tile-pack executable.
 * The version is what `ptxas --version` prints ("release 13.5, V13.5.37");
 * one that prints none counts as 0.0.0 (still usable, never preferred).
 * Versions already asked of the same file come from ptxas_vcache.c. The
 * choice is remembered in the process while the environment it depends on
 * ($PATH, $VIRTUAL_ENV, $HOME, the CUDA root variables) is the same: a
 * libtileiras compile asks twice (TMA, then the assembly), ~1.3 ms each.
 * Guarantees: a runnable path and its version, or NULL after one message
 * naming where it looked. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pack.h"
#include "diag.h"
#include "knobs.h"
#include "proc.h"
#include "toolkit.h"
#include "xalloc.h"

#define MAX_CANDIDATES 64

typedef struct Cands {
	char *path[MAX_CANDIDATES];
	char *real[MAX_CANDIDATES];     /* realpath of each, resolved once */
	int n;
} Cands;

static void add(Cands *c, const char *path)
{
	struct stat st;
	if (c->n >= MAX_CANDIDATES || access(path, X_OK) != 0 || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return;
	char real[PATH_MAX];
	if (!realpath(path, real))
		return;
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->real[i], real) == 0)
			return;
	c->real[c->n] = xstrdup(real);
	c->path[c->n++] = xstrdup(path);
}

static void add_glob(Cands *c, const char *pattern)
{
	glob_t g;
	if (glob(pattern, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			add(c, g.gl_pathv[i]);
	globfree(&g);
}

static void add_pip_prefix(Cands *c, const char *prefix)
{
	if (!prefix || !*prefix)
		return;
	StrBuf p = {0};
	static const char *const where[] = { "site-packages", "dist-packages" };
	for (int i = 0; i < 2; i++) {
		p.len = 0;
		sb_printf(&p, "%s/lib/python3*/%s/nvidia/cu*/bin/ptxas", prefix, where[i]);
		add_glob(c, p.s);
	}
	sb_free(&p);
}

/* each directory of PATH: its NAME, or (prefix) its parent when it holds NAME */
static void on_path(Cands *c, const char *name, bool as_prefix)
{
	const char *path = toolkit_env(TK_PATH);
	StrBuf p = {0};
	while (path_next(&path, &p)) {
		size_t dir_len = p.len;
		sb_printf(&p, "/%s", name);
		if (!as_prefix) {
			add(c, p.s);
		} else if (access(p.s, X_OK) == 0) {
			p.len = dir_len;
			sb_puts(&p, "/..");
			add_pip_prefix(c, p.s);
		}
	}
	sb_free(&p);
}

static void candidates(Cands *c, StrBuf *looked)
{
	const char *var;
	const char *root = toolkit_cuda_root(&var);
	StrBuf p = {0};
	sb_printf(&p, "%s/bin/ptxas", root);
	add(c, p.s);
	sb_printf(looked, "%s/bin (%s), PATH, pip's nvidia/cu13/bin", root,
		  var ? var : "no CUDA_ROOT, CUDA_HOME or CUDA_PATH set");
	on_path(c, "ptxas", false);
	add_pip_prefix(c, toolkit_env(TK_VIRTUAL_ENV));
	on_path(c, "python3", true);
	on_path(c, "python", true);
	const char *home = toolkit_env(TK_HOME);
	if (home && *home) {
		p.len = 0;
		sb_printf(&p, "%s/.local", home);
		add_pip_prefix(c, p.s);
	}
	add_pip_prefix(c, "/usr/local");
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			p.len = 0;
			sb_putn(&p, self, (size_t)(slash - self));
			sb_puts(&p, "/ptxas");
			add(c, p.s);
		}
	}
	sb_free(&p);
}

/* "Cuda compilation tools, release 13.5, V13.5.37" -> 13, 5, 37 */
static void version_of(const char *ptxas, PtxasVersion *v)
{
	*v = (PtxasVersion){0};
	if (ptxas_vcache_get(ptxas, v))
		return;
	const char *argv[] = { ptxas, "--version", NULL };
	ProcResult pr;
	proc_run((char *const *)argv, NULL, 0, 10000, &pr);
	const char *s = pr.out.s ? strstr(pr.out.s, ", V") : NULL;
	if (s && sscanf(s + 3, "%d.%d.%d", &v->major, &v->minor, &v->patch) >= 2)
		v->known = true;
	proc_result_free(&pr);
	if (v->known)
		ptxas_vcache_put(ptxas, v);
}

static bool newer(const PtxasVersion *a, const PtxasVersion *b)
{
	if (a->major != b->major)
		return a->major > b->major;
	if (a->minor != b->minor)
		return a->minor > b->minor;
	return a->patch > b->patch;
}

/* What the candidates depend on, as one byte string (*len bytes) */
static char *pick_key(size_t *len)
{
	static const ToolkitVar vars[] = { TK_CUDA_ROOT, TK_CUDA_HOME, TK_CUDA_PATH, TK_PATH, TK_VIRTUAL_ENV, TK_HOME };
	StrBuf k = {0};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = toolkit_env(vars[i]);
		sb_puts(&k, v ? v : "");
		sb_putn(&k, "", 1);     /* each value NUL-ended */
	}
	*len = k.len;
	return k.s;
}

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static char *memo_key, *memo_path;
static size_t memo_key_len;
static PtxasVersion memo_version;

static char *pick(PtxasVersion *version, bool verbose);

char *pack_pick_ptxas(const char *given, PtxasVersion *version, bool verbose)
{
	const char *forced = given ? given : knobs()->TILEIRAS_PTXAS;
	if (forced && *forced) {
		char *p = xstrdup(forced);
		version_of(p, version);
		return p;
	}
	if (verbose)
		return pick(version, true);
	size_t kl;
	char *key = pick_key(&kl);
	char *path = NULL;
	pthread_mutex_lock(&memo_lock);
	if (memo_key && memo_key_len == kl && memcmp(memo_key, key, kl) == 0) {
		path = xstrdup(memo_path);
		*version = memo_version;
	}
	pthread_mutex_unlock(&memo_lock);
	if (path) {
		free(key);
		return path;
	}
	path = pick(version, false);
	if (!path) {
		free(key);
		return NULL;
	}
	pthread_mutex_lock(&memo_lock);
	free(memo_key);
	free(memo_path);
	memo_key = key;
	memo_key_len = kl;
	memo_path = xstrdup(path);
	memo_version = *version;
	pthread_mutex_unlock(&memo_lock);
	return path;
}

static char *pick(PtxasVersion *version, bool verbose)
{
	Cands c = { .n = 0 };
	StrBuf looked = {0};
	candidates(&c, &looked);
	int best = -1;
	PtxasVersion best_v = {0};
	for (int i = 0; i < c.n; i++) {
		PtxasVersion v;
		version_of(c.path[i], &v);
		if (verbose)
			fprintf(stderr, "tile-pack: ptxas candidate %s: %d.%d.%d%s\n", c.path[i], v.major,
				v.minor, v.patch, v.known ? "" : " (no version)");
		if (best < 0 || newer(&v, &best_v)) {
			best = i;
			best_v = v;
		}
	}
	char *chosen = NULL;
	if (best >= 0) {
		chosen = c.path[best];
		c.path[best] = NULL;
		*version = best_v;
	} else {
		diag_plain("ptxas not found (looked in %s): install the CUDA toolkit or "
			   "nvidia-cuda-nvcc, or set CUDA_HOME or TILEIRAS_PTXAS", sb_cstr(&looked));
	}
	for (int i = 0; i < c.n; i++) {
		free(c.path[i]);
		free(c.real[i]);
	}
	sb_free(&looked);
	return chosen;
}

char *pack_ptxas_identity(const char *given)
{
	PtxasVersion v;
	char *path = pack_pick_ptxas(given, &v, false);
	if (!path)
		return NULL;
	StrBuf s = {0};
	if (v.known)
		sb_printf(&s, "%s (release %d.%d.%d)", path, v.major, v.minor, v.patch);
	else
		sb_printf(&s, "%s (version unknown)", path);
	free(path);
	return s.s;
}
