/* launch.c: tilerunLaunch (tilerun.h). A launch is one Run of its own
 * (the engine's state, tools/tile-run/exec.h): the module's .global and
 * .const variables fresh from their initial values, each registered buffer
 * copied and mapped at its own address (or, for the command, the address
 * it chose), the parameter block copied into the kernel's. The kernel runs
 * on the copies; they are written back only when it ends without a fault,
 * so after a fault or an error the caller's memory is as it was. The first
 * fault becomes the caller's TilerunError (fault.c records it). Nothing
 * here is shared between launches but the read-only module. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* the engine's numbers are the API's (compared as ints: two enums) */
#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " is " #b)
SAME(TILERUN_KIND_OUT_OF_BOUNDS, FK_OUT_OF_BOUNDS);
SAME(TILERUN_KIND_RACE, FK_RACE);
SAME(TILERUN_KIND_LIMIT, FK_LIMIT);
SAME(TILERUN_KIND_OTHER, FK_OTHER);
SAME(TILERUN_ERROR_INPUT, RUN_INPUT);
SAME(TILERUN_ERROR_USAGE, RUN_USAGE);
SAME(TILERUN_FAULT, RUN_FAULT);
SAME(TILERUN_CHECK_RACECHECK, CHECK_RACECHECK);

/* the ranges the engine keeps for itself: .global/.const variables, the
 * shared and local windows (run.h) */
static bool reserved(const Module *m, uint64_t a, uint64_t size)
{
	uint64_t end = a + size;
	uint64_t vars_end = DEV_VARS_BASE + (m->vars_bytes ? m->vars_bytes : 1);
	return (a < vars_end && end > DEV_VARS_BASE) || (a < GEN_LOCAL_BASE + GEN_WINDOW && end > GEN_SHARED_BASE) ||
	       end < a;
}

/* the caller's buffers, copied, into r; RUN_OK or after a message RUN_USAGE */
static int map_buffers(Run *r, const TilerunLaunch *l, const uint64_t *devs)
{
	r->heap_next = DEV_HEAP_BASE;
	for (int k = 0; k < l->nbuffers; k++) {
		const TilerunBuffer *b = &l->buffers[k];
		uint64_t dev = devs ? devs[k] : (uint64_t)(uintptr_t)b->base;
		if (!b->base && b->size) {
			diag_plain("buffer %d: a NULL base for %zu bytes", k, b->size);
			return RUN_USAGE;
		}
		if (!devs && reserved(r->m, dev, b->size)) {
			diag_plain("buffer %d: %zu bytes at 0x%llx overlap memory tile-run keeps for the kernel's variables or its "
				   "shared and local windows", k, b->size, (unsigned long long)dev);
			return RUN_USAGE;
		}
		uint8_t *copy = xmalloc(b->size ? b->size : 1);
		if (b->size)
			memcpy(copy, b->base, b->size);
		char name[96];
		if (b->name)
			snprintf(name, sizeof name, "%s", b->name);
		else
			snprintf(name, sizeof name, "buffer %d", k);
		mem_add(r, dev, b->size, copy, name, k)->readonly = b->readonly != 0;
		/* device malloc's heap: above every buffer in its range */
		if (dev < GEN_SHARED_BASE && dev + b->size >= r->heap_next)
			r->heap_next = (dev + b->size + 255) / 256 * 256 + 256;
	}
	for (int k = 1; k < r->nbufs; k++) {
		const Buffer *a = &r->bufs[k - 1], *b = &r->bufs[k];
		if (a->dev + a->size > b->dev && a->arg >= 0 && b->arg >= 0) {
			diag_plain("buffers %d and %d overlap (0x%llx, %llu bytes; 0x%llx, %llu bytes)", a->arg, b->arg,
				   (unsigned long long)a->dev, (unsigned long long)a->size, (unsigned long long)b->dev,
				   (unsigned long long)b->size);
			return RUN_USAGE;
		}
	}
	return RUN_OK;
}

/* the run's fault into err */
static void fault_out(const Run *r, TilerunError *err)
{
	const Fault *f = &r->fault;
	memset(err, 0, sizeof *err);
	err->kind = f->kind;
	snprintf(err->message, sizeof err->message, "%s", f->msg);
	err->address = f->addr;
	err->buffer = f->arg;
	memcpy(err->thread, f->thread, sizeof err->thread);
	memcpy(err->block, f->block, sizeof err->block);
	err->ptx_line = f->ptx_line;
	if (f->file)
		snprintf(err->file, sizeof err->file, "%s", f->file);
	err->line = f->line;
	err->col = f->col;
}

/* the checked launch s of l into r and run it */
static int run(Run *r, const TilerunLaunch *l, const LaunchExt *x, const Shape *s, TilerunError *err)
{
	Func *f = &r->m->funcs[s->fidx];
	size_t need = tilerunEntryParamSize(&(TilerunModule){ .m = r->m }, f->name);
	if (l->param_size < need || (need && !l->params)) {
		diag_plain("%s takes a %zu-byte parameter block, %zu bytes given", f->name, need, l->params ? l->param_size : 0);
		return RUN_USAGE;
	}
	if (l->nbuffers < 0 || (l->nbuffers && !l->buffers)) {
		diag_plain("%d buffers and %s", l->nbuffers, l->buffers ? "a list" : "no list");
		return RUN_USAGE;
	}
	r->entry = f;
	r->fidx = s->fidx;
	memcpy(r->grid, s->grid, sizeof r->grid);
	memcpy(r->block, s->block, sizeof r->block);
	memcpy(r->cluster, s->cluster, sizeof r->cluster);
	r->explicit_cluster = s->explicit_cluster;
	r->check = l->check == TILERUN_CHECK_RACECHECK ? CHECK_RACECHECK : l->check == TILERUN_CHECK_NONE ? CHECK_NONE :
		   CHECK_MEMCHECK;
	r->seeded = x->seeded || l->seed;
	r->seed = l->seed;
	r->max_insns = l->max_insns;
	r->dyn_smem = l->dynamic_shared;
	r->out = l->printf_stream ? l->printf_stream : stdout;
	r->assert_out = x->cli ? stderr : l->assert_stream ? l->assert_stream : r->out;
	mem_setup_vars(r);
	int rc = map_buffers(r, l, x->devs);
	if (rc != RUN_OK)
		return rc;
	r->kparam_size = f->pbytes;
	r->kparams = xcalloc(f->pbytes ? f->pbytes : 1, 1);
	if (need)
		memcpy(r->kparams, l->params, need);
	rc = launch(r);
	if (l->insns_run)
		*l->insns_run = r->ninsn;
	if (rc == RUN_FAULT && err)
		fault_out(r, err);
	if (rc != RUN_OK)
		return rc;
	for (int k = 0; k < r->nbufs; k++) {
		const Buffer *b = &r->bufs[k];
		if (b->arg >= 0 && !b->readonly && b->size)
			memcpy(l->buffers[b->arg].base, b->host, b->size);
	}
	return RUN_OK;
}

int tilerun_launch(const TilerunModule *tm, const TilerunLaunch *l, const LaunchExt *x, TilerunError *err)
{
	Call c;
	call_begin(&c, x->cli);
	Shape s;
	int rc = tilerun_shape(tm, l, x->cli, &s);
	Run r = { .m = tm->m };
	if (rc == RUN_OK)
		rc = run(&r, l, x, &s, err);
	for (int k = 0; k < r.nbufs; k++)
		if (r.bufs[k].arg >= 0)
			free(r.bufs[k].host);
	launch_free(&r);
	free(r.kparams);
	return call_end(&c, rc, err);
}

int tilerunLaunch(const TilerunModule *m, const TilerunLaunch *launch, TilerunError *err)
{
	if (!m || !launch)
		return call_error(err, TILERUN_ERROR_USAGE, "tilerunLaunch: NULL module or launch");
	LaunchExt x = { 0 };
	return tilerun_launch(m, launch, &x, err);
}
