/* exec_warp.c: warp collectives: shfl.sync, vote.sync, redux.sync,
 * match.sync, bar.warp.sync, activemask, elect.sync.
 * A thread reaching one deposits its operands and waits (TS_WARP); when
 * every lane of its membermask has arrived (exited lanes excepted) the
 * collective is resolved for all of them at once and they go on. Lanes of
 * one mask waiting at different instructions are a fault (the PTX is
 * wrong), never a silent guess. */
#include <math.h>
#include "exec.h"

int exec_warp(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	switch (in->op) {
	case OP_ACTIVEMASK: {
		Cta *c = &t->run->cta;
		uint32_t m = 0;
		for (int k = 0; k < 32; k++) {
			int tid = (int)t->warp * 32 + k;
			if (tid < c->n && c->th[tid].state != TS_EXIT)
				m |= 1u << k;
		}
		R[in->d[0]] = m;
		return ST_NEXT;
	}
	case OP_SHFL:
		t->cv[0] = R[in->s[0]];
		t->cv[1] = R[in->s[1]] | (R[in->s[2]] << 32);
		t->cv[2] = R[in->s[3]] & 0xffffffffu;
		break;
	case OP_VOTE:
		t->cv[0] = (R[in->s[0]] & 1) ^ ((in->flags & F_NEGB) != 0);
		t->cv[2] = R[in->s[1]] & 0xffffffffu;
		break;
	case OP_REDUX: case OP_MATCH:
		t->cv[0] = R[in->s[0]];
		t->cv[2] = R[in->s[1]] & 0xffffffffu;
		break;
	case OP_ELECT:
		t->cv[2] = R[in->s[0]] & 0xffffffffu;
		break;
	case OP_LDMATRIX: case OP_STMATRIX:     /* .sync.aligned: the whole warp */
		t->maddr = R[in->s[0]] + (uint64_t)in->off;
		for (int k = 0; in->op == OP_STMATRIX && k < in->vec; k++)
			t->frag[k] = (uint32_t)R[in->s[1 + k]];
		t->cv[2] = 0xffffffffu;
		break;
	case OP_MMA: case OP_WGMMA: case OP_TCGEN05: case OP_SETMAXNREG:   /* .sync.aligned: the whole warp; operands read at resolve */
		t->cv[2] = 0xffffffffu;
		break;
	case OP_BAR: case OP_BARRIER:   /* bar.warp.sync */
		t->cv[2] = R[in->s[0]] & 0xffffffffu;
		break;
	default:
		fault(t, in, "internal: warp op %d", in->op);
		return ST_FAULT;
	}
	if (!(t->cv[2] >> t->lane & 1)) {
		fault(t, in, "lane %u executes a warp collective with membermask 0x%08x that does not include it", t->lane,
		      (unsigned)t->cv[2]);
		return ST_FAULT;
	}
	t->wait = in;
	t->state = TS_WARP;
	return ST_BLOCK;
}

/* redux.sync.{min,max}{.abs}{.NaN}.f32: NaN inputs are skipped unless .NaN */
static uint64_t redux_f32(const Insn *in, uint64_t acc, uint64_t v, bool first)
{
	float x = u2f((uint32_t)v);
	if (in->flags & F_ABS)
		x = fabsf(x);
	if (first)
		return f2u(x);
	float a = u2f((uint32_t)acc);
	if (isnan(a) || isnan(x)) {
		if (in->flags & F_NAN)
			return 0x7fffffffu;
		return f2u(isnan(a) ? x : a);
	}
	bool max = in->mode == AOP_MAX;
	if (a == x && a == 0)   /* -0 < +0 */
		return f2u(max ? (signbit(a) ? x : a) : (signbit(a) ? a : x));
	return f2u(max ? (x > a ? x : a) : (x < a ? x : a));
}

static uint64_t redux(const Insn *in, uint64_t acc, uint64_t v, bool first)
{
	if (in->ty == TY_F32)
		return redux_f32(in, acc, v, first);
	if (first)
		return v;
	bool sg = type_kind[in->ty] == 'S';
	switch (in->mode) {
	case AOP_ADD: return (uint32_t)(acc + v);
	case AOP_MIN: return sg ? ((int32_t)v < (int32_t)acc ? v : acc) : ((uint32_t)v < (uint32_t)acc ? v : acc);
	case AOP_MAX: return sg ? ((int32_t)v > (int32_t)acc ? v : acc) : ((uint32_t)v > (uint32_t)acc ? v : acc);
	case AOP_AND: return acc & v;
	case AOP_OR: return acc | v;
	case AOP_XOR: return acc ^ v;
	}
	return acc;
}

/* ldmatrix/stmatrix .m8n8 .b16: matrix i's row r lives at the address of
 * lane 8i+r; lane t holds elements (t/4, 2(t%4)) and (t/4, 2(t%4)+1) of each
 * matrix in one 32-bit register (the first in the low half); .trans swaps
 * row and column. */
static void matrix(Cta *c, Thread **L, const Insn *in)
{
	int nm = in->vec;
	bool trans = in->flags & F_TRANS, ld = in->op == OP_LDMATRIX;
	uint16_t M[4][8][8];
	for (int i = 0; i < nm; i++) {
		if (!ld) {
			for (int t = 0; t < 32; t++)
				for (int j = 0; j < 2; j++) {
					int r = t / 4, col = 2 * (t % 4) + j;
					uint16_t v = L[t] ? (uint16_t)(L[t]->frag[i] >> (16 * j)) : 0;
					if (trans)
						M[i][col][r] = v;
					else
						M[i][r][col] = v;
				}
		}
		for (int r = 0; r < 8; r++) {
			Thread *src = L[i * 8 + r];
			if (!src) {
				fault(L[0] ? L[0] : &c->th[0], in, "lane %d (the address of row %d of matrix %d) has exited", i * 8 + r, r, i);
				return;
			}
			uint8_t *p = mem_at(src, in, in->space, src->maddr, 16, ld ? ACC_READ : ACC_WRITE);
			if (!p)
				return;
			if (ld) {
				memcpy(M[i][r], p, 16);
			} else {
				if (c->run->check == CHECK_RACECHECK && c->run->shared_hit &&
				    !race_write(src, in, c->run->shared_off, (const uint8_t *)M[i][r], 16))
					return;
				memcpy(p, M[i][r], 16);
			}
		}
	}
	if (!ld)
		return;
	for (int t = 0; t < 32; t++) {
		if (!L[t])
			continue;
		for (int i = 0; i < nm; i++) {
			int r = t / 4, col = 2 * (t % 4);
			uint32_t lo = trans ? M[i][col][r] : M[i][r][col], hi = trans ? M[i][col + 1][r] : M[i][r][col + 1];
			L[t]->R[in->d[i]] = lo | hi << 16;
		}
	}
}

/* resolve the collective of lanes in mask (all arrived) */
static void resolve(Cta *c, int warp, uint32_t mask, const Insn *in)
{
	Thread *L[32] = { 0 };
	for (int k = 0; k < 32; k++) {
		int tid = warp * 32 + k;
		if ((mask >> k & 1) && tid < c->n && c->th[tid].state == TS_WARP)
			L[k] = &c->th[tid];
	}
	uint32_t arrived = 0;
	for (int k = 0; k < 32; k++)
		if (L[k])
			arrived |= 1u << k;
	switch (in->op) {
	case OP_SHFL:
		for (int k = 0; k < 32; k++) {
			Thread *t = L[k];
			if (!t)
				continue;
			uint32_t b = (uint32_t)t->cv[1] & 0x1f, cc = (uint32_t)(t->cv[1] >> 32);
			uint32_t cval = cc & 0x1f, seg = (cc >> 8) & 0x1f;
			uint32_t lane = (uint32_t)k;
			uint32_t maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
			int j;
			bool p;
			switch (in->mode) {
			case SHFL_UP: j = (int)lane - (int)b; p = j >= (int)maxl; break;
			case SHFL_DOWN: j = (int)(lane + b); p = j <= (int)maxl; break;
			case SHFL_BFLY: j = (int)(lane ^ b); p = j <= (int)maxl; break;
			default: j = (int)(minl | (b & ~seg)); p = j <= (int)maxl; break;
			}
			if (!p || j < 0 || j > 31 || !L[j])
				j = k;
			t->R[in->d[0]] = L[j]->cv[0] & 0xffffffffu;
			if (in->nd > 1)
				t->R[in->d[1]] = p;
		}
		break;
	case OP_VOTE: {
		uint32_t ballot = 0;
		for (int k = 0; k < 32; k++)
			if (L[k] && (L[k]->cv[0] & 1))
				ballot |= 1u << k;
		for (int k = 0; k < 32; k++) {
			if (!L[k])
				continue;
			uint64_t r;
			switch (in->mode) {
			case VOTE_ALL: r = ballot == arrived; break;
			case VOTE_ANY: r = ballot != 0; break;
			case VOTE_UNI: r = ballot == 0 || ballot == arrived; break;
			default: r = ballot; break;
			}
			L[k]->R[in->d[0]] = r;
		}
		break;
	}
	case OP_REDUX: {
		uint64_t acc = 0;
		bool first = true;
		for (int k = 0; k < 32; k++)
			if (L[k]) {
				acc = redux(in, acc, L[k]->cv[0] & 0xffffffffu, first);
				first = false;
			}
		for (int k = 0; k < 32; k++)
			if (L[k])
				L[k]->R[in->d[0]] = norm(acc, in->ty);
		break;
	}
	case OP_MATCH: {
		int nb = type_bytes[in->ty];
		for (int k = 0; k < 32; k++) {
			if (!L[k])
				continue;
			uint32_t same = 0;
			for (int j = 0; j < 32; j++)
				if (L[j] && zx(L[j]->cv[0], nb) == zx(L[k]->cv[0], nb))
					same |= 1u << j;
			if (in->mode == MATCH_ANY) {
				L[k]->R[in->d[0]] = same;
			} else {
				bool all = same == arrived;
				L[k]->R[in->d[0]] = all ? arrived : 0;
				if (in->nd > 1)
					L[k]->R[in->d[1]] = all;
			}
		}
		break;
	}
	case OP_LDMATRIX: case OP_STMATRIX:
		matrix(c, L, in);
		break;
	case OP_MMA:
		mma_resolve(c, L, in);     /* exec_mma.c */
		break;
	case OP_WGMMA:
		wgmma_resolve(c, L, in);   /* exec_wgmma.c: A in registers */
		break;
	case OP_TCGEN05:
		tcgen05_resolve(c, L, in);   /* exec_tcgen05.c: alloc, dealloc, relinquish */
		break;
	case OP_SETMAXNREG:
		setmaxnreg_resolve(c, L, in);        /* exec_setmaxnreg.c */
		break;
	case OP_ELECT: {
		int leader = __builtin_ctz(arrived);
		for (int k = 0; k < 32; k++)
			if (L[k]) {
				L[k]->R[in->d[0]] = (uint32_t)leader;
				L[k]->R[in->d[1]] = k == leader;
			}
		break;
	}
	default:
		break;
	}
	for (int k = 0; k < 32; k++)
		if (L[k]) {
			L[k]->R[1] = 0;
			L[k]->state = TS_RUN;
			L[k]->wait = NULL;
			L[k]->pc++;
		}
}

/* resolve t's collective if every lane of its mask is there */
static void check_one(Cta *c, int warp, Thread *t)
{
	{
		uint32_t mask = (uint32_t)t->cv[2];
		bool ready = true, mismatch = false;
		for (int j = 0; j < 32 && ready; j++) {
			if (!(mask >> j & 1))
				continue;
			int u = warp * 32 + j;
			if (u >= c->n)
				continue;
			Thread *o = &c->th[u];
			if (o->state == TS_EXIT)
				continue;
			if (o->state != TS_WARP)
				ready = false;
			else if (o->wait != t->wait)
				mismatch = true;
		}
		if (!ready)
			return;
		if (mismatch) {
			fault(t, t->wait, "lanes of membermask 0x%08x wait at different warp collectives", mask);
			return;
		}
		const Insn *w = t->wait;
		if (w->op == OP_SETMAXNREG && !setmaxnreg_ready(c, warp, w))
			return;         /* .inc: waits for registers another warp gives back */
		race_warp_join(c, warp, mask);
		resolve(c, warp, mask, w);
		if (w->op == OP_SETMAXNREG && w->mode == AOP_DEC)       /* wake the warps waiting in .inc */
			for (int k = 0; k < (c->n + 31) / 32 && !c->run->status; k++)
				if (k != warp)
					warp_check(c, k);
	}
}

void warp_check_thread(Cta *c, Thread *t)
{
	if (t->state == TS_WARP)
		check_one(c, (int)t->warp, t);
}

void warp_check(Cta *c, int warp)
{
	for (int k = 0; k < 32 && !c->run->status; k++) {
		int tid = warp * 32 + k;
		if (tid >= c->n)
			break;
		if (c->th[tid].state == TS_WARP)
			check_one(c, warp, &c->th[tid]);
	}
}
