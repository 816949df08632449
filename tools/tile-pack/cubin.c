/* cubin.c: one PTX -> cubin assembly (pack_cubin), and the same started
 * before its PTX exists (pack_start_early, for libtileiras).
 *
 * ptxas spends its first ~13 ms (13.5, a small kernel) starting up before it
 * opens the PTX, and opens the --nv-host object only after it has parsed the
 * PTX (~36 ms in). So ptxas is started as soon as its command line is known
 * and its inputs are put in place while it starts: tile-pack starts it after
 * writing the PTX and builds the .nv.host object meanwhile; libtileiras
 * starts it before LLVM's code generation. Each input is written under a
 * temporary name and renamed into place, so ptxas finds either nothing or
 * the whole file. A run started before its inputs were all in place that
 * fails (it looked too early: a big kernel's codegen, a loaded machine) is
 * run again, the usual way, once they are; its messages are dropped. The
 * cubin is the same bytes either way (ptxas reads the same files); only the
 * wall time differs. TILE_PACK_NO_EARLY=1 starts ptxas only when everything
 * is written (the comparison and the fallback are tested in tile-pack.bats
 * and libtileiras.bats). The in-process assembler (assemble.c) runs
 * synchronously, after the inputs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "pack.h"
#include "tmap.h"
#include "diag.h"
#include "knobs.h"
#include "proc.h"
#include "target.h"
#include "tool.h"
#include "xalloc.h"

static bool no_early(void)
{
	return knobs()->TILE_PACK_NO_EARLY;
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
		diag_plain("the PTX takes TMA tensor maps as hidden parameters (compiled with TMA), which only a "
			   "TILEIR cubin's host callback fills; ptxas %s (release %d.%d) makes plain-PTX cubins "
			   "(TILEIR needs ptxas 13.2 or newer; or compile without --tma)", ptxas, ver->major, ver->minor);
		return true;
	}
	if (o->nv_host && strcmp(o->nv_host, "none") == 0) {
		diag_plain("--nv-host=none: the PTX takes TMA tensor maps as hidden parameters (compiled with TMA), "
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


/* One assembly: what is known before the PTX (the ptxas, the module's
 * language, the directory), then its command line and run. */
struct PackJob {
	const PackOptions *o;       /* borrowed */
	char *ptxas;
	PtxasVersion ver;
	const char *lang;
	bool tileir, in_process, want_usage, tune, own_v;
	StrBuf why_plain;           /* --language=auto fell back: the remark's text */
	char *dir;
	StrBuf ptx_path, out_path, knobs, nv_host;
	char arch[16], olevel[8];
	const char *argv[128];
	int ptx_arg;
	bool running;               /* ptxas started before its inputs were all in place */
	bool fifo;                  /* ... reading its PTX from a FIFO (pack_start_early) */
	Proc proc;
	ProcResult pr;              /* that run's, until finished */
};

/* Kill and reap an early ptxas; a FIFO it was to read goes too (writing the
 * PTX to that path would then block: no reader). */
static void job_cancel(PackJob *j)
{
	if (j->running) {
		proc_cancel(&j->proc, &j->pr);
		proc_result_free(&j->pr);
		j->running = false;
	}
	if (j->fifo) {
		unlink(j->ptx_path.s);
		j->fifo = false;
	}
}

static void job_free(PackJob *j)
{
	if (!j)
		return;
	job_cancel(j);
	sb_free(&j->why_plain);
	sb_free(&j->ptx_path);
	sb_free(&j->out_path);
	sb_free(&j->knobs);
	sb_free(&j->nv_host);
	tmpdir_remove(j->dir);
	free(j->ptxas);
	free(j);
}

/* NULL after a diagnostic */
static PackJob *job_open(const PackOptions *o)
{
	PackJob *j = xcalloc(1, sizeof *j);
	j->o = o;
	j->ptxas = pack_pick_ptxas(o->ptxas, &j->ver, o->verbose);
	if (!j->ptxas) {
		free(j);
		return NULL;
	}
	const char *lang = j->lang = o->language ? o->language : "auto";
	j->tileir = strcmp(lang, "tileir") == 0 || (strcmp(lang, "auto") == 0 && knows_tileir(&j->ver));
	if (strcmp(lang, "auto") == 0 && !j->tileir)
		sb_printf(&j->why_plain, "ptxas %s (release %d.%d) cannot assemble '.language 7' (PTX ISA 9.2, "
			  "ptxas 13.2 or newer): the cubin's language is PTX, not TILEIR", j->ptxas,
			  j->ver.major, j->ver.minor);
	if (strcmp(lang, "tileir") == 0 && !knows_tileir(&j->ver)) {
		diag_plain("--language=tileir: ptxas %s (release %d.%d) cannot assemble '.language 7' "
			   "(needs ptxas 13.2 or newer)", j->ptxas, j->ver.major, j->ver.minor);
		job_free(j);
		return NULL;
	}
	PtxasVersion inver;
	j->in_process = pack_inproc_usable(o, &j->ver, &inver);
	if (j->in_process) {
		j->ver = inver;       /* what the library is decides TILEIR */
		j->tileir = strcmp(lang, "tileir") == 0 || (strcmp(lang, "auto") == 0 && knows_tileir(&j->ver));
	}
	if (o->verbose)
		fprintf(stderr, "tile-pack: %s %s (release %d.%d.%d), %s module\n",
			j->in_process ? "in process:" : "ptxas", j->in_process ? pack_inproc_name() : j->ptxas,
			j->ver.major, j->ver.minor, j->ver.patch, j->tileir ? "TILEIR" : "plain PTX");
	j->dir = tmpdir_make();
	if (!j->dir) {
		job_free(j);
		return NULL;
	}
	sb_printf(&j->out_path, "%s/out.cubin", j->dir);
	snprintf(j->olevel, sizeof j->olevel, "%d", o->opt_level);
	j->want_usage = o->remarks_file != NULL || o->remarks_out != NULL;
	/* occupancy_tune.c: a register budget where registers limit the warps */
	j->tune = o->opt_level > 0 && !o->device_debug && !o->memcheck && o->n_ptxas_args == 0 &&
		  !knobs()->TILE_PACK_NO_OCCUPANCY;
	j->own_v = (j->want_usage || j->tune) && !has_arg(o, "-v") && !has_arg(o, "--verbose");
	return j;
}

/* tensor-memory checks exist where the PTX itself targets tcgen05 */
static bool tmem_check(const PtxInput *in)
{
	char base[32];
	ptx_target(in->text, in->len, base, sizeof base);
	size_t bl = strlen(base);
	if (bl && (base[bl - 1] == 'a' || base[bl - 1] == 'f'))
		base[bl - 1] = 0;
	const Target *tg = target_by_name(base);
	return tg && target_has(tg, TF_TCGEN05);
}

/* ptxas's command line for j->arch, reading ptx_file (and host.o in the
 * directory for a TILEIR module with callbacks) */
static void job_argv(PackJob *j, const char *ptx_file, bool tmem)
{
	const PackOptions *o = j->o;
	j->ptx_path.len = 0;
	sb_puts(&j->ptx_path, ptx_file);
	j->nv_host.len = 0;
	if (j->tileir && (!o->nv_host || strcmp(o->nv_host, "none") != 0))
		sb_printf(&j->nv_host, "--nv-host=%s/host.o", j->dir);
	const char **argv = j->argv;
	int n = 0;
	argv[n++] = j->ptxas;
	argv[n++] = "-arch";
	argv[n++] = j->arch;
	argv[n++] = "--opt-level";
	argv[n++] = j->olevel;
	/* static shared memory past 48 KiB, up to what the target gives a block
	 * (targets.def), as NVIDIA's tileiras asks (docs/abi.md section 2) */
	argv[n++] = "--enable-extended-smem=true";
	if (o->device_debug)
		argv[n++] = "-g";
	else if (o->lineinfo)
		argv[n++] = "-lineinfo";
	if (o->memcheck) {
		argv[n++] = "-sanitize=memcheck";
		if (tmem)
			argv[n++] = "-g-tmem-access-check";
	}
	const char *kp = knobs()->PTX_KNOBS_PATH;
	if (knobs()->MLIR_ENABLE_EVO && kp) {
		j->knobs.len = 0;
		sb_printf(&j->knobs, "--knobs-file=%s", kp);
		argv[n++] = j->knobs.s;
	}
	if (j->nv_host.len)
		argv[n++] = j->nv_host.s;
	if (j->own_v)
		argv[n++] = "-v";
	for (int i = 0; i < o->n_ptxas_args && n < 120; i++)
		argv[n++] = o->ptxas_args[i];
	j->ptx_arg = n;
	argv[n++] = j->ptx_path.s;
	argv[n++] = "-o";
	argv[n++] = j->out_path.s;
	argv[n] = NULL;
}

/* Start ptxas now, before its inputs are all in place (see the top). */
static void job_start_early(PackJob *j)
{
	if (j->in_process || no_early())
		return;
	if (j->o->verbose)
		print_command(j->argv);
	if (pack_assemble_start(j->argv, &j->proc, &j->pr) == 0)
		j->running = true;
	else
		proc_result_free(&j->pr);    /* the usual run will say why */
}

/* Write an input of ptxas; when ptxas is already running, under a
 * temporary name renamed into place. */
static int place(const PackJob *j, const char *path, const void *buf, size_t len)
{
	if (!j->running)
		return write_file(path, buf, len);
	StrBuf t = {0};
	sb_printf(&t, "%s.part", path);
	int rc = write_file(t.s, buf, len);
	if (rc == 0 && rename(t.s, path) != 0) {
		diag_plain("cannot rename '%s' to '%s': %s", t.s, path, strerror(errno));
		rc = -1;
	}
	sb_free(&t);
	return rc;
}

/* The PTX into the FIFO ptxas was started on (pack_start_early): the bytes
 * go to a regular file first; once ptxas has opened the FIFO (or died), the
 * file is renamed over it, and only then are the bytes written into the
 * FIFO, so ptxas's second open of its input (13.x reopens the PTX after
 * parsing it) finds the regular file, never a FIFO without a writer. */
static int feed_fifo(PackJob *j, const char *text, size_t len)
{
	StrBuf part = {0};
	sb_printf(&part, "%s.part", j->ptx_path.s);
	int fd = -1;
	if (write_file(part.s, text, len) < 0) {
		sb_free(&part);
		return -1;
	}
	for (;;) {
		fd = open(j->ptx_path.s, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || errno != ENXIO || proc_exited(&j->proc))
			break;
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);   /* ptxas not at its open yet */
	}
	int rc = 0;
	if (rename(part.s, j->ptx_path.s) != 0) {
		diag_plain("cannot rename '%s' to '%s': %s", part.s, j->ptx_path.s, strerror(errno));
		rc = -1;
	}
	if (fd >= 0) {
		/* ptxas reads to the end; if it stops (it died), its run fails and is redone */
		fcntl(fd, F_SETFL, 0);
		for (size_t sent = 0; rc == 0 && sent < len;) {
			ssize_t n = write(fd, text + sent, len - sent);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			sent += (size_t)n;
		}
		close(fd);
	}
	sb_free(&part);
	return rc;
}

/* The .nv.host launch-callback object NVIDIA's cubins carry (nvhost.c), in place. */
static int place_nv_host(PackJob *j, const PtxInput *in)
{
	StrBuf names = {0}, obj = {0};
	int ne = ptx_entry_names(in->text, in->len, &names);
	const char **list = xcalloc((size_t)ne + 1, sizeof *list);
	const char *q = names.s;
	for (int i = 0; i < ne; i++, q += strlen(q) + 1)
		list[i] = q;
	int rc = pack_nv_host(j->o, list, ne, in->text, in->len, atoi(j->arch + 3), &obj);
	if (rc == 0)
		rc = place(j, j->nv_host.s + 10, obj.s ? obj.s : "", obj.len);
	free(list);
	sb_free(&names);
	sb_free(&obj);
	return rc;
}

/* One ptxas run with the job's language: its inputs put in place (the PTX
 * as `text`), ptxas run or the early one finished. Returns as pack_assemble
 * into *pr, or -2 after a diagnostic with no run. *tmp_ptx: the PTX file
 * when it is ours (NULL: the user's). */
static int attempt(PackJob *j, const PtxInput *in, const char *text, size_t len, const char **tmp_ptx,
		   ProcResult *pr)
{
	if (!j->running) {
		StrBuf p = {0};
		if (!j->tileir && in->path)
			sb_puts(&p, in->path);
		else
			sb_printf(&p, "%s/in.ptx", j->dir);
		job_argv(j, p.s, j->o->memcheck && tmem_check(in));
		sb_free(&p);
	}
	*tmp_ptx = NULL;
	if (j->tileir || !in->path) {
		*tmp_ptx = j->ptx_path.s;
		bool fifo = j->fifo;
		j->fifo = false;
		if ((fifo ? feed_fifo(j, text ? text : "", len) : place(j, j->ptx_path.s, text ? text : "", len)) < 0)
			return -2;
	}
	if (j->nv_host.len) {
		if (!j->running)
			job_start_early(j);   /* it reads the PTX while the object is built */
		if (place_nv_host(j, in) < 0)
			return -2;
	}
	if (j->running) {
		j->running = false;
		int prc = proc_finish(&j->proc, 0, &j->pr);
		*pr = j->pr;
		memset(&j->pr, 0, sizeof j->pr);
		if (prc == 0)
			return 0;
		/* it may have looked before the files were there: run it again */
		if (j->o->verbose)
			fprintf(stderr, "tile-pack: ptxas started before its inputs were in place %s; running it "
				"again\n", proc_describe(pr));
		proc_result_free(pr);
	}
	if (j->o->verbose)
		print_command(j->argv);
	return pack_assemble(j->argv, j->ptx_arg, j->ptx_arg + 2, j->in_process, pr);
}

/* PTX ISA 9.m is ptxas 13.m's (9.5 in 13.5): an older ptxas refuses the
 * target or the version with a message that names neither the fix nor why
 * (sm_107's PTX is 9.4: "Value 'sm_107a' is not defined"). false after one
 * message saying what is needed. */
static bool ptxas_knows_isa(const PackJob *j, const PtxInput *in, const char *arch)
{
	int isa = ptx_isa(in->text, in->len);
	if (isa < 90 || !j->ver.known || j->ver.major > 13 || (j->ver.major == 13 && j->ver.minor >= isa - 90))
		return true;
	size_t n = strlen(arch);
	if (n && (arch[n - 1] == 'a' || arch[n - 1] == 'f'))
		n--;            /* the GPU's name, as the user gave it */
	diag_plain("%.*s takes PTX ISA %d.%d, which ptxas %s (release %d.%d) cannot assemble: ptxas 13.%d or newer is "
		   "needed (make venv installs one from pip, nvidia-cuda-nvcc; or set TILEIRAS_PTXAS)",
		   (int)n, arch, isa / 10, isa % 10, j->in_process ? pack_inproc_name() : j->ptxas, j->ver.major,
		   j->ver.minor, isa - 90);
	return false;
}

static int job_finish(PackJob *j, const PtxInput *in, StrBuf *cubin, char arch[16])
{
	const PackOptions *o = j->o;
	int rc = -1;
	StrBuf tir = {0};
	ProcResult pr;
	const char *tmp_ptx = NULL;
	if (choose_arch(o, in, arch) < 0)
		goto out;
	/* (pack_start_early starts none under memcheck, whose flags need the PTX) */
	if (j->running && strcmp(arch, j->arch) != 0)
		job_cancel(j);      /* started for another command line */
	snprintf(j->arch, sizeof j->arch, "%s", arch);
	if (needs_callbacks(o, in, j->tileir, j->ptxas, &j->ver))
		goto out;
	if (!ptxas_knows_isa(j, in, arch))
		goto out;
	bool retried = false;
	int prc;
	for (;;) {
		tir.len = 0;
		if (j->tileir)
			ptx_to_tileir(in->text, in->len, &tir);
		prc = j->tileir ? attempt(j, in, tir.s, tir.len, &tmp_ptx, &pr)
				: attempt(j, in, (const char *)in->text, in->len, &tmp_ptx, &pr);
		if (prc == -2)
			goto out;
		if (pr.end == PROC_NOT_STARTED) {
			diag_plain("cannot run ptxas '%s': %s", j->ptxas, strerror(pr.code));
			proc_result_free(&pr);
			goto out;
		}
		if (prc != 0 && j->tileir && !retried && strcmp(j->lang, "auto") == 0 && pr.err.s &&
		    strstr(pr.err.s, ".language")) {
			/* the version said it could; this ptxas says otherwise: plain PTX */
			const char *e = strchr(pr.err.s, '\n');
			sb_printf(&j->why_plain, "ptxas %s rejected '.language 7' (%.*s): the cubin's language is "
				  "PTX, not TILEIR", j->ptxas, e ? (int)(e - pr.err.s) : (int)strlen(pr.err.s),
				  pr.err.s);
			proc_result_free(&pr);
			j->tileir = false;
			retried = true;
			if (needs_callbacks(o, in, false, j->ptxas, &j->ver))
				goto out;
			continue;
		}
		break;
	}
	pass_through(pr.out.s, tmp_ptx, in->display, j->own_v);
	pass_through(pr.err.s, tmp_ptx, in->display, j->own_v);
	if (prc != 0) {
		diag_plain("ptxas %s", proc_describe(&pr));
		proc_result_free(&pr);
		goto out;
	}
	if (read_into(j->out_path.s, cubin) < 0) {
		proc_result_free(&pr);
		goto out;
	}
	StrBuf log = {0};
	sb_puts(&log, sb_cstr(&pr.out));
	sb_puts(&log, sb_cstr(&pr.err));
	if (j->tune) {
		const char *text = j->tileir ? tir.s : (const char *)in->text;
		size_t tlen = j->tileir ? tir.len : in->len;
		occupancy_tune(j->argv, j->ptx_arg, j->ptx_arg + 2, j->in_process, j->dir, text ? text : "",
			       text ? tlen : 0, &log, cubin, o->verbose);
	}
	if (j->want_usage) {
		KernelUsage *k = NULL;
		int nk = parse_ptxas_usage(log.s, &k);
		StrBuf y = {0};
		if (j->why_plain.len)
			write_language_remark(&y, j->why_plain.s, o->remark_format);
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
	sb_free(&tir);
	job_free(j);
	return rc;
}

int pack_cubin(const PackOptions *o, const PtxInput *in, StrBuf *cubin, char arch[16])
{
	/* (job_finish chooses it again; here first, so a PTX without a target
	 * is said before anything about the ptxas) */
	if (choose_arch(o, in, arch) < 0)
		return -1;
	PackJob *j = job_open(o);
	return j ? job_finish(j, in, cubin, arch) : -1;
}

PackJob *pack_start_early(const PackOptions *o)
{
	if (no_early() || !o->gpu_name || o->memcheck)
		return NULL;
	/* quietly: what fails here fails again, and says so, in pack_cubin_job */
	DiagQuiet q;
	diag_quiet_begin(&q);
	PackJob *j = job_open(o);
	diag_quiet_end(&q);
	if (!j)
		return NULL;
	PtxInput none = { .text = (const uint8_t *)"", .len = 0 };
	if (j->in_process || choose_arch(o, &none, j->arch) < 0) {
		job_free(j);
		return NULL;
	}
	StrBuf p = {0};
	sb_printf(&p, "%s/in.ptx", j->dir);
	j->fifo = mkfifo(p.s, 0600) == 0;
	job_argv(j, p.s, false);
	sb_free(&p);
	if (j->fifo)
		job_start_early(j);
	if (!j->running) {
		job_free(j);
		return NULL;
	}
	return j;
}

int pack_cubin_job(const PackOptions *o, PackJob *j, const PtxInput *in, StrBuf *cubin, char arch[16])
{
	return j ? job_finish(j, in, cubin, arch) : pack_cubin(o, in, cubin, arch);
}

void pack_job_abandon(PackJob *j)
{
	job_free(j);
}
