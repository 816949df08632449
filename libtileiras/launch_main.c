/* tileiras: the command users and front ends run. It decides, before
 * anything else starts, which of two programs beside it does the work:
 *
 *   - cuTile's compile line, exactly (cuTile Python runs it for every
 *     kernel):  tileiras IN -o OUT --gpu-name SM -On --lineinfo
 *                        [--remark-format=yaml --remarks=all --remarks-output-file=F]
 *     those options in any order, each at most once, a regular readable
 *     input, an output that is a regular file or not there yet, SM one of
 *     libcommon/targets.def, no stage substituted (TILEIRAS_TILE_*), no
 *     TILEIRAS_NO_INPROC: exec tileiras-inproc (libtileiras, one process)
 *     with --then-exec tileiras-stages ARGS, so that a compile it cannot do
 *     is done again by the stages, whose messages and exit status are the
 *     ones the user sees (tileiras-inproc holds its own until it succeeds);
 *   - anything else: exec tileiras-stages (scripts/tileiras: NVIDIA's
 *     command line, the stage pipeline, --emit/--stop-after/--save-temps,
 *     stage substitution; docs/driver.md) with the same arguments.
 *
 * It was the script's first lines until the script's own start-up showed up
 * in the compile: bash with the `env` of the shebang and its locale set-up
 * took ~2.4 ms before the exec, this takes ~0.5 (issue 18, docs/benchmarks.md).
 * It reads no input and writes nothing: every message is one of the two
 * programs', except when they are missing (exit 5, like a stage that is not
 * built). Both are found in this executable's own directory (its real path:
 * a symlink on PATH works). libc only, with libcommon's knobs.c and
 * toolkit.c (linked alone: they are libc only too). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "knobs.h"
#include "toolkit.h"

/* the host object inside a TILEIR cubin (its launch callbacks) is for the
 * machine that launches it: this one, as the script's default ($HOSTTYPE) */
#if defined(__aarch64__)
#define HOST_ARCH_ARG "--host-arch=aarch64"
#else
#define HOST_ARCH_ARG "--host-arch=x86_64"
#endif

static const char *const targets[] = {
#define TARGET(name, sm, min_ptx, smem_kib, param_cbank, features, llvm_as) #name,
#include "targets.def"
#undef TARGET
	NULL
};

static bool set(const char *v)
{
	return v && *v;
}

static bool known_target(const char *g)
{
	for (const char *const *t = targets; *t; t++)
		if (strcmp(*t, g) == 0)
			return true;
	return false;
}

static bool device_path(const char *p)
{
	return strncmp(p, "/dev/", 5) == 0 || strncmp(p, "/proc/", 6) == 0;
}

/* cuTile's line, parsed: what tileiras-inproc is given */
typedef struct CutileLine {
	const char *in, *out, *gpu, *remarks_file;
	int olevel;          /* -1: not given (3) */
	bool lineinfo, yaml, all;
} CutileLine;

/* Is argv (argc > 1) cuTile's line, with files tileiras-inproc may write
 * itself? The conditions scripts/tileiras's fast path has for writing a
 * named output in place, plus the exact option set. */
static bool cutile_line(int argc, char **argv, CutileLine *c)
{
	*c = (CutileLine){ .olevel = -1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-o") == 0 || strcmp(a, "--gpu-name") == 0) {
			const char **slot = a[1] == 'o' ? &c->out : &c->gpu;
			if (i + 1 >= argc || *slot)
				return false;
			*slot = argv[++i];
		} else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
			if (c->olevel >= 0)
				return false;
			c->olevel = a[2] - '0';
		} else if (strcmp(a, "--lineinfo") == 0) {
			if (c->lineinfo)
				return false;
			c->lineinfo = true;
		} else if (strcmp(a, "--remark-format=yaml") == 0) {
			if (c->yaml)
				return false;
			c->yaml = true;
		} else if (strcmp(a, "--remarks=all") == 0) {
			if (c->all)
				return false;
			c->all = true;
		} else if (strncmp(a, "--remarks-output-file=", 22) == 0 && a[22]) {
			if (c->remarks_file)
				return false;
			c->remarks_file = a + 22;
		} else if (a[0] == '-' || !a[0] || c->in) {
			return false;
		} else {
			c->in = a;
		}
	}
	/* the three remark options together or none */
	bool r = c->remarks_file != NULL;
	if (!c->in || !c->out || !c->out[0] || c->yaml != r || c->all != r || !c->gpu || !known_target(c->gpu))
		return false;
	struct stat st;
	if (stat(c->in, &st) != 0 || !S_ISREG(st.st_mode) || access(c->in, R_OK) != 0)
		return false;
	if (strcmp(c->out, "-") == 0 || device_path(c->in) || device_path(c->out))
		return false;
	if (lstat(c->out, &st) == 0 && !S_ISREG(st.st_mode))   /* a link, a directory, a device */
		return false;
	return true;
}

/* "PREFIXvalue", allocated (exits 5 when memory is out) */
static char *joined(const char *prefix, const char *value)
{
	char *s;
	if (asprintf(&s, "%s%s", prefix, value) < 0) {
		fputs("tileiras: error: out of memory\n", stderr);
		exit(5);
	}
	return s;
}

/* glibc's malloc in huge pages for the compile (docs/benchmarks.md, session 11) */
static void huge_pages(void)
{
	const char *t = toolkit_env(TK_GLIBC_TUNABLES);
	if (t && strstr(t, "glibc.malloc.hugetlb"))
		return;
	setenv("GLIBC_TUNABLES", t && *t ? joined(t, ":glibc.malloc.hugetlb=1") : "glibc.malloc.hugetlb=1", 1);
}

/* this executable's real path in buf: /proc/self/exe, else (no /proc) argv[0]
 * as the shell found it: a path, or the first match on PATH */
static bool self_path(const char *argv0, char buf[PATH_MAX])
{
	if (realpath("/proc/self/exe", buf))
		return true;
	if (strchr(argv0, '/'))
		return realpath(argv0, buf) != NULL;
	const char *path = toolkit_env(TK_PATH);
	for (const char *s = path; s && *s;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		char cand[PATH_MAX];
		if (snprintf(cand, sizeof cand, "%.*s/%s", n ? (int)n : 1, n ? s : ".", argv0) < (int)sizeof cand &&
		    access(cand, X_OK) == 0 && realpath(cand, buf))
			return true;
		s = e ? e + 1 : s + n;
	}
	return false;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX];
	if (!self_path(argc > 0 && argv[0] ? argv[0] : "tileiras", dir)) {
		fprintf(stderr, "tileiras: error: cannot find this program's directory: %s\n", strerror(errno));
		return 5;
	}
	*strrchr(dir, '/') = '\0';
	char stages[PATH_MAX + 32], inproc[PATH_MAX + 32];
	snprintf(stages, sizeof stages, "%s/tileiras-stages", dir);
	snprintf(inproc, sizeof inproc, "%s/tileiras-inproc", dir);

	CutileLine c;
	Knobs k;
	knobs_read(&k);
	if (argc > 1 && !k.TILEIRAS_NO_INPROC && !set(k.TILEIRAS_TILE_READ) && !set(k.TILEIRAS_TILE_LOWER) &&
	    !set(k.TILEIRAS_TILE_SCHED) && !set(k.TILEIRAS_TILE_PTX) && !set(k.TILEIRAS_TILE_PACK) &&
	    access(inproc, X_OK) == 0 && access(stages, X_OK) == 0 && cutile_line(argc, argv, &c)) {
		static char *const olevels[] = { "--opt-level=0", "--opt-level=1", "--opt-level=2", "--opt-level=3" };
		char **v = calloc((size_t)argc + 24, sizeof *v);
		if (!v)
			return 5;
		int n = 0;
		v[n++] = inproc;
		v[n++] = joined("--gpu-name=", c.gpu);
		v[n++] = olevels[c.olevel < 0 ? 3 : c.olevel];
		v[n++] = HOST_ARCH_ARG;
		v[n++] = "--host-os=linux";
		v[n++] = joined("--input-name=", c.in);
		v[n++] = "-o";
		v[n++] = (char *)c.out;
		if (c.lineinfo)
			v[n++] = "--lineinfo";
		if (c.remarks_file) {
			v[n++] = "--remark-format=yaml";
			v[n++] = joined("--remarks-output-file=", c.remarks_file);
			v[n++] = "--remark-kinds=passed,missed,failed,analysis";
			v[n++] = "--resource-remarks";
		}
		v[n++] = (char *)c.in;
		v[n++] = "--then-exec";
		v[n++] = stages;
		for (int i = 1; i < argc; i++)
			v[n++] = argv[i];
		v[n] = NULL;
		huge_pages();
		execv(inproc, v);
		free(v);   /* not run: then the stages, as below */
	}
	argv[0] = stages;
	execv(stages, argv);
	fprintf(stderr, "tileiras: error: cannot run %s: %s\n", stages, strerror(errno));
	return 5;
}
