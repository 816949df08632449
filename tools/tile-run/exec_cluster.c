/* exec_cluster.c: thread-block clusters (sm_90+): mapa, getctarank and
 * barrier.cluster.arrive[.release|.relaxed] / .wait[.acquire].
 * The CTAs of a cluster run together (sched.c), each with its own shared
 * block; a shared address is rank << SHARED_RANK_SHIFT | offset (run.h),
 * and a CTA's own addresses carry its own rank (cluster_own_addresses fills
 * them in as a thread or a call frame starts), so every .shared::cta
 * address is also the shared::cluster address of the same byte, as PTX
 * says. mapa puts CTA r's rank bits on an address (a generic one stays
 * generic, in the shared window); mem.c resolves them on each access and
 * faults on a rank outside the cluster, an offset past the CTA's shared
 * size, another CTA reached through .shared::cta, and a CTA that has
 * exited.
 * The cluster barrier: each thread arrives once per phase, then waits; the
 * phase completes when every thread of the cluster that has not exited has
 * arrived (an exiting thread no longer holds it up, as for bar.sync), and
 * its waiting threads go on. A wait without an arrival, or a second
 * arrival before the wait, is a fault. A phase nobody can complete is a
 * deadlock (sched.c). racecheck: an arrive (not .relaxed) releases and the
 * wait acquires (race.c). */
#include "exec.h"

uint64_t cluster_addr(uint64_t a, int rank)
{
	return (uint64_t)rank << SHARED_RANK_SHIFT | (a & SHARED_OFF_MASK);
}

void cluster_own_addresses(const Func *f, uint64_t *R, int rank)
{
	for (int k = 0; k < f->nrank_slots; k++)
		R[f->rank_slots[k]] += (uint64_t)rank << SHARED_RANK_SHIFT;
}

/* the shared-window offset of address a (generic unless the instruction
 * names .shared::cluster / .shared); false after a fault */
static bool shared_part(Thread *t, const Insn *in, uint64_t a, uint64_t *off)
{
	if (in->space == SP_SHARED) {
		*off = a;
	} else if (a - GEN_SHARED_BASE < GEN_WINDOW) {
		*off = a - GEN_SHARED_BASE;
	} else {
		fault(t, in, "0x%llx is not a shared-memory address", (unsigned long long)a);
		return false;
	}
	if (*off >> 32) {
		fault(t, in, "0x%llx is not a shared-memory address", (unsigned long long)a);
		return false;
	}
	return true;
}

void cbar_check(Run *r)
{
	int live = 0;
	for (int q = 0; q < r->ncl; q++)
		live += r->cl[q].live;
	if (r->cbar.arrived == 0 || r->cbar.arrived < live)
		return;
	r->cbar.gen++;
	r->cbar.arrived = 0;
	race_cbar_complete(r);
	for (int q = 0; q < r->ncl; q++)
		for (int k = 0; k < r->cl[q].n; k++) {
			Thread *o = &r->cl[q].th[k];
			if (o->state == TS_CBAR) {
				o->state = TS_RUN;      /* its pc is still at the wait: it runs again and passes */
				o->wait = NULL;
			}
		}
}

void cluster_thread_exited(Thread *t)
{
	Run *r = t->run;
	if (t->carr && t->cgen == r->cbar.gen)
		r->cbar.arrived--;      /* counted among the live ones no more */
	t->carr = false;
	cbar_check(r);
}

static int cluster_barrier(Thread *t, const Insn *in)
{
	Run *r = t->run;
	if (in->mode == BAR_CLUSTER_ARRIVE) {
		if (t->carr) {
			fault(t, in, "barrier.cluster.arrive again before barrier.cluster.wait");
			return ST_FAULT;
		}
		t->carr = true;
		t->cgen = r->cbar.gen;
		r->cbar.arrived++;
		if (!in->boolop)        /* .relaxed releases nothing */
			race_cbar_arrive(t);
		cbar_check(r);
		return ST_NEXT;
	}
	if (!t->carr) {
		fault(t, in, "barrier.cluster.wait without a barrier.cluster.arrive before it");
		return ST_FAULT;
	}
	if (t->cgen != r->cbar.gen) {   /* the phase it arrived in has completed */
		t->carr = false;
		race_cbar_acquire(t);
		return ST_NEXT;
	}
	t->state = TS_CBAR;
	t->wait = in;
	return ST_BLOCK;
}

int exec_cluster(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	Run *r = t->run;
	switch (in->op) {
	case OP_BAR: case OP_BARRIER:
		return cluster_barrier(t, in);
	case OP_MAPA: {
		uint64_t a = R[in->s[0]], off;
		uint32_t rank = (uint32_t)R[in->s[1]];
		if (!shared_part(t, in, a, &off))
			return ST_FAULT;
		if (rank >= (uint32_t)r->ncl) {
			fault(t, in, "mapa to CTA rank %u, outside the cluster of %d CTAs", rank, r->ncl);
			return ST_FAULT;
		}
		uint64_t d = cluster_addr(off, (int)rank);
		R[in->d[0]] = norm(in->space == SP_SHARED ? d : d + GEN_SHARED_BASE, in->ty);
		return ST_NEXT;
	}
	case OP_GETCTARANK: {
		uint64_t off;
		if (!shared_part(t, in, R[in->s[0]], &off))
			return ST_FAULT;
		R[in->d[0]] = off >> SHARED_RANK_SHIFT;
		return ST_NEXT;
	}
	}
	fault(t, in, "internal: cluster op %d", in->op);
	return ST_FAULT;
}
