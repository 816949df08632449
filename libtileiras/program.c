/* program.c: libtileiras's four public calls (the seed's "Driver Program
 * Handle") and our getters. Validation order, codes and messages are the
 * seed's; where we differ (the GPU list, arm64ec, the sanitizer value, the
 * bytecode read at compile) docs/libtileiras.md says why. No process-global
 * mutable state: the last error is per thread. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "program.h"
#include "target.h"

static _Thread_local const char *last_error = "";

int tileiras_fail(int code, const char *msg)
{
	last_error = msg;
	return code;
}

static int ok(void)
{
	last_error = "";
	return TILEIRAS_SUCCESS;
}

const char *tileirasGetLastError(void)
{
	return last_error;
}

const char *tileirasGetErrorString(int code)
{
	switch (code) {
	case TILEIRAS_SUCCESS: return "success";
	case TILEIRAS_ERROR_ALLOCATION: return "allocation failure";
	case TILEIRAS_ERROR_INVALID_CONFIG: return "configuration rejection";
	case TILEIRAS_ERROR_INVALID_INPUT: return "bytecode parse failure";
	case TILEIRAS_ERROR_INVALID_PROGRAM: return "handle-state rejection";
	case TILEIRAS_ERROR_COMPILE: return "compile failure";
	}
	return "unknown error code";
}

static const uint8_t magic[8] = { 0x7f, 'T', 'i', 'l', 'e', 'I', 'R', 0 };

/* The seed's probe: Tile IR bytecode magic, and when it is not there, a
 * hint for MLIR bytecode (the "e IR byt" tail the seed scans for, or MLIR's
 * own magic "ML\xefR"). */
static int probe(const TileirasConfig *c)
{
	const uint8_t *b = c->input_buffer_data;
	size_t n = c->input_buffer_size;
	if (n >= sizeof magic && memcmp(b, magic, sizeof magic) == 0)
		return TILEIRAS_SUCCESS;
	bool mlir = n >= 4 && memcmp(b, "ML\xefR", 4) == 0;
	for (size_t i = 0; !mlir && n >= 8 && i + 8 <= n; i++)
		mlir = memcmp(b + i, "e IR byt", 8) == 0;
	return tileiras_fail(TILEIRAS_ERROR_INVALID_INPUT,
			     mlir ? "failed to parse IR bytecode (it looks like MLIR bytecode instead)"
				  : "input does not correspond to Tile IR bytecode");
}

int tileirasProgramCreate(TileirasProgram **out_program, const TileirasConfig *c)
{
	if (!out_program)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (!c)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "configuration is null");
	if (!c->input_buffer_data)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "input buffer is null");
	int rc = probe(c);
	if (rc)
		return rc;
	char gpu[16];
	snprintf(gpu, sizeof gpu, "sm_%d", (int)c->gpu_id);
	const Target *t = c->gpu_id > 0 ? target_by_name(gpu) : NULL;
	if (!t || t->sm != c->gpu_id)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unsupported GPU target");
	if ((uint32_t)c->opt_level > 3)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "invalid optimization level");
	if (c->opt_level != 0 && c->device_debug)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG,
				     "optimized debugging is currently not supported, change the "
				     "optimization level to 0 or disable full debug info");
	if ((uint32_t)c->host_arch > 2)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unsupported host architecture");
	if (c->host_arch == TILEIRAS_HOST_ARCH_ARM64EC)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG,
				     "unsupported host architecture (arm64ec: not supported by this tileiras)");
	if ((uint32_t)c->host_os > 1)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unsupported host operating system");
	if ((uint32_t)c->sanitize > 1)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unsupported sanitizer");
	/* the only allocation, last, as the seed's: a successful return means a
	 * whole handle (calloc, not xcalloc: running out is code 1, not abort) */
	TileirasProgram *p = calloc(1, sizeof *p);
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_ALLOCATION, "failed to allocate memory for program");
	p->config = *c;
	snprintf(p->gpu_name, sizeof p->gpu_name, "%s", t->name);
	*out_program = p;
	return ok();
}

static void clear_results(TileirasProgram *p)
{
	p->compiled = false;
	sb_free(&p->output);
	for (int i = 0; i < TILEIRAS_N_FORMS; i++) {
		sb_free(&p->forms[i]);
		p->have_form[i] = false;
	}
	sb_free(&p->log);
	sb_free(&p->remarks);
	memset(p->stage_ms, 0, sizeof p->stage_ms);
}

int tileirasProgramCompile(TileirasProgram *p)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	clear_results(p);
	int rc = tileiras_compile(p);
	if (rc == TILEIRAS_ERROR_INVALID_INPUT) {
		sb_puts(&p->log, "error: input does not correspond to Tile IR bytecode\n");
		return tileiras_fail(rc, "input does not correspond to Tile IR bytecode");
	}
	if (rc) {
		sb_puts(&p->log, "error: failed to compile Tile IR program\n");
		return tileiras_fail(rc, "failed to compile Tile IR program");
	}
	p->compiled = true;
	return ok();
}

static int view(const StrBuf *b, TileirasByteView *out)
{
	out->data = (const uint8_t *)(b->s ? b->s : "");
	out->size = b->len;
	return ok();
}

/* A result of the last successful compile (p->output, p->remarks): 4 for
 * NULL arguments or before a compile. */
static int compiled_view(TileirasProgram *p, size_t field, TileirasByteView *out)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (!out)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "output pointer is null");
	if (!p->compiled)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program has not been compiled");
	return view((const StrBuf *)((const char *)p + field), out);
}

int tileirasProgramGetOutput(TileirasProgram *p, TileirasByteView *out)
{
	return compiled_view(p, offsetof(TileirasProgram, output), out);
}

int tileirasProgramRelease(TileirasProgram *p)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	clear_results(p);
	free(p->input_name);
	free(p);
	return ok();
}

int tileirasProgramRequestForms(TileirasProgram *p, unsigned forms)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (forms & ~(unsigned)TILEIRAS_FORM_ALL)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unknown intermediate form");
	p->forms_wanted = forms;
	return ok();
}

int tileirasProgramGetForm(TileirasProgram *p, unsigned form, TileirasByteView *out)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (!out)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "output pointer is null");
	if (!form || (form & (form - 1)) || (form & ~(unsigned)TILEIRAS_FORM_ALL))
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unknown intermediate form");
	int i = __builtin_ctz(form);
	if (!p->have_form[i])
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM,
				     "intermediate form not requested or not reached");
	return view(&p->forms[i], out);
}

int tileirasProgramGetLog(TileirasProgram *p, TileirasByteView *out)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (!out)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "output pointer is null");
	return view(&p->log, out);
}

int tileirasProgramGetStageTimes(TileirasProgram *p, double ms[TILEIRAS_N_STAGES])
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (!ms)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "output pointer is null");
	memcpy(ms, p->stage_ms, sizeof p->stage_ms);
	return ok();
}

int tileirasProgramSetInputName(TileirasProgram *p, const char *name)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	char *copy = NULL;
	if (name && !(copy = strdup(name)))
		return tileiras_fail(TILEIRAS_ERROR_ALLOCATION, "failed to allocate memory for the input name");
	free(p->input_name);
	p->input_name = copy;
	return ok();
}

int tileirasProgramRequestRemarks(TileirasProgram *p, unsigned kinds, int resources, int yaml)
{
	if (!p)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_PROGRAM, "program is null");
	if (kinds & ~(unsigned)TILEIRAS_REMARK_ALL)
		return tileiras_fail(TILEIRAS_ERROR_INVALID_CONFIG, "unknown remark kind");
	p->remark_kinds = kinds;
	p->remark_resources = resources != 0;
	p->remark_yaml = yaml != 0;
	return ok();
}

int tileirasProgramGetRemarks(TileirasProgram *p, TileirasByteView *out)
{
	return compiled_view(p, offsetof(TileirasProgram, remarks), out);
}
