/* exec_async.c: mbarriers and bulk copies (cp.async.bulk, TMA's
 * cp.async.bulk.tensor, cp.async.mbarrier.arrive).
 * An mbarrier is its 8 bytes of shared memory, in tile-run's encoding:
 *   bits 0-19 pending arrivals, 20-39 expected arrivals, 40-61 transaction
 *   count (signed), 62 initialized, 63 phase parity.
 * A phase completes when its pending arrivals and its transaction count are
 * both 0: the parity flips, pending is reloaded from expected, waiting
 * threads wake; arrivals and copies release into the phase and a wait
 * that sees it completed acquires it (racecheck, race.c). arrive returns
 * the word before the arrival (its bit 63 is the phase the state names).
 * A tf32 tensor map's copy rounds each f32 to tf32, nearest even, on the
 * way (tensormap.h; what NVIDIA's tileiras relies on, docs/abi.md §5.3.1).
 * Copies complete at issue (so complete_tx happens right away); the
 * commit/wait groups are then no-ops, as for cp.async.
 * try_wait that would fail blocks the thread (TS_MBAR) until the phase it
 * waits for completes: no spinning, and a deadlock if nothing can complete
 * it. test_wait never blocks; when false the thread yields.
 * Clusters: an mbarrier or copy destination may be another CTA's
 * (.shared::cluster, mapa'd: mem.c finds the CTA), and then its waiters are
 * that CTA's threads; a .multicast::cluster copy writes the same offset,
 * and completes the transaction on the mbarrier at the same offset, in
 * every CTA of its ctaMask. try_wait on another CTA's mbarrier is a fault. */
#include <math.h>
#include "exec.h"
#include "tensormap.h"

#define PEND(w) ((uint32_t)((w) & 0xfffff))
#define EXPT(w) ((uint32_t)(((w) >> 20) & 0xfffff))
#define INIT_BIT (1ull << 62)
#define PHASE(w) ((uint32_t)((w) >> 63))

static int64_t tx_of(uint64_t w)
{
	int64_t v = (int64_t)((w >> 40) & 0x3fffff);
	return v >= (1 << 21) ? v - (1 << 22) : v;
}

static uint64_t make(uint32_t pend, uint32_t expt, int64_t tx, uint32_t phase)
{
	return pend | (uint64_t)expt << 20 | ((uint64_t)tx & 0x3fffff) << 40 | INIT_BIT | (uint64_t)phase << 63;
}

/* the barrier word (NULL after a fault); *c its CTA (another's through
 * .shared::cluster), *off its shared offset there */
static uint64_t *mbar_at(Thread *t, const Insn *in, int space, uint64_t a, Cta **c, uint32_t *off, bool init)
{
	uint8_t *p = mem_at(t, in, space, a, 8, ACC_ATOMIC);
	if (!p)
		return NULL;
	if (!t->run->shared_hit) {
		fault(t, in, "mbarrier at 0x%llx is not in shared memory", (unsigned long long)a);
		return NULL;
	}
	if (a & 7) {    /* memcheck reports it first; under --check none it must still not be dereferenced */
		fault(t, in, "mbarrier at 0x%llx is not 8-byte aligned", (unsigned long long)a);
		return NULL;
	}
	*off = t->run->shared_off;
	*c = t->run->shared_cta;
	uint64_t *w = (uint64_t *)(void *)p;
	if (!init && !(*w & INIT_BIT)) {
		fault(t, in, "mbarrier at shared offset 0x%x used before mbarrier.init", *off);
		return NULL;
	}
	return w;
}

/* after a change: complete the phase if nothing is pending */
static void settle(Cta *c, uint64_t *w, uint32_t off)
{
	if (PEND(*w) || tx_of(*w))
		return;
	uint32_t ph = PHASE(*w) ^ 1;
	*w = make(EXPT(*w), EXPT(*w), 0, ph);
	race_mbar_complete(c, off, ph ^ 1);
	for (int k = 0; k < c->n; k++) {
		Thread *o = &c->th[k];
		if (o->state == TS_MBAR && o->mbar == off && o->mpar != ph) {
			o->state = TS_RUN;
			o->wait = NULL;
		}
	}
}

static bool arrive(Thread *t, const Insn *in, Cta *c, uint64_t *w, uint32_t off, uint32_t count, bool drop)
{
	if (count > PEND(*w)) {
		fault(t, in, "mbarrier at shared offset 0x%x: %u arrivals with %u pending in the phase", off, count,
		      PEND(*w));
		return false;
	}
	uint32_t expt = EXPT(*w) - (drop ? count : 0);
	*w = make(PEND(*w) - count, expt, tx_of(*w), PHASE(*w));
	race_mbar_release(t, c, off);
	settle(c, w, off);
	return true;
}

static bool add_tx(Thread *t, const Insn *in, uint64_t *w, uint32_t off, int64_t d)
{
	int64_t tx = tx_of(*w) + d;
	if (tx >= (1 << 20) || tx <= -(1 << 20)) {
		fault(t, in, "mbarrier at shared offset 0x%x: transaction count %lld out of range", off, (long long)tx);
		return false;
	}
	*w = make(PEND(*w), EXPT(*w), tx, PHASE(*w));
	return true;
}

/* one arrival on the mbarrier at a (space: shared or generic) for
 * another family (tcgen05.commit); false after a fault */
bool mbar_arrive_one(Thread *t, const Insn *in, uint64_t a, int space)
{
	uint32_t off;
	Cta *c;
	uint64_t *w = mbar_at(t, in, space, a, &c, &off, false);
	return w && arrive(t, in, c, w, off, 1, false);
}

static int mbarrier(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	uint32_t off;
	Cta *c;
	uint64_t a = R[in->s[0]] + (uint64_t)in->off;
	if (in->mode == MB_PENDING) {
		R[in->d[0]] = PEND(R[in->s[0]]);
		return ST_NEXT;
	}
	uint64_t *w = mbar_at(t, in, in->space, a, &c, &off, in->mode == MB_INIT);
	if (!w)
		return ST_FAULT;
	uint32_t v = (uint32_t)R[in->s[1]];
	switch (in->mode) {
	case MB_INIT:
		/* 0: NVIDIA's cta_group::2 kernels init a barrier only the pair's
		 * leader uses with popc(its multicast mask), 0 in the peer */
		if (v >= (1u << 20)) {
			fault(t, in, "mbarrier.init count %u out of range (0 to 2^20-1)", v);
			return ST_FAULT;
		}
		*w = make(v, v, 0, 0);
		race_mbar_init(c, off);
		return ST_NEXT;
	case MB_INVAL:
		*w = 0;
		return ST_NEXT;
	case MB_EXPECT_TX: case MB_COMPLETE_TX:
		if (!add_tx(t, in, w, off, in->mode == MB_EXPECT_TX ? (int64_t)v : -(int64_t)v))
			return ST_FAULT;
		if (in->mode == MB_COMPLETE_TX)
			race_mbar_release(t, c, off);
		settle(c, w, off);
		return ST_NEXT;
	case MB_ARRIVE: case MB_ARRIVE_DROP: {
		uint64_t before = *w;
		uint32_t count = 1;
		if (in->boolop & AF_EXPECT_TX) {
			if (!add_tx(t, in, w, off, v))
				return ST_FAULT;
		} else if (in->ns > 1) {
			count = v;
		}
		if (!arrive(t, in, c, w, off, count, in->mode == MB_ARRIVE_DROP))
			return ST_FAULT;
		R[in->d[0]] = before;
		return ST_NEXT;
	}
	case MB_TEST_WAIT: case MB_TRY_WAIT: {
		uint32_t want = (in->boolop & AF_PARITY) ? (uint32_t)(R[in->s[1]] & 1) : PHASE(R[in->s[1]]);
		if (PHASE(*w) != want) {        /* the phase with that parity has completed */
			race_mbar_acquire(t, c, off, want);
			R[in->d[0]] = 1;
			return ST_NEXT;
		}
		if (in->mode == MB_TRY_WAIT) {
			if (c != t->cta) {
				fault(t, in, "mbarrier.try_wait on another CTA's mbarrier (rank %d)", c->rank);
				return ST_FAULT;
			}
			t->state = TS_MBAR;
			t->mbar = off;
			t->mpar = (uint8_t)want;
			t->wait = in;
			return ST_BLOCK;        /* pc stays: the try_wait runs again when woken */
		}
		R[in->d[0]] = 0;
		t->pc++;
		return ST_YIELD;
	}
	}
	fault(t, in, "internal: mbarrier mode %d", in->mode);
	return ST_FAULT;
}

/* one element or chunk: global/shared src -> dst, race-checked */
static bool copy(Thread *t, const Insn *in, int dsp, uint64_t d, int ssp, uint64_t s, uint32_t n, const uint8_t *fill)
{
	uint8_t tmp[16];
	if (fill) {
		memcpy(tmp, fill, n);
	} else {
		uint8_t *sp = mem_at(t, in, ssp, s, n, ACC_READ);
		if (!sp)
			return false;
		memcpy(tmp, sp, n);
	}
	uint8_t *dp = mem_at(t, in, dsp, d, n, ACC_WRITE);
	if (!dp)
		return false;
	if (t->run->shared_hit && t->run->check == CHECK_RACECHECK &&
	    !race_write(t, in, t->run->shared_cta, t->run->shared_off, tmp, n))
		return false;
	memcpy(dp, tmp, n);
	return true;
}

static bool tx_done(Thread *t, const Insn *in, uint64_t a, uint64_t bytes)
{
	uint32_t off;
	Cta *c;
	uint64_t *w = mbar_at(t, in, SP_SHARED, a, &c, &off, false);
	if (!w || !add_tx(t, in, w, off, -(int64_t)bytes))
		return false;
	race_mbar_release(t, c, off);
	settle(c, w, off);
	return true;
}

/* .multicast::cluster: the ranks of ctaMask (the last source), else -1
 * (the one destination as addressed); 0 after a fault */
static uint32_t mcast_ranks(Thread *t, const Insn *in)
{
	if (!(in->flags & F_MCAST))
		return 0xffffffffu;
	uint32_t mask = (uint32_t)t->R[in->s[in->ns - 1]] & 0xffff;
	if (!mask || mask >> t->run->ncl) {
		fault(t, in, "multicast ctaMask 0x%x: %s for a cluster of %d CTAs", mask, mask ? "ranks outside the cluster" : "no CTA",
		      t->run->ncl);
		return 0;
	}
	return mask;
}

/* destination k of a copy to ranks (mcast_ranks): the address a, or a in CTA k's window */
static bool dest(uint32_t ranks, int k, uint64_t a, uint64_t *out)
{
	if (ranks == 0xffffffffu) {
		*out = a;
		return k == 0;
	}
	*out = cluster_addr(a, k);
	return ranks >> k & 1;
}

static int bulk(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	const int32_t *x = &t->run->m->xs[in->target];
	uint64_t d = R[in->s[0]] + (uint64_t)(int64_t)x[0], s = R[in->s[1]] + (uint64_t)(int64_t)x[1];
	uint32_t n = (uint32_t)R[in->s[2]];
	if (n % 16 || d % 16 || s % 16) {
		fault(t, in, "cp.async.bulk: size %u and addresses must be multiples of 16", n);
		return ST_FAULT;
	}
	uint32_t ranks = mcast_ranks(t, in);
	if (!ranks)
		return ST_FAULT;
	for (int r = 0; r < 32; r++) {
		uint64_t dd, mb = in->ns > 3 ? R[in->s[3]] + (uint64_t)(int64_t)x[2] : 0;
		if (!dest(ranks, r, d, &dd))
			continue;
		for (uint32_t k = 0; k < n; k += 16)
			if (!copy(t, in, in->space, dd + k, in->ty2, s + k, 16, NULL))
				return ST_FAULT;
		if (in->ns > 3 && !(dest(ranks, r, mb, &mb) && tx_done(t, in, mb, n)))
			return ST_FAULT;
	}
	return ST_NEXT;
}

/* the box of tm at coordinates c between global memory and shared address sm */
static bool tensor_copy(Thread *t, const Insn *in, const TensorMap *map, const int64_t *c, uint64_t sm, bool load,
			const uint8_t *fill)
{
	TensorMap tm = *map;
	uint32_t i[5] = { 0 };
	uint64_t total = tm.esize;
	for (int j = 0; j < tm.rank; j++)
		total *= tm.box[j];
	for (uint64_t e = 0; e < total / tm.esize; e++) {
		uint64_t q = e, g = tm.addr;
		bool in_bounds = true;
		for (int j = 0; j < tm.rank; j++) {
			i[j] = (uint32_t)(q % tm.box[j]);
			q /= tm.box[j];
			int64_t gj = c[j] + i[j];
			if (gj < 0 || (uint64_t)gj >= tm.dims[j])
				in_bounds = false;
			g += (uint64_t)gj * tm.strides[j];
		}
		uint64_t sa = swizzle_addr(sm + e * tm.esize, tm.swizzle);
		uint8_t rounded[4];
		if (load && tm.tf32 && in_bounds) {     /* f32 -> tf32, nearest even, on the way (a tf32 map) */
			const uint8_t *gp = mem_at(t, in, SP_GLOBAL, g, 4, ACC_READ);
			if (!gp)
				return false;
			uint32_t bits;
			memcpy(&bits, gp, 4);
			bits = double_to_small(u2f(bits), TY_TF32, RND_RN, false, false, false);
			memcpy(rounded, &bits, 4);
		}
		if (load ? !copy(t, in, SP_SHARED, sa, SP_GLOBAL, g, tm.esize,
				 !in_bounds ? fill : tm.tf32 ? rounded : NULL)
			 : in_bounds && !copy(t, in, SP_GLOBAL, g, SP_SHARED, sa, tm.esize, NULL))
			return false;
	}
	return true;
}

static int tensor(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	const int32_t *x = &t->run->m->xs[in->target];
	uint64_t sm = R[in->s[0]] + (uint64_t)(int64_t)x[0], ta = R[in->s[1]] + (uint64_t)(int64_t)x[1];
	/* the map: a kernel parameter (its param-space address), else generic memory */
	const uint8_t *p = ta + 128 <= t->run->kparam_size ? t->P + ta : mem_at(t, in, SP_GENERIC, ta, 128, ACC_READ);
	if (!p)
		return ST_FAULT;
	TensorMap tm;
	if (!tensormap_decode(p, &tm) || tm.rank != in->vec) {
		fault(t, in, "cp.async.bulk.tensor: no %dd tile-run tensor map at 0x%llx (pass the parameter as tmap:N,BOX)",
		      in->vec, (unsigned long long)ta);
		return ST_FAULT;
	}
	if (sm % 128) {
		fault(t, in, "cp.async.bulk.tensor: shared address 0x%llx not 128-byte aligned", (unsigned long long)sm);
		return ST_FAULT;
	}
	bool load = in->space == SP_SHARED;
	int64_t c[5] = { 0 };
	for (int j = 0; j < tm.rank; j++)
		c[j] = (int32_t)R[in->s[3 + j]];
	uint64_t total = tm.esize;
	for (int j = 0; j < tm.rank; j++)
		total *= tm.box[j];
	uint8_t fill[8] = { 0 };
	if (tm.oob_nan) {
		if (tm.esize == 2)
			memcpy(fill, &(uint16_t){ 0x7fff }, 2);
		else if (tm.esize == 4)
			memcpy(fill, &(uint32_t){ 0x7fffffffu }, 4);
		else if (tm.esize == 8)
			memcpy(fill, &(uint64_t){ 0x7fffffffffffffffull }, 8);
	}
	uint32_t ranks = load ? mcast_ranks(t, in) : 0xffffffffu;
	if (!ranks)
		return ST_FAULT;
	for (int r = 0; r < 32; r++) {
		uint64_t smd, mb = R[in->s[2]] + (uint64_t)(int64_t)x[2];
		if (!dest(ranks, r, sm, &smd))
			continue;
		if (!tensor_copy(t, in, &tm, c, smd, load, fill))
			return ST_FAULT;
		if (load && !(dest(ranks, r, mb, &mb) && tx_done(t, in, mb, total)))
			return ST_FAULT;
	}
	return ST_NEXT;
}

int exec_async(Thread *t, const Insn *in)
{
	if (in->op == OP_MBARRIER)
		return mbarrier(t, in);
	switch (in->mode) {
	case AS_NOP:
		return ST_NEXT;
	case AS_MBAR_ARRIVE: {          /* cp.async copied at issue: the arrival is now */
		if (!(in->boolop & AF_NOINC))
			return ST_NEXT;         /* +1 pending, then the async arrival: no change */
		uint32_t off;
		Cta *c;
		uint64_t *w = mbar_at(t, in, in->space, t->R[in->s[0]] + (uint64_t)in->off, &c, &off, false);
		return w && arrive(t, in, c, w, off, 1, false) ? ST_NEXT : ST_FAULT;
	}
	case AS_BULK:
		return bulk(t, in);
	case AS_TENSOR:
		return tensor(t, in);
	}
	fault(t, in, "internal: async mode %d", in->mode);
	return ST_FAULT;
}
