/* util_round.c: rounding modes (utility layer, emit.h): the PTX names of
 * the IR's rounding modes, NVVM's rounded float intrinsics, cvt with a
 * rounding between the formats LLVM has a type for, and f16 / bf16
 * arithmetic with a directed rounding; f16 / bf16 / f8 widened to f32.
 *
 * PTX has only .rn for f16 / bf16 add, sub, mul, div, fma and sqrt, so the
 * directed modes (zero, negative_inf, positive_inf) compute in f32 with the
 * same rounding (add.rz.f32, ...) and convert with it (cvt.rz.f16.f32, ...).
 * Rounding twice in the same direction equals rounding once, because every
 * f16 / bf16 value is an f32 value. */
#include <stdio.h>
#include "emit.h"

const char *ptx_rounding(int rm)
{
	return rm == ROUNDING_nearest_even ? "rn" : ptx_rounding_directed(rm);
}

const char *ptx_rounding_directed(int rm)
{
	switch (rm) {
	case ROUNDING_zero: return "rz";
	case ROUNDING_negative_inf: return "rm";
	case ROUNDING_positive_inf: return "rp";
	default: return NULL;
	}
}

LLVMValueRef widen(E *e, LLVMValueRef x, const Type *el)
{
	if (el->scalar == SC_F16 || el->scalar == SC_BF16)
		return LLVMBuildFPExt(e->b, x, LLVMFloatTypeInContext(e->ctx), "");
	return x;
}

LLVMValueRef f8_to_f32(E *e, LLVMValueRef x, const Type *from)
{
	const char *n = from->scalar == SC_F8E4M3FN ? "llvm.nvvm.e4m3x2.to.f16x2.rn" : "llvm.nvvm.e5m2x2.to.f16x2.rn";
	LLVMValueRef p = LLVMBuildZExt(e->b, x, LLVMInt16TypeInContext(e->ctx), "");
	LLVMValueRef h2 = call_intr(e, n, NULL, &p, 1);
	LLVMValueRef h = LLVMBuildExtractElement(e->b, h2, c_i32(e, 0), "");
	return LLVMBuildFPExt(e->b, h, ty_f32(e), "");
}

LLVMValueRef narrow(E *e, LLVMValueRef x, const Type *el)
{
	if (el->scalar == SC_F16 || el->scalar == SC_BF16)
		return LLVMBuildFPTrunc(e->b, x, elem_ty(e, el), "");
	return x;
}

LLVMValueRef nvvm_rounded(E *e, Op *op, const char *base, const char *rnd, bool ftz, const Type *el,
			  LLVMValueRef *args, int n)
{
	if (el->scalar != SC_F32 && el->scalar != SC_F64) {
		unsupported(e, op, "a rounding mode other than nearest_even on this type");
		return LLVMGetPoison(elem_ty(e, el));
	}
	char name[96];
	bool d = el->scalar == SC_F64;
	snprintf(name, sizeof name, "llvm.nvvm.%s.%s%s.%s", base, rnd, ftz && !d ? ".ftz" : "", d ? "d" : "f");
	return call_intr(e, name, NULL, args, n);
}

LLVMValueRef cvt_rounded(E *e, const char *rnd, LLVMValueRef x, const Type *from, const Type *to)
{
	const char *fn = scalar_name(from->scalar), *tn = scalar_name(to->scalar);
	if (to->scalar == SC_BF16 && from->scalar == SC_F64 && e->o->target->sm < 90) {
		x = cvt_rounded(e, rnd, x, from, type_scalar(e->m, SC_F32));
		from = type_scalar(e->m, SC_F32);
		fn = "f32";
	}
	if (from->scalar == SC_F16 || from->scalar == SC_BF16) {      /* exact widening first */
		x = LLVMBuildFPExt(e->b, x, ty_f32(e), "");
		from = type_scalar(e->m, SC_F32);
		fn = "f32";
		if (to->scalar == SC_F32)
			return x;
	}
	char text[64], cons[16];
	snprintf(text, sizeof text, "cvt.%s.%s.%s $0, $1;", rnd, tn, fn);
	char rc = to->scalar == SC_F32 ? 'f' : to->scalar == SC_F64 ? 'd' : 'h';
	snprintf(cons, sizeof cons, "=%c,%c", rc, from->scalar == SC_F64 ? 'd' : 'f');
	LLVMTypeRef rt = rc == 'h' ? LLVMInt16TypeInContext(e->ctx) : elem_ty(e, to);
	LLVMValueRef r = asm_pure1(e, rt, text, cons, x);
	return rc == 'h' ? LLVMBuildBitCast(e->b, r, elem_ty(e, to), "") : r;
}

LLVMValueRef half_directed(E *e, Op *op, const char *rnd, const Type *el, LLVMValueRef *a)
{
	LLVMValueRef w[3];
	int n = op->noperands;
	for (int i = 0; i < n; i++)
		w[i] = LLVMBuildFPExt(e->b, a[i], ty_f32(e), "");
	char name[64];
	const char *base;
	switch (op->info->code) {
	case CT_addf: base = "add"; break;
	case CT_subf: base = "add"; w[1] = LLVMBuildFNeg(e->b, w[1], ""); break;
	case CT_mulf: base = "mul"; break;
	case CT_divf: base = "div"; break;
	case CT_fma: base = "fma"; break;
	default: base = "sqrt"; break;
	}
	snprintf(name, sizeof name, "llvm.nvvm.%s.%s.f", base, rnd);
	LLVMValueRef r = call_intr(e, name, NULL, w, n);
	return cvt_rounded(e, rnd, r, type_scalar(e->m, SC_F32), el);
}
