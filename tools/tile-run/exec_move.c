/* exec_move.c: mov (registers, immediates, symbol addresses, special
 * registers, vector pack {a,b} -> d and unpack d -> {a,b}), cvta between
 * generic and state-space addresses, isspacep, and the live special
 * registers %clock/%clock64/%globaltimer (a counter that advances 1000 per
 * read, so spin-waits on the timer terminate). */
#include "exec.h"

int exec_move(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	switch (in->op) {
	case OP_MOV: {
		int nb = type_bytes[in->ty];
		if (in->mode == 1) {            /* pack */
			int w = nb * 8 / in->vec;
			uint64_t r = 0, m = w >= 64 ? ~0ull : (1ull << w) - 1;
			for (int k = 0; k < in->vec; k++)
				r |= (R[in->s[k]] & m) << (w * k);
			R[in->d[0]] = r;
			return ST_NEXT;
		}
		if (in->mode == 2) {            /* unpack */
			int w = nb * 8 / in->vec;
			uint64_t v = R[in->s[0]], m = w >= 64 ? ~0ull : (1ull << w) - 1;
			for (int k = 0; k < in->vec; k++)
				R[in->d[k]] = (v >> (w * k)) & m;
			R[1] = 0;
			return ST_NEXT;
		}
		R[in->d[0]] = in->ty == TY_PRED ? R[in->s[0]] & 1 : norm(R[in->s[0]], in->ty);
		R[1] = 0;
		return ST_NEXT;
	}
	case OP_CVTA: {
		uint64_t a = R[in->s[0]], base;
		switch (in->space) {
		case SP_SHARED: base = GEN_SHARED_BASE; break;
		case SP_LOCAL: base = GEN_LOCAL_BASE; break;
		default: base = 0; break;       /* global, const, param: identity */
		}
		uint64_t r;
		if (in->flags & F_TO)
			r = a - base;
		else
			r = a + base;
		R[in->d[0]] = norm(r, in->ty);
		return ST_NEXT;
	}
	case OP_ISSPACEP: {
		uint64_t a = R[in->s[0]];
		bool r;
		switch (in->space) {
		case SP_SHARED: {       /* .shared::cta: this CTA's window only (run.h SHARED_RANK_SHIFT) */
			uint64_t rk = (a - GEN_SHARED_BASE) >> SHARED_RANK_SHIFT;
			r = a - GEN_SHARED_BASE < GEN_WINDOW &&
			    ((in->flags & F_CLUSTER) ? rk < (uint64_t)t->run->ncl : rk == (uint64_t)t->cta->rank);
			break;
		}
		case SP_LOCAL: r = a - GEN_LOCAL_BASE < GEN_WINDOW; break;
		default: r = !(a - GEN_SHARED_BASE < GEN_WINDOW) && !(a - GEN_LOCAL_BASE < GEN_WINDOW); break;
		}
		R[in->d[0]] = r;
		return ST_NEXT;
	}
	case OP_MOV_CLOCK: {
		Run *r = t->run;
		r->gtimer += 1000;
		uint64_t v = r->gtimer + r->ninsn;
		if (in->mode == SR_CLOCK || in->mode == SR_GTIMER_LO)
			v &= 0xffffffffu;
		else if (in->mode == SR_GTIMER_HI)
			v >>= 32;
		R[in->d[0]] = v;
		return ST_NEXT;
	}
	}
	fault(t, in, "internal: move op %d", in->op);
	return ST_FAULT;
}
