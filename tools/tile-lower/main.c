/* tile-lower: cuda_tile -> nv_tileaa -> nv_tileas (docs/lowering.md).
 * Accepts: cuda_tile IR (verified) or nv_tileaa IR.
 * Guarantees: nv_tileas IR (or nv_tileaa with --stop-at=nv_tileaa) that
 * passes the lower-stage verifier; every memory op names its copy; source
 * locations kept. An op it cannot lower yet is a user error naming the op
 * and its location (exit 1). */
#include <string.h>
#include "tool.h"
#include "diag.h"
#include "lower.h"

typedef struct Opts {
	const char *gpu;
	const char *stop_at;
	int opt;            /* accepted for the driver; no effect yet */
	bool tma;           /* --tma: the cubin's host callback fills TMA tensor maps */
} Opts;

static Opts opts;

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	bool want = false;   /* this call found one of ours without its value */
	int used = tool_target_option(name, value, &want, &opts.gpu, &opts.opt);
	if (used || want) {
		*takes_value = want;
		return used;
	}
	if (strcmp(name, "--tma") == 0) {
		opts.tma = true;
		return 1;
	}
	if (strcmp(name, "--stop-at") != 0)
		return 0;
	if (!value) {
		*takes_value = true;
		return 0;
	}
	if (strcmp(value, "nv_tileaa") != 0 && strcmp(value, "nv_tileas") != 0) {
		diag_plain("--stop-at takes nv_tileaa or nv_tileas, not '%s'", value);
		return -1;
	}
	opts.stop_at = value;
	return 1;
}

static int run(ToolRun *r)
{
	Module *m = r->in;
	r->out = m;
	r->in = NULL;
	return lower_run(m, opts.gpu, opts.tma, opts.stop_at && strcmp(opts.stop_at, "nv_tileaa") == 0);
}

int main(int argc, char **argv)
{
	static const char *const stages[] = { "cuda_tile", "nv_tileaa", NULL };
	static const char *const emits[] = { "json", "text", NULL };
	static const Tool t = {
		.name = "tile-lower",
		.summary = "Lower cuda_tile IR to nv_tileaa and nv_tileas (explicit memory, copy choice).",
		.options_help =
			TOOL_TARGET_OPTIONS_HELP
			"                     (the level has no effect on this stage)\n"
			"  --stop-at=STAGE    stop after nv_tileaa or nv_tileas (default nv_tileas)\n"
			"  --tma              the cubin will fill TMA tensor maps (a TILEIR cubin's host\n"
			"                     callback: the driver asks tile-pack): recorded in the\n"
			"                     module (`tma_maps`, on targets with TMA) for tile-sched\n",
		TOOL_STAGE(stages, "json"),
	};
	return tool_main(argc, argv, &t);
}
