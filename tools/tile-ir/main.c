/* tile-ir: check and convert the JSON IR of any stage.
 * Accepts: JSON IR (docs/ir.md) at any stage.
 * Guarantees: the output is the canonical JSON (or the text form) of the
 * same IR; malformed IR is rejected with the JSON pointer of the bad node. */
#include "tool.h"

static const char *const any_stage[] = { "cuda_tile", "nv_tileaa", "nv_tileas", "scheduled", NULL };
static const char *const emits[] = { "json", "text", NULL };

static int run(ToolRun *r)
{
	r->out = r->in;
	r->in = NULL;
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const Tool t = {
		.name = "tile-ir",
		.summary = "Check JSON IR of any stage and write it back canonically (or as text).",
		.in_stages = any_stage,
		.default_emit = "json",
		.emits = emits,
		.run = run,
	};
	return tool_main(argc, argv, &t);
}
