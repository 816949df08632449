/* exec_atom.c: atom and red, every operation (add min max inc dec exch cas
 * and or xor) on b/u/s 16/32/64, f16/bf16/f32/f64 (and f16x2/bf16x2 add),
 * in global, shared or generic space. One thread runs at a time, so each
 * read-modify-write is atomic; scopes and orderings change nothing. */
#include <math.h>
#include "exec.h"

static uint64_t atom_fadd(uint64_t a, uint64_t b, int ty)
{
	switch (ty) {
	case TY_F32: return f2u(u2f((uint32_t)a) + u2f((uint32_t)b));
	case TY_F64: return d2u(u2d(a) + u2d(b));
	case TY_F16: case TY_BF16:
		return double_to_small(small_to_double((uint32_t)a & 0xffff, ty) + small_to_double((uint32_t)b & 0xffff, ty),
				       ty, RND_RN, false, false, false);
	case TY_F16X2: case TY_BF16X2: {
		int e = ty == TY_F16X2 ? TY_F16 : TY_BF16;
		return atom_fadd(a & 0xffff, b & 0xffff, e) | atom_fadd(a >> 16 & 0xffff, b >> 16 & 0xffff, e) << 16;
	}
	}
	return 0;
}

static uint64_t fminmax(uint64_t a, uint64_t b, int ty, bool max)
{
	double x = ty == TY_F32 ? u2f((uint32_t)a) : ty == TY_F64 ? u2d(a) : small_to_double((uint32_t)a & 0xffff, ty);
	double y = ty == TY_F32 ? u2f((uint32_t)b) : ty == TY_F64 ? u2d(b) : small_to_double((uint32_t)b & 0xffff, ty);
	if (isnan(x))
		return b;
	if (isnan(y))
		return a;
	return (max ? y > x : y < x) ? b : a;
}

int exec_atom(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	int ty = in->ty;
	int nb = type_bytes[ty];
	uint64_t a = R[in->s[0]] + (uint64_t)in->off;
	uint8_t *p = mem_at(t, in, in->space, a, (uint32_t)nb, ACC_ATOMIC);
	if (!p)
		return ST_FAULT;
	uint64_t old = 0, b = R[in->s[1]], c = in->ns > 2 ? R[in->s[2]] : 0, nw;
	memcpy(&old, p, (size_t)nb);
	char k = type_kind[ty];
	uint64_t mask = nb >= 8 ? ~0ull : (1ull << (8 * nb)) - 1;
	bool fl = k == 'F' || k == 'X';
	switch (in->mode) {
	case AOP_ADD: nw = fl ? atom_fadd(old, b, ty) : old + b; break;
	case AOP_MIN: case AOP_MAX: {
		bool max = in->mode == AOP_MAX;
		if (fl) {
			nw = fminmax(old, b, ty, max);
		} else if (k == 'S') {
			int64_t x = sx(old, nb), y = sx(b, nb);
			nw = (uint64_t)(max ? (y > x ? y : x) : (y < x ? y : x));
		} else {
			uint64_t x = old & mask, y = b & mask;
			nw = max ? (y > x ? y : x) : (y < x ? y : x);
		}
		break;
	}
	case AOP_INC: nw = (old & mask) >= (b & mask) ? 0 : old + 1; break;
	case AOP_DEC: nw = ((old & mask) == 0 || (old & mask) > (b & mask)) ? b : old - 1; break;
	case AOP_EXCH: nw = b; break;
	case AOP_CAS: nw = (old & mask) == (b & mask) ? c : old; break;
	case AOP_AND: nw = old & b; break;
	case AOP_OR: nw = old | b; break;
	case AOP_XOR: nw = old ^ b; break;
	default:
		fault(t, in, "internal: atomic op %d", in->mode);
		return ST_FAULT;
	}
	memcpy(p, &nw, (size_t)nb);
	if (in->op == OP_ATOM)
		R[in->d[0]] = norm(old, ty == TY_F16X2 || ty == TY_BF16X2 ? TY_B32 : ty);
	R[1] = 0;
	return ST_NEXT;
}
