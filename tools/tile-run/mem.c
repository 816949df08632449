/* mem.c: device memory and memcheck/racecheck.
 * Global memory is a sorted table of buffers (arguments, module
 * .global/.const variables, device malloc) at fake device addresses
 * (run.h). Shared memory is one block per CTA, local memory one block per
 * thread; generic addresses map to them through fixed windows. A shared
 * address (run.h SHARED_RANK_SHIFT) is a CTA rank and an offset in that CTA
 * of the cluster's block. Every
 * access is bounds-checked (that is how an address becomes a host
 * pointer); with memcheck it must also be naturally aligned. A bad access
 * is a fault: the report names the instruction, thread, block, address
 * and nearest buffer. racecheck's bookkeeping is race.c's. */
#include <stdio.h>
#include <stdlib.h>
#include "exec.h"

Buffer *mem_add(Run *r, uint64_t dev, uint64_t size, uint8_t *host, const char *name, int arg)
{
	if (r->nbufs == r->capbufs) {
		r->capbufs = r->capbufs ? r->capbufs * 2 : 32;
		r->bufs = xrealloc(r->bufs, (size_t)r->capbufs * sizeof *r->bufs);
	}
	/* keep sorted by address */
	int k = r->nbufs;
	while (k > 0 && r->bufs[k - 1].dev > dev) {
		r->bufs[k] = r->bufs[k - 1];
		k--;
	}
	Buffer *b = &r->bufs[k];
	memset(b, 0, sizeof *b);
	b->dev = dev;
	b->size = size;
	b->host = host;
	b->arg = arg;
	snprintf(b->name, sizeof b->name, "%s", name);
	r->nbufs++;
	r->last = 0;
	return b;
}

uint64_t mem_alloc_dev(Run *r, uint64_t size)
{
	if (!r->heap_next)
		r->heap_next = DEV_HEAP_BASE;
	uint64_t a = r->heap_next;
	r->heap_next += (size + 255) / 256 * 256 + 256;   /* a gap between buffers */
	return a;
}

void mem_setup_vars(Run *r)
{
	Module *m = r->m;
	for (int k = 0; k < m->nvars; k++) {
		Var *v = &m->vars[k];
		if (v->space != SP_GLOBAL && v->space != SP_CONST)
			continue;
		uint8_t *host = xcalloc(v->size ? v->size : 1, 1);
		if (v->init)
			memcpy(host, v->init, v->size);
		char name[96];
		snprintf(name, sizeof name, "%s variable '%s'", v->space == SP_CONST ? ".const" : ".global", v->name);
		Buffer *b = mem_add(r, v->addr, v->size, host, name, -1);
		b->readonly = v->space == SP_CONST;
	}
}

Buffer *mem_find(Run *r, uint64_t a)
{
	int lo = 0, hi = r->nbufs - 1, best = -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (r->bufs[mid].dev <= a) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best >= 0 ? &r->bufs[best] : NULL;
}

static const char *space_name(int sp)
{
	static const char *const n[] = { "generic", "global", "shared", "local", "param", "const" };
	return n[sp];
}

static const char *acc_name(int acc)
{
	return acc == ACC_READ ? "read" : acc == ACC_WRITE ? "write" : "atomic";
}

static void global_fault(Thread *t, const Insn *in, uint64_t a, uint32_t size, int acc, const char *why)
{
	Run *r = t->run;
	/* the nearest buffer: the one containing or closest to a */
	Buffer *near = NULL;
	uint64_t dist = UINT64_MAX;
	for (int k = 0; k < r->nbufs; k++) {
		Buffer *b = &r->bufs[k];
		uint64_t d = a < b->dev ? b->dev - a : a >= b->dev + b->size ? a - (b->dev + b->size) + 1 : 0;
		if (d < dist) {
			dist = d;
			near = b;
		}
	}
	char nb[256] = "no buffer nearby";
	if (near) {
		if (a < near->dev)
			snprintf(nb, sizeof nb, "%llu bytes before %s (%llu bytes at 0x%llx)", (unsigned long long)(near->dev - a),
				 near->name, (unsigned long long)near->size, (unsigned long long)near->dev);
		else if (a >= near->dev + near->size)
			snprintf(nb, sizeof nb, "%llu bytes past the end of %s (%llu bytes at 0x%llx)",
				 (unsigned long long)(a - near->dev - near->size), near->name,
				 (unsigned long long)near->size, (unsigned long long)near->dev);
		else
			snprintf(nb, sizeof nb, "at offset %llu of %s (%llu bytes at 0x%llx)%s", (unsigned long long)(a - near->dev),
				 near->name, (unsigned long long)near->size, (unsigned long long)near->dev,
				 near->freed ? ", already freed" : "");
	}
	int kind = why[0] == 'm' ? FK_MISALIGNED : why[0] == 'o' ? FK_OUT_OF_BOUNDS : FK_OTHER;
	fault_as(t, in, kind, a, near, "%s global %s of %u bytes at 0x%llx: %s", why, acc_name(acc), size, (unsigned long long)a,
		 nb);
}

uint8_t *mem_at(Thread *t, const Insn *in, int space, uint64_t a, uint32_t size, int acc)
{
	Run *r = t->run;
	r->shared_hit = false;
	bool cluster = space == SP_GENERIC || (in->flags & F_CLUSTER);     /* may name another CTA's shared memory */
	if (space == SP_GENERIC) {
		if (a - GEN_SHARED_BASE < GEN_WINDOW) {
			space = SP_SHARED;
			a -= GEN_SHARED_BASE;
		} else if (a - GEN_LOCAL_BASE < GEN_WINDOW) {
			space = SP_LOCAL;
			a -= GEN_LOCAL_BASE;
		} else {
			space = SP_GLOBAL;
		}
	}
	/* a 32-bit .const address (`mov.b32 %r, constvar`: 32-bit state-space
	 * pointers, LLVM's nvptx-short-ptr) is the offset from the variables'
	 * base, whose low 32 bits are zero */
	if (space == SP_CONST && a < GEN_WINDOW)
		a += DEV_VARS_BASE;
	if (r->check != CHECK_NONE && (a & (size - 1)) && size <= 16 && !(size & (size - 1))) {
		if (space == SP_GLOBAL || space == SP_CONST) {
			global_fault(t, in, a, size, acc, "misaligned");
			return NULL;
		}
		fault_as(t, in, FK_MISALIGNED, a, NULL, "misaligned %s %s of %u bytes at 0x%llx", space_name(space), acc_name(acc), size,
		      (unsigned long long)a);
		return NULL;
	}
	switch (space) {
	case SP_GLOBAL:
	case SP_CONST: {
		Buffer *b = &r->bufs[r->last];
		if (!(r->nbufs && a >= b->dev && a - b->dev + size <= b->size && !b->freed)) {
			b = mem_find(r, a);
			if (!b || a - b->dev + size > b->size || b->freed) {
				global_fault(t, in, a, size, acc, b && b->freed && a - b->dev < b->size ? "use after free:" : "out-of-bounds");
				return NULL;
			}
			r->last = (int)(b - r->bufs);
		}
		if (b->readonly && acc != ACC_READ) {
			global_fault(t, in, a, size, acc, "write to read-only memory:");
			return NULL;
		}
		return b->host + (a - b->dev);
	}
	case SP_SHARED: {
		Cta *c = t->cta;
		char whose[48] = "";
		if (r->ncl > 1 && a < 1ull << 32) {    /* CTA rank, offset */
			uint64_t rank = a >> SHARED_RANK_SHIFT;
			a &= SHARED_OFF_MASK;
			if (rank >= (uint64_t)r->ncl) {
				fault_as(t, in, FK_OUT_OF_BOUNDS, a, NULL, "shared::cluster %s of %u bytes at offset 0x%llx of CTA rank %llu, outside the cluster of %d CTAs",
				      acc_name(acc), size, (unsigned long long)a, (unsigned long long)rank, r->ncl);
				return NULL;
			}
			c = &r->cl[rank];
			if (c != t->cta) {
				if (!cluster) {
					fault(t, in, "shared::cta %s of %u bytes at offset 0x%llx of another CTA (rank %llu): that needs .shared::cluster",
					      acc_name(acc), size, (unsigned long long)a, (unsigned long long)rank);
					return NULL;
				}
				if (!c->live) {
					fault(t, in, "shared::cluster %s of %u bytes at offset 0x%llx of CTA rank %llu, which has exited",
					      acc_name(acc), size, (unsigned long long)a, (unsigned long long)rank);
					return NULL;
				}
				snprintf(whose, sizeof whose, " of CTA rank %llu", (unsigned long long)rank);
			}
		}
		if (a + size > c->shared_size || a + size < a) {
			fault_as(t, in, FK_OUT_OF_BOUNDS, a, NULL, "out-of-bounds shared %s of %u bytes at shared offset 0x%llx%s (the CTA has %u bytes of shared memory)",
			      acc_name(acc), size, (unsigned long long)a, whose, c->shared_size);
			return NULL;
		}
		r->shared_hit = true;
		r->shared_off = (uint32_t)a;
		r->shared_cta = c;
		if (acc == ACC_READ && !race_read(t, in, c, (uint32_t)a, size))
			return NULL;
		return c->shared + a;
	}
	case SP_LOCAL: {
		uint32_t total = r->m->local_total;
		if (a + size > total || a + size < a) {
			fault_as(t, in, FK_OUT_OF_BOUNDS, a, NULL, "out-of-bounds local %s of %u bytes at local offset 0x%llx (the thread has %u bytes of local memory)",
			      acc_name(acc), size, (unsigned long long)a, total);
			return NULL;
		}
		return t->L + a;
	}
	case SP_PARAM: {
		uint32_t total = t->depth == 0 ? r->entry->pbytes : r->m->funcs[t->func].pbytes;
		if (a + size > total || a + size < a) {
			fault_as(t, in, FK_OUT_OF_BOUNDS, a, NULL, "out-of-bounds param %s of %u bytes at param offset 0x%llx", acc_name(acc), size,
			      (unsigned long long)a);
			return NULL;
		}
		return t->P + a;
	}
	}
	ice("mem_at: bad space %d", space);
}

