/* exec_sync.c: CTA barriers (bar.sync / barrier.sync / bar.arrive /
 * bar.red.{popc,and,or}, named barriers 0-15 with optional thread counts),
 * fences and membar (no-ops on a sequential machine), griddepcontrol and
 * the like. A thread at a barrier waits (TS_BAR); the barrier opens when
 * the expected count arrives: the given count, else every thread of the
 * CTA that has not exited. Arrivals release and the opening acquires
 * (racecheck's clocks, race.c). */
#include "exec.h"

int exec_sync(Thread *t, const Insn *in)
{
	Cta *c = t->cta;
	switch (in->op) {
	case OP_FENCE: case OP_MEMBAR: case OP_GRIDDEPCONTROL: case OP_SETMAXNREG: case OP_PMEVENT:
	case OP_NANOSLEEP: case OP_BRKPT:
		return ST_NEXT;
	case OP_BAR: case OP_BARRIER:
		break;
	default:
		fault(t, in, "internal: sync op %d", in->op);
		return ST_FAULT;
	}
	if (in->mode == BAR_WARP_SYNC)
		return exec_warp(t, in);
	if (in->mode == BAR_CLUSTER_ARRIVE || in->mode == BAR_CLUSTER_WAIT)
		return exec_cluster(t, in);
	uint32_t id = (uint32_t)t->R[in->s[0]];
	if (id > 15) {
		fault(t, in, "barrier id %u out of range (0-15)", id);
		return ST_FAULT;
	}
	int expected = 0;
	int cntslot = in->mode >= BAR_RED_POPC ? (in->ns == 3 ? in->s[1] : -1) : (in->ns > 1 ? in->s[1] : -1);
	if (cntslot >= 0) {
		uint32_t n = (uint32_t)t->R[cntslot];
		if (n == 0 || n % 32 || n > (uint32_t)((c->n + 31) / 32 * 32)) {
			fault(t, in, "barrier thread count %u is not a multiple of 32 within the CTA size", n);
			return ST_FAULT;
		}
		expected = (int)n;
	}
	if (c->bar[id].arrived > 0 && c->bar[id].expected != expected) {
		fault(t, in, "barrier %u used with different thread counts at once", id);
		return ST_FAULT;
	}
	c->bar[id].expected = expected;
	c->bar[id].arrived++;
	race_bar_arrive(t, (int)id);
	if (in->mode >= BAR_RED_POPC) {
		uint64_t p = (t->R[in->s[in->ns - 1]] & 1) ^ ((in->flags & F_NEGB) != 0);
		t->cv[0] = p;
	}
	if (in->mode == BAR_ARRIVE) {
		bar_check(c, (int)id);
		return t->run->status ? ST_FAULT : ST_NEXT;
	}
	t->state = TS_BAR;
	t->bar_id = (int)id;
	t->wait = in;
	bar_check(c, (int)id);
	return t->state == TS_RUN ? ST_JUMP : ST_BLOCK;
}

void bar_check(Cta *c, int id)
{
	int need = c->bar[id].expected ? c->bar[id].expected : c->live;
	if (c->bar[id].arrived < need || c->bar[id].arrived == 0)
		return;
	/* reductions: over the waiting threads */
	uint32_t popc = 0, all = 1, any = 0;
	for (int k = 0; k < c->n; k++) {
		Thread *t = &c->th[k];
		if (t->state == TS_BAR && t->bar_id == id && t->wait->mode >= BAR_RED_POPC) {
			popc += (uint32_t)(t->cv[0] & 1);
			all &= (uint32_t)(t->cv[0] & 1);
			any |= (uint32_t)(t->cv[0] & 1);
		}
	}
	race_bar_open(c, id);
	for (int k = 0; k < c->n; k++) {
		Thread *t = &c->th[k];
		if (t->state != TS_BAR || t->bar_id != id)
			continue;
		const Insn *in = t->wait;
		if (in->mode == BAR_RED_POPC)
			t->R[in->d[0]] = popc;
		else if (in->mode == BAR_RED_AND)
			t->R[in->d[0]] = all;
		else if (in->mode == BAR_RED_OR)
			t->R[in->d[0]] = any;
		t->state = TS_RUN;
		t->wait = NULL;
		t->pc++;
	}
	c->bar[id].arrived = 0;
	c->bar[id].expected = 0;
}
