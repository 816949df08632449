/* ptxas.c: find the CUDA tools, run ptxas on PTX, keep its diagnostics. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pack.h"
#include "diag.h"
#include "proc.h"
#include "target.h"
#include "tool.h"
#include "xalloc.h"

static char *search_tool(const char *name, StrBuf *looked)
{
	static const char *const vars[] = { "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH" };
	const char *root = NULL, *var = NULL;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0] && !root; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			root = v;
			var = vars[i];
		}
	}
	if (!root)
		root = "/usr/local/cuda";
	StrBuf p = {0};
	sb_printf(&p, "%s/bin/%s", root, name);
	if (access(sb_cstr(&p), X_OK) == 0)
		return p.s;
	sb_printf(looked, "%s/bin (%s)", root, var ? var : "no CUDA_ROOT, CUDA_HOME or CUDA_PATH set");
	const char *path = getenv("PATH");
	for (const char *s = path; s && *s;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		p.len = 0;
		if (n == 0)
			sb_puts(&p, ".");
		else
			sb_putn(&p, s, n);
		sb_printf(&p, "/%s", name);
		struct stat st;
		if (access(sb_cstr(&p), X_OK) == 0 && stat(p.s, &st) == 0 && S_ISREG(st.st_mode))
			return p.s;
		s = e ? e + 1 : s + n;
	}
	sb_puts(looked, " and PATH");
	sb_free(&p);
	return NULL;
}

char *pack_find_tool(const char *given, const char *name)
{
	if (given) {
		char *p = xstrdup(given);
		return p;
	}
	StrBuf looked = {0};
	char *tool = search_tool(name, &looked);
	if (!tool)
		diag_plain("%s not found (looked in %s): install the CUDA toolkit or set CUDA_HOME",
			   name, sb_cstr(&looked));
	sb_free(&looked);
	return tool;
}

void ptx_target(const uint8_t *ptx, size_t len, char *buf, size_t n)
{
	buf[0] = 0;
	const char *s = (const char *)ptx, *end = s + len;
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		if (!eol)
			eol = end;
		const char *p = s;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(eol - p) > 8 && memcmp(p, ".target", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
			p += 7;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			size_t k = 0;
			while (p < eol && k + 1 < n && (p[0] == '_' || (p[0] >= 'a' && p[0] <= 'z') ||
							 (p[0] >= '0' && p[0] <= '9')))
				buf[k++] = *p++;
			buf[k] = 0;
			return;
		}
		s = eol + 1;
	}
}

void print_command(const char *const argv[])
{
	fputs("+", stderr);
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		bool plain = *a != 0;
		for (const char *p = a; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%", *p))
				plain = false;
		fputc(' ', stderr);
		if (plain) {
			fputs(a, stderr);
			continue;
		}
		fputc('\'', stderr);
		for (const char *p = a; *p; p++)
			if (*p == '\'')
				fputs("'\\''", stderr);
			else
				fputc(*p, stderr);
		fputc('\'', stderr);
	}
	fputc('\n', stderr);
}

char *tmpdir_make(void)
{
	const char *t = getenv("TMPDIR");
	StrBuf p = {0};
	sb_printf(&p, "%s/tile-pack.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(p.s)) {
		diag_plain("cannot create a temporary directory under %s: %s", t && *t ? t : "/tmp",
			   strerror(errno));
		sb_free(&p);
		return NULL;
	}
	return p.s;
}

void tmpdir_remove(char *dir)
{
	if (!dir)
		return;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		StrBuf p = {0};
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			p.len = 0;
			sb_printf(&p, "%s/%s", dir, e->d_name);
			unlink(p.s);
		}
		sb_free(&p);
		closedir(d);
	}
	rmdir(dir);
	free(dir);
}

int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f) != 0) {
		diag_plain("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int read_into(const char *path, StrBuf *out)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_plain("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(out, buf, n);
	fclose(f);
	return 0;
}

/* Copy a tool's messages to stderr. Replace our temporary file name by the
 * input's name; when we asked ptxas for -v ourselves, drop its info lines
 * (they went into the remarks). */
static void pass_through(const char *text, const char *tmp_path, const char *display, bool drop_info)
{
	size_t tl = tmp_path ? strlen(tmp_path) : 0;
	for (const char *s = text; s && *s;) {
		const char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s + 1) : strlen(s);
		bool info = strncmp(s, "ptxas info", 10) == 0 ||
			    (strncmp(s, "    ", 4) == 0 && s[4] >= '0' && s[4] <= '9');
		if (!(drop_info && info)) {
			for (size_t i = 0; i < n;) {
				if (tl && i + tl <= n && memcmp(s + i, tmp_path, tl) == 0) {
					fputs(display, stderr);
					i += tl;
				} else {
					fputc(s[i++], stderr);
				}
			}
		}
		s += n;
	}
}

/* The ptxas -arch: the PTX's own .target when it is a variant (sm_90a,
 * sm_100f) of the requested GPU, so arch-specific PTX assembles as itself. */
static int choose_arch(const PackOptions *o, const PtxInput *in, char arch[16])
{
	char t[32];
	ptx_target(in->text, in->len, t, sizeof t);
	if (!o->gpu_name) {
		if (!t[0]) {
			diag_plain("the PTX has no .target directive: give the GPU with --gpu-name");
			return -1;
		}
		snprintf(arch, 16, "%s", t);
		return 0;
	}
	size_t g = strlen(o->gpu_name), tl = strlen(t);
	if (tl == g + 1 && strncmp(t, o->gpu_name, g) == 0 && (t[g] == 'a' || t[g] == 'f'))
		snprintf(arch, 16, "%s", t);
	else
		snprintf(arch, 16, "%s", o->gpu_name);
	return 0;
}

static bool has_arg(const PackOptions *o, const char *a)
{
	for (int i = 0; i < o->n_ptxas_args; i++)
		if (strcmp(o->ptxas_args[i], a) == 0)
			return true;
	return false;
}

int pack_cubin(const PackOptions *o, const PtxInput *in, StrBuf *cubin, char arch[16])
{
	if (choose_arch(o, in, arch) < 0)
		return -1;
	char *ptxas = pack_find_tool(o->ptxas, "ptxas");
	if (!ptxas)
		return -1;
	char *dir = tmpdir_make();
	if (!dir) {
		free(ptxas);
		return -1;
	}
	int rc = -1;
	StrBuf ptx_path = {0}, out_path = {0}, knobs = {0};
	sb_printf(&out_path, "%s/out.cubin", dir);
	const char *tmp_ptx = NULL;
	if (in->path) {
		sb_puts(&ptx_path, in->path);
	} else {
		sb_printf(&ptx_path, "%s/in.ptx", dir);
		if (write_file(ptx_path.s, in->text, in->len) < 0)
			goto out;
		tmp_ptx = ptx_path.s;
	}
	char olevel[8];
	snprintf(olevel, sizeof olevel, "%d", o->opt_level);
	bool want_usage = o->remarks_file != NULL;
	bool own_v = want_usage && !has_arg(o, "-v") && !has_arg(o, "--verbose");
	const char *argv[64 + 64];
	int n = 0;
	argv[n++] = ptxas;
	argv[n++] = "-arch";
	argv[n++] = arch;
	argv[n++] = "--opt-level";
	argv[n++] = olevel;
	if (o->device_debug)
		argv[n++] = "-g";
	else if (o->lineinfo)
		argv[n++] = "-lineinfo";
	if (o->memcheck) {
		argv[n++] = "-sanitize=memcheck";
		/* tensor-memory checks exist where the PTX itself targets tcgen05 */
		char base[32];
		ptx_target(in->text, in->len, base, sizeof base);
		size_t bl = strlen(base);
		if (bl && (base[bl - 1] == 'a' || base[bl - 1] == 'f'))
			base[bl - 1] = 0;
		const Target *tg = target_by_name(base);
		if (tg && target_has(tg, TF_TCGEN05))
			argv[n++] = "-g-tmem-access-check";
	}
	const char *kp = getenv("PTX_KNOBS_PATH");
	if (getenv("MLIR_ENABLE_EVO") && kp) {
		sb_printf(&knobs, "--knobs-file=%s", kp);
		argv[n++] = knobs.s;
	}
	if (own_v)
		argv[n++] = "-v";
	for (int i = 0; i < o->n_ptxas_args && n < 120; i++)
		argv[n++] = o->ptxas_args[i];
	argv[n++] = ptx_path.s;
	argv[n++] = "-o";
	argv[n++] = out_path.s;
	argv[n] = NULL;

	if (o->verbose)
		print_command(argv);
	ProcResult pr;
	int prc = proc_run((char *const *)argv, NULL, 0, 0, &pr);
	if (pr.end == PROC_NOT_STARTED) {
		diag_plain("cannot run ptxas '%s': %s", ptxas, strerror(pr.code));
		proc_result_free(&pr);
		goto out;
	}
	pass_through(pr.out.s, tmp_ptx, in->display, own_v);
	pass_through(pr.err.s, tmp_ptx, in->display, own_v);
	if (prc != 0) {
		diag_plain("ptxas %s", proc_describe(&pr));
		proc_result_free(&pr);
		goto out;
	}
	if (read_into(out_path.s, cubin) < 0) {
		proc_result_free(&pr);
		goto out;
	}
	if (want_usage) {
		KernelUsage *k = NULL;
		StrBuf log = {0};
		sb_puts(&log, sb_cstr(&pr.out));
		sb_puts(&log, sb_cstr(&pr.err));
		int nk = parse_ptxas_usage(log.s, &k);
		StrBuf y = {0};
		write_remarks(&y, k, nk, o->remark_format);
		rc = write_output_atomic(o->remarks_file, y.s ? y.s : "", y.len) < 0 ? -1 : 0;
		sb_free(&y);
		sb_free(&log);
		free_usage(k, nk);
	} else {
		rc = 0;
	}
	proc_result_free(&pr);
out:
	sb_free(&ptx_path);
	sb_free(&out_path);
	sb_free(&knobs);
	tmpdir_remove(dir);
	free(ptxas);
	return rc;
}
