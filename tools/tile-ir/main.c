/* tile-ir: check and convert the JSON IR of any stage.
 * Accepts: JSON IR (docs/ir.md) at any stage.
 * Guarantees: the output is the canonical JSON (or the text form) of the
 * same IR; malformed IR is rejected with the JSON pointer of the bad node.
 * With --verify, cuda_tile-stage IR must also pass the cuda_tile verifier
 * (libcommon/verify.h); nothing is written when it does not. */
#include <string.h>
#include "tool.h"
#include "verify.h"

static const char *const any_stage[] = { "cuda_tile", "nv_tileaa", "nv_tileas", "scheduled", NULL };
static const char *const emits[] = { "json", "text", NULL };

static bool verify;

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	if (strcmp(name, "--verify") == 0 && !value) {
		verify = true;
		return 1;
	}
	return 0;
}

static int run(ToolRun *r)
{
	if (verify && verify_cuda_tile(r->in) != 0)
		return EXIT_INPUT;
	r->out = r->in;
	r->in = NULL;
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const Tool t = {
		.name = "tile-ir",
		.summary = "Check JSON IR of any stage and write it back canonically (or as text).",
		.options_help = "  --verify           also run the cuda_tile verifier (cuda_tile stage only)\n",
		TOOL_STAGE(any_stage, "json"),
	};
	return tool_main(argc, argv, &t);
}
