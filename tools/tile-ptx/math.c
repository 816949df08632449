/* math.c: the elementwise math forms emit.c's ew1() leaves to this file
 * (docs/lowering.md §9). math_ew() returns false for everything else.
 *
 *   f16 / bf16 add, sub, mul, div, fma, sqrt with rounding zero,
 *   negative_inf, positive_inf: PTX has only .rn for them, so compute in f32
 *   with the same rounding (add.rz.f32, ...) and convert with it
 *   (cvt.rz.f16.f32, ...). Rounding twice in the same direction equals
 *   rounding once, because every f16/bf16 value is an f32 value.
 *   exp2 ftz        ex2.approx.ftz.f32 (exp2f is ex2.approx; ftz picks the .ftz form)
 *   rsqrt ftz       rsqrt.approx.ftz.f32
 *   tanh approx     tanh.approx.f32 (f16/bf16 through f32)
 *   maxf/minf ftz   max.ftz.f32 / min.ftz[.NaN].f32
 * ftof with its rounding modes is convert.c's. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "opinfo.h"
#include "diag.h"

static const char *sattr(const Op *op, const char *name, const char *dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_STRING ? a->u.s : dflt;
}

static bool uflag(const Op *op, const char *name)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_BOOL && a->u.i;
}

static bool is16(const Type *t)
{
	return t->kind == TY_SCALAR && (t->scalar == SC_F16 || t->scalar == SC_BF16);
}

static LLVMTypeRef f32t(E *e) { return LLVMFloatTypeInContext(e->ctx); }

static LLVMValueRef intr(E *e, const char *name, LLVMValueRef *a, int n)
{
	return call_intr(e, name, NULL, a, n);
}

/* f16/bf16 arithmetic with a directed rounding, through f32. */
static LLVMValueRef half_directed(E *e, Op *op, const char *rnd, const Type *el, LLVMValueRef *a)
{
	LLVMValueRef w[3];
	int n = op->noperands;
	for (int i = 0; i < n; i++)
		w[i] = LLVMBuildFPExt(e->b, a[i], f32t(e), "");
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
	LLVMValueRef r = intr(e, name, w, n);
	return cvt_rounded(e, rnd, r, type_scalar(e->m, SC_F32), el);
}

bool math_ew(E *e, Op *op, LLVMValueRef *a, LLVMValueRef *out)
{
	const Type *rt = op->results[0]->type->elem;
	bool f32 = rt->kind == TY_SCALAR && rt->scalar == SC_F32;
	bool ftz = uflag(op, "flush_to_zero");
	const char *mode = sattr(op, "rounding_mode", NULL);
	switch (op->info->code) {
	case CT_addf: case CT_subf: case CT_mulf: case CT_divf: case CT_fma: case CT_sqrt: {
		const char *rnd = mode ? ptx_rounding_directed(mode) : NULL;
		if (!rnd || !is16(rt))
			return false;
		*out = half_directed(e, op, rnd, rt, a);
		return true;
	}
	case CT_exp2:
		if (!f32 || !ftz)
			return false;
		*out = call_intr(e, "llvm.nvvm.ex2.approx.ftz", f32t(e), a, 1);
		return true;
	case CT_rsqrt:
		if (!f32 || !ftz)
			return false;
		*out = intr(e, "llvm.nvvm.rsqrt.approx.ftz.f", a, 1);
		return true;
	case CT_tanh: {
		if (!mode || strcmp(mode, "approx") != 0)
			return false;
		if (!f32 && !is16(rt))
			return false;
		LLVMValueRef w = f32 ? a[0] : LLVMBuildFPExt(e->b, a[0], f32t(e), "");
		LLVMValueRef r = asm_pure1(e, f32t(e), "tanh.approx.f32 $0, $1;", "=f,f", w);
		*out = f32 ? r : LLVMBuildFPTrunc(e->b, r, elem_ty(e, rt), "");
		return true;
	}
	case CT_maxf: case CT_minf: {
		if (!f32 || !ftz)
			return false;
		char name[48];
		snprintf(name, sizeof name, "llvm.nvvm.f%s.ftz%s.f", op->info->code == CT_maxf ? "max" : "min",
			 uflag(op, "propagate_nan") ? ".nan" : "");
		*out = intr(e, name, a, 2);
		return true;
	}
	default:
		return false;
	}
}
