/* bytecode.c: tilerunModuleLoadBytecode (tilerun.h): Tile IR bytecode
 * compiled in this process by libtileiras (tileiras.h) to PTX with line
 * info (TILEIRAS_FORM_PTX, lineinfo 1: the .loc lines a fault's
 * file:line:col come from), then loaded as PTX text. The PTX is taken
 * once the compiler has made it: the cubin step after it (ptxas) does not
 * decide whether the CPU can run the kernel, so a machine without ptxas
 * loads bytecode too. Compile errors: the log's first error line, its
 * FILE:LINE:COL in err. In its own file so that a program linking
 * libtilerun.a without this call (the tile-run command) needs no LLVM. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* memmem */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "target.h"
#include "tileiras.h"

/* err from the compiler's log: its first error line, and the place that
 * line starts with (FILE:LINE:COL: error: ...) */
static void compile_error(TilerunError *err, const TileirasByteView *log, const char *fallback)
{
	memset(err, 0, sizeof *err);
	err->kind = TILERUN_KIND_ERROR;
	err->buffer = -1;
	const char *s = (const char *)log->data, *end = s + log->size, *line = NULL;
	size_t n = 0;
	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *e = memmem(p, len, "error: ", 7);
		if (e) {
			line = p;
			n = len;
			break;
		}
		p += len + 1;
	}
	if (!line) {
		snprintf(err->message, sizeof err->message, "%s", fallback);
		return;
	}
	snprintf(err->message, sizeof err->message, "%.*s", (int)n, line);
	/* FILE:LINE:COL: error: */
	const char *e = strstr(err->message, ": error: ");
	if (!e)
		return;
	const char *c2 = e;
	while (c2 > err->message && c2[-1] != ':')
		c2--;
	const char *c1 = c2 > err->message ? c2 - 1 : c2;
	while (c1 > err->message && c1[-1] != ':')
		c1--;
	unsigned l, c;
	if (c1 > err->message + 1 && sscanf(c1, "%u:%u", &l, &c) == 2) {
		int flen = (int)(c1 - 1 - err->message);
		snprintf(err->file, sizeof err->file, "%.*s", flen, err->message);
		err->line = l;
		err->col = c;
	}
}

int tilerunModuleLoadBytecode(TilerunModule **out, const void *bytecode, size_t len, const char *gpu, const char *name,
			      TilerunError *err)
{
	if (!out || !bytecode)
		return call_error(err, TILERUN_ERROR_USAGE, "tilerunModuleLoadBytecode: NULL module pointer or bytecode");
	*out = NULL;
	const Target *t = target_by_name(gpu ? gpu : "sm_80");
	if (!t)
		return call_error(err, TILERUN_ERROR_USAGE, "tilerunModuleLoadBytecode: unsupported GPU name");
	TileirasConfig cfg = {
		.input_buffer_data = bytecode, .input_buffer_size = len, .gpu_id = t->sm, .opt_level = 3, .lineinfo = 1,
	};
	TileirasProgram *p = NULL;
	int rc = tileirasProgramCreate(&p, &cfg);
	if (rc != TILEIRAS_SUCCESS)
		return call_error(err, TILERUN_ERROR_INPUT, tileirasGetLastError());
	if (name)
		tileirasProgramSetInputName(p, name);
	tileirasProgramRequestForms(p, TILEIRAS_FORM_PTX);
	rc = tileirasProgramCompile(p);
	TileirasByteView ptx, log;
	if (tileirasProgramGetForm(p, TILEIRAS_FORM_PTX, &ptx) != TILEIRAS_SUCCESS) {
		tileirasProgramGetLog(p, &log);
		TilerunError e;
		compile_error(&e, &log, tileirasGetErrorString(rc));
		if (err)
			*err = e;
		tileirasProgramRelease(p);
		return TILERUN_ERROR_INPUT;
	}
	rc = tilerunModuleLoad(out, (const char *)ptx.data, ptx.size, name ? name : "<bytecode>", err);
	tileirasProgramRelease(p);
	return rc;
}
