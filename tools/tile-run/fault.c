/* fault.c: a kernel fault's one report (memcheck, racecheck, trap, failed
 * assert, deadlock): the message, the thread and block, the PTX line and,
 * through .loc, the kernel's source file:line:col. The first fault of a
 * launch is recorded in Run.fault (what it is, where, the one-line text;
 * libtilerun hands it to its caller), said through diag_plain (stderr for
 * the command, the library call's log otherwise) and ends the launch
 * (Run.status); later ones are dropped.
 * The bottom of tile-run's call graph: every exec_*.c, mem.c, race.c and
 * sched.c call it, and it calls nothing of tile-run's. */
#include <stdarg.h>
#include <stdio.h>
#include "exec.h"

static void vfault(Thread *t, const Insn *in, int kind, uint64_t addr, const Buffer *near, const char *fmt, va_list ap)
{
	Run *r = t->run;
	if (r->status)
		return;
	r->status = RUN_FAULT;
	Fault *f = &r->fault;
	const Module *m = r->m;
	char where[256], msg[640];     /* fit f->msg with the rest */
	int n = snprintf(where, sizeof where, "PTX line %u", in->line);
	f->kind = kind;
	f->addr = addr;
	f->arg = near ? near->arg : -1;
	memcpy(f->thread, t->t, sizeof f->thread);
	memcpy(f->block, t->cta->id, sizeof f->block);
	f->ptx_line = in->line;
	if (in->loc && in->loc < (uint32_t)m->nlocs) {
		const Loc *l = &m->locs[in->loc];
		f->file = l->file < (uint32_t)m->nfiles ? m->files[l->file] : NULL;
		f->line = l->line;
		f->col = l->col;
		snprintf(where + n, sizeof where - (size_t)n, ", %s:%u:%u", f->file ? f->file : "?", l->line, l->col);
	}
	vsnprintf(msg, sizeof msg, fmt, ap);
	snprintf(f->msg, sizeof f->msg, "%s, thread (%u,%u,%u) of block (%u,%u,%u) (%s)", msg, t->t[0], t->t[1], t->t[2],
		 t->cta->id[0], t->cta->id[1], t->cta->id[2], where);
	fflush(r->out);         /* the kernel's printf output first */
	diag_plain("%s", f->msg);
}

void fault_as(Thread *t, const Insn *in, int kind, uint64_t addr, const Buffer *near, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfault(t, in, kind, addr, near, fmt, ap);
	va_end(ap);
}

void fault(Thread *t, const Insn *in, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfault(t, in, FK_OTHER, 0, NULL, fmt, ap);
	va_end(ap);
}
