/* util_intr.c: calls (utility layer, emit.h): LLVM and NVVM intrinsics,
 * functions declared by name (libdevice, system calls), special registers,
 * inline PTX and what it needs of the module (PTX version, arch target),
 * warp shuffles of any register type, and the "not supported yet" user
 * error every emitter reports through. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "diag.h"

void unsupported(E *e, const Op *op, const char *what)
{
	diag_error(op->loc, "'%s' op: %s is not supported", op->info->name, what);
	e->errors++;
}

LLVMValueRef intrinsic(E *e, const char *name, LLVMTypeRef *over, int nover)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		ice("tile-ptx: LLVM has no intrinsic %s", name);
	return LLVMGetIntrinsicDeclaration(e->mod, id, over, (size_t)nover);
}

LLVMValueRef call(E *e, LLVMValueRef f, LLVMValueRef *args, int n)
{
	return LLVMBuildCall2(e->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

LLVMValueRef call_intr(E *e, const char *name, LLVMTypeRef over, LLVMValueRef *args, int n)
{
	LLVMValueRef f = intrinsic(e, name, over ? &over : NULL, over ? 1 : 0);
	return call(e, f, args, n);
}

/* A function declared by name (libdevice, or a non-overloaded intrinsic). */
LLVMValueRef declared(E *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n)
{
	LLVMValueRef f = LLVMGetNamedFunction(e->mod, name);
	if (!f)
		f = LLVMAddFunction(e->mod, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
	return f;
}

LLVMValueRef sreg(E *e, const char *name)
{
	char buf[64];
	snprintf(buf, sizeof buf, "llvm.nvvm.read.ptx.sreg.%s", name);
	return call_intr(e, buf, NULL, NULL, 0);
}

LLVMValueRef asm_pure1(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef x)
{
	LLVMTypeRef pt = LLVMTypeOf(x);
	LLVMTypeRef ft = LLVMFunctionType(ret, &pt, 1, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 0, 0,
					  LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(e->b, ft, f, &x, 1, "");
}

LLVMValueRef asm_call(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args, int n)
{
	LLVMTypeRef pt[ASM_CALL_MAX_ARGS];
	if (n > ASM_CALL_MAX_ARGS)
		ice("tile-ptx: inline PTX with %d operands (at most %d)", n, ASM_CALL_MAX_ARGS);
	for (int i = 0; i < n; i++)
		pt[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ft = LLVMFunctionType(ret, pt, (unsigned)n, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 1, 0,
					  LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(e->b, ft, f, args, (unsigned)n, "");
}

/* ------------------------------------------------------------ shuffles */

static LLVMValueRef shfl32(E *e, const char *kind, LLVMValueRef v, LLVMValueRef b, bool is_f32)
{
	char name[64];
	snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", kind, is_f32 ? "f32" : "i32");
	int c = strcmp(kind, "up") == 0 ? 0 : 31;
	LLVMValueRef args[4] = { c_i32(e, -1), v, b, c_i32(e, c) };
	return call_intr(e, name, NULL, args, 4);
}

/* shfl.sync.<kind> (bfly / up / down / idx) of any register type: 32-bit
 * types directly, narrower ones widened, 64-bit ones as two halves. */
LLVMValueRef warp_shfl(E *e, const char *kind, LLVMValueRef v, LLVMValueRef b)
{
	LLVMTypeRef t = LLVMTypeOf(v);
	LLVMTypeKind k = LLVMGetTypeKind(t);
	LLVMTypeRef i32 = ty_i32(e), i64 = LLVMInt64TypeInContext(e->ctx);
	if (k == LLVMFloatTypeKind)
		return shfl32(e, kind, v, b, true);
	if (k == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 32)
		return shfl32(e, kind, v, b, false);
	if (k == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) < 32) {
		LLVMValueRef x = shfl32(e, kind, LLVMBuildZExt(e->b, v, i32, ""), b, false);
		return LLVMBuildTrunc(e->b, x, t, "");
	}
	if (k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind) {
		LLVMTypeRef i16 = LLVMInt16TypeInContext(e->ctx);
		LLVMValueRef x = LLVMBuildZExt(e->b, LLVMBuildBitCast(e->b, v, i16, ""), i32, "");
		x = shfl32(e, kind, x, b, false);
		return LLVMBuildBitCast(e->b, LLVMBuildTrunc(e->b, x, i16, ""), t, "");
	}
	/* 64-bit: i64, double, pointers */
	LLVMValueRef x = k == LLVMPointerTypeKind ? LLVMBuildPtrToInt(e->b, v, i64, "")
			 : k == LLVMDoubleTypeKind ? LLVMBuildBitCast(e->b, v, i64, "") : v;
	if (LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(LLVMTypeOf(x)) != 64)
		ice("tile-ptx: no shuffle for this register type");
	LLVMValueRef lo = shfl32(e, kind, LLVMBuildTrunc(e->b, x, i32, ""), b, false);
	LLVMValueRef hi = shfl32(e, kind, LLVMBuildTrunc(e->b, LLVMBuildLShr(e->b, x, LLVMConstInt(i64, 32, 0), ""), i32, ""), b, false);
	LLVMValueRef y = LLVMBuildOr(e->b, LLVMBuildZExt(e->b, lo, i64, ""),
				     LLVMBuildShl(e->b, LLVMBuildZExt(e->b, hi, i64, ""), LLVMConstInt(i64, 32, 0), ""), "");
	if (k == LLVMPointerTypeKind)
		return LLVMBuildIntToPtr(e->b, y, t, "");
	if (k == LLVMDoubleTypeKind)
		return LLVMBuildBitCast(e->b, y, t, "");
	return y;
}

void need_ptx(E *e, int v)
{
	LLVMMetadataRef m = LLVMValueAsMetadata(c_i32(e, v));
	LLVMMetadataRef md = LLVMMDNodeInContext2(e->ctx, (LLVMMetadataRef[]){ m }, 1);
	LLVMAddNamedMetadataOperand(e->mod, "tileiras.min_ptx", LLVMMetadataAsValue(e->ctx, md));
}

void need_arch(E *e)
{
	LLVMAddNamedMetadataOperand(e->mod, "tileiras.arch", LLVMMetadataAsValue(e->ctx, LLVMMDNodeInContext2(e->ctx, NULL, 0)));
}
