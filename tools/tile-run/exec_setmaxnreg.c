/* exec_setmaxnreg.c: setmaxnreg.inc/.dec.sync.aligned.u32 N, the register
 * hand-over of warp-specialized kernels (a producer warpgroup gives
 * registers back, consumer warpgroups take them).
 * Each warp starts with R0 registers a thread: the most a CTA of its size can
 * hold, min(256, 65536 / threads rounded down to 8) (ptxas's real count is
 * not in the PTX; this is the largest it can be, so a kernel that deadlocks
 * here deadlocks on every allocation). The CTA's pool starts empty; .dec to
 * N puts (current - N) x 32 registers in it; .inc to N takes (N - current)
 * x 32 and waits (the warp stays at the instruction, as on a GPU) until the
 * pool has them; a wait nobody can end is the scheduler's deadlock, reported
 * at the setmaxnreg. .inc below or .dec above the warp's current count is a
 * fault. A warp collective (exec_warp.c calls setmaxnreg_ready, then
 * setmaxnreg_resolve); the immediate's range is decode.c's check. */
#include <stdlib.h>
#include "exec.h"

struct RegPool {
	uint32_t r0, free;
	uint16_t *cur;          /* per warp */
	int nw;
};

static struct RegPool *pool_of(Cta *c)
{
	if (!c->regpool) {
		struct RegPool *p = c->regpool = xcalloc(1, sizeof *p);
		p->nw = (c->n + 31) / 32;
		p->cur = xcalloc((size_t)p->nw, sizeof *p->cur);
		uint32_t r = 65536u / (uint32_t)c->n / 8 * 8;
		p->r0 = r > 256 ? 256 : r;
		for (int w = 0; w < p->nw; w++)
			p->cur[w] = (uint16_t)p->r0;
	}
	return c->regpool;
}

void regpool_cta_start(Cta *c)
{
	struct RegPool *p = c->regpool;
	if (!p)
		return;
	p->free = 0;
	for (int w = 0; w < p->nw; w++)
		p->cur[w] = (uint16_t)p->r0;
}

bool setmaxnreg_ready(Cta *c, int warp, const Insn *in)
{
	struct RegPool *p = pool_of(c);
	uint32_t n = (uint32_t)c->th[warp * 32].R[in->s[0]];
	return in->mode != AOP_INC || n <= p->cur[warp] || (n - p->cur[warp]) * 32 <= p->free;
}

void setmaxnreg_resolve(Cta *c, Thread **L, const Insn *in)
{
	struct RegPool *p = pool_of(c);
	Thread *t = NULL;
	for (int k = 0; k < 32 && !t; k++)
		t = L[k];
	if (!t)
		return;
	uint32_t n = (uint32_t)t->R[in->s[0]], cur = p->cur[t->warp];
	if (in->mode == AOP_INC ? n < cur : n > cur) {
		fault(t, in, "setmaxnreg.%s to %u registers: warp %u has %u (.inc may only raise the count, .dec only lower it)",
		      in->mode == AOP_INC ? "inc" : "dec", n, t->warp, cur);
		return;
	}
	if (in->mode == AOP_INC)
		p->free -= (n - cur) * 32;
	else
		p->free += (cur - n) * 32;
	p->cur[t->warp] = (uint16_t)n;
}

void regpool_free(Cta *c)
{
	if (!c->regpool)
		return;
	free(c->regpool->cur);
	free(c->regpool);
	c->regpool = NULL;
}
