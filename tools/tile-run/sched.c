/* sched.c: the launch. Clusters run one after another in grid order (x
 * fastest; a cluster is one CTA unless .reqnctapercluster or --cluster
 * says otherwise); the CTAs of one cluster run together: their threads are
 * one set of cooperative contexts, each of which runs until it waits at a
 * barrier, an mbarrier (try_wait: exec_async.c wakes it), a cluster
 * barrier (exec_cluster.c) or a warp collective, exits, or yields after a
 * quantum; the scheduler goes round them in order (CTA rank, then thread;
 * shuffled each round with --seed) until all have exited. No runnable
 * thread while some wait is a deadlock, reported as a fault (fault.c). */
#include <stdio.h>
#include <stdlib.h>
#include "exec.h"

static uint64_t rng_next(Run *r)
{
	uint64_t x = r->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	r->rng = x;
	return x;
}

static void sreg_fill(Thread *t, Func *f, uint64_t *R)
{
	Run *r = t->run;
	Cta *c = t->cta;
	for (int k = 0; k < SR_FIRST_LIVE; k++) {
		int s = f->sreg_slot[k];
		if (s < 0)
			continue;
		uint64_t v = 0;
		switch (k) {
		case SR_TID_X: v = t->t[0]; break;
		case SR_TID_Y: v = t->t[1]; break;
		case SR_TID_Z: v = t->t[2]; break;
		case SR_NTID_X: v = r->block[0]; break;
		case SR_NTID_Y: v = r->block[1]; break;
		case SR_NTID_Z: v = r->block[2]; break;
		case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z: v = c->id[k - SR_CTAID_X]; break;
		case SR_NCTAID_X: case SR_NCTAID_Y: case SR_NCTAID_Z: v = r->grid[k - SR_NCTAID_X]; break;
		case SR_CLUSTERID_X: case SR_CLUSTERID_Y: case SR_CLUSTERID_Z:
			v = c->id[k - SR_CLUSTERID_X] / r->cluster[k - SR_CLUSTERID_X];
			break;
		case SR_NCLUSTERID_X: case SR_NCLUSTERID_Y: case SR_NCLUSTERID_Z:
			v = r->grid[k - SR_NCLUSTERID_X] / r->cluster[k - SR_NCLUSTERID_X];
			break;
		case SR_CCTAID_X: case SR_CCTAID_Y: case SR_CCTAID_Z:
			v = c->id[k - SR_CCTAID_X] % r->cluster[k - SR_CCTAID_X];
			break;
		case SR_CNCTAID_X: case SR_CNCTAID_Y: case SR_CNCTAID_Z: v = r->cluster[k - SR_CNCTAID_X]; break;
		case SR_CTARANK: v = (uint64_t)c->rank; break;
		case SR_NCTARANK: v = (uint64_t)r->ncl; break;
		case SR_EXPLICIT_CLUSTER: v = r->explicit_cluster; break;
		case SR_LANEID: v = t->lane; break;
		case SR_WARPID: v = t->warp; break;
		case SR_NWARPID: v = (uint64_t)(c->n + 31) / 32; break;
		case SR_NSMID: v = 1; break;
		case SR_LM_EQ: v = 1u << t->lane; break;
		case SR_LM_LE: v = t->lane == 31 ? 0xffffffffu : (2u << t->lane) - 1; break;
		case SR_LM_LT: v = (1u << t->lane) - 1; break;
		case SR_LM_GE: v = ~((1u << t->lane) - 1) & 0xffffffffu; break;
		case SR_LM_GT: v = t->lane == 31 ? 0 : ~((2u << t->lane) - 1) & 0xffffffffu; break;
		case SR_DYN_SMEM: v = r->dyn_smem; break;
		case SR_TOTAL_SMEM: case SR_AGGR_SMEM: v = c->shared_size; break;
		default: v = 0; break;
		}
		R[s] = v;
	}
}

static bool waiting(const Thread *t)
{
	return t->state == TS_BAR || t->state == TS_WARP || t->state == TS_MBAR || t->state == TS_CBAR;
}

static void deadlock(Run *r)
{
	int n = 0;
	Thread *first = NULL;
	for (int q = 0; q < r->ncl; q++)
		for (int k = 0; k < r->cl[q].n; k++)
			if (waiting(&r->cl[q].th[k])) {
				n++;
				first = first ? first : &r->cl[q].th[k];
			}
	if (!first)
		ice("deadlock with no waiting thread");
	fault_as(first, first->wait, FK_DEADLOCK, 0, NULL, "deadlock: %d threads wait at barriers, mbarriers or warp collectives that can never complete (this one: %s)",
	      n, first->state == TS_BAR ? "barrier" : first->state == TS_MBAR ? "mbarrier" :
	      first->state == TS_CBAR ? "cluster barrier" :
	      first->wait && first->wait->op == OP_SETMAXNREG ? "setmaxnreg.inc, for registers no warp gives back" :
	      "warp collective");
}

void thread_exited(Thread *t)
{
	Cta *c = t->cta;
	t->state = TS_EXIT;
	c->live--;
	for (int id = 0; id < 16 && !t->run->status; id++)
		if (c->bar[id].arrived)
			bar_check(c, id);
	if (!t->run->status)
		warp_check(c, (int)t->warp);
	if (!t->run->status)
		cluster_thread_exited(t);
}

static void cta_start(Cta *c)
{
	Run *r = c->run;
	Func *f = r->entry;
	memset(c->shared, 0, c->shared_size);
	tmem_cta_start(c);
	regpool_cta_start(c);
	memset(c->bar, 0, sizeof c->bar);
	c->live = c->n;
	for (int k = 0; k < c->n; k++) {
		Thread *t = &c->th[k];
		t->run = r;
		t->cta = c;
		uint64_t *R = c->regs + (size_t)k * (size_t)f->nslots;
		memcpy(R, f->init, (size_t)f->nslots * sizeof *R);
		cluster_own_addresses(f, R, c->rank);
		t->R = R;
		t->P = c->params + (size_t)k * f->pbytes;
		memcpy(t->P, r->kparams, r->kparam_size);
		t->code = f->code;
		t->pc = 0;
		t->func = r->fidx;
		t->state = TS_RUN;
		t->depth = 0;
		t->cc = 0;
		t->carr = false;
		t->cgen = 0;
		t->tid = (uint32_t)k;
		t->t[0] = (uint32_t)k % r->block[0];
		t->t[1] = (uint32_t)k / r->block[0] % r->block[1];
		t->t[2] = (uint32_t)k / (r->block[0] * r->block[1]);
		t->lane = (uint32_t)k % 32;
		t->warp = (uint32_t)k / 32;
		t->L = c->local + (size_t)k * r->m->local_total;
		t->frames[0].func = r->fidx;
		sreg_fill(t, f, R);
	}
	if (r->m->local_total)
		memset(c->local, 0, (size_t)c->n * r->m->local_total);
}

/* run the cluster r->cl until every thread has exited; order holds the
 * cluster's thread indices (rank * CTA size + tid) */
static int run_cluster(Run *r, int *order)
{
	int cn = r->cl[0].n, n = r->ncl * cn;
	race_reset(r);
	memset(&r->cbar, 0, sizeof r->cbar);
	for (int q = 0; q < r->ncl; q++)
		cta_start(&r->cl[q]);
	for (;;) {
		if (r->seeded)
			for (int k = n - 1; k > 0; k--) {
				int j = (int)(rng_next(r) % (uint64_t)(k + 1));
				int x = order[k];
				order[k] = order[j];
				order[j] = x;
			}
		bool progress = false;
		for (int k = 0; k < n; k++) {
			Thread *t = &r->cl[order[k] / cn].th[order[k] % cn];
			while (t->state == TS_RUN) {
				progress = true;
				int st = run_thread(t);
				if (st == ST_FAULT || r->status)
					return RUN_FAULT;
				if (st == ST_EXIT) {
					thread_exited(t);
					if (r->status)
						return RUN_FAULT;
				}
				/* a thread returns here at least every QUANTUM instructions
				 * (interp.c): a kernel that never ends stops here */
				if (r->max_insns && r->ninsn >= r->max_insns && st != ST_EXIT) {
					fault_as(t, &t->code[t->pc], FK_LIMIT, 0, NULL, "the kernel ran %llu thread-instructions without finishing (--max-insns)",
					      (unsigned long long)r->ninsn);
					return RUN_FAULT;
				}
				if (st == ST_YIELD)
					break;
			}
		}
		int live = 0;
		for (int q = 0; q < r->ncl; q++)
			live += r->cl[q].live;
		if (live == 0) {
			for (int q = 0; q < r->ncl; q++)
				if (!tmem_cta_end(&r->cl[q]))
					return RUN_FAULT;
			return RUN_OK;
		}
		if (!progress) {
			deadlock(r);
			return RUN_FAULT;
		}
	}
}

int launch(Run *r)
{
	Func *f = r->entry;
	for (int k = 0; k < 3; k++)
		if (!r->cluster[k])
			r->cluster[k] = 1;
	r->ncl = (int)(r->cluster[0] * r->cluster[1] * r->cluster[2]);
	r->cl = xcalloc((size_t)r->ncl, sizeof *r->cl);
	int cn = (int)(r->block[0] * r->block[1] * r->block[2]);
	for (int q = 0; q < r->ncl; q++) {
		Cta *c = &r->cl[q];
		c->run = r;
		c->rank = q;
		c->n = cn;
		c->th = xcalloc((size_t)c->n, sizeof *c->th);
		c->shared_size = (f->shared_end > r->m->shared_static ? f->shared_end : r->m->shared_static) + r->dyn_smem;
		c->shared = xcalloc(c->shared_size ? c->shared_size : 1, 1);
		c->regs = xcalloc((size_t)c->n * (size_t)f->nslots, sizeof *c->regs);
		if (f->pbytes < r->kparam_size)
			ice("param area smaller than the kernel parameters");
		c->params = xcalloc((size_t)c->n * (f->pbytes ? f->pbytes : 1), 1);
		c->local = xcalloc((size_t)c->n * (r->m->local_total ? r->m->local_total : 1), 1);
	}
	if (r->check == CHECK_RACECHECK)
		race_setup(r);
	int n = r->ncl * cn;
	int *order = xcalloc((size_t)n, sizeof *order);
	for (int k = 0; k < n; k++)
		order[k] = k;
	r->rng = r->seed * 0x9E3779B97F4A7C15ull + 1;
	const uint32_t *cs = r->cluster;
	for (uint32_t z = 0; z < r->grid[2]; z += cs[2])
		for (uint32_t y = 0; y < r->grid[1]; y += cs[1])
			for (uint32_t x = 0; x < r->grid[0]; x += cs[0]) {
				for (int q = 0; q < r->ncl; q++) {      /* rank: x fastest in the cluster */
					Cta *c = &r->cl[q];
					c->id[0] = x + (uint32_t)q % cs[0];
					c->id[1] = y + (uint32_t)q / cs[0] % cs[1];
					c->id[2] = z + (uint32_t)q / (cs[0] * cs[1]);
				}
				int rc = run_cluster(r, order);
				if (rc != RUN_OK) {
					fflush(r->out);
					free(order);
					return rc;
				}
			}
	fflush(r->out);
	free(order);
	return RUN_OK;
}

void launch_free(Run *r)
{
	race_free(r);
	for (int q = 0; q < r->ncl; q++) {
		Cta *c = &r->cl[q];
		for (int k = 0; k < c->n && c->th; k++) {
			Thread *t = &c->th[k];
			if (t->depth == 0)
				continue;
			free(t->R);     /* the callees' frames (the entry's is c->regs) */
			free(t->P);
			for (int d = 1; d < t->depth; d++) {
				free(t->frames[d].R);
				free(t->frames[d].P);
			}
		}
		tmem_free(c);
		regpool_free(c);
		free(c->th);
		free(c->shared);
		free(c->regs);
		free(c->params);
		free(c->local);
	}
	free(r->cl);
	r->cl = NULL;
	r->ncl = 0;
	for (int k = 0; k < r->nbufs; k++)
		if (r->bufs[k].arg < 0)
			free(r->bufs[k].host);
	free(r->bufs);
	r->bufs = NULL;
	r->nbufs = r->capbufs = 0;
}
