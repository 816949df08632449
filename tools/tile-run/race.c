/* race.c: racecheck's happens-before, by vector clocks.
 * One state serves the cluster running now (one CTA without clusters): each
 * thread of the cluster has a vector clock (one counter per thread of the
 * cluster, index rank * CTA size + tid; its own counter is its clock), and
 * every CTA's shared bytes have their stamps (index rank * shared size +
 * offset), so accesses by another CTA through .shared::cluster are checked
 * as those of the owner's threads are. A synchronisation is a release by
 * some threads and an acquire by others:
 *   bar.sync / barrier / bar.arrive: every arrival releases into the
 *     barrier's clock; the threads it lets go acquire it;
 *   mbarrier: an arrival, a complete_tx and the completion of a bulk or
 *     tensor copy (by the thread that issued it: copies happen at issue,
 *     exec_async.c) release into the barrier's clock for its current
 *     phase; when the phase completes that clock becomes the phase's, and a
 *     try_wait / test_wait that sees the phase completed acquires it;
 *   a warp collective (bar.warp.sync, shfl.sync, ...) joins the clocks of
 *     the lanes it resolves;
 *   barrier.cluster: an arrive (not .relaxed) releases into the cluster
 *     barrier's clock; when every live thread of the cluster has arrived it
 *     becomes the phase's, and the waits it lets go acquire it. An mbarrier
 *     of another CTA (a remote arrive, a multicast copy's complete_tx) is
 *     that CTA's barrier: its waiters acquire what the remote arrivals
 *     released.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"

typedef struct MbarClock {
	uint32_t off;           /* the mbarrier's cluster byte index (rank * shared size + offset) */
	uint32_t *acc;          /* releases into the phase in progress */
	uint32_t *done[2];      /* the last completed phase of each parity */
} MbarClock;

/* the cluster's racecheck state (every Cta.race, made by race_setup) */
struct Race {
	int n;                  /* threads of the cluster */
	int nw;                 /* its warps */
	int cn, cnw;            /* threads and warps of one CTA */
	size_t bytes;           /* shared bytes of the cluster (ncl * shared size) */
	uint32_t ssize;         /* of one CTA */
	uint32_t *wr, *wr_clk;  /* per shared byte: last writer + 1 (RACE_MANY: several), its clock */
	uint32_t *rd, *rd_clk;  /* per shared byte and warp: last reader + 1, its clock */
	uint32_t *vc;           /* n x n: thread t's clock of thread u at vc[t*n+u] */
	uint32_t **bar;         /* named barriers' releases: [rank * 16 + id] */
	uint32_t *cbar, *cbar_done;     /* barrier.cluster: the phase in progress, the last completed */
	MbarClock *mb;
	int nmb, capmb;
	uint32_t *tmp;
	bool cluster;           /* more than one CTA: messages name ranks */
};

/* t's cluster's racecheck state; NULL when racecheck is off */
static Race *race_of(const Thread *t)
{
	return t->cta->race;
}

/* a thread's index among the cluster's, a byte's among its shared bytes */
static uint32_t tix(const Race *rc, const Thread *t)
{
	return (uint32_t)t->cta->rank * (uint32_t)rc->cn + t->tid;
}

static size_t bix(const Race *rc, const Cta *c, uint32_t off)
{
	return (size_t)c->rank * rc->ssize + off;
}

static void join(const Race *rc, uint32_t *dst, const uint32_t *src)
{
	for (int u = 0; u < rc->n; u++)
		if (src[u] > dst[u])
			dst[u] = src[u];
}

static uint32_t *vc_of(const Race *rc, const Thread *t)
{
	return rc->vc + (size_t)tix(rc, t) * (size_t)rc->n;
}

static void release_into(Race *rc, Thread *t, uint32_t *acc)
{
	uint32_t *v = vc_of(rc, t);
	join(rc, acc, v);
	v[tix(rc, t)]++;
}

void race_setup(Run *r)
{
	Cta *c = &r->cl[0];
	Race *rc = xcalloc(1, sizeof *rc);
	rc->ssize = c->shared_size;
	rc->bytes = (size_t)r->ncl * c->shared_size;
	size_t n = rc->bytes ? rc->bytes : 1;
	rc->cn = c->n;
	rc->cnw = (c->n + 31) / 32;
	rc->n = r->ncl * c->n;
	rc->nw = r->ncl * rc->cnw;
	rc->cluster = r->ncl > 1;
	rc->wr = xcalloc(n, 4);
	rc->wr_clk = xcalloc(n, 4);
	rc->rd = xcalloc(n * (size_t)rc->nw, 4);
	rc->rd_clk = xcalloc(n * (size_t)rc->nw, 4);
	rc->vc = xcalloc((size_t)rc->n * (size_t)rc->n, 4);
	rc->bar = xcalloc((size_t)r->ncl * 16, sizeof *rc->bar);
	for (int i = 0; i < r->ncl * 16; i++)
		rc->bar[i] = xcalloc((size_t)rc->n, 4);
	rc->cbar = xcalloc((size_t)rc->n, 4);
	rc->cbar_done = xcalloc((size_t)rc->n, 4);
	rc->tmp = xcalloc((size_t)rc->n, 4);
	for (int k = 0; k < r->ncl; k++)
		r->cl[k].race = rc;
}

void race_reset(Run *r)
{
	Race *rc = r->cl[0].race;
	if (!rc)
		return;
	memset(rc->wr, 0, rc->bytes * sizeof *rc->wr);
	memset(rc->rd, 0, rc->bytes * (size_t)rc->nw * 4);
	memset(rc->vc, 0, (size_t)rc->n * (size_t)rc->n * 4);
	for (int t = 0; t < rc->n; t++)
		rc->vc[(size_t)t * (size_t)rc->n + (size_t)t] = 1;
	for (int i = 0; i < r->ncl * 16; i++)
		memset(rc->bar[i], 0, (size_t)rc->n * 4);
	memset(rc->cbar, 0, (size_t)rc->n * 4);
	memset(rc->cbar_done, 0, (size_t)rc->n * 4);
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
	return who && who != RACE_MANY && who != tix(rc, t) + 1 && clk > vc_of(rc, t)[who - 1];
}

/* " of CTA rank R" after a thread or offset, in a cluster of several */
static const char *rank_of(const Race *rc, char *buf, size_t cap, uint32_t rank)
{
	if (!rc->cluster)
		return "";
	snprintf(buf, cap, " of CTA rank %u", rank);
	return buf;
}

/* the report of a race on byte x (cluster index) by t with thread `other` (cluster index) */
static void race_fault(const Race *rc, Thread *t, const Insn *in, size_t x, const char *what, uint32_t other)
{
	char b1[32], b2[32], b3[32];
	const char *own = rank_of(rc, b1, sizeof b1, (uint32_t)(x / (rc->ssize ? rc->ssize : 1)));
	const char *me = rank_of(rc, b2, sizeof b2, (uint32_t)t->cta->rank);
	uint32_t off = (uint32_t)(x % (rc->ssize ? rc->ssize : 1));
	if (other == RACE_MANY)
		fault_as(t, in, FK_RACE, 0, NULL, "shared-memory race: %s of shared offset 0x%x%s by thread %u%s after a different write by another thread with no barrier between",
		      what, off, own, t->tid, me);
	else
		fault_as(t, in, FK_RACE, 0, NULL, "shared-memory race: %s of shared offset 0x%x%s by thread %u%s after a %s by thread %u%s with no barrier between",
		      what, off, own, t->tid, me, strcmp(what, "read") == 0 ? "write" : "read", other % (uint32_t)rc->cn,
		      rank_of(rc, b3, sizeof b3, other / (uint32_t)rc->cn));
}

bool race_read(Thread *t, const Insn *in, Cta *c, uint32_t a, uint32_t size)
{
	Race *rc = race_of(t);
	if (!rc)
		return true;
	uint32_t me = tix(rc, t) + 1, clk = vc_of(rc, t)[me - 1];
	size_t warp = (size_t)t->cta->rank * (size_t)rc->cnw + t->warp;
	for (uint32_t k = 0; k < size; k++) {
		size_t x = bix(rc, c, a + k);
		if (unordered(rc, t, rc->wr[x], rc->wr_clk[x])) {
			race_fault(rc, t, in, x, "read", rc->wr[x] - 1);
			return false;
		}
		size_t slot = x * (size_t)rc->nw + warp;
		rc->rd[slot] = me;
		rc->rd_clk[slot] = clk;
	}
	return true;
}

bool race_write(Thread *t, const Insn *in, Cta *c, uint32_t a, const uint8_t *v, uint32_t size)
{
	Race *rc = race_of(t);
	if (!rc)
		return true;
	const uint8_t *shared = c->shared;
	uint32_t me = tix(rc, t) + 1, clk = vc_of(rc, t)[me - 1];
	for (uint32_t k = 0; k < size; k++) {
		size_t x = bix(rc, c, a + k);
		bool wrote = unordered(rc, t, rc->wr[x], rc->wr_clk[x]);
		if (shared[a + k] == v[k]) {
			if (wrote)
				rc->wr[x] = RACE_MANY;
			continue;
		}
		if (wrote) {
			race_fault(rc, t, in, x, "write", RACE_MANY);
			return false;
		}
		for (int w = 0; w < rc->nw; w++) {
			size_t slot = x * (size_t)rc->nw + (size_t)w;
			if (unordered(rc, t, rc->rd[slot], rc->rd_clk[slot])) {
				race_fault(rc, t, in, x, "write", rc->rd[slot] - 1);
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
		release_into(rc, t, rc->bar[t->cta->rank * 16 + id]);
}

/* barrier id of c opened: the waiting threads (state TS_BAR, bar_id id)
 * acquire what every arrival released */
void race_bar_open(Cta *c, int id)
{
	Race *rc = c->race;
	if (!rc)
		return;
	uint32_t *b = rc->bar[c->rank * 16 + id];
	for (int k = 0; k < c->n; k++)
		if (c->th[k].state == TS_BAR && c->th[k].bar_id == id)
			join(rc, vc_of(rc, &c->th[k]), b);
	memset(b, 0, (size_t)rc->n * 4);
}

void race_cbar_arrive(Thread *t)
{
	Race *rc = race_of(t);
	if (rc)
		release_into(rc, t, rc->cbar);
}

void race_cbar_complete(Run *r)
{
	Race *rc = r->cl[0].race;
	if (!rc)
		return;
	memcpy(rc->cbar_done, rc->cbar, (size_t)rc->n * 4);
	memset(rc->cbar, 0, (size_t)rc->n * 4);
}

void race_cbar_acquire(Thread *t)
{
	Race *rc = race_of(t);
	if (rc)
		join(rc, vc_of(rc, t), rc->cbar_done);
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
	MbarClock *m = mbar(rc, (uint32_t)bix(rc, c, off));
	memset(m->acc, 0, (size_t)rc->n * 4);
	memset(m->done[0], 0, (size_t)rc->n * 4);
	memset(m->done[1], 0, (size_t)rc->n * 4);
}

void race_mbar_release(Thread *t, Cta *c, uint32_t off)
{
	Race *rc = race_of(t);
	if (rc)
		release_into(rc, t, mbar(rc, (uint32_t)bix(rc, c, off))->acc);
}

void race_mbar_complete(Cta *c, uint32_t off, uint32_t parity)
{
	Race *rc = c->race;
	if (!rc)
		return;
	MbarClock *m = mbar(rc, (uint32_t)bix(rc, c, off));
	memcpy(m->done[parity & 1], m->acc, (size_t)rc->n * 4);
	memset(m->acc, 0, (size_t)rc->n * 4);
}

void race_mbar_acquire(Thread *t, Cta *c, uint32_t off, uint32_t parity)
{
	Race *rc = race_of(t);
	if (rc)
		join(rc, vc_of(rc, t), mbar(rc, (uint32_t)bix(rc, c, off))->done[parity & 1]);
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
			v[tix(rc, &c->th[u])]++;
		}
	}
}

uint32_t race_clock(const Thread *t)
{
	Race *rc = race_of(t);
	return rc ? vc_of(rc, t)[tix(rc, t)] : 0;
}

/* who: tid + 1 of a thread of t's CTA (tensor memory is the CTA's own) */
bool race_after(const Thread *t, uint32_t who, uint32_t clk)
{
	Race *rc = race_of(t);
	if (!rc)
		return true;
	if (who && who != RACE_MANY)
		who += (uint32_t)t->cta->rank * (uint32_t)rc->cn;
	return !unordered(rc, t, who, clk);
}

void race_free(Run *r)
{
	Race *rc = r->ncl ? r->cl[0].race : NULL;
	if (!rc)
		return;
	race_reset(r);          /* frees the mbarrier clocks */
	free(rc->mb);
	free(rc->wr);
	free(rc->wr_clk);
	free(rc->rd);
	free(rc->rd_clk);
	free(rc->vc);
	for (int i = 0; i < r->ncl * 16; i++)
		free(rc->bar[i]);
	free(rc->bar);
	free(rc->cbar);
	free(rc->cbar_done);
	free(rc->tmp);
	free(rc);
	for (int k = 0; k < r->ncl; k++)
		r->cl[k].race = NULL;
}
