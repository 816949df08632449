/* libdevice_asm.c: libdevice's one-instruction inline PTX replaced by the
 * intrinsic of the same instruction, after linking and before the
 * optimization pipeline (issue 17: registers).
 *
 * libdevice computes f32 reciprocals (tanhf, and through it GELU: 40 sites)
 * as inline PTX (`rcp.approx.ftz.f32 $0,$1;`).
 * NVPTX keeps inline PTX in its order among the block's inline PTX, so
 * where tile-ptx had emitted an op for all of a thread's 32 elements, every
 * element's reciprocal (and the chain before it) came before any element's
 * tail, and all 32 values were live at once: TileGym's gelu_fwd took 84
 * registers under .minnctapersm 1 on sm_90, 44 with the intrinsic (NVIDIA's
 * 48). The intrinsic is the same instruction (ptxas sees the same PTX
 * opcode), free to be scheduled. (Its f64 `rsqrt.approx.ftz.f64` is
 * inline PTX too; no kernel of ours reaches it, so it is left as it is.) */
#include <string.h>
#include <llvm-c/Core.h>
#include "ptx.h"

static const struct {
	const char *text;      /* libdevice's asm string */
	const char *intr;      /* the intrinsic of the same instruction */
	bool f64;
} swaps[] = {
	{ "rcp.approx.ftz.f32 $0,$1;", "llvm.nvvm.rcp.approx.ftz.f", false },
};

void backend_libdevice_intrinsics(LLVMModuleRef mod)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
				next = LLVMGetNextInstruction(i);
				LLVMValueRef callee = LLVMGetInstructionOpcode(i) == LLVMCall ? LLVMGetCalledValue(i) : NULL;
				if (!callee || !LLVMIsAInlineAsm(callee) || LLVMGetNumArgOperands(i) != 1)
					continue;
				size_t n = 0;
				const char *t = LLVMGetInlineAsmAsmString(callee, &n);
				for (size_t k = 0; t && k < sizeof swaps / sizeof swaps[0]; k++) {
					LLVMTypeRef ty = swaps[k].f64 ? LLVMDoubleTypeInContext(ctx) : LLVMFloatTypeInContext(ctx);
					if (n != strlen(swaps[k].text) || memcmp(t, swaps[k].text, n) != 0 || LLVMTypeOf(i) != ty)
						continue;
					unsigned id = LLVMLookupIntrinsicID(swaps[k].intr, strlen(swaps[k].intr));
					if (!id)
						break;
					LLVMValueRef decl = LLVMGetIntrinsicDeclaration(mod, id, NULL, 0);
					LLVMPositionBuilderBefore(b, i);
					LLVMValueRef a = LLVMGetOperand(i, 0);
					LLVMValueRef r = LLVMBuildCall2(b, LLVMFunctionType(ty, &ty, 1, 0), decl, &a, 1, "");
					LLVMReplaceAllUsesWith(i, r);
					LLVMInstructionEraseFromParent(i);
					break;
				}
			}
	LLVMDisposeBuilder(b);
}
