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
#include "stagecheck.h"
#include "ptx.h"

static PtxOpts opts = { .opt = 3 };
static const char *gpu;

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	if (strcmp(name, "--gpu-name") == 0) {
		if (!value) {
			*takes_value = true;
			return 0;
		}
		if (!target_by_name(value)) {
			diag_plain("unknown GPU '%s' (supported: %s)", value, target_list());
			return -1;
		}
		gpu = value;
		return 1;
	}
	if (strcmp(name, "--opt-level") == 0) {
		if (!value) {
			*takes_value = true;
			return 0;
		}
		if (strlen(value) != 1 || value[0] < '0' || value[0] > '3') {
			diag_plain("--opt-level takes 0 to 3, not '%s'", value);
			return -1;
		}
		opts.opt = value[0] - '0';
		return 1;
	}
	if (strcmp(name, "--sanitize") == 0) {
		if (!value) {
			*takes_value = true;
			return 0;
		}
		diag_plain("--sanitize=%s is not supported yet", value);
		return -1;
	}
	if (strcmp(name, "--lineinfo") == 0 || strcmp(name, "--device-debug") == 0) {
		opts.lineinfo = true;
		if (name[2] == 'd')
			opts.device_debug = true;
		return 1;
	}
	if (strlen(name) == 3 && name[0] == '-' && name[1] == 'O' && name[2] >= '0' && name[2] <= '3') {
		opts.opt = name[2] - '0';
		return 1;
	}
	return 0;
}

static int run(ToolRun *r)
{
	Module *m = r->in;
	if (stage_check(m))
		return EXIT_INPUT;
	const char *name = gpu;
	const Attr *a = module_attr(m, "target");
	if (!name && a && a->kind == AT_STRING)
		name = a->u.s;
	if (!name)
		name = "sm_80";
	opts.target = target_by_name(name);
	if (!opts.target) {
		diag_plain("unknown GPU '%s' in the module's target attribute (supported: %s)", name, target_list());
		return EXIT_INPUT;
	}
	opts.emit_llvm = strcmp(r->emit, "llvm") == 0;
	LLVMContextRef ctx = LLVMContextCreate();
	bool libdevice = false;
	LLVMModuleRef mod = emit_module(m, ctx, &opts, &libdevice);
	int rc = EXIT_INPUT;
	if (mod)
		rc = backend_run(mod, ctx, &opts, libdevice, &r->bytes);
	LLVMContextDispose(ctx);
	r->out_is_bytes = true;
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const stages[] = { "scheduled", NULL };
	static const char *const emits[] = { "ptx", "llvm", NULL };
	static const Tool t = {
		.name = "tile-ptx",
		.summary = "Generate PTX from scheduled tile IR (LLVM NVPTX backend).",
		.options_help =
			"  --gpu-name=SM      target GPU (default: the module's target attribute, else sm_80)\n"
			"  -O0 .. -O3, --opt-level=N   LLVM optimization level (default 3)\n"
			"  --lineinfo         emit .loc line information from the ops' locations\n"
			"  --device-debug     full debug info (`.target ..., debug`; ptxas needs -O0)\n"
			"  (--emit=llvm prints the optimized LLVM IR instead of PTX)\n",
		.in_stages = stages,
		.default_emit = "ptx",
		.emits = emits,
		.option = option,
		.run = run,
	};
	return tool_main(argc, argv, &t);
}
