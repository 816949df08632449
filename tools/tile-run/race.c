/* race.c: racecheck's happens-before, by vector clocks.
 * Each thread of the CTA has a vector clock (one counter per thread of the
 * CTA; its own counter is its clock). A synchronisation is a release by
 * some threads and an acquire by others:
 *   bar.sync / barrier / bar.arrive: every arrival releases into the
 *     barrier's clock; the threads it lets go acquire it;
 *   mbarrier: an arrival, a complete_tx and the completion of a bulk or
 *     tensor copy (by the thread that issued it: copies happen at issue,
 *     exec_async.c) release into the barrier's clock for its current
 *     phase; when the phase completes that clock becomes the phase's, and a
 *     try_wait / test_wait that sees the phase completed acquires it;
 *   a warp collective (bar.warp.sync, shfl.sync, ...) joins the clocks of
 *     the lanes it resolves.
 * Releasing ticks the releaser's own clock. Per shared byte the last writer
 * is kept with its clock, and the last reader of each warp with its (the
 * readers of a stage are every warp of a warpgroup: one slot would keep only
 * the last of them); an access races with a write (or a write with a read)
 * by another thread whose clock the accessor has not acquired. So a stage a TMA copy refills while another warp's
 * wgmma may still read it is a race unless a barrier or mbarrier the
 * reader released and the issuer acquired lies between (with the old
 * single CTA epoch, any mbarrier completing anywhere ordered everything).
 * Writes that leave a byte as it was cannot race (replicated layouts store
 * the same value from several threads): such a byte becomes "many
 * writers", and neither a read nor a later write conflicts with it. */
#include <stdlib.h>
#include <string.h>
#include "exec.h"

typedef struct MbarClock {
	uint32_t off;           /* the mbarrier's shared offset */
	uint32_t *acc;          /* releases into the phase in progress */
	uint32_t *done[2];      /* the last completed phase of each parity */
} MbarClock;

/* a CTA's racecheck state (Cta.race, made by race_setup) */
struct Race {
	int n;                  /* threads of the CTA */
	int nw;                 /* its warps */
	uint32_t *wr, *wr_clk;  /* per shared byte: last writer + 1 (RACE_MANY: several), its clock */
	uint32_t *rd, *rd_clk;  /* per shared byte and warp: last reader + 1, its clock */
	uint32_t *vc;           /* n x n: thread t's clock of thread u at vc[t*n+u] */
	uint32_t *bar[16];      /* named barriers' releases */
	MbarClock *mb;
	int nmb, capmb;
	uint32_t *tmp;
};

/* t's CTA's racecheck state; NULL when racecheck is off */
static Race *race_of(const Thread *t)
{
	return t->run->cta.race;
}

static void join(const Race *rc, uint32_t *dst, const uint32_t *src)
{
	for (int u = 0; u < rc->n; u++)
		if (src[u] > dst[u])
			dst[u] = src[u];
}

static uint32_t *vc_of(const Race *rc, const Thread *t)
{
	return rc->vc + (size_t)t->tid * (size_t)rc->n;
}

static void release_into(Race *rc, Thread *t, uint32_t *acc)
{
	uint32_t *v = vc_of(rc, t);
	join(rc, acc, v);
	v[t->tid]++;
}

void race_setup(Cta *c)
{
	size_t n = c->shared_size ? c->shared_size : 1;
	Race *rc = c->race = xcalloc(1, sizeof *rc);
	rc->wr = xcalloc(n, 4);
	rc->wr_clk = xcalloc(n, 4);
	rc->n = c->n;
	rc->nw = (c->n + 31) / 32;
	rc->rd = xcalloc(n * (size_t)rc->nw, 4);
	rc->rd_clk = xcalloc(n * (size_t)rc->nw, 4);
	rc->vc = xcalloc((size_t)c->n * (size_t)c->n, 4);
	for (int i = 0; i < 16; i++)
		rc->bar[i] = xcalloc((size_t)c->n, 4);
	rc->tmp = xcalloc((size_t)c->n, 4);
}

void race_reset(Cta *c)
{
	Race *rc = c->race;
	if (!rc)
		return;
	memset(rc->wr, 0, c->shared_size * sizeof *rc->wr);
	memset(rc->rd, 0, (size_t)c->shared_size * (size_t)rc->nw * 4);
	memset(rc->vc, 0, (size_t)rc->n * (size_t)rc->n * 4);
	for (int t = 0; t < rc->n; t++)
		rc->vc[(size_t)t * (size_t)rc->n + (size_t)t] = 1;
	for (int i = 0; i < 16; i++)
		memset(rc->bar[i], 0, (size_t)rc->n * 4);
	for (int i = 0; i < rc->nmb; i++) {
		free(rc->mb[i].acc);
		free(rc->mb[i].done[0]);
		free(rc->mb[i].done[1]);
	}
	rc->nmb = 0;
}

/* the access by t races with the stamp (who + 1, clock): another thread's,
 * not acquired by t */
static bool unordered(const Race *rc, const Thread *t, uint32_t who, uint32_t clk)
{
	return who && who != RACE_MANY && who != t->tid + 1 && clk > vc_of(rc, t)[who - 1];
}

bool race_read(Thread *t, const Insn *in, uint32_t a, uint32_t size)
{
	Race *rc = race_of(t);
	if (!rc)
		return true;
	uint32_t me = t->tid + 1, clk = vc_of(rc, t)[t->tid];
	for (uint32_t k = 0; k < size; k++) {
		uint32_t x = a + k;
		if (unordered(rc, t, rc->wr[x], rc->wr_clk[x])) {
			fault(t, in, "shared-memory race: read of shared offset 0x%x by thread %u after a write by thread %u with no barrier between",
			      x, t->tid, rc->wr[x] - 1);
			return false;
		}
		size_t slot = (size_t)x * (size_t)rc->nw + t->warp;
		rc->rd[slot] = me;
		rc->rd_clk[slot] = clk;
	}
	return true;
}

bool race_write(Thread *t, const Insn *in, uint32_t a, const uint8_t *v, uint32_t size)
{
	Race *rc = race_of(t);
	if (!rc)
		return true;
	const uint8_t *shared = t->run->cta.shared;
	uint32_t me = t->tid + 1, clk = vc_of(rc, t)[t->tid];
	for (uint32_t k = 0; k < size; k++) {
		uint32_t x = a + k;
		bool wrote = unordered(rc, t, rc->wr[x], rc->wr_clk[x]);
		if (shared[x] == v[k]) {
			if (wrote)
				rc->wr[x] = RACE_MANY;
			continue;
		}
		if (wrote) {
			fault(t, in, "shared-memory race: write of shared offset 0x%x by thread %u after a different write by another thread with no barrier between",
			      x, t->tid);
			return false;
		}
		for (int w = 0; w < rc->nw; w++) {
			size_t slot = (size_t)x * (size_t)rc->nw + (size_t)w;
			if (unordered(rc, t, rc->rd[slot], rc->rd_clk[slot])) {
				fault(t, in, "shared-memory race: write of shared offset 0x%x by thread %u after a read by thread %u with no barrier between",
				      x, t->tid, rc->rd[slot] - 1);
				return false;
			}
		}
		rc->wr[x] = me;
		rc->wr_clk[x] = clk;
	}
	return true;
}

void race_bar_arrive(Thread *t, int id)
{
	Race *rc = race_of(t);
	if (rc)
		release_into(rc, t, rc->bar[id]);
}

/* barrier id opened: the waiting threads (state TS_BAR, bar_id id) acquire
 * what every arrival released */
void race_bar_open(Cta *c, int id)
{
	Race *rc = c->race;
	if (!rc)
		return;
	for (int k = 0; k < c->n; k++)
		if (c->th[k].state == TS_BAR && c->th[k].bar_id == id)
			join(rc, vc_of(rc, &c->th[k]), rc->bar[id]);
	memset(rc->bar[id], 0, (size_t)rc->n * 4);
}

static MbarClock *mbar(Race *rc, uint32_t off)
{
	for (int i = 0; i < rc->nmb; i++)
		if (rc->mb[i].off == off)
			return &rc->mb[i];
	if (rc->nmb == rc->capmb) {
		rc->capmb = rc->capmb ? 2 * rc->capmb : 16;
		rc->mb = xrealloc(rc->mb, (size_t)rc->capmb * sizeof *rc->mb);
	}
	MbarClock *m = &rc->mb[rc->nmb++];
	m->off = off;
	m->acc = xcalloc((size_t)rc->n, 4);
	m->done[0] = xcalloc((size_t)rc->n, 4);
	m->done[1] = xcalloc((size_t)rc->n, 4);
	return m;
}

void race_mbar_init(Cta *c, uint32_t off)
{
	Race *rc = c->race;
	if (!rc)
		return;
	MbarClock *m = mbar(rc, off);
	memset(m->acc, 0, (size_t)rc->n * 4);
	memset(m->done[0], 0, (size_t)rc->n * 4);
	memset(m->done[1], 0, (size_t)rc->n * 4);
}

void race_mbar_release(Thread *t, uint32_t off)
{
	Race *rc = race_of(t);
	if (rc)
		release_into(rc, t, mbar(rc, off)->acc);
}

void race_mbar_complete(Cta *c, uint32_t off, uint32_t parity)
{
	Race *rc = c->race;
	if (!rc)
		return;
	MbarClock *m = mbar(rc, off);
	memcpy(m->done[parity & 1], m->acc, (size_t)rc->n * 4);
	memset(m->acc, 0, (size_t)rc->n * 4);
}

void race_mbar_acquire(Thread *t, uint32_t off, uint32_t parity)
{
	Race *rc = race_of(t);
	if (rc)
		join(rc, vc_of(rc, t), mbar(rc, off)->done[parity & 1]);
}

/* a warp collective resolved for the lanes of mask: they see each other's
 * accesses before it */
void race_warp_join(Cta *c, int warp, uint32_t mask)
{
	Race *rc = c->race;
	if (!rc)
		return;
	memset(rc->tmp, 0, (size_t)rc->n * 4);
	for (int j = 0; j < 32; j++) {
		int u = warp * 32 + j;
		if ((mask >> j & 1) && u < c->n)
			join(rc, rc->tmp, vc_of(rc, &c->th[u]));
	}
	for (int j = 0; j < 32; j++) {
		int u = warp * 32 + j;
		if ((mask >> j & 1) && u < c->n) {
			uint32_t *v = vc_of(rc, &c->th[u]);
			join(rc, v, rc->tmp);
			v[u]++;
		}
	}
}

uint32_t race_clock(const Thread *t)
{
	Race *rc = race_of(t);
	return rc ? vc_of(rc, t)[t->tid] : 0;
}

bool race_after(const Thread *t, uint32_t who, uint32_t clk)
{
	Race *rc = race_of(t);
	return !rc || !unordered(rc, t, who, clk);
}
