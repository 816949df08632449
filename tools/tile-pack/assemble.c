/* assemble.c: one run of the PTX assembler — the ptxas process, or NVIDIA's
 * PTX compiler library in this process where the program registered one
 * (pack_set_inproc_assembler; libtileiras.so does when it was built with
 * pip's nvidia-nvptxcompiler: libtileiras/ptxc.c). Both take the same
 * ptxas options and write the same cubin (the library's notes say no tool
 * branch; the code, sections and .nv.host are the same: docs/libtileiras.md).
 * A client that keeps the library loaded saves ~8-10 ms a compile.
 * It is used only when it is at least as new as the ptxas tile-pack picked
 * and no ptxas was named (--ptxas, $TILEIRAS_PTXAS); TILEIRAS_NO_INPROC_PTXAS=1
 * turns it off. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack.h"
#include "knobs.h"
#include "proc.h"
#include "toolkit.h"
#include "xalloc.h"

static PackInprocAssembler inproc;
static PtxasVersion inproc_ver;
static const char *inproc_name;

void pack_set_inproc_assembler(PackInprocAssembler fn, const PtxasVersion *v, const char *name)
{
	inproc = fn;
	inproc_ver = *v;
	inproc_name = name;
}

static bool newer_or_same(const PtxasVersion *a, const PtxasVersion *b)
{
	if (!b->known)
		return true;
	if (a->major != b->major)
		return a->major > b->major;
	return a->minor >= b->minor;      /* the library reports no patch level */
}

bool pack_inproc_usable(const PackOptions *o, const PtxasVersion *picked, PtxasVersion *v)
{
	if (!inproc || o->ptxas || knobs()->TILEIRAS_PTXAS || knobs()->TILEIRAS_NO_INPROC_PTXAS)
		return false;
	if (!newer_or_same(&inproc_ver, picked))
		return false;
	*v = inproc_ver;
	return true;
}

const char *pack_inproc_name(void)
{
	return inproc_name ? inproc_name : "in-process PTX compiler";
}

int pack_read_file(const char *path, StrBuf *out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(out, buf, n);
	int bad = ferror(f);
	fclose(f);
	return bad ? -1 : 0;
}

/* ptxas's environment: ours, with glibc's malloc on transparent huge pages
 * (GLIBC_TUNABLES glibc.malloc.hugetlb=1) and growing its heap 16 MiB at a
 * time (glibc.malloc.top_pad), each unless the user set that tunable: ptxas
 * spends much of its time faulting in fresh heap pages, ~130 KiB a brk by
 * default. 2 MiB pages cut its time by ~9% (softmax: 37.5 -> 34.0 ms, same
 * cubin, same peak memory); the padding, which lets them be 2 MiB pages
 * from the start, ~12% more (13 corpus kernels, sm_90, ptxas 13.5: median
 * 25.3 -> 21.9 ms; peak memory +2.5 MiB, ~6%; 2026-11-27). Where the kernel
 * has no THP (enabled=never) only the fewer brk calls remain. */
static char **ptxas_env(char **owned)
{
	*owned = NULL;
	extern char **environ;
	const char *t = toolkit_env(TK_GLIBC_TUNABLES);
	bool huge = !(t && strstr(t, "glibc.malloc.hugetlb")), pad = !(t && strstr(t, "glibc.malloc.top_pad"));
	if (!huge && !pad)
		return NULL;
	int n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc((size_t)n + 2, sizeof *env);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (strncmp(environ[i], "GLIBC_TUNABLES=", 15) != 0)
			env[k++] = environ[i];
	StrBuf v = {0};
	sb_printf(&v, "GLIBC_TUNABLES=%s", t ? t : "");
	if (huge)
		sb_printf(&v, "%sglibc.malloc.hugetlb=1", v.len > 15 ? ":" : "");
	if (pad)
		sb_printf(&v, "%sglibc.malloc.top_pad=16777216", v.len > 15 ? ":" : "");
	env[k++] = *owned = v.s;
	env[k] = NULL;
	return env;
}

int pack_assemble_start(const char *const *argv, Proc *p, ProcResult *pr)
{
	char *tunable;
	char **env = ptxas_env(&tunable);
	/* tied: a ptxas waiting for its PTX must not outlive us */
	int rc = proc_start_ex((char *const *)argv, env, NULL, 0, true, p, pr);
	free(tunable);
	free(env);
	return rc;
}

int pack_assemble(const char *const *argv, int ptx_arg, int out_arg, bool in_process, ProcResult *pr)
{
	if (!in_process || !inproc) {
		Proc p;
		return pack_assemble_start(argv, &p, pr) < 0 ? -1 : proc_finish(&p, 0, pr);
	}
	memset(pr, 0, sizeof *pr);
	pr->end = PROC_EXITED;
	StrBuf ptx = {0}, cubin = {0};
	if (pack_read_file(argv[ptx_arg], &ptx) < 0) {
		sb_printf(&pr->err, "ptxas fatal   : cannot read '%s'\n", argv[ptx_arg]);
		pr->code = 1;
		return -1;
	}
	const char *opts[160];
	int n = 0;
	for (int i = 1; argv[i] && n < 159; i++)
		if (i != ptx_arg && i != out_arg && !(i + 1 == out_arg && strcmp(argv[i], "-o") == 0))
			opts[n++] = argv[i];
	opts[n] = NULL;
	int rc = inproc(ptx.s ? ptx.s : "", ptx.len, n, opts, argv[ptx_arg], &cubin, &pr->out, &pr->err);
	if (rc == 0) {
		FILE *f = fopen(argv[out_arg], "wb");
		if (!f || fwrite(cubin.s ? cubin.s : "", 1, cubin.len, f) != cubin.len) {
			sb_printf(&pr->err, "ptxas fatal   : cannot write '%s'\n", argv[out_arg]);
			rc = -1;
		}
		if (f && fclose(f) != 0)
			rc = -1;
	}
	pr->code = rc == 0 ? 0 : 1;
	snprintf(pr->what, sizeof pr->what, "%s", rc == 0 ? "succeeded" : "failed");
	sb_free(&ptx);
	sb_free(&cubin);
	return rc == 0 ? 0 : -1;
}
