/* op_convert.c: conversions between element types (op family;
 * docs/lowering.md §9.7): exti, trunci, itof, ftoi (saturating), bitcast,
 * int_to_ptr, ptr_to_int, ptr_to_ptr, and ftof between any two float
 * formats with the rounding mode the op asks for (itof / ftoi of the
 * narrow formats go through f32, nearest_even).
 *
 *
 * A conversion is a decode and an encode:
 *   decode   the source to a wide value: f16 / bf16 / f32 / f64 stay what
 *            they are; tf32 is held as an f32 whose low 13 bits are zero;
 *            f8E4M3FN / f8E5M2 go through cvt.rn.f16x2.<f8>x2 (sm_89+);
 *            f8E8M0FNU and f4E2M1FN by integer ops (any target that has
 *            the type; LLVM folds them for constants). Decoding is exact.
 *   encode   the wide value to the result format:
 *            f16 / bf16 / f32 / f64  fpext / fptrunc for nearest_even,
 *                     cvt.<rz|rm|rp>.<to>.<from> for the directed modes,
 *                     nearest_away built from rz (PTX has no cvt.rna but to tf32);
 *            tf32     nearest_even: cvt.rn.tf32.f32 (sm_90+), below sm_90 the
 *                     same rounding on the bits; zero: the bits truncated;
 *                     nearest_away: cvt.rna.tf32.f32 (sm_80+);
 *            f8E4M3FN / f8E5M2   cvt.rn.satfinite.<f8>x2.f32 (nearest_even only);
 *            f4E2M1FN  cvt.rn.satfinite.e2m1x2.f32 (nearest_even only);
 *            f8E8M0FNU cvt.<rz|rp>.satfinite.ue8m0x2.f32 (zero, positive_inf).
 *            The last two are family-specific instructions: tile-ptx's
 *            backend then targets sm_100f / sm_120f ... (backend.c).
 *   f64 sources that must pass through f32 first are rounded to odd (cvt.rz
 *   and the lowest bit set when inexact), so the second rounding to the
 *   narrower format is the correctly rounded result; for the directed modes
 *   the f32 step rounds in the same direction, which composes.
 * An f32 -> tf32 ftof (nearest_even) of a tile TMA copied into a wgmma
 * staging emits nothing: its tf32 map's copy rounded it (util_tma.c).
 * Pairs and modes are those cuTile's conversion table allows
 * (cuda/tile/_ir/ops_utils.py); anything else is a "not supported yet"
 * error naming the pair and the mode. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "tma.h"

static bool sc_is(const Type *t, ScalarKind k) { return t->kind == TY_SCALAR && t->scalar == k; }

/* f16, bf16, f32, f64: the formats LLVM has a type for */
static bool is_wide(const Type *t)
{
	return sc_is(t, SC_F16) || sc_is(t, SC_BF16) || sc_is(t, SC_F32) || sc_is(t, SC_F64);
}

static bool is_f8(const Type *t) { return sc_is(t, SC_F8E4M3FN) || sc_is(t, SC_F8E5M2); }

static bool convert_is_narrow(const Type *t)
{
	return t->kind == TY_SCALAR && (is_f8(t) || t->scalar == SC_F8E8M0FNU || t->scalar == SC_F4E2M1FN ||
					t->scalar == SC_TF32);
}

static LLVMValueRef bits_of(E *e, LLVMValueRef f) { return LLVMBuildBitCast(e->b, f, ty_i32(e), ""); }
static LLVMValueRef f32_of(E *e, LLVMValueRef i) { return LLVMBuildBitCast(e->b, i, ty_f32(e), ""); }

/* ------------------------------------------------------------ the wide formats */

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
		x = LLVMBuildFPExt(e->b, x, ty_f32(e), "");
		st = ty_f32(e);
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

/* wide -> wide with a rounding mode (ROUNDING_*) */
static LLVMValueRef wide_to_wide(E *e, LLVMValueRef x, const Type *from, const Type *to, int rm)
{
	LLVMTypeRef tt = elem_ty(e, to);
	if (from->scalar == to->scalar)
		return x;
	int fb = scalar_bits(from->scalar), tb = scalar_bits(to->scalar);
	if (tb > fb)                                   /* widening is exact */
		return LLVMBuildFPExt(e->b, x, tt, "");
	const char *rnd = ptx_rounding_directed(rm);
	if (rnd)
		return cvt_rounded(e, rnd, x, from, to);
	if (rm == ROUNDING_nearest_away)
		return nearest_away(e, x, from, to);
	if (fb == tb) {                                /* f16 <-> bf16 */
		LLVMValueRef f = LLVMBuildFPExt(e->b, x, ty_f32(e), "");
		return LLVMBuildFPTrunc(e->b, f, tt, "");
	}
	return LLVMBuildFPTrunc(e->b, x, tt, "");
}

/* f64 -> f32 rounded to odd: toward zero, the lowest bit set when inexact.
 * Rounding that again to a format with at most 22 significand bits gives
 * the correctly rounded result of the f64 (nearest modes). */
static LLVMValueRef f64_to_f32_odd(E *e, LLVMValueRef x)
{
	const Type *f64 = type_scalar(e->m, SC_F64), *f32 = type_scalar(e->m, SC_F32);
	LLVMValueRef z = cvt_rounded(e, "rz", x, f64, f32);
	LLVMValueRef back = LLVMBuildFPExt(e->b, z, LLVMDoubleTypeInContext(e->ctx), "");
	LLVMValueRef inexact = LLVMBuildFCmp(e->b, LLVMRealONE, back, x, "");
	LLVMValueRef odd = LLVMBuildOr(e->b, bits_of(e, z), LLVMBuildZExt(e->b, inexact, ty_i32(e), ""), "");
	return f32_of(e, odd);
}

/* A wide value as an f32 for an encoder that rounds from f32 with rm. */
static LLVMValueRef to_f32_for(E *e, LLVMValueRef x, const Type *from, int rm)
{
	if (from->scalar == SC_F32)
		return x;
	if (from->scalar != SC_F64)
		return LLVMBuildFPExt(e->b, x, ty_f32(e), "");   /* f16, bf16: exact */
	const char *rnd = ptx_rounding_directed(rm);
	return rnd ? cvt_rounded(e, rnd, x, from, type_scalar(e->m, SC_F32)) : f64_to_f32_odd(e, x);
}

/* ------------------------------------------------------------ decoders */

/* f8E8M0FNU: the byte is the f32 exponent field (0 is 2^-127, an f32
 * subnormal; 0xff is NaN). NVIDIA goes through cvt.rn.bf16x2.ue8m0x2, a
 * family-specific instruction, and shifts the bf16 into an f32: the same
 * values. */
static LLVMValueRef e8m0_to_f32(E *e, LLVMValueRef x)
{
	LLVMValueRef w = LLVMBuildZExt(e->b, x, ty_i32(e), "");
	LLVMValueRef f = LLVMBuildShl(e->b, w, c_i32(e, 23), "");
	LLVMValueRef z = LLVMBuildICmp(e->b, LLVMIntEQ, w, c_i32(e, 0), "");
	LLVMValueRef n = LLVMBuildICmp(e->b, LLVMIntEQ, w, c_i32(e, 0xff), "");
	f = LLVMBuildSelect(e->b, z, c_i32(e, 0x00400000), f, "");
	f = LLVMBuildSelect(e->b, n, c_i32(e, 0x7fffffff), f, "");
	return f32_of(e, f);
}

/* f4E2M1FN (sign, 2 exponent bits, bias 1, 1 mantissa bit; the low nibble
 * of the register): exponent 0 is 0 or 0.5, else 2^(e-1) * (1 + m/2). As
 * f32 bits: sign << 31 | (e + 126) << 23 | m << 22, or 0.5 / 0. */
static LLVMValueRef f4_to_f32(E *e, LLVMValueRef x)
{
	LLVMBuilderRef b = e->b;
	LLVMValueRef w = LLVMBuildZExt(b, x, ty_i32(e), "");
	LLVMValueRef s = LLVMBuildShl(b, LLVMBuildAnd(b, w, c_i32(e, 8), ""), c_i32(e, 28), "");
	LLVMValueRef ex = LLVMBuildAnd(b, LLVMBuildLShr(b, w, c_i32(e, 1), ""), c_i32(e, 3), "");
	LLVMValueRef m = LLVMBuildAnd(b, w, c_i32(e, 1), "");
	LLVMValueRef normal = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAdd(b, ex, c_i32(e, 126), ""), c_i32(e, 23), ""),
					  LLVMBuildShl(b, m, c_i32(e, 22), ""), "");
	LLVMValueRef sub = LLVMBuildMul(b, m, c_i32(e, 0x3f000000), "");        /* 0.5 or 0 */
	LLVMValueRef z = LLVMBuildICmp(b, LLVMIntEQ, ex, c_i32(e, 0), "");
	return f32_of(e, LLVMBuildOr(b, s, LLVMBuildSelect(b, z, sub, normal, ""), ""));
}

/* The source as a wide value (exact). *wide is its format. */
static LLVMValueRef decode(E *e, LLVMValueRef x, const Type *from, const Type **wide)
{
	*wide = type_scalar(e->m, SC_F32);
	switch (from->scalar) {
	case SC_TF32: return x;
	case SC_F8E4M3FN: case SC_F8E5M2: return f8_to_f32(e, x, from);
	case SC_F8E8M0FNU: return e8m0_to_f32(e, x);
	case SC_F4E2M1FN: return f4_to_f32(e, x);
	default: *wide = from; return x;
	}
}

/* ------------------------------------------------------------ encoders */

/* f32 -> tf32 (an f32 with the low 13 bits zero), on the bits:
 * nearest_even adds 0xfff plus the kept lowest bit, zero truncates; NaN
 * becomes the canonical 0x7fffffff, as cvt.rn.tf32.f32 gives. */
static LLVMValueRef tf32_bits(E *e, LLVMValueRef x, bool nearest)
{
	LLVMBuilderRef b = e->b;
	LLVMValueRef u = bits_of(e, x);
	if (nearest) {
		LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, u, c_i32(e, 13), ""), c_i32(e, 1), "");
		u = LLVMBuildAdd(b, u, LLVMBuildAdd(b, lsb, c_i32(e, 0xfff), ""), "");
	}
	u = LLVMBuildAnd(b, u, c_i32(e, ~0x1fff), "");
	LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
	return f32_of(e, LLVMBuildSelect(b, nan, c_i32(e, 0x7fffffff), u, ""));
}

/* The op's rounding (ROUNDING_*): ftof's attribute; itof / ftoi convert
 * through f32 to nearest. conv_spelling: the same, as written (messages). */
static const char *conv_spelling(const Op *op)
{
	return op->info->code == CT_ftof ? op_attr_str(op, "rounding_mode", "nearest_even") : "nearest_even";
}

static int conv_mode(const Op *op)
{
	return op->info->code == CT_ftof ? op_enum_attr(op, "rounding_mode", EK_ROUNDING, ROUNDING_nearest_even)
					 : ROUNDING_nearest_even;
}

static LLVMValueRef to_tf32(E *e, Op *op, LLVMValueRef x, const Type *wide, int rm)
{
	bool away = rm == ROUNDING_nearest_away;
	if (wide->scalar == SC_F16 || wide->scalar == SC_BF16)
		return LLVMBuildFPExt(e->b, x, ty_f32(e), "");   /* every f16 / bf16 is a tf32 */
	if (wide->scalar == SC_F64 && away) {
		unsupported(e, op, "conversion f64 -> tf32 with rounding 'nearest_away'");
		return LLVMGetPoison(ty_f32(e));
	}
	x = to_f32_for(e, x, wide, rm);
	if (away) {
		if (e->o->target->sm < 80) {
			unsupported(e, op, "tf32 rounding 'nearest_away' below sm_80");
			return LLVMGetPoison(ty_f32(e));
		}
		return f32_of(e, call_intr(e, "llvm.nvvm.f2tf32.rna", NULL, &x, 1));
	}
	if (rm == ROUNDING_zero)
		return tf32_bits(e, x, false);
	if (rm != ROUNDING_nearest_even) {
		char what[80];
		snprintf(what, sizeof what, "conversion to tf32 with rounding '%s'", conv_spelling(op));
		unsupported(e, op, what);
		return LLVMGetPoison(ty_f32(e));
	}
	if (e->o->target->sm >= 90)
		return f32_of(e, call_intr(e, "llvm.nvvm.f2tf32.rn", NULL, &x, 1));
	return tf32_bits(e, x, true);
}

/* Encoders through the packed cvt instructions: the value in the low half
 * (operand b), 0 in the high one. */
static LLVMValueRef packed_cvt(E *e, const char *intr, LLVMValueRef x, int64_t mask)
{
	LLVMValueRef args[2] = { LLVMConstReal(ty_f32(e), 0.0), x };
	LLVMValueRef p = call_intr(e, intr, NULL, args, 2);
	LLVMValueRef r = LLVMBuildTrunc(e->b, p, LLVMInt8TypeInContext(e->ctx), "");
	return mask == 0xff ? r : LLVMBuildAnd(e->b, r, LLVMConstInt(LLVMInt8TypeInContext(e->ctx), (unsigned long long)mask, 0), "");
}

static bool need(E *e, Op *op, unsigned feature, const char *what)
{
	if (target_has(e->o->target, feature))
		return true;
	char buf[96];
	snprintf(buf, sizeof buf, "%s on %s", what, e->o->target->name);
	unsupported(e, op, buf);
	return false;
}

static LLVMValueRef mode_error(E *e, Op *op, const Type *from, const Type *to)
{
	char what[112];
	snprintf(what, sizeof what, "conversion %s -> %s with rounding '%s'", from->str, to->str, conv_spelling(op));
	unsupported(e, op, what);
	return LLVMGetPoison(elem_ty(e, to));
}


/* Two elements at once through the packed instructions (any two registers:
 * the values are independent): encoding to f8 / f4 / e8m0 takes both in one
 * cvt (element 0 in the low half), decoding f8 to a wide format one
 * cvt.rn.f16x2.<f8>x2. False, with nothing emitted, where the pair gains
 * nothing or the mode needs the one-element path (its errors included). */
static bool convert_float_pair(E *e, Op *op, const LLVMValueRef x[2], const Type *from, const Type *to,
			LLVMValueRef out[2])
{
	int rm = conv_mode(op);
	bool rn = rm == ROUNDING_nearest_even;
	const char *intr = NULL, *rnd = ptx_rounding_directed(rm);
	char name[48];
	int64_t mask = 0xff;
	unsigned shift = 8;
	if (is_f8(to) && rn && target_has(e->o->target, TF_FP8)) {
		intr = to->scalar == SC_F8E4M3FN ? "llvm.nvvm.ff.to.e4m3x2.rn" : "llvm.nvvm.ff.to.e5m2x2.rn";
	} else if (sc_is(to, SC_F4E2M1FN) && rn) {
		intr = "llvm.nvvm.ff.to.e2m1x2.rn.satfinite";
		mask = 0xf;
		shift = 4;
	} else if (sc_is(to, SC_F8E8M0FNU) && rnd && rm != ROUNDING_negative_inf) {
		snprintf(name, sizeof name, "llvm.nvvm.ff.to.ue8m0x2.%s.satfinite", rnd);
		intr = name;
	}
	if (intr && !is_f8(from)) {
		LLVMValueRef f[2];
		for (int i = 0; i < 2; i++) {
			const Type *wide;
			LLVMValueRef w = decode(e, x[i], from, &wide);
			f[i] = to_f32_for(e, w, wide, rm);
		}
		LLVMValueRef args[2] = { f[1], f[0] };       /* a: the high half, b: the low */
		LLVMValueRef p = call_intr(e, intr, NULL, args, 2);
		LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
		LLVMValueRef m = LLVMConstInt(LLVMTypeOf(p), (unsigned long long)mask, 0);
		out[0] = LLVMBuildTrunc(e->b, LLVMBuildAnd(e->b, p, m, ""), i8, "");
		LLVMValueRef hi = LLVMBuildLShr(e->b, p, LLVMConstInt(LLVMTypeOf(p), shift, 0), "");
		out[1] = LLVMBuildTrunc(e->b, LLVMBuildAnd(e->b, hi, m, ""), i8, "");
		return true;
	}
	if (is_f8(from) && is_wide(to) && target_has(e->o->target, TF_FP8)) {
		LLVMTypeRef i16 = LLVMInt16TypeInContext(e->ctx);
		LLVMValueRef p = LLVMBuildOr(e->b, LLVMBuildZExt(e->b, x[0], i16, ""),
					     LLVMBuildShl(e->b, LLVMBuildZExt(e->b, x[1], i16, ""),
							  LLVMConstInt(i16, 8, 0), ""), "");
		const char *n = from->scalar == SC_F8E4M3FN ? "llvm.nvvm.e4m3x2.to.f16x2.rn"
							     : "llvm.nvvm.e5m2x2.to.f16x2.rn";
		LLVMValueRef h2 = call_intr(e, n, NULL, &p, 1);
		const Type *f16 = type_scalar(e->m, SC_F16);
		for (int i = 0; i < 2; i++)
			out[i] = wide_to_wide(e, LLVMBuildExtractElement(e->b, h2, c_i32(e, i), ""), f16, to, rm);
		return true;
	}
	return false;
}

static LLVMValueRef convert_float(E *e, Op *op, LLVMValueRef x, const Type *from, const Type *to)
{
	int rm = conv_mode(op);
	if (from->scalar == to->scalar)
		return x;
	if ((is_f8(from) || is_f8(to)) && !need(e, op, TF_FP8, "an 8-bit float conversion"))
		return LLVMGetPoison(elem_ty(e, to));
	const Type *wide;
	LLVMValueRef w = decode(e, x, from, &wide);
	bool rn = rm == ROUNDING_nearest_even;
	switch (to->scalar) {
	case SC_TF32:
		return to_tf32(e, op, w, wide, rm);
	case SC_F8E4M3FN: case SC_F8E5M2:
		if (!rn)
			return mode_error(e, op, from, to);
		return packed_cvt(e, to->scalar == SC_F8E4M3FN ? "llvm.nvvm.ff.to.e4m3x2.rn"
							       : "llvm.nvvm.ff.to.e5m2x2.rn",
				  to_f32_for(e, w, wide, rm), 0xff);
	case SC_F4E2M1FN:
		if (!rn)
			return mode_error(e, op, from, to);
		return packed_cvt(e, "llvm.nvvm.ff.to.e2m1x2.rn.satfinite", to_f32_for(e, w, wide, rm), 0xf);
	case SC_F8E8M0FNU: {
		const char *rnd = ptx_rounding_directed(rm);
		if (!rnd || rm == ROUNDING_negative_inf)
			return mode_error(e, op, from, to);
		char name[48];
		snprintf(name, sizeof name, "llvm.nvvm.ff.to.ue8m0x2.%s.satfinite", rnd);
		return packed_cvt(e, name, to_f32_for(e, w, wide, rm), 0xff);
	}
	default:
		if (!is_wide(to))
			return mode_error(e, op, from, to);
		return wide_to_wide(e, w, wide, to, rm);
	}
}

/* ------------------------------------------------------------ the ops */

/* One register of a conversion; a[] are the operands' registers. */
static LLVMValueRef convert1(E *e, Op *op, LLVMValueRef *a)
{
	const Type *rt = op->results[0]->type->elem;
	const Type *at = op->operands[0]->type->elem;
	LLVMTypeRef rty = elem_ty(e, rt);
	LLVMBuilderRef b = e->b;
	switch (op->info->code) {
	case CT_exti: return op_is_signed(op) ? LLVMBuildSExt(b, a[0], rty, "") : LLVMBuildZExt(b, a[0], rty, "");
	case CT_trunci: return LLVMBuildTrunc(b, a[0], rty, "");
	case CT_itof:
		if (convert_is_narrow(rt)) {
			LLVMValueRef f = op_is_signed(op) ? LLVMBuildSIToFP(b, a[0], ty_f32(e), "")
							  : LLVMBuildUIToFP(b, a[0], ty_f32(e), "");
			return convert_float(e, op, f, type_scalar(e->m, SC_F32), rt);
		}
		return op_is_signed(op) ? LLVMBuildSIToFP(b, a[0], rty, "") : LLVMBuildUIToFP(b, a[0], rty, "");
	case CT_ftoi: {
		LLVMValueRef x = a[0];
		if (convert_is_narrow(at))
			x = convert_float(e, op, x, at, type_scalar(e->m, SC_F32));
		LLVMTypeRef over[2] = { rty, LLVMTypeOf(x) };
		LLVMValueRef f = intrinsic(e, op_is_signed(op) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", over, 2);
		return call(e, f, &x, 1);
	}
	case CT_ftof: return convert_float(e, op, a[0], at, rt);
	case CT_bitcast:
		if (LLVMTypeOf(a[0]) == rty)
			return a[0];
		return LLVMBuildBitCast(b, a[0], rty, "");
	case CT_int_to_ptr: return LLVMBuildIntToPtr(b, a[0], rty, "");
	case CT_ptr_to_int: return LLVMBuildPtrToInt(b, a[0], rty, "");
	case CT_ptr_to_ptr: return a[0];
	default:
		unsupported(e, op, "this elementwise op");
		return LLVMGetPoison(rty);
	}
}

/* ftof: the packed cvts convert two registers at once */
static bool ftof_pair(E *e, Op *op, const LLVMValueRef x[2], LLVMValueRef out[2])
{
	return convert_float_pair(e, op, x, op->operands[0]->type->elem, op->results[0]->type->elem, out);
}

void emit_convert(E *e, Op *op)
{
	/* f32 -> tf32 of a tile TMA copied into a wgmma staging through a tf32
	 * map, which rounded it (util_tma.c): the values are there, none here */
	const Op *d = op->operands[0]->def;
	if (mma_tf32_round(op) && d && tma_op(e, d)) {
		TV *t = tv_new(e, op->results[0]);
		for (int k = 0; k < t->n; k++)
			t->r[k] = LLVMGetPoison(ty_f32(e));
		set(e, op->results[0], t);
		return;
	}
	emit_elementwise(e, op, convert1, op->info->code == CT_ftof ? ftof_pair : NULL);
}
