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

static struct {
	int n;                  /* threads of the CTA */
	int nw;                 /* its warps */
	uint32_t *wr, *wr_clk;  /* per shared byte: last writer + 1 (RACE_MANY: several), its clock */
	uint32_t *rd, *rd_clk;  /* per shared byte and warp: last reader + 1, its clock */
	uint32_t *vc;           /* n x n: thread t's clock of thread u at vc[t*n+u] */
	uint32_t *bar[16];      /* named barriers' releases */
	MbarClock *mb;
	int nmb, capmb;
	uint32_t *tmp;
} RC;

static bool on(void)
{
	return RUN.check == CHECK_RACECHECK && RC.vc;
}

static void join(uint32_t *dst, const uint32_t *src)
{
	for (int u = 0; u < RC.n; u++)
		if (src[u] > dst[u])
			dst[u] = src[u];
}

static uint32_t *vc_of(const Thread *t)
{
	return RC.vc + (size_t)t->tid * (size_t)RC.n;
}

static void release_into(Thread *t, uint32_t *acc)
{
	uint32_t *v = vc_of(t);
	join(acc, v);
	v[t->tid]++;
}

void race_setup(Cta *c)
{
	size_t n = c->shared_size ? c->shared_size : 1;
	RC.wr = xcalloc(n, 4);
	RC.wr_clk = xcalloc(n, 4);
	RC.n = c->n;
	RC.nw = (c->n + 31) / 32;
	RC.rd = xcalloc(n * (size_t)RC.nw, 4);
	RC.rd_clk = xcalloc(n * (size_t)RC.nw, 4);
	RC.vc = xcalloc((size_t)c->n * (size_t)c->n, 4);
	for (int i = 0; i < 16; i++)
		RC.bar[i] = xcalloc((size_t)c->n, 4);
	RC.tmp = xcalloc((size_t)c->n, 4);
}

void race_reset(Cta *c)
{
	if (!RC.wr)
		return;
	memset(RC.wr, 0, c->shared_size * sizeof *RC.wr);
	memset(RC.rd, 0, (size_t)c->shared_size * (size_t)RC.nw * 4);
	memset(RC.vc, 0, (size_t)RC.n * (size_t)RC.n * 4);
	for (int t = 0; t < RC.n; t++)
		RC.vc[(size_t)t * (size_t)RC.n + (size_t)t] = 1;
	for (int i = 0; i < 16; i++)
		memset(RC.bar[i], 0, (size_t)RC.n * 4);
	for (int i = 0; i < RC.nmb; i++) {
		free(RC.mb[i].acc);
		free(RC.mb[i].done[0]);
		free(RC.mb[i].done[1]);
	}
	RC.nmb = 0;
}

/* the access by t races with the stamp (who + 1, clock): another thread's,
 * not acquired by t */
static bool unordered(const Thread *t, uint32_t who, uint32_t clk)
{
	return who && who != RACE_MANY && who != t->tid + 1 && clk > vc_of(t)[who - 1];
}

bool race_read(Thread *t, const Insn *in, uint32_t a, uint32_t size)
{
	if (!on())
		return true;
	uint32_t me = t->tid + 1, clk = vc_of(t)[t->tid];
	for (uint32_t k = 0; k < size; k++) {
		uint32_t x = a + k;
		if (unordered(t, RC.wr[x], RC.wr_clk[x])) {
			fault(t, in, "shared-memory race: read of shared offset 0x%x by thread %u after a write by thread %u with no barrier between",
			      x, t->tid, RC.wr[x] - 1);
			return false;
		}
		size_t slot = (size_t)x * (size_t)RC.nw + t->warp;
		RC.rd[slot] = me;
		RC.rd_clk[slot] = clk;
	}
	return true;
}

bool race_write(Thread *t, const Insn *in, uint32_t a, const uint8_t *v, uint32_t size)
{
	if (!on())
		return true;
	const uint8_t *shared = RUN.cta.shared;
	uint32_t me = t->tid + 1, clk = vc_of(t)[t->tid];
	for (uint32_t k = 0; k < size; k++) {
		uint32_t x = a + k;
		bool wrote = unordered(t, RC.wr[x], RC.wr_clk[x]);
		if (shared[x] == v[k]) {
			if (wrote)
				RC.wr[x] = RACE_MANY;
			continue;
		}
		if (wrote) {
			fault(t, in, "shared-memory race: write of shared offset 0x%x by thread %u after a different write by another thread with no barrier between",
			      x, t->tid);
			return false;
		}
		for (int w = 0; w < RC.nw; w++) {
			size_t slot = (size_t)x * (size_t)RC.nw + (size_t)w;
			if (unordered(t, RC.rd[slot], RC.rd_clk[slot])) {
				fault(t, in, "shared-memory race: write of shared offset 0x%x by thread %u after a read by thread %u with no barrier between",
				      x, t->tid, RC.rd[slot] - 1);
				return false;
			}
		}
		RC.wr[x] = me;
		RC.wr_clk[x] = clk;
	}
	return true;
}

void race_bar_arrive(Thread *t, int id)
{
	if (on())
		release_into(t, RC.bar[id]);
}

/* barrier id opened: the waiting threads (state TS_BAR, bar_id id) acquire
 * what every arrival released */
void race_bar_open(Cta *c, int id)
{
	if (!on())
		return;
	for (int k = 0; k < c->n; k++)
		if (c->th[k].state == TS_BAR && c->th[k].bar_id == id)
			join(vc_of(&c->th[k]), RC.bar[id]);
	memset(RC.bar[id], 0, (size_t)RC.n * 4);
}

static MbarClock *mbar(uint32_t off)
{
	for (int i = 0; i < RC.nmb; i++)
		if (RC.mb[i].off == off)
			return &RC.mb[i];
	if (RC.nmb == RC.capmb) {
		RC.capmb = RC.capmb ? 2 * RC.capmb : 16;
		RC.mb = xrealloc(RC.mb, (size_t)RC.capmb * sizeof *RC.mb);
	}
	MbarClock *m = &RC.mb[RC.nmb++];
	m->off = off;
	m->acc = xcalloc((size_t)RC.n, 4);
	m->done[0] = xcalloc((size_t)RC.n, 4);
	m->done[1] = xcalloc((size_t)RC.n, 4);
	return m;
}

void race_mbar_init(uint32_t off)
{
	if (!on())
		return;
	MbarClock *m = mbar(off);
	memset(m->acc, 0, (size_t)RC.n * 4);
	memset(m->done[0], 0, (size_t)RC.n * 4);
	memset(m->done[1], 0, (size_t)RC.n * 4);
}

void race_mbar_release(Thread *t, uint32_t off)
{
	if (on())
		release_into(t, mbar(off)->acc);
}

void race_mbar_complete(uint32_t off, uint32_t parity)
{
	if (!on())
		return;
	MbarClock *m = mbar(off);
	memcpy(m->done[parity & 1], m->acc, (size_t)RC.n * 4);
	memset(m->acc, 0, (size_t)RC.n * 4);
}

void race_mbar_acquire(Thread *t, uint32_t off, uint32_t parity)
{
	if (on())
		join(vc_of(t), mbar(off)->done[parity & 1]);
}

/* a warp collective resolved for the lanes of mask: they see each other's
 * accesses before it */
void race_warp_join(Cta *c, int warp, uint32_t mask)
{
	if (!on())
		return;
	memset(RC.tmp, 0, (size_t)RC.n * 4);
	for (int j = 0; j < 32; j++) {
		int u = warp * 32 + j;
		if ((mask >> j & 1) && u < c->n)
			join(RC.tmp, vc_of(&c->th[u]));
	}
	for (int j = 0; j < 32; j++) {
		int u = warp * 32 + j;
		if ((mask >> j & 1) && u < c->n) {
			uint32_t *v = vc_of(&c->th[u]);
			join(v, RC.tmp);
			v[u]++;
		}
	}
}
