/* exec_cmp.c: setp set selp slct. Comparisons of integers (signed per type,
 * lo/ls/hi/hs unsigned), floats (ordered eq..ge false on NaN, unordered
 * equ..geu true on NaN, num/nan) incl. f16/bf16 scalar and x2 (setp on a
 * packed type writes two predicates), combined with .and/.or/.xor. */
#include <math.h>
#include "exec.h"

static bool fcmp(int cmp, double a, double b)
{
	bool un = isnan(a) || isnan(b);
	switch (cmp) {
	case CMP_EQ: return !un && a == b;
	case CMP_NE: return !un && a != b;
	case CMP_LT: return !un && a < b;
	case CMP_LE: return !un && a <= b;
	case CMP_GT: return !un && a > b;
	case CMP_GE: return !un && a >= b;
	case CMP_EQU: return un || a == b;
	case CMP_NEU: return un || a != b;
	case CMP_LTU: return un || a < b;
	case CMP_LEU: return un || a <= b;
	case CMP_GTU: return un || a > b;
	case CMP_GEU: return un || a >= b;
	case CMP_NUM: return !un;
	case CMP_NAN: return un;
	}
	return false;
}

static double fval(uint64_t v, int ty, bool ftz)
{
	if (ty == TY_F32) {
		float f = u2f((uint32_t)v);
		return ftz ? ftz32(f) : f;
	}
	if (ty == TY_F64)
		return u2d(v);
	return small_to_double((uint32_t)v & 0xffff, ty);
}

static bool compare(const Insn *in, int ty, uint64_t a, uint64_t b)
{
	char k = type_kind[ty];
	if (k == 'F')
		return fcmp(in->cmp, fval(a, ty, in->flags & F_FTZ), fval(b, ty, in->flags & F_FTZ));
	int nb = type_bytes[ty];
	int64_t sa = sx(a, nb), sb = sx(b, nb);
	uint64_t ua = zx(a, nb), ub = zx(b, nb);
	bool sg = k == 'S';
	switch (in->cmp) {
	case CMP_EQ: return ua == ub;
	case CMP_NE: return ua != ub;
	case CMP_LT: return sg ? sa < sb : ua < ub;
	case CMP_LE: return sg ? sa <= sb : ua <= ub;
	case CMP_GT: return sg ? sa > sb : ua > ub;
	case CMP_GE: return sg ? sa >= sb : ua >= ub;
	case CMP_LO: return ua < ub;
	case CMP_LS: return ua <= ub;
	case CMP_HI: return ua > ub;
	case CMP_HS: return ua >= ub;
	}
	return false;
}

static bool combine(const Insn *in, bool r, uint64_t c)
{
	if (!in->boolop)
		return r;
	bool p = (c & 1) ^ ((in->flags & F_NEGB) != 0);
	switch (in->boolop) {
	case AOP_AND: return r && p;
	case AOP_OR: return r || p;
	case AOP_XOR: return r != p;
	}
	return r;
}

int exec_cmp(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	switch (in->op) {
	case OP_SETP: {
		uint64_t a = R[in->s[0]], b = R[in->s[1]], c = in->ns > 2 ? R[in->s[2]] : 0;
		if (in->ty == TY_F16X2 || in->ty == TY_BF16X2) {
			int ety = in->ty == TY_F16X2 ? TY_F16 : TY_BF16;
			R[in->d[0]] = combine(in, compare(in, ety, a & 0xffff, b & 0xffff), c);
			if (in->nd > 1)
				R[in->d[1]] = combine(in, compare(in, ety, a >> 16 & 0xffff, b >> 16 & 0xffff), c);
			return ST_NEXT;
		}
		bool r = compare(in, in->ty, a, b);
		R[in->d[0]] = combine(in, r, c);
		if (in->nd > 1)
			R[in->d[1]] = combine(in, !r, c);
		return ST_NEXT;
	}
	case OP_SET: {  /* set.cmp[.bool].dtype.stype d, a, b[, c] */
		uint64_t a = R[in->s[0]], b = R[in->s[1]], c = in->ns > 2 ? R[in->s[2]] : 0;
		bool r = combine(in, compare(in, in->ty2, a, b), c);
		uint64_t v;
		if (in->ty == TY_F32)
			v = r ? 0x3f800000u : 0;
		else
			v = r ? 0xffffffffu : 0;
		R[in->d[0]] = norm(v, in->ty);
		return ST_NEXT;
	}
	case OP_SELP:
		R[in->d[0]] = (R[in->s[2]] & 1) ? R[in->s[0]] : R[in->s[1]];
		return ST_NEXT;
	case OP_SLCT: { /* slct.dtype.s32/f32 d, a, b, c: d = c >= 0 ? a : b */
		uint64_t c = R[in->s[2]];
		bool ge = in->ty2 == TY_F32 ? (u2f((uint32_t)c) >= 0.0f) : ((int32_t)(uint32_t)c >= 0);
		R[in->d[0]] = ge ? R[in->s[0]] : R[in->s[1]];
		return ST_NEXT;
	}
	}
	fault(t, in, "internal: comparison op %d", in->op);
	return ST_FAULT;
}
