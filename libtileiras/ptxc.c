/* ptxc.c: NVIDIA's PTX compiler library (pip's nvidia-nvptxcompiler,
 * libnvptxcompiler_static.a) as tile-pack's in-process assembler
 * (tools/tile-pack/assemble.c). Linked into libtileiras.so only, and only
 * when the Makefile finds the library (NVPTXC_LIB): a client that keeps the
 * library loaded pays its start-up once; the one-compile processes
 * (tileiras-inproc, the stage tools) and libtileiras.a keep to the ptxas
 * process. Registers itself when the library is loaded. The library
 * takes ptxas's options and writes the same cubin (TILEIR with .nv.host
 * included); its messages are made to read as ptxas's: the input is named
 * as ptxas would name it, and a property line ("ptxas         .     0 bytes
 * stack frame, ...") gets ptxas -v's four-space indent, which tile-pack
 * parses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvPTXCompiler.h>
#include "pack.h"
#include "strbuf.h"

/* the library's log, as ptxas would print it */
static void as_ptxas(const char *log, const char *ptx_name, StrBuf *out)
{
	static const char input[] = "ptxas application ptx input", prop[] = "ptxas         .";
	for (const char *s = log; s && *s;) {
		const char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s) + 1 : strlen(s);
		if (strncmp(s, input, sizeof input - 1) == 0) {
			sb_puts(out, ptx_name);
			sb_putn(out, s + sizeof input - 1, n - (sizeof input - 1));
		} else if (strncmp(s, prop, sizeof prop - 1) == 0) {
			const char *t = s + sizeof prop - 1;
			while (*t == ' ')
				t++;
			sb_puts(out, "    ");
			sb_putn(out, t, n - (size_t)(t - s));
		} else {
			sb_putn(out, s, n);
		}
		s += n;
	}
}

static void take_log(nvPTXCompilerHandle h, bool errors, const char *ptx_name, StrBuf *out)
{
	size_t n = 0;
	if ((errors ? nvPTXCompilerGetErrorLogSize(h, &n) : nvPTXCompilerGetInfoLogSize(h, &n)) != NVPTXCOMPILE_SUCCESS ||
	    n == 0)
		return;
	char *b = calloc(n + 1, 1);
	if (!b)
		return;
	if ((errors ? nvPTXCompilerGetErrorLog(h, b) : nvPTXCompilerGetInfoLog(h, b)) == NVPTXCOMPILE_SUCCESS)
		as_ptxas(b, ptx_name, out);
	free(b);
}

static int assemble(const char *ptx, size_t len, int nopts, const char *const *opts, const char *ptx_name,
		    StrBuf *cubin, StrBuf *info, StrBuf *err)
{
	nvPTXCompilerHandle h = NULL;
	if (nvPTXCompilerCreate(&h, len, ptx) != NVPTXCOMPILE_SUCCESS) {
		sb_puts(err, "ptxas fatal   : the PTX compiler library could not start\n");
		return -1;
	}
	nvPTXCompileResult r = nvPTXCompilerCompile(h, nopts, opts);
	take_log(h, false, ptx_name, info);
	int rc = -1;
	if (r == NVPTXCOMPILE_SUCCESS) {
		size_t n = 0;
		if (nvPTXCompilerGetCompiledProgramSize(h, &n) == NVPTXCOMPILE_SUCCESS && n) {
			char *b = malloc(n);
			if (b && nvPTXCompilerGetCompiledProgram(h, b) == NVPTXCOMPILE_SUCCESS) {
				sb_putn(cubin, b, n);
				rc = 0;
			}
			free(b);
		}
		if (rc != 0)
			sb_puts(err, "ptxas fatal   : the PTX compiler library gave no cubin\n");
	} else {
		take_log(h, true, ptx_name, err);
		if (!err->len)
			sb_printf(err, "ptxas fatal   : the PTX compiler library failed (code %d)\n", (int)r);
	}
	nvPTXCompilerDestroy(&h);
	return rc;
}

__attribute__((constructor)) static void register_ptxc(void)
{
	unsigned major = 0, minor = 0;
	if (nvPTXCompilerGetVersion(&major, &minor) != NVPTXCOMPILE_SUCCESS)
		return;
	PtxasVersion v = { .known = true, .major = (int)major, .minor = (int)minor, .patch = 0 };
	pack_set_inproc_assembler(assemble, &v, "nvPTXCompiler (libnvptxcompiler_static.a)");
}
