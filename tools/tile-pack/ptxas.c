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
#include "tmap.h"
#include "diag.h"
#include "proc.h"
#include "target.h"
#include "tool.h"
#include "xalloc.h"

const char *pack_cuda_root(const char **var)
{
	static const char *const vars[] = { "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			*var = vars[i];
			return v;
		}
	}
	*var = NULL;
	return "/usr/local/cuda";
}

static char *search_tool(const char *name, StrBuf *looked)
{
	const char *var;
	const char *root = pack_cuda_root(&var);
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
	if (pack_read_file(path, out) < 0) {
		diag_plain("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Copy a tool's messages to stderr (or the thread's diag sink). Replace our temporary file name by the
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
					diag_raw(display ? display : "<input>", strlen(display ? display : "<input>"));
					i += tl;
				} else {
					diag_raw(&s[i++], 1);
				}
			}
		}
		s += n;
	}
}

/* The ptxas -arch: the PTX's own .target when it is a variant (sm_90a,
 * sm_100f) of the requested GPU, so arch-specific PTX assembles as itself;
 * else the GPU, as its arch-specific 'a' variant where it has one (sm_90 and
 * newer: NVIDIA's tileiras does the same, so the cubins' ELF flags agree). */
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
	} else {
		size_t g = strlen(o->gpu_name), tl = strlen(t);
		if (tl == g + 1 && strncmp(t, o->gpu_name, g) == 0 && (t[g] == 'a' || t[g] == 'f'))
			snprintf(arch, 16, "%s", t);
		else
			snprintf(arch, 16, "%s", o->gpu_name);
	}
	const Target *tg = target_by_name(arch);
	if (tg && target_has(tg, TF_ARCH_A) && strlen(arch) < 15)
		strcat(arch, "a");
	return 0;
}

/* ptxas 13.N reads PTX ISA 9.N; `.language` needs 9.2 */
static bool knows_tileir(const PtxasVersion *v)
{
	return v->known && (v->major > 13 || (v->major == 13 && v->minor >= 2));
}

static bool has_arg(const PackOptions *o, const char *a)
{
	for (int i = 0; i < o->n_ptxas_args; i++)
		if (strcmp(o->ptxas_args[i], a) == 0)
			return true;
	return false;
}

/* PTX from tile-sched --tma takes tensor maps as hidden parameters that only
 * the host callback of a TILEIR cubin fills (nvhost.c): without one the
 * kernel would read garbage maps at launch. true after the message. */
static bool needs_callbacks(const PackOptions *o, const PtxInput *in, bool tileir, const char *ptxas,
			    const PtxasVersion *ver)
{
	const char *note = TMAP_NOTE;
	size_t k = strlen(note);
	bool maps = false;
	for (size_t i = 0; i + k <= in->len && !maps; i++)
		maps = (i == 0 || in->text[i - 1] == '\n') && memcmp(in->text + i, note, k) == 0;
	if (!maps)
		return false;
	if (!tileir) {
		diag_plain("the PTX takes TMA tensor maps as hidden parameters (tile-sched --tma), which only a "
			   "TILEIR cubin's host callback fills; ptxas %s (release %d.%d) makes plain-PTX cubins "
			   "(TILEIR needs ptxas 13.2 or newer; or compile without --tma)", ptxas, ver->major, ver->minor);
		return true;
	}
	if (o->nv_host && strcmp(o->nv_host, "none") == 0) {
		diag_plain("--nv-host=none: the PTX takes TMA tensor maps as hidden parameters (tile-sched --tma), "
			   "which only the host callback fills");
		return true;
	}
	return false;
}

bool pack_fills_tensor_maps(const PackOptions *o)
{
	const char *lang = o->language ? o->language : "auto";
	if (strcmp(lang, "ptx") == 0 || (o->nv_host && strcmp(o->nv_host, "none") == 0))
		return false;
	PtxasVersion ver;
	char *ptxas = pack_pick_ptxas(o->ptxas, &ver, false);
	bool yes = ptxas && knows_tileir(&ver);
	free(ptxas);
	return yes;
}

int pack_cubin(const PackOptions *o, const PtxInput *in, StrBuf *cubin, char arch[16])
{
	if (choose_arch(o, in, arch) < 0)
		return -1;
	PtxasVersion ver;
	char *ptxas = pack_pick_ptxas(o->ptxas, &ver, o->verbose);
	if (!ptxas)
		return -1;
	const char *lang = o->language ? o->language : "auto";
	bool tileir = strcmp(lang, "tileir") == 0 || (strcmp(lang, "auto") == 0 && knows_tileir(&ver));
	StrBuf why_plain = {0};   /* --language=auto fell back: the remark's text */
	if (strcmp(lang, "auto") == 0 && !tileir)
		sb_printf(&why_plain, "ptxas %s (release %d.%d) cannot assemble '.language 7' (PTX ISA 9.2, "
			  "ptxas 13.2 or newer): the cubin's language is PTX, not TILEIR", ptxas,
			  ver.major, ver.minor);
	if (strcmp(lang, "tileir") == 0 && !knows_tileir(&ver)) {
		diag_plain("--language=tileir: ptxas %s (release %d.%d) cannot assemble '.language 7' "
			   "(needs ptxas 13.2 or newer)", ptxas, ver.major, ver.minor);
		free(ptxas);
		sb_free(&why_plain);
		return -1;
	}
	if (needs_callbacks(o, in, tileir, ptxas, &ver)) {
		free(ptxas);
		sb_free(&why_plain);
		return -1;
	}
	PtxasVersion inver;
	bool in_process = pack_inproc_usable(o, &ver, &inver);
	if (in_process) {
		ver = inver;       /* what the library is decides TILEIR */
		tileir = strcmp(lang, "tileir") == 0 || (strcmp(lang, "auto") == 0 && knows_tileir(&ver));
	}
	if (o->verbose)
		fprintf(stderr, "tile-pack: %s %s (release %d.%d.%d), %s module\n", in_process ? "in process:" : "ptxas",
			in_process ? pack_inproc_name() : ptxas, ver.major, ver.minor, ver.patch, tileir ? "TILEIR" : "plain PTX");
	char *dir = tmpdir_make();
	if (!dir) {
		free(ptxas);
		sb_free(&why_plain);
		return -1;
	}
	int rc = -1;
	StrBuf ptx_path = {0}, out_path = {0}, knobs = {0}, tir = {0}, nv_host = {0};
	sb_printf(&out_path, "%s/out.cubin", dir);
	const char *tmp_ptx = NULL;
	bool retried = false;
again:
	ptx_path.len = 0;
	tmp_ptx = NULL;
	nv_host.len = 0;
	if (tileir) {
		tir.len = 0;
		ptx_to_tileir(in->text, in->len, &tir);
		sb_printf(&ptx_path, "%s/in.ptx", dir);
		if (write_file(ptx_path.s, tir.s ? tir.s : "", tir.len) < 0)
			goto out;
		tmp_ptx = ptx_path.s;
		if (!o->nv_host || strcmp(o->nv_host, "none") != 0) {
			/* the launch-callback object NVIDIA's cubins carry (nvhost.c) */
			StrBuf names = {0}, obj = {0};
			int ne = ptx_entry_names(in->text, in->len, &names);
			const char **list = xcalloc((size_t)ne + 1, sizeof *list);
			const char *q = names.s;
			for (int i = 0; i < ne; i++, q += strlen(q) + 1)
				list[i] = q;
			sb_printf(&nv_host, "--nv-host=%s/host.o", dir);
			int hr = pack_nv_host(o, list, ne, in->text, in->len, atoi(arch + 3), &obj);
			if (hr == 0)
				hr = write_file(nv_host.s + 10, obj.s ? obj.s : "", obj.len);
			free(list);
			sb_free(&names);
			sb_free(&obj);
			if (hr < 0)
				goto out;
		}
	} else if (in->path) {
		sb_puts(&ptx_path, in->path);
	} else {
		sb_printf(&ptx_path, "%s/in.ptx", dir);
		if (write_file(ptx_path.s, in->text, in->len) < 0)
			goto out;
		tmp_ptx = ptx_path.s;
	}
	char olevel[8];
	snprintf(olevel, sizeof olevel, "%d", o->opt_level);
	bool want_usage = o->remarks_file != NULL || o->remarks_out != NULL;
	/* occupancy_tune.c: a register budget where registers limit the warps */
	bool tune = o->opt_level > 0 && !o->device_debug && !o->memcheck && o->n_ptxas_args == 0 &&
		    !getenv("TILE_PACK_NO_OCCUPANCY");
	bool own_v = (want_usage || tune) && !has_arg(o, "-v") && !has_arg(o, "--verbose");
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
		knobs.len = 0;
		sb_printf(&knobs, "--knobs-file=%s", kp);
		argv[n++] = knobs.s;
	}
	if (nv_host.len)
		argv[n++] = nv_host.s;
	if (own_v)
		argv[n++] = "-v";
	for (int i = 0; i < o->n_ptxas_args && n < 120; i++)
		argv[n++] = o->ptxas_args[i];
	int ptx_arg = n;
	argv[n++] = ptx_path.s;
	argv[n++] = "-o";
	argv[n++] = out_path.s;
	argv[n] = NULL;

	if (o->verbose)
		print_command(argv);
	ProcResult pr;
	int prc = pack_assemble(argv, ptx_arg, ptx_arg + 2, in_process, &pr);
	if (pr.end == PROC_NOT_STARTED) {
		diag_plain("cannot run ptxas '%s': %s", ptxas, strerror(pr.code));
		proc_result_free(&pr);
		goto out;
	}
	if (prc != 0 && tileir && !retried && strcmp(lang, "auto") == 0 && pr.err.s &&
	    strstr(pr.err.s, ".language")) {
		/* the version said it could; this ptxas says otherwise: plain PTX */
		const char *e = strchr(pr.err.s, '\n');
		sb_printf(&why_plain, "ptxas %s rejected '.language 7' (%.*s): the cubin's language is "
			  "PTX, not TILEIR", ptxas, e ? (int)(e - pr.err.s) : (int)strlen(pr.err.s), pr.err.s);
		proc_result_free(&pr);
		tileir = false;
		retried = true;
		if (needs_callbacks(o, in, false, ptxas, &ver))
			goto out;
		goto again;
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
	StrBuf log = {0};
	sb_puts(&log, sb_cstr(&pr.out));
	sb_puts(&log, sb_cstr(&pr.err));
	if (tune) {
		const char *text = tileir ? tir.s : (const char *)in->text;
		size_t tlen = tileir ? tir.len : in->len;
		occupancy_tune(argv, ptx_arg, ptx_arg + 2, in_process, dir, text ? text : "", text ? tlen : 0, &log,
			       cubin, o->verbose);
	}
	if (want_usage) {
		KernelUsage *k = NULL;
		int nk = parse_ptxas_usage(log.s, &k);
		StrBuf y = {0};
		if (why_plain.len)
			write_language_remark(&y, why_plain.s, o->remark_format);
		write_remarks(&y, k, nk, o->remark_format, (const char *)in->text, in->len);
		if (o->remarks_out) {
			sb_putn(o->remarks_out, y.s ? y.s : "", y.len);
			rc = 0;
		} else {
			rc = write_output_atomic(o->remarks_file, y.s ? y.s : "", y.len) < 0 ? -1 : 0;
		}
		sb_free(&y);
		free_usage(k, nk);
	} else {
		rc = 0;
	}
	sb_free(&log);
	proc_result_free(&pr);
out:
	sb_free(&ptx_path);
	sb_free(&out_path);
	sb_free(&knobs);
	sb_free(&tir);
	sb_free(&nv_host);
	sb_free(&why_plain);
	tmpdir_remove(dir);
	free(ptxas);
	return rc;
}
