/* fault.c: a kernel fault's one report (memcheck, racecheck, trap, failed
 * assert, deadlock): the message, the thread and block, the PTX line and,
 * through .loc, the kernel's source file:line:col. The first fault of a
 * launch is reported and ends it (Run.status); later ones are dropped.
 * The bottom of tile-run's call graph: every exec_*.c, mem.c, race.c and
 * sched.c call it, and it calls nothing of tile-run's. */
#include <stdarg.h>
#include <stdio.h>
#include "exec.h"

/* "PTX line N[, file:line:col]" */
static void insn_where(const Module *m, const Insn *in, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "PTX line %u", in->line);
	if (in->loc && in->loc < (uint32_t)m->nlocs) {
		const Loc *l = &m->locs[in->loc];
		const char *file = l->file < (uint32_t)m->nfiles && m->files[l->file] ? m->files[l->file] : "?";
		snprintf(buf + n, cap - (size_t)n, ", %s:%u:%u", file, l->line, l->col);
	}
}

void fault(Thread *t, const Insn *in, const char *fmt, ...)
{
	Run *r = t->run;
	if (r->status)
		return;
	r->status = RUN_FAULT;
	char where[512], msg[1024];
	insn_where(r->m, in, where, sizeof where);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fflush(stdout);         /* the kernel's printf output first */
	diag_plain("%s, thread (%u,%u,%u) of block (%u,%u,%u) (%s)", msg, t->t[0], t->t[1], t->t[2], t->cta->id[0],
		   t->cta->id[1], t->cta->id[2], where);
}
