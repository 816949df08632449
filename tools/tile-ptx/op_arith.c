/* op_arith.c: elementwise arithmetic (op family; docs/lowering.md §9):
 * integer add, sub, mul, div, rem, shifts, bitwise ops, abs, max, min,
 * mulhii; float add, sub, mul, div with their rounding modes and
 * flush_to_zero, fma, neg, abs, rem, max, min; cmpi, cmpf, select; pointer
 * offset. One LLVM instruction or intrinsic per register where the plain
 * form fits; a rounding mode other than nearest_even (or ftz) takes the
 * NVVM rounded intrinsic, and on f16 / bf16 the f32 detour of
 * util_round.c (half_directed). divi rounds toward zero, negative_inf or
 * positive_inf by adjusting the truncated quotient; shifts by the width or
 * more give 0 (or the sign for an arithmetic right shift). */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "families.h"

static bool is16(const Type *t)
{
	return t->kind == TY_SCALAR && (t->scalar == SC_F16 || t->scalar == SC_BF16);
}

/* f16 / bf16 with a directed rounding mode (through f32), or NULL */
static LLVMValueRef directed16(E *e, Op *op, const Type *rt, LLVMValueRef *a)
{
	const char *rnd = ptx_rounding_directed(op_enum_attr(op, "rounding_mode", EK_ROUNDING, ROUNDING_nearest_even));
	if (!rnd || !is16(rt))
		return NULL;
	return half_directed(e, op, rnd, rt, a);
}

static LLVMValueRef fbinop(E *e, Op *op, const Type *el, LLVMValueRef a, LLVMValueRef b)
{
	const char *mode = op_attr_str(op, "rounding_mode", "nearest_even");     /* for messages */
	int rm = op_enum_attr(op, "rounding_mode", EK_ROUNDING, ROUNDING_nearest_even);
	bool ftz = op_attr_flag(op, "flush_to_zero");
	const char *rnd = ptx_rounding(rm);
	LLVMValueRef args[2] = { a, b };
	int code = op->info->code;
	if (code == CT_divf && (rm == ROUNDING_approx || rm == ROUNDING_full)) {
		char name[64];
		snprintf(name, sizeof name, "llvm.nvvm.div.%s%s%s", rm == ROUNDING_approx ? "approx" : "full",
			 ftz ? ".ftz" : "", rm == ROUNDING_approx ? ".f" : "");
		return call_intr(e, name, NULL, args, 2);
	}
	if (!rnd) {
		char what[96];
		snprintf(what, sizeof what, "rounding mode '%s'", mode);
		unsupported(e, op, what);
		return LLVMGetPoison(elem_ty(e, el));
	}
	if (rm != ROUNDING_nearest_even || ftz) {
		if (code == CT_subf) {
			args[1] = LLVMBuildFNeg(e->b, b, "");
			return nvvm_rounded(e, op, "add", rnd, ftz, el, args, 2);
		}
		return nvvm_rounded(e, op, code == CT_addf ? "add" : code == CT_mulf ? "mul" : "div",
				    rnd, ftz, el, args, 2);
	}
	switch (code) {
	case CT_addf: return LLVMBuildFAdd(e->b, a, b, "");
	case CT_subf: return LLVMBuildFSub(e->b, a, b, "");
	case CT_mulf: return LLVMBuildFMul(e->b, a, b, "");
	default: return LLVMBuildFDiv(e->b, a, b, "");
	}
}

static LLVMValueRef shift(E *e, int code, bool sgn, LLVMValueRef a, LLVMValueRef b)
{
	LLVMTypeRef t = LLVMTypeOf(a);
	unsigned w = LLVMGetIntTypeWidth(t);
	LLVMValueRef big = LLVMBuildICmp(e->b, LLVMIntUGE, b, LLVMConstInt(t, w, 0), "");
	if (code == CT_shri && sgn) {
		LLVMValueRef amt = LLVMBuildSelect(e->b, big, LLVMConstInt(t, w - 1, 0), b, "");
		return LLVMBuildAShr(e->b, a, amt, "");
	}
	LLVMValueRef s = code == CT_shli ? LLVMBuildShl(e->b, a, b, "") : LLVMBuildLShr(e->b, a, b, "");
	return LLVMBuildSelect(e->b, big, LLVMConstInt(t, 0, 0), s, "");
}

static LLVMValueRef divi(E *e, Op *op, LLVMValueRef a, LLVMValueRef b)
{
	bool sgn = op_is_signed(op);
	int rm = op_enum_attr(op, "rounding", EK_ROUNDING, ROUNDING_zero);
	LLVMValueRef q = sgn ? LLVMBuildSDiv(e->b, a, b, "") : LLVMBuildUDiv(e->b, a, b, "");
	if (rm == ROUNDING_zero)
		return q;
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMValueRef r = sgn ? LLVMBuildSRem(e->b, a, b, "") : LLVMBuildURem(e->b, a, b, "");
	LLVMValueRef zero = LLVMConstInt(t, 0, 0);
	LLVMValueRef nz = LLVMBuildICmp(e->b, LLVMIntNE, r, zero, "");
	LLVMValueRef diffsign = sgn ? LLVMBuildICmp(e->b, LLVMIntSLT, LLVMBuildXor(e->b, r, b, ""), zero, "")
				    : LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0);
	if (rm == ROUNDING_negative_inf) {
		LLVMValueRef adj = LLVMBuildAnd(e->b, nz, diffsign, "");
		return LLVMBuildSub(e->b, q, LLVMBuildZExt(e->b, adj, t, ""), "");
	}
	LLVMValueRef same = LLVMBuildNot(e->b, diffsign, "");
	LLVMValueRef adj = LLVMBuildAnd(e->b, nz, same, "");
	return LLVMBuildAdd(e->b, q, LLVMBuildZExt(e->b, adj, t, ""), "");
}

static LLVMIntPredicate ipred(Op *op)
{
	bool s = op_is_signed(op);
	switch (op_enum_attr(op, "comparison_predicate", EK_CMP_PRED, CMP_PRED_equal)) {
	case CMP_PRED_equal: return LLVMIntEQ;
	case CMP_PRED_not_equal: return LLVMIntNE;
	case CMP_PRED_less_than: return s ? LLVMIntSLT : LLVMIntULT;
	case CMP_PRED_less_than_or_equal: return s ? LLVMIntSLE : LLVMIntULE;
	case CMP_PRED_greater_than: return s ? LLVMIntSGT : LLVMIntUGT;
	default: return s ? LLVMIntSGE : LLVMIntUGE;
	}
}

static LLVMRealPredicate fpred(Op *op)
{
	bool o = op_enum_attr(op, "comparison_ordering", EK_CMP_ORD, CMP_ORD_ordered) == CMP_ORD_ordered;
	switch (op_enum_attr(op, "comparison_predicate", EK_CMP_PRED, CMP_PRED_equal)) {
	case CMP_PRED_equal: return o ? LLVMRealOEQ : LLVMRealUEQ;
	case CMP_PRED_not_equal: return o ? LLVMRealONE : LLVMRealUNE;
	case CMP_PRED_less_than: return o ? LLVMRealOLT : LLVMRealULT;
	case CMP_PRED_less_than_or_equal: return o ? LLVMRealOLE : LLVMRealULE;
	case CMP_PRED_greater_than: return o ? LLVMRealOGT : LLVMRealUGT;
	default: return o ? LLVMRealOGE : LLVMRealUGE;
	}
}

/* One register of an arithmetic op; a[] are the operands' registers. */
static LLVMValueRef arith1(E *e, Op *op, LLVMValueRef *a)
{
	const Type *rt = op->results[0]->type->elem;
	LLVMTypeRef rty = elem_ty(e, rt);
	LLVMBuilderRef b = e->b;
	LLVMValueRef special;
	switch (op->info->code) {
	case CT_addi: return LLVMBuildAdd(b, a[0], a[1], "");
	case CT_subi: return LLVMBuildSub(b, a[0], a[1], "");
	case CT_muli: return LLVMBuildMul(b, a[0], a[1], "");
	case CT_andi: return LLVMBuildAnd(b, a[0], a[1], "");
	case CT_ori: return LLVMBuildOr(b, a[0], a[1], "");
	case CT_xori: return LLVMBuildXor(b, a[0], a[1], "");
	case CT_negi: return LLVMBuildNeg(b, a[0], "");
	case CT_divi: return divi(e, op, a[0], a[1]);
	case CT_remi: return op_is_signed(op) ? LLVMBuildSRem(b, a[0], a[1], "") : LLVMBuildURem(b, a[0], a[1], "");
	case CT_shli: case CT_shri: return shift(e, op->info->code, op_is_signed(op), a[0], a[1]);
	case CT_absi: {
		LLVMValueRef args[2] = { a[0], LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0) };
		return call_intr(e, "llvm.abs", rty, args, 2);
	}
	case CT_maxi: case CT_mini: {
		bool s = op_is_signed(op), mx = op->info->code == CT_maxi;
		return call_intr(e, mx ? (s ? "llvm.smax" : "llvm.umax") : (s ? "llvm.smin" : "llvm.umin"), rty, a, 2);
	}
	case CT_mulhii: {
		unsigned w = LLVMGetIntTypeWidth(rty);
		LLVMTypeRef wt = LLVMIntTypeInContext(e->ctx, 2 * w);
		LLVMValueRef p = LLVMBuildMul(b, LLVMBuildZExt(b, a[0], wt, ""), LLVMBuildZExt(b, a[1], wt, ""), "");
		return LLVMBuildTrunc(b, LLVMBuildLShr(b, p, LLVMConstInt(wt, w, 0), ""), rty, "");
	}
	case CT_cmpi: return LLVMBuildICmp(b, ipred(op), a[0], a[1], "");
	case CT_cmpf: return LLVMBuildFCmp(b, fpred(op), a[0], a[1], "");
	case CT_select: return LLVMBuildSelect(b, a[0], a[1], a[2], "");
	case CT_addf: case CT_subf: case CT_mulf: case CT_divf:
		if ((special = directed16(e, op, rt, a)) != NULL)
			return special;
		return fbinop(e, op, rt, a[0], a[1]);
	case CT_fma: {
		if ((special = directed16(e, op, rt, a)) != NULL)
			return special;
		int rm = op_enum_attr(op, "rounding_mode", EK_ROUNDING, ROUNDING_nearest_even);
		const char *rnd = ptx_rounding(rm);
		bool ftz = op_attr_flag(op, "flush_to_zero");
		if (rnd && (rm != ROUNDING_nearest_even || ftz))
			return nvvm_rounded(e, op, "fma", rnd, ftz, rt, a, 3);
		return call_intr(e, "llvm.fma", rty, a, 3);
	}
	case CT_negf: return LLVMBuildFNeg(b, a[0], "");
	case CT_absf: return call_intr(e, "llvm.fabs", rty, a, 1);
	case CT_remf: return LLVMBuildFRem(b, a[0], a[1], "");
	case CT_maxf: case CT_minf: {
		bool nan = op_attr_flag(op, "propagate_nan"), mx = op->info->code == CT_maxf;
		if (rt->kind == TY_SCALAR && rt->scalar == SC_F32 && op_attr_flag(op, "flush_to_zero")) {
			char name[48];      /* max.ftz.f32 / min.ftz[.NaN].f32 */
			snprintf(name, sizeof name, "llvm.nvvm.f%s.ftz%s.f", mx ? "max" : "min", nan ? ".nan" : "");
			return call_intr(e, name, NULL, a, 2);
		}
		return call_intr(e, mx ? (nan ? "llvm.maximum" : "llvm.maxnum") : (nan ? "llvm.minimum" : "llvm.minnum"),
				 rty, a, 2);
	}
	case CT_offset: {
		LLVMValueRef off = as_i64(e, a[1]);
		return LLVMBuildGEP2(b, mem_ty(e, rt->elem), a[0], &off, 1, "");
	}
	default:
		unsupported(e, op, "this elementwise op");
		return LLVMGetPoison(rty);
	}
}

void emit_arith(E *e, Op *op)
{
	emit_elementwise(e, op, arith1, NULL);
}
