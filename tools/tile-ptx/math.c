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
 *   ftof with zero / negative_inf / positive_inf (13.4): cvt.<rnd>.<to>.<from>;
 *                   f64 -> bf16 below sm_90 through f32 in the same direction;
 *                   widening conversions are exact, so they ignore the mode.
 *   ftof nearest_away (13.4): toward zero, then one step away when |x| reaches
 *                   the midpoint (PTX rounds to nearest-away only to tf32). */
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

/* "rz", "rm", "rp" for the directed modes, NULL otherwise */
static const char *directed(const char *mode)
{
	if (strcmp(mode, "zero") == 0) return "rz";
	if (strcmp(mode, "negative_inf") == 0) return "rm";
	if (strcmp(mode, "positive_inf") == 0) return "rp";
	return NULL;
}

static bool is16(const Type *t)
{
	return t->kind == TY_SCALAR && (t->scalar == SC_F16 || t->scalar == SC_BF16);
}

static LLVMTypeRef f32t(E *e) { return LLVMFloatTypeInContext(e->ctx); }

static LLVMValueRef asm1(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef x)
{
	LLVMTypeRef pt = LLVMTypeOf(x);
	LLVMTypeRef ft = LLVMFunctionType(ret, &pt, 1, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 0, 0,
					  LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(e->b, ft, f, &x, 1, "");
}

/* cvt.<rnd>.<to>.<from> of one value; to/from: f16, bf16, f32, f64. */
static LLVMValueRef cvt_rounded(E *e, const char *rnd, LLVMValueRef x, const Type *from, const Type *to)
{
	const char *fn = scalar_name(from->scalar), *tn = scalar_name(to->scalar);
	if (to->scalar == SC_BF16 && from->scalar == SC_F64 && e->o->target->sm < 90) {
		x = cvt_rounded(e, rnd, x, from, type_scalar(e->m, SC_F32));
		from = type_scalar(e->m, SC_F32);
		fn = "f32";
	}
	if (from->scalar == SC_F16 || from->scalar == SC_BF16) {      /* exact widening first */
		x = LLVMBuildFPExt(e->b, x, f32t(e), "");
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
	LLVMValueRef r = asm1(e, rt, text, cons, x);
	return rc == 'h' ? LLVMBuildBitCast(e->b, r, elem_ty(e, to), "") : r;
}

/* Round to nearest, ties away from zero (no PTX cvt has it but to tf32):
 * lo = the value rounded toward zero, hi = the next value away from zero
 * (lo's bits + 1); the result is hi when |x| >= |midpoint(lo, hi)|, else lo.
 * The midpoint is exact in the source type (it has at least two more
 * significand bits); when hi is infinite (lo is the largest finite value)
 * it is lo plus half the spacing below lo, which is the same spacing, so
 * values from max + ulp/2 on round to infinity as they should. */
static LLVMValueRef nearest_away(E *e, LLVMValueRef x, const Type *from, const Type *to)
{
	LLVMTypeRef tt = elem_ty(e, to), st = elem_ty(e, from);
	unsigned tb = (unsigned)scalar_bits(to->scalar);
	LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, tb);
	if (from->scalar == SC_F16 || from->scalar == SC_BF16) {     /* exact: work in f32 */
		x = LLVMBuildFPExt(e->b, x, f32t(e), "");
		st = f32t(e);
		from = type_scalar(e->m, SC_F32);
	}
	LLVMValueRef lo = cvt_rounded(e, "rz", x, from, to);
	LLVMValueRef lob = LLVMBuildBitCast(e->b, lo, it, "");
	LLVMValueRef hi = LLVMBuildBitCast(e->b, LLVMBuildAdd(e->b, lob, LLVMConstInt(it, 1, 0), ""), tt, "");
	LLVMValueRef prev = LLVMBuildBitCast(e->b, LLVMBuildSub(e->b, lob, LLVMConstInt(it, 1, 0), ""), tt, "");
	LLVMValueRef los = LLVMBuildFPExt(e->b, lo, st, ""), his = LLVMBuildFPExt(e->b, hi, st, "");
	LLVMValueRef prs = LLVMBuildFPExt(e->b, prev, st, "");
	LLVMValueRef half = LLVMConstReal(st, 0.5);
	LLVMValueRef mid = LLVMBuildFMul(e->b, LLVMBuildFAdd(e->b, los, his, ""), half, "");
	LLVMValueRef top = LLVMBuildFAdd(e->b, los, LLVMBuildFMul(e->b, LLVMBuildFSub(e->b, los, prs, ""), half, ""), "");
	LLVMValueRef hinf = call_intr(e, "llvm.fabs", st, &his, 1);
	hinf = LLVMBuildFCmp(e->b, LLVMRealOEQ, hinf, LLVMConstReal(st, __builtin_inf()), "");
	mid = LLVMBuildSelect(e->b, hinf, top, mid, "");
	LLVMValueRef ax = call_intr(e, "llvm.fabs", st, &x, 1), am = call_intr(e, "llvm.fabs", st, &mid, 1);
	LLVMValueRef up = LLVMBuildFCmp(e->b, LLVMRealOGE, ax, am, "");
	/* lo infinite or NaN: keep it (hi would be a NaN pattern) */
	LLVMValueRef fin = LLVMBuildFCmp(e->b, LLVMRealOLT, call_intr(e, "llvm.fabs", st, &los, 1),
					 LLVMConstReal(st, __builtin_inf()), "");
	return LLVMBuildSelect(e->b, LLVMBuildAnd(e->b, up, fin, ""), hi, lo, "");
}

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
		const char *rnd = mode ? directed(mode) : NULL;
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
		LLVMValueRef r = asm1(e, f32t(e), "tanh.approx.f32 $0, $1;", "=f,f", w);
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
	case CT_ftof: {
		const Type *from = op->operands[0]->type->elem;
		if (!mode || strcmp(mode, "nearest_even") == 0)
			return false;
		bool fl = from->kind == TY_SCALAR && (from->scalar == SC_F16 || from->scalar == SC_BF16 ||
						      from->scalar == SC_F32 || from->scalar == SC_F64);
		bool tl = rt->kind == TY_SCALAR && (rt->scalar == SC_F16 || rt->scalar == SC_BF16 ||
						    rt->scalar == SC_F32 || rt->scalar == SC_F64);
		bool away = strcmp(mode, "nearest_away") == 0;
		const char *rnd = away ? "rz" : directed(mode);
		if (!fl || !tl || !rnd) {
			char what[96];
			snprintf(what, sizeof what, "conversion %s -> %s with rounding '%s'", from->str, rt->str, mode);
			unsupported(e, op, what);
			*out = LLVMGetPoison(elem_ty(e, rt));
			return true;
		}
		int fb = scalar_bits(from->scalar), tb = scalar_bits(rt->scalar);
		if (tb > fb) {                      /* widening is exact */
			*out = LLVMBuildFPExt(e->b, a[0], elem_ty(e, rt), "");
			return true;
		}
		if (fb == tb && from->scalar == rt->scalar) {
			*out = a[0];
			return true;
		}
		*out = away ? nearest_away(e, a[0], from, rt) : cvt_rounded(e, rnd, a[0], from, rt);
		return true;
	}
	default:
		return false;
	}
}
