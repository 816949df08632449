/* compile.c: one program's compile, the five stages chained in memory.
 *
 * Does what scripts/tileiras's pipeline does with the stage executables'
 * defaults, on one Module, with no JSON between the stages: tile-read
 * (decode + cuda_tile verifier), tile-lower and tile-ptx (its own LLVM
 * context) through the run functions their executables call (tile_read_run,
 * lower_run, ptx_run); tile-sched (4 warps unless an entry's tiles all have
 * one element) and tile-pack (ptxas as a subprocess, cubin; it is started
 * first, before the read, so its start-up overlaps the stages) as their
 * tools/STAGE/main.c run() does. A form the caller
 * requested is written exactly as that stage's executable writes it; so
 * are remarks (tile-sched's memory/layout remarks, then ptxas's resources).
 * Diagnostics go to the program's log through this thread's diag sink; the
 * switches (knobs.h) are read once a compile and are this thread's for it. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "program.h"
#include "diag.h"
#include "json_ir.h"
#include "stagecheck.h"
#include "target.h"
#include "knobs.h"
#include "tool.h"
#include "irutil.h"
#include "tile_read.h"
#include "lower.h"
#include "sched.h"
#include "ptx.h"
#include "pack.h"
#include "remark.h"

_Static_assert((int)TILEIRAS_REMARK_PASSED == (int)REMARK_PASSED && (int)TILEIRAS_REMARK_MISSED == (int)REMARK_MISSED &&
		       (int)TILEIRAS_REMARK_FAILED == (int)REMARK_FAILURE && (int)TILEIRAS_REMARK_ANALYSIS == (int)REMARK_ANALYSIS,
	       "libtileiras's remark bits are tile-sched's");

/* Keep form `bit` of module m when it was asked for. */
static void keep_json(TileirasProgram *p, unsigned bit, Module *m)
{
	if (!(p->forms_wanted & bit))
		return;
	int i = __builtin_ctz(bit);
	size_t len;
	char *text = json_ir_write(m, &len);
	sb_putn(&p->forms[i], text, len);
	free(text);
	p->have_form[i] = true;
}

static int read_stage(TileirasProgram *p, Module **out)
{
	diag_tool = "tile-read";
	Module *m = tile_read_run(p->config.input_buffer_data, p->config.input_buffer_size, true);
	if (!m)
		return TILEIRAS_ERROR_INVALID_INPUT;
	keep_json(p, TILEIRAS_FORM_READ_JSON, m);
	*out = m;
	return TILEIRAS_SUCCESS;
}

/* TMA (tile-lower --tma, recorded in the module for tile-sched) where the cubin's host callback will fill the maps,
 * as scripts/tileiras decides: a target with TMA (sm_90..sm_121), tile-pack's
 * cubins TILEIR with callbacks, TILEIRAS_NO_TMA unset */
static bool sched_tma(const TileirasProgram *p)
{
	const Target *t = p->gpu_name[0] ? target_by_name(p->gpu_name) : NULL;
	if (!t || !target_has(t, TF_TMA) || knobs()->TILEIRAS_NO_TMA)
		return false;
	PackOptions q = { .language = "auto", .nv_host = "callbacks" };
	return pack_fills_tensor_maps(&q);
}

static int lower_stage(TileirasProgram *p, Module *m)
{
	diag_tool = "tile-lower";
	if (lower_run(m, p->gpu_name, false, false))
		return TILEIRAS_ERROR_COMPILE;
	/* as tile-lower --tma records it; asked after the lowering's messages
	 * (the ptxas search may have its own) */
	if (sched_tma(p))
		module_set_attr(m, "tma_maps", attr_bool(m, true));
	keep_json(p, TILEIRAS_FORM_LOWER_JSON, m);
	return TILEIRAS_SUCCESS;
}

static int sched_stage(TileirasProgram *p, Module *m)
{
	diag_tool = "tile-sched";
	if (stage_check(m) || check_hints(m) || sched_module(m, 4, false, module_tma_maps(m)))
		return TILEIRAS_ERROR_COMPILE;
	if (stage_check(m))
		ice("tile-sched produced invalid scheduled IR (see above)");
	/* the same bits: TILEIRAS_REMARK_* == REMARK_* (tileiras.h) */
	if (p->remark_kinds)
		sched_remarks(m, &p->remarks, p->remark_yaml, p->remark_kinds);
	keep_json(p, TILEIRAS_FORM_SCHED_JSON, m);
	return TILEIRAS_SUCCESS;
}

static int ptx_stage(TileirasProgram *p, Module *m, StrBuf *ptx)
{
	diag_tool = "tile-ptx";
	PtxOpts o = {
		.opt = p->config.opt_level,
		.lineinfo = p->config.lineinfo || p->config.device_debug,
		.device_debug = p->config.device_debug != 0,
	};
	int rc = ptx_run(m, p->gpu_name, &o, ptx) ? TILEIRAS_ERROR_COMPILE : TILEIRAS_SUCCESS;
	if (rc == TILEIRAS_SUCCESS && (p->forms_wanted & TILEIRAS_FORM_PTX)) {
		int i = __builtin_ctz(TILEIRAS_FORM_PTX);
		sb_putn(&p->forms[i], ptx->s ? ptx->s : "", ptx->len);
		p->have_form[i] = true;
	}
	return rc;
}

/* tile-pack's options for this program (the executable's defaults) */
static PackOptions pack_options(TileirasProgram *p)
{
	static const char *const arch[] = { "x86_64", "aarch64" };
	static const char *const os[] = { "linux", "windows" };
	return (PackOptions){
		.gpu_name = p->gpu_name,
		.opt_level = p->config.opt_level,
		.lineinfo = p->config.lineinfo != 0,
		.device_debug = p->config.device_debug != 0,
		.memcheck = p->config.sanitize == TILEIRAS_SANITIZE_MEMCHECK,
		.host_arch = arch[p->config.host_arch],
		.host_os = os[p->config.host_os],
		.symbol = "tileiras_fatbin",
		.remark_format = p->remark_yaml ? "yaml" : "command-line",
		.remarks_out = p->remark_resources ? &p->remarks : NULL,
		.language = "auto",
		.nv_host = "callbacks",
	};
}

/* early: ptxas started before the PTX was made (pack_start_early), or NULL */
static int pack_stage(TileirasProgram *p, const PackOptions *o, PackJob *early, const StrBuf *ptx)
{
	diag_tool = "tile-pack";
	if (ptx->len == 0)
		ice("tile-ptx produced no PTX");
	PtxInput in = { .text = (const uint8_t *)ptx->s, .len = ptx->len, .display = p->input_name ? p->input_name : "<input>" };
	char a[16];
	return pack_cubin_job(o, early, &in, &p->output, a) < 0 ? TILEIRAS_ERROR_COMPILE : TILEIRAS_SUCCESS;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Charge the time since *t to stage i. */
static void lap(TileirasProgram *p, int i, double *t)
{
	double n = now_ms();
	p->stage_ms[i] = n - *t;
	*t = n;
}

int tileiras_compile(TileirasProgram *p)
{
	StrBuf *saved_sink = diag_sink;
	const char *saved_tool = diag_tool, *saved_input = diag_input;
	int saved_errors = diag_errors;
	bool saved_user = diag_user;
	Knobs k;                   /* the switches, read once for this compile's stages */
	knobs_read(&k);
	const Knobs *saved_knobs = knobs_use(&k);
	diag_sink = &p->log;
	diag_user = true;           /* the user's form, as tileiras shows its stages' */
	diag_input = p->input_name;
	diag_errors = 0;
	Module *m = NULL;
	StrBuf ptx = {0};
	double t = now_ms();
	/* ptxas starts up (~12 ms) while the reader, the stages and LLVM make its
	 * PTX (cubin.c); it needs only the options, so it goes first (a module
	 * that fails to read kills it) */
	PackOptions po = pack_options(p);
	PackJob *early = pack_start_early(&po);
	int rc = read_stage(p, &m);
	lap(p, 0, &t);
	if (!rc) {
		rc = lower_stage(p, m);
		lap(p, 1, &t);
	}
	if (!rc) {
		rc = sched_stage(p, m);
		lap(p, 2, &t);
	}
	if (!rc) {
		rc = ptx_stage(p, m, &ptx);
		lap(p, 3, &t);
	}
	if (!rc) {
		rc = pack_stage(p, &po, early, &ptx);
		lap(p, 4, &t);
	} else {
		pack_job_abandon(early);
	}
	if (rc)
		sb_free(&p->remarks);   /* as the CLI: no remarks from a failed compile */
	if (rc && diag_errors == 0)
		ice("%s failed without saying why", diag_tool);
	module_free(m);
	sb_free(&ptx);
	diag_sink = saved_sink;
	diag_tool = saved_tool;
	diag_input = saved_input;
	diag_errors = saved_errors;
	diag_user = saved_user;
	knobs_use(saved_knobs);
	return rc;
}
