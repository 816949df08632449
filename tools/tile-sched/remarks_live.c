/* remarks_live.c: the tile values that hold registers longest (issue 17,
 * "which value ranges are the longest live"). Reads the scheduled IR and
 * writes, per kernel, a !Analysis RemarkLongLiveValue (Pass Registers) for
 * each of its three largest live ranges that span a region op (a reduction,
 * a scan, a loop, an if): where the value is made, where it is last used,
 * how many registers a thread holds for it (its layout's registers times
 * the element size, 32-bit registers) and which region ops it is live
 * across — the places to look when a kernel's registers are high. A value's
 * range is counted in its block, from its definition to its last use there
 * (a use inside a nested region counts at the op holding the region); a
 * loop body's block argument (a loop-carried value) is live across the
 * whole loop.
 * Values under 8 registers a thread are not reported. */
#include <stdio.h>
#include <string.h>
#include "sched.h"
#include "layout.h"
#include "irutil.h"
#include "remark.h"
#include "xalloc.h"

enum { TOP = 3, MIN_REGS = 8 };

typedef struct Range {
	const Value *v;
	const Op *def, *last;     /* def NULL: a block argument (from the block's first op) */
	const Op *first;          /* the block's first op (a block argument's start) */
	int64_t regs, span, score;
	int nregion;              /* region ops it is live across */
	const Op *regions[4];
} Range;

static int64_t regs_of(const Value *v)
{
	if (!type_is_tile(v->type) || !v->lay)
		return 0;
	int eb = elem_bytes(v->type->elem);
	if (eb <= 0)
		eb = 1;
	return (layout_nregs(v->lay) * eb + 3) / 4;
}

/* the range of v in block b, its start at `from` (v's def, or b's first op) */
static bool range_of(const Value *v, Block *b, Op *from, bool is_arg, Range *r)
{
	*r = (Range){ .v = v, .def = is_arg ? NULL : from, .first = b->first, .regs = regs_of(v) };
	if (r->regs < MIN_REGS)
		return false;
	Op *start = is_arg ? b->first : from->next, *last = NULL;
	int64_t i = 0, last_i = -1;
	for (Op *o = start; o; o = o->next, i++)
		if (has_uses(o, (Value *)v)) {
			last = o;
			last_i = i;
		}
	const Op *loop = is_arg && b->parent ? b->parent->parent : NULL;
	if (loop && (loop->info->code == CT_for || loop->info->code == CT_loop)) {
		/* loop-carried: live across the whole body, every trip */
		r->regions[r->nregion++] = loop;
		last = b->last;
		last_i = i - 1;
	}
	if (!last)
		return false;
	for (Op *o = start; o && o != last; o = o->next)
		if (o->nregions > 0) {
			if (r->nregion < 4)
				r->regions[r->nregion] = o;
			r->nregion++;
		}
	if (!r->nregion)
		return false;
	r->last = last;
	r->span = last_i + 1;
	r->score = r->regs * r->span;
	return true;
}

static void keep(Range *top, int *n, const Range *r)
{
	int k;
	if (*n < TOP)
		k = (*n)++;
	else if (r->score > top[TOP - 1].score)
		k = TOP - 1;
	else
		return;
	top[k] = *r;
	for (; k > 0 && top[k].score > top[k - 1].score; k--) {
		Range t = top[k];
		top[k] = top[k - 1];
		top[k - 1] = t;
	}
}

static void scan_block(Block *b, Range *top, int *n)
{
	Range r;
	for (int a = 0; a < b->nargs; a++)
		if (b->first && range_of(b->args[a], b, b->first, true, &r))
			keep(top, n, &r);
	FOR_EACH_OP(op, b) {
		for (int i = 0; i < op->nresults; i++)
			if (range_of(op->results[i], b, op, false, &r))
				keep(top, n, &r);
		for (int g = 0; g < op->nregions; g++)
			FOR_EACH_BLOCK(in, &op->regions[g])
				scan_block(in, top, n);
	}
}

static const char *short_name(const Op *op)
{
	const char *s = op->info->name, *d = strchr(s, '.');
	return d ? d + 1 : s;
}

/* the kernel's own line, not a library's (cuTile's astype is in _stub.py) */
static const Loc *user_loc(const Loc *l)
{
	while (l && l->caller && l->caller->file)
		l = l->caller;
	return l;
}

static void where(StrBuf *b, const Op *op)
{
	const Loc *l = user_loc(op ? op->loc : NULL);
	if (l && l->file)
		sb_printf(b, "%s:%u:%u", l->file, l->line, l->col);
	else
		sb_puts(b, "?");
}

void sched_live_remarks(Module *m, RemarkOut *o)
{
	for (Op *fn = m->body.first; fn; fn = fn->next) {
		if (fn->nregions == 0)
			continue;
		const char *func = op_attr_str(fn, "sym_name", NULL);
		Range top[TOP];
		int n = 0;
		for (int g = 0; g < fn->nregions; g++)
			FOR_EACH_BLOCK(b, &fn->regions[g])
				scan_block(b, top, &n);
		for (int k = 0; k < n; k++) {
			const Range *r = &top[k];
			const Op *at = r->def ? r->def : r->first;
			remark_begin(o, "Analysis", "Registers", "RemarkLongLiveValue", user_loc(at->loc), func,
				     "Long-lived tile value: its registers are held across a region");
			remark_arg(o, "Type", "%s", r->v->type->str);
			remark_arg(o, "RegistersPerThread", "%lld", (long long)r->regs);
			remark_arg(o, "DefinedBy", "%s", r->def ? short_name(r->def) : "block argument (loop-carried)");
			StrBuf s = {0};
			where(&s, r->last);
			remark_arg(o, "LastUse", "%s (%s)", sb_cstr(&s), short_name(r->last));
			s.len = 0;
			for (int i = 0; i < r->nregion && i < 4; i++) {
				if (i)
					sb_puts(&s, ", ");
				sb_puts(&s, short_name(r->regions[i]));
				sb_puts(&s, " at ");
				where(&s, r->regions[i]);
			}
			if (r->nregion > 4)
				sb_printf(&s, ", and %d more", r->nregion - 4);
			remark_arg(o, "LiveAcross", "%s", sb_cstr(&s));
			sb_free(&s);
			remark_end(o);
		}
	}
}
