/* exec_arith.c: add sub mul mad fma div rem abs neg min max addc subc madc
 * copysign testp, for integer types (with .lo/.hi/.wide/.sat/.cc) and
 * floats f16 bf16 f32 f64 and packed f16x2 bf16x2 f32x2 (with every
 * rounding mode, .ftz, .sat, .NaN, .xorsign.abs, mixed .f32.f16/.bf16).
 * f16/bf16 results are computed exactly (or to double) and rounded once
 * in software; f32/f64 in hardware under the requested rounding mode. */
#include <math.h>
#include "exec.h"

static double fin(uint64_t v, int ety, bool ftz)
{
	switch (ety) {
	case TY_F32: {
		float f = u2f((uint32_t)v);
		return ftz ? ftz32(f) : f;
	}
	case TY_F64: return u2d(v);
	default: return small_to_double((uint32_t)v & 0xffff, ety);
	}
}

static uint64_t fout(double r, int ety, const Insn *in)
{
	bool ftz = in->flags & F_FTZ;
	if (ety == TY_F32) {
		float f = (float)r;     /* exact: r is already an f32 value */
		if (in->flags & F_SAT)
			f = isnan(f) ? 0.0f : f < 0 ? 0.0f : f > 1 ? 1.0f : f;
		if (in->flags & F_RELU && (f < 0 || isnan(f)))
			f = isnan(f) ? u2f(0x7fffffff) : 0.0f;
		if (ftz)
			f = ftz32(f);
		return f2u(f);
	}
	if (ety == TY_F64)
		return d2u(r);
	return double_to_small(r, ety, in->rnd ? in->rnd : RND_RN, in->flags & F_SAT, false, in->flags & F_RELU);
}

static uint64_t canon_nan(int ety)
{
	return ety == TY_F32 ? 0x7fffffffu : ety == TY_F64 ? 0x7fffffffffffffffull : 0x7fff;
}

static uint64_t fminmax(const Insn *in, int ety, uint64_t av, uint64_t bv)
{
	bool ftz = in->flags & F_FTZ;
	double a = fin(av, ety, ftz), b = fin(bv, ety, ftz);
	bool max = in->op == OP_MAX;
	if (isnan(a) || isnan(b)) {
		if ((in->flags & F_NAN) || (isnan(a) && isnan(b)))
			return canon_nan(ety);
		double r = isnan(a) ? b : a;
		return ety == TY_F32 ? f2u((float)r) : ety == TY_F64 ? d2u(r) : (isnan(a) ? bv : av);
	}
	double r;
	bool xs = in->flags & F_XORSIGN;
	if (xs) {
		bool s = signbit(a) != signbit(b);
		a = fabs(a);
		b = fabs(b);
		r = max ? (a > b ? a : b) : (a < b ? a : b);
		r = s ? -r : r;
	} else if (a == b && a == 0) {  /* -0 < +0 */
		bool sa = signbit(a), sb = signbit(b);
		r = max ? (sa && sb ? -0.0 : 0.0) : (sa || sb ? -0.0 : 0.0);
	} else {
		r = max ? (a > b ? a : b) : (a < b ? a : b);
	}
	if (ety == TY_F32 || ety == TY_F64) {
		Insn tmp = *in;
		tmp.flags &= ~(uint32_t)F_SAT;
		return fout(r, ety, &tmp);
	}
	return double_to_small(r, ety, RND_RN, false, false, in->flags & F_RELU);
}

static uint64_t felem(const Insn *in, int ety, uint64_t av, uint64_t bv, uint64_t cv)
{
	bool ftz = in->flags & F_FTZ;
	int aty = in->ty2 && in->ty2 != ety ? in->ty2 : ety;    /* add.f32.f16: a (and b for fma) narrow */
	double a = fin(av, aty, ftz);
	double b = fin(bv, (in->op == OP_FMA || in->op == OP_MAD || in->op == OP_MUL) ? aty : ety, ftz);
	double c = fin(cv, ety, ftz);
	int rnd = in->rnd ? in->rnd : RND_RN;
	double r;
	switch (in->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_FMA: case OP_MAD:
		if (ety == TY_F32 || ety == TY_F64) {
			r = fp_op(in->op, a, b, c, ety, rnd);
		} else {
			switch (in->op) {
			case OP_ADD: r = a + b; break;
			case OP_SUB: r = a - b; break;
			case OP_MUL: r = a * b; break;
			case OP_DIV: r = a / b; break;
			default: r = fma(a, b, c); break;
			}
		}
		return fout(r, ety, in);
	case OP_MIN: case OP_MAX:     /* three inputs (PTX 8.8): op(op(a, b), c) */
		return in->ns > 2 ? fminmax(in, ety, fminmax(in, ety, av, bv), cv) : fminmax(in, ety, av, bv);
	case OP_ABS:
		if (ety == TY_F32)
			return f2u(fabsf(ftz ? ftz32(u2f((uint32_t)av)) : u2f((uint32_t)av)));
		if (ety == TY_F64)
			return av & 0x7fffffffffffffffull;
		return av & 0x7fff;
	case OP_NEG:
		if (ety == TY_F32)
			return f2u(-(ftz ? ftz32(u2f((uint32_t)av)) : u2f((uint32_t)av)));
		if (ety == TY_F64)
			return av ^ 0x8000000000000000ull;
		return (av ^ 0x8000) & 0xffff;
	case OP_COPYSIGN:       /* d = b with the sign of a */
		if (ety == TY_F32)
			return ((uint32_t)bv & 0x7fffffffu) | ((uint32_t)av & 0x80000000u);
		return (bv & 0x7fffffffffffffffull) | (av & 0x8000000000000000ull);
	}
	ice("felem: op %d", in->op);
}

static int fwidth(int ty)
{
	switch (ty) {
	case TY_F16X2: return TY_F16;
	case TY_BF16X2: return TY_BF16;
	case TY_F32X2: return TY_F32;
	}
	return 0;
}

static int exec_float(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	uint64_t a = R[in->s[0]], b = in->ns > 1 ? R[in->s[1]] : 0, c = in->ns > 2 ? R[in->s[2]] : 0;
	int ety = fwidth(in->ty);
	if (ety) {
		int w = type_bytes[ety] * 8;
		uint64_t mask = (1ull << w) - 1, r = 0;
		for (int k = 0; k < 2; k++)
			r |= (felem(in, ety, (a >> (w * k)) & mask, (b >> (w * k)) & mask, (c >> (w * k)) & mask) & mask)
			     << (w * k);
		R[in->d[0]] = r;
		return ST_NEXT;
	}
	R[in->d[0]] = felem(in, in->ty, a, b, c);
	return ST_NEXT;
}

static int exec_testp(Thread *t, const Insn *in)
{
	/* the testp mode rides in mode: see decode.c */
	int ety = in->ty;
	double a = fin(t->R[in->s[0]], ety, false);
	bool r;
	switch (in->mode) {
	case 1: r = isfinite(a); break;
	case 2: r = isinf(a); break;
	case 3: r = !isnan(a); break;
	case 4: r = isnan(a); break;
	case 5: r = isnormal(ety == TY_F32 ? (float)a : a); break;
	case 6: r = fpclassify(ety == TY_F32 ? (float)a : a) == FP_SUBNORMAL; break;
	default: ice("testp mode");
	}
	t->R[in->d[0]] = r;
	return ST_NEXT;
}

static uint64_t wide_ty(int ty)
{
	switch (ty) {
	case TY_S16: return TY_S32;
	case TY_U16: return TY_U32;
	case TY_S32: return TY_S64;
	case TY_U32: return TY_U64;
	}
	return ty;
}

int exec_arith(Thread *t, const Insn *in)
{
	int ty = in->ty;
	char k = type_kind[ty];
	if (in->op == OP_TESTP)
		return exec_testp(t, in);
	if (k == 'F' || k == 'X')
		return exec_float(t, in);
	uint64_t *R = t->R;
	int nb = type_bytes[ty];
	bool sg = k == 'S';
	uint64_t mask = nb >= 8 ? ~0ull : (1ull << (8 * nb)) - 1;
	uint64_t a = R[in->s[0]], b = in->ns > 1 ? R[in->s[1]] : 0, c = in->ns > 2 ? R[in->s[2]] : 0;
	int64_t sa = sx(a, nb), sb = sx(b, nb);
	uint64_t ua = a & mask, ub = b & mask;
	uint64_t r = 0;
	int rty = ty;
	uint32_t *cc = &t->cc;
	switch (in->op) {
	case OP_ADD: case OP_ADDC: {
		uint64_t cin = in->op == OP_ADDC ? (*cc & 1) : 0;
		r = ua + ub + cin;
		if (in->flags & F_SAT && sg && nb == 4) {
			int64_t s = sa + sb;
			r = (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
		}
		if (in->flags & F_CC) {
			unsigned __int128 w = (unsigned __int128)ua + ub + cin;
			*cc = (uint32_t)((w >> (8 * nb)) & 1);
		}
		break;
	}
	case OP_SUB: case OP_SUBC: {
		uint64_t bin = in->op == OP_SUBC ? (*cc & 1) : 0;
		r = ua - ub - bin;
		if (in->flags & F_SAT && sg && nb == 4) {
			int64_t s = sa - sb;
			r = (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
		}
		if (in->flags & F_CC)
			*cc = (unsigned __int128)ua < (unsigned __int128)ub + bin;
		break;
	}
	case OP_MUL: case OP_MAD: case OP_MADC: {
		uint64_t addend = in->op == OP_MUL ? 0 : c;
		uint64_t cin = in->op == OP_MADC ? (*cc & 1) : 0;
		if (in->flags & F_WIDE) {
			rty = (int)wide_ty(ty);
			uint64_t p = sg ? (uint64_t)sa * (uint64_t)sb : ua * ub;
			unsigned __int128 w = (unsigned __int128)p + addend + cin;
			r = (uint64_t)w;
			if (in->flags & F_CC)
				*cc = (uint32_t)(w >> 64) & 1;
			if (nb == 2) {
				uint64_t m32 = 0xffffffffull;
				if (in->flags & F_CC)
					*cc = (uint32_t)((((p & m32) + (addend & m32) + cin) >> 32) & 1);
			}
		} else if (in->flags & F_HI) {
			uint64_t hi;
			if (nb == 8) {
				if (sg)
					hi = (uint64_t)(((__int128)sa * sb) >> 64);
				else
					hi = (uint64_t)(((unsigned __int128)ua * ub) >> 64);
			} else {
				hi = sg ? (uint64_t)((sa * sb) >> (8 * nb)) : (ua * ub) >> (8 * nb);
			}
			hi &= mask;
			unsigned __int128 w = (unsigned __int128)hi + (addend & mask) + cin;
			r = (uint64_t)w;
			if (in->flags & F_CC)
				*cc = (uint32_t)((w >> (8 * nb)) & 1);
			if (in->flags & F_SAT && sg && nb == 4 && in->op == OP_MAD) {
				int64_t s = sx(hi, 4) + sx(c, 4);
				r = (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
			}
		} else {
			uint64_t lo = (ua * ub) & mask;
			unsigned __int128 w = (unsigned __int128)lo + (addend & mask) + cin;
			r = (uint64_t)w;
			if (in->flags & F_CC)
				*cc = (uint32_t)((w >> (8 * nb)) & 1);
		}
		break;
	}
	case OP_DIV:
		if (ub == 0)
			r = ~0ull;
		else if (sg)
			r = (sa == (nb == 8 ? INT64_MIN : -(1ll << (8 * nb - 1))) && sb == -1) ? (uint64_t)sa : (uint64_t)(sa / sb);
		else
			r = ua / ub;
		break;
	case OP_REM:
		if (ub == 0)
			r = ua;
		else if (sg)
			r = sb == -1 ? 0 : (uint64_t)(sa % sb);
		else
			r = ua % ub;
		break;
	case OP_ABS:
		r = sg ? (sa < 0 ? 0 - (uint64_t)sa : (uint64_t)sa) : ua;
		break;
	case OP_NEG:
		r = 0 - (uint64_t)sa;
		break;
	case OP_MIN:
		r = sg ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub);
		if (in->ns > 2)
			r = sg ? (uint64_t)((int64_t)sx(r, nb) < sx(c, nb) ? sx(r, nb) : sx(c, nb)) : ((r & mask) < (c & mask) ? r : c);
		if (in->flags & F_RELU && (int64_t)sx(r, nb) < 0)
			r = 0;
		break;
	case OP_MAX:
		r = sg ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub);
		if (in->ns > 2)
			r = sg ? (uint64_t)((int64_t)sx(r, nb) > sx(c, nb) ? sx(r, nb) : sx(c, nb)) : ((r & mask) > (c & mask) ? r : c);
		if (in->flags & F_RELU && (int64_t)sx(r, nb) < 0)
			r = 0;
		break;
	default:
		fault(t, in, "internal: integer arithmetic op %d", in->op);
		return ST_FAULT;
	}
	R[in->d[0]] = norm(r, rty);
	return ST_NEXT;
}
