/* lower.c: the tile-lower stage's run, one sequence for its executable
 * (main.c) and libtileiras (compile.c): the module's target (and, with
 * tma, that the cubin fills TMA tensor maps: module attr tma_maps); cuda_tile IR
 * verified and lowered to nv_tileaa (to_aa.c), nv_tileaa IR checked; then,
 * unless stop_at_aa, nv_tileas (to_as.c). What it makes passes the
 * lower-stage verifier (stage_check) or it is an internal error. */
#include <string.h>
#include "lower.h"
#include "diag.h"
#include "stagecheck.h"
#include "tool.h"
#include "verify.h"

int lower_run(Module *m, const char *gpu, bool tma, bool stop_at_aa)
{
	const Target *t = tool_pick_target(m, gpu);
	if (!t)
		return EXIT_INPUT;
	/* decided with the target, once: later stages read the module */
	if (tma && target_has(t, TF_TMA))
		module_set_attr(m, "tma_maps", attr_bool(m, true));
	if (strcmp(m->stage, "cuda_tile") == 0) {
		if (verify_cuda_tile(m))
			return EXIT_INPUT;
		if (lower_to_aa(m, t))
			return EXIT_INPUT;
		if (stage_check(m))
			ice("tile-lower produced invalid nv_tileaa IR (see above)");
	} else if (stage_check(m)) {
		return EXIT_INPUT;
	}
	if (stop_at_aa)
		return EXIT_OK;
	if (lower_to_as(m, t))
		return EXIT_INPUT;
	if (stage_check(m))
		ice("tile-lower produced invalid nv_tileas IR (see above)");
	return EXIT_OK;
}
