/* op_math.c: elementwise math functions (op family; docs/lowering.md §9):
 * sqrt, rsqrt, exp, exp2, log, log2, pow, sin, cos, tan, sinh, cosh, tanh,
 * atan2, fpowi, ceil, floor. Mostly libdevice (__nv_<f>f / __nv_<f>,
 * f16 / bf16 through f32; the module then links libdevice, backend.c),
 * with the forms PTX has an instruction for:
 *   sqrt            llvm.sqrt, or a rounding mode / ftz: sqrt.<rnd>[.ftz],
 *                   approx: sqrt.approx[.ftz].f32; f16 / bf16 directed
 *                   through f32 (util_round.c)
 *   exp2 ftz        ex2.approx.ftz.f32 (exp2f is ex2.approx; ftz picks the .ftz form)
 *   rsqrt ftz       rsqrt.approx.ftz.f32
 *   exp approx      __nv_fast_expf
 *   tanh approx     tanh.approx.f32 (f16/bf16 through f32)
 *   ceil, floor     llvm.ceil, llvm.floor */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "families.h"

static bool is16(const Type *t)
{
	return t->kind == TY_SCALAR && (t->scalar == SC_F16 || t->scalar == SC_BF16);
}

/* __nv_<base>f (f32; f16 / bf16 through it) or __nv_<base> (f64) */
static LLVMValueRef libdevice1(E *e, const char *base, const Type *el, LLVMValueRef *args, int n)
{
	char name[64];
	bool dbl = el->scalar == SC_F64;
	snprintf(name, sizeof name, "__nv_%s%s", base, dbl ? "" : "f");
	LLVMTypeRef ft = dbl ? LLVMDoubleTypeInContext(e->ctx) : LLVMFloatTypeInContext(e->ctx);
	LLVMTypeRef ps[3] = { ft, ft, ft };
	LLVMValueRef f = declared(e, name, ft, ps, n);
	LLVMValueRef w[3];
	for (int i = 0; i < n; i++)
		w[i] = widen(e, args[i], el);
	e->needs_libdevice = true;
	return narrow(e, call(e, f, w, n), el);
}

static LLVMValueRef sqrt1(E *e, Op *op, const Type *rt, LLVMTypeRef rty, LLVMValueRef *a)
{
	int rm = op_enum_attr(op, "rounding_mode", EK_ROUNDING, ROUNDING_nearest_even);
	bool ftz = op_attr_flag(op, "flush_to_zero");
	const char *directed = ptx_rounding_directed(rm);
	if (directed && is16(rt))
		return half_directed(e, op, directed, rt, a);
	if (rm == ROUNDING_approx && rt->scalar == SC_F32)
		return call_intr(e, ftz ? "llvm.nvvm.sqrt.approx.ftz.f" : "llvm.nvvm.sqrt.approx.f", NULL, a, 1);
	const char *rnd = ptx_rounding(rm);
	if (rnd && (rm != ROUNDING_nearest_even || ftz))
		return nvvm_rounded(e, op, "sqrt", rnd, ftz, rt, a, 1);
	if (rt->scalar == SC_F16 || rt->scalar == SC_BF16) {
		LLVMValueRef w = widen(e, a[0], rt);
		return narrow(e, call_intr(e, "llvm.sqrt", LLVMTypeOf(w), &w, 1), rt);
	}
	return call_intr(e, "llvm.sqrt", rty, a, 1);
}

static LLVMValueRef fpowi(E *e, const Type *rt, LLVMValueRef *a)
{
	bool dbl = rt->scalar == SC_F64;
	LLVMTypeRef ft = dbl ? LLVMDoubleTypeInContext(e->ctx) : LLVMFloatTypeInContext(e->ctx);
	LLVMTypeRef ps[2] = { ft, ty_i32(e) };
	LLVMValueRef f = declared(e, dbl ? "__nv_powi" : "__nv_powif", ft, ps, 2);
	LLVMValueRef args[2] = { widen(e, a[0], rt), a[1] };
	unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(a[1]));
	if (w != 32)
		args[1] = w > 32 ? LLVMBuildTrunc(e->b, a[1], ty_i32(e), "") : LLVMBuildSExt(e->b, a[1], ty_i32(e), "");
	e->needs_libdevice = true;
	return narrow(e, call(e, f, args, 2), rt);
}

/* One register of a math op; a[] are the operands' registers. */
static LLVMValueRef math1(E *e, Op *op, LLVMValueRef *a)
{
	const Type *rt = op->results[0]->type->elem;
	LLVMTypeRef rty = elem_ty(e, rt);
	bool f32 = rt->kind == TY_SCALAR && rt->scalar == SC_F32;
	bool ftz = op_attr_flag(op, "flush_to_zero");
	switch (op->info->code) {
	case CT_sqrt: return sqrt1(e, op, rt, rty, a);
	case CT_rsqrt:
		if (f32 && ftz)
			return call_intr(e, "llvm.nvvm.rsqrt.approx.ftz.f", NULL, a, 1);
		return libdevice1(e, "rsqrt", rt, a, 1);
	case CT_exp:
		if (op_enum_attr(op, "rounding_mode", EK_ROUNDING, ROUNDING_full) == ROUNDING_approx && rt->scalar == SC_F32)
			return libdevice1(e, "fast_exp", rt, a, 1);
		return libdevice1(e, "exp", rt, a, 1);
	case CT_exp2:
		if (f32 && ftz)
			return call_intr(e, "llvm.nvvm.ex2.approx.ftz", ty_f32(e), a, 1);
		return libdevice1(e, "exp2", rt, a, 1);
	case CT_log: return libdevice1(e, "log", rt, a, 1);
	case CT_log2: return libdevice1(e, "log2", rt, a, 1);
	case CT_pow: return libdevice1(e, "pow", rt, a, 2);
	case CT_sin: return libdevice1(e, "sin", rt, a, 1);
	case CT_cos: return libdevice1(e, "cos", rt, a, 1);
	case CT_tan: return libdevice1(e, "tan", rt, a, 1);
	case CT_sinh: return libdevice1(e, "sinh", rt, a, 1);
	case CT_cosh: return libdevice1(e, "cosh", rt, a, 1);
	case CT_tanh: {
		if (op_enum_attr(op, "rounding_mode", EK_ROUNDING, -1) == ROUNDING_approx && (f32 || is16(rt))) {
			LLVMValueRef w = f32 ? a[0] : LLVMBuildFPExt(e->b, a[0], ty_f32(e), "");
			LLVMValueRef r = asm_pure1(e, ty_f32(e), "tanh.approx.f32 $0, $1;", "=f,f", w);
			return f32 ? r : LLVMBuildFPTrunc(e->b, r, rty, "");
		}
		return libdevice1(e, "tanh", rt, a, 1);
	}
	case CT_atan2: return libdevice1(e, "atan2", rt, a, 2);
	case CT_fpowi: return fpowi(e, rt, a);
	case CT_ceil: return call_intr(e, "llvm.ceil", rty, a, 1);
	case CT_floor: return call_intr(e, "llvm.floor", rty, a, 1);
	default:
		unsupported(e, op, "this elementwise op");
		return LLVMGetPoison(rty);
	}
}

void emit_math(E *e, Op *op)
{
	emit_elementwise(e, op, math1, NULL);
}
