/* tile-ptx: scheduled IR -> PTX through the LLVM 22 C API (docs/lowering.md §5).
 * Accepts: scheduled IR that passes the lower-stage verifier (every tile
 * value has a layout).
 * Guarantees: PTX for --gpu-name (or LLVM IR with --emit=llvm) whose kernels
 * have NVIDIA's parameter ABI (docs/abi.md) and .reqntid = 32 * num_warps;
 * an op it cannot generate yet is a user error naming the op and its
 * location (exit 1). */
#include <string.h>
#include "tool.h"
#include "diag.h"
#include "ptx.h"

static PtxOpts opts = { .opt = 3 };
static const char *gpu;

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	bool want = false;   /* this call found one of ours without its value */
	int used = tool_target_option(name, value, &want, &gpu, &opts.opt);
	if (used || want) {
		*takes_value = want;
		return used;
	}
	if (strcmp(name, "--sanitize") == 0) {
		if (!value) {
			*takes_value = true;
			return 0;
		}
		diag_plain("--sanitize=%s is not supported", value);
		return -1;
	}
	if (strcmp(name, "--lineinfo") == 0 || strcmp(name, "--device-debug") == 0) {
		opts.lineinfo = true;
		if (name[2] == 'd')
			opts.device_debug = true;
		return 1;
	}
	return 0;
}

static int run(ToolRun *r)
{
	opts.emit_llvm = strcmp(r->emit, "llvm") == 0;
	r->out_is_bytes = true;
	return ptx_run(r->in, gpu, &opts, &r->bytes);
}

int main(int argc, char **argv)
{
	static const char *const stages[] = { "scheduled", NULL };
	static const char *const emits[] = { "ptx", "llvm", NULL };
	static const Tool t = {
		.name = "tile-ptx",
		.summary = "Generate PTX from scheduled tile IR (LLVM NVPTX backend).",
		.options_help =
			TOOL_TARGET_OPTIONS_HELP
			"  --lineinfo         emit .loc line information from the ops' locations\n"
			"  --device-debug     full debug info (`.target ..., debug`; ptxas needs -O0)\n"

			"  (--emit=llvm prints the optimized LLVM IR instead of PTX)\n",
		TOOL_STAGE(stages, "ptx"),
	};
	return tool_main(argc, argv, &t);
}
