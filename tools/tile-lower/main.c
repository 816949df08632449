/* tile-lower: cuda_tile -> nv_tileaa -> nv_tileas (docs/lowering.md).
 * Accepts: cuda_tile IR (verified) or nv_tileaa IR.
 * Guarantees: nv_tileas IR (or nv_tileaa with --stop-at=nv_tileaa) that
 * passes the lower-stage verifier; every memory op names its copy; source
 * locations kept. An op it cannot lower yet is a user error naming the op
 * and its location (exit 1). */
#include <string.h>
#include "tool.h"
#include "diag.h"
#include "target.h"
#include "stagecheck.h"
#include "lower.h"
#include "verify.h"

typedef struct Opts {
	const char *gpu;
	const char *stop_at;
} Opts;

static Opts opts;

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	if (strcmp(name, "--opt-level") == 0) {     /* accepted from the driver; no effect yet */
		if (!value) {
			*takes_value = true;
			return 0;
		}
		if (strlen(value) != 1 || value[0] < '0' || value[0] > '3') {
			diag_plain("--opt-level takes 0 to 3, not '%s'", value);
			return -1;
		}
		return 1;
	}
	if (strcmp(name, "--gpu-name") == 0 || strcmp(name, "--stop-at") == 0) {
		if (!value) {
			*takes_value = true;
			return 0;
		}
		if (name[2] == 'g') {
			if (!target_by_name(value)) {
				diag_plain("unknown GPU '%s' (supported: %s)", value, target_list());
				return -1;
			}
			opts.gpu = value;
		} else {
			if (strcmp(value, "nv_tileaa") != 0 && strcmp(value, "nv_tileas") != 0) {
				diag_plain("--stop-at takes nv_tileaa or nv_tileas, not '%s'", value);
				return -1;
			}
			opts.stop_at = value;
		}
		return 1;
	}
	return 0;
}

static const Target *pick_target(Module *m)
{
	const char *name = opts.gpu;
	const Attr *a = module_attr(m, "target");
	if (!name && a && a->kind == AT_STRING)
		name = a->u.s;
	if (!name)
		name = "sm_80";
	const Target *t = target_by_name(name);
	if (!t) {
		diag_plain("unknown GPU '%s' in the module's target attribute (supported: %s)",
			   name, target_list());
		return NULL;
	}
	module_set_attr(m, "target", attr_string(m, t->name));
	return t;
}

static int run(ToolRun *r)
{
	Module *m = r->in;
	r->out = m;
	r->in = NULL;
	if (strcmp(m->stage, "cuda_tile") == 0) {
		if (verify_cuda_tile(m))
			return EXIT_INPUT;
		if (lower_to_aa(m))
			return EXIT_INPUT;
		if (stage_check(m))
			ice("tile-lower produced invalid nv_tileaa IR (see above)");
	} else if (stage_check(m)) {
		return EXIT_INPUT;
	}
	if (opts.stop_at && strcmp(opts.stop_at, "nv_tileaa") == 0)
		return EXIT_OK;
	const Target *t = pick_target(m);
	if (!t)
		return EXIT_INPUT;
	if (lower_to_as(m, t))
		return EXIT_INPUT;
	if (stage_check(m))
		ice("tile-lower produced invalid nv_tileas IR (see above)");
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const char *const stages[] = { "cuda_tile", "nv_tileaa", NULL };
	static const char *const emits[] = { "json", "text", NULL };
	static const Tool t = {
		.name = "tile-lower",
		.summary = "Lower cuda_tile IR to nv_tileaa and nv_tileas (explicit memory, copy choice).",
		.options_help =
			"  --gpu-name=SM      target GPU (default: the module's target attribute, else sm_80)\n"
			"  --stop-at=STAGE    stop after nv_tileaa or nv_tileas (default nv_tileas)\n"
			"  --opt-level=N      accepted for the driver (0..3); no effect yet\n",
		.in_stages = stages,
		.default_emit = "json",
		.emits = emits,
		.option = option,
		.run = run,
	};
	return tool_main(argc, argv, &t);
}
