/* ptx.c: the tile-ptx stage's run, one sequence for its executable
 * (main.c) and libtileiras (compile.c): the input checked (stage_check),
 * the module's target, the LLVM module (module.c) in a context of its own,
 * then the backend (backend.c) writes PTX, or LLVM IR with o->emit_llvm. */
#include "ptx.h"
#include "stagecheck.h"
#include "tool.h"

int ptx_run(Module *m, const char *gpu, PtxOpts *o, StrBuf *out)
{
	if (stage_check(m))
		return EXIT_INPUT;
	o->target = tool_pick_target(m, gpu);
	if (!o->target)
		return EXIT_INPUT;
	LLVMContextRef ctx = LLVMContextCreate();
	bool libdevice = false;
	LLVMModuleRef mod = emit_module(m, ctx, o, &libdevice);
	int rc = EXIT_INPUT;
	if (mod)
		rc = backend_run(mod, ctx, o, libdevice, out);
	LLVMContextDispose(ctx);
	return rc;
}
