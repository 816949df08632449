/* exec_bits.c: and or xor not cnot shl shr shf lop3 prmt bfe bfi brev popc
 * clz bfind fns, on predicates and b/u/s 16/32/64 (PTX ISA semantics:
 * shifts clamp at the width, bfe sign-extends from the field's msb,
 * prmt's byte selectors and modes, bfind's .shiftamt, lop3's truth table). */
#include "exec.h"

static uint64_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
	uint64_t x = (uint64_t)b << 32 | a;
	uint8_t bytes[8];
	for (int k = 0; k < 8; k++)
		bytes[k] = (uint8_t)(x >> (8 * k));
	uint32_t r = 0;
	int sel[4];
	switch (mode) {
	case PRMT_DEFAULT:
		for (int k = 0; k < 4; k++) {
			uint32_t s = (c >> (4 * k)) & 0xf;
			uint8_t v = bytes[s & 7];
			if (s & 8)
				v = (v & 0x80) ? 0xff : 0;
			r |= (uint32_t)v << (8 * k);
		}
		return r;
	case PRMT_F4E: { int n = c & 3; for (int k = 0; k < 4; k++) sel[k] = (n + k) & 7; break; }
	case PRMT_B4E: { int n = c & 3; for (int k = 0; k < 4; k++) sel[k] = (n - k + 8) & 7; break; }
	case PRMT_RC8: { int n = c & 3; for (int k = 0; k < 4; k++) sel[k] = n; break; }
	case PRMT_ECL: { int n = c & 3; for (int k = 0; k < 4; k++) sel[k] = k < n ? k : n; break; }
	case PRMT_ECR: { int n = c & 3; for (int k = 0; k < 4; k++) sel[k] = k > n ? k : n; break; }
	case PRMT_RC16: { int n = c & 1; sel[0] = sel[2] = 2 * n; sel[1] = sel[3] = 2 * n + 1; break; }
	default: sel[0] = sel[1] = sel[2] = sel[3] = 0;
	}
	if (mode == PRMT_F4E)
		for (int k = 0; k < 4; k++)
			sel[k] = ((c & 3) + k) & 7;
	for (int k = 0; k < 4; k++)
		r |= (uint32_t)bytes[sel[k]] << (8 * k);
	return r;
}

int exec_bits(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	int ty = in->ty;
	int nb = type_bytes[ty];
	int w = nb * 8;
	uint64_t mask = nb >= 8 ? ~0ull : (1ull << w) - 1;
	uint64_t a = R[in->s[0]], b = in->ns > 1 ? R[in->s[1]] : 0, c = in->ns > 2 ? R[in->s[2]] : 0;
	uint64_t r;
	if (ty == TY_PRED) {
		a &= 1;
		b &= 1;
		switch (in->op) {
		case OP_AND: r = a & b; break;
		case OP_OR: r = a | b; break;
		case OP_XOR: r = a ^ b; break;
		case OP_NOT: r = !a; break;
		default: fault(t, in, "unsupported predicate operation"); return ST_FAULT;
		}
		R[in->d[0]] = r;
		return ST_NEXT;
	}
	switch (in->op) {
	case OP_AND: r = a & b; break;
	case OP_OR: r = a | b; break;
	case OP_XOR: r = a ^ b; break;
	case OP_NOT: r = ~a; break;
	case OP_CNOT: r = (a & mask) == 0; break;
	case OP_SHL: {
		uint32_t s = (uint32_t)b;
		r = s >= (uint32_t)w ? 0 : a << s;
		break;
	}
	case OP_SHR: {
		uint32_t s = (uint32_t)b;
		if (type_kind[ty] == 'S') {
			int64_t v = sx(a, nb);
			r = (uint64_t)(s >= (uint32_t)w ? (v < 0 ? -1 : 0) : v >> s);
		} else {
			r = s >= (uint32_t)w ? 0 : (a & mask) >> s;
		}
		break;
	}
	case OP_SHF: {  /* shf.{l,r}.{wrap,clamp}.b32 d, a(lo), b(hi), c */
		uint32_t n = (uint32_t)c;
		n = (in->flags & F_WRAP) ? n & 31 : (n > 32 ? 32 : n);
		uint64_t x = (b & 0xffffffffull) << 32 | (a & 0xffffffffull);
		if (in->flags & F_LEFT)
			r = (x << n) >> 32;
		else
			r = x >> n;
		if (type_kind[ty] == 'S' && !(in->flags & F_LEFT) && n >= 32) {
			r = (uint64_t)((int64_t)(int32_t)(uint32_t)b >> 31);
		}
		break;
	}
	case OP_LOP3: {
		uint32_t lut = (uint32_t)R[in->s[3]] & 0xff;
		r = 0;
		for (int k = 0; k < w; k++) {
			int idx = (int)(((a >> k) & 1) << 2 | ((b >> k) & 1) << 1 | ((c >> k) & 1));
			r |= (uint64_t)((lut >> idx) & 1) << k;
		}
		break;
	}
	case OP_PRMT:
		r = prmt((uint32_t)a, (uint32_t)b, (uint32_t)c, in->mode);
		break;
	case OP_BFE: {
		uint32_t pos = (uint32_t)b & 0xff, len = (uint32_t)c & 0xff;
		bool sg = type_kind[ty] == 'S';
		uint64_t v = a & mask;
		uint64_t sbit;
		if (len == 0 || pos >= (uint32_t)w)
			sbit = sg && len ? (v >> (w - 1)) & 1 : 0;
		else
			sbit = sg ? (v >> (pos + len - 1 < (uint32_t)w ? pos + len - 1 : (uint32_t)w - 1)) & 1 : 0;
		r = 0;
		for (uint32_t k = 0; k < (uint32_t)w; k++) {
			uint64_t bit = (k < len && pos + k < (uint32_t)w) ? (v >> (pos + k)) & 1 : sbit;
			r |= bit << k;
		}
		break;
	}
	case OP_BFI: {  /* bfi d, f, b, pos, len: insert f into b */
		uint32_t pos = (uint32_t)c & 0xff, len = (uint32_t)R[in->s[3]] & 0xff;
		r = b;
		for (uint32_t k = 0; k < len && pos + k < (uint32_t)w; k++)
			r = (r & ~(1ull << (pos + k))) | (((a >> k) & 1) << (pos + k));
		break;
	}
	case OP_BREV:
		r = 0;
		for (int k = 0; k < w; k++)
			r |= ((a >> k) & 1) << (w - 1 - k);
		break;
	case OP_POPC:
		R[in->d[0]] = (uint64_t)__builtin_popcountll(a & mask);
		return ST_NEXT;
	case OP_CLZ: {
		uint64_t v = a & mask;
		R[in->d[0]] = v ? (uint64_t)(__builtin_clzll(v) - (64 - w)) : (uint64_t)w;
		return ST_NEXT;
	}
	case OP_BFIND: {
		uint64_t v = a & mask;
		int pos = -1;
		if (type_kind[ty] == 'S' && ((v >> (w - 1)) & 1))
			v = ~v & mask;
		if (v)
			pos = 63 - __builtin_clzll(v);
		uint32_t res = pos < 0 ? 0xffffffffu : (in->flags & F_SHIFTAMT) ? (uint32_t)(w - 1 - pos) : (uint32_t)pos;
		R[in->d[0]] = res;
		return ST_NEXT;
	}
	default:
		fault(t, in, "unsupported bit operation");
		return ST_FAULT;
	}
	R[in->d[0]] = norm(r & mask, ty);
	return ST_NEXT;
}
