/* one_trip.c: a `for` that runs exactly once, replaced by its body, where
 * it holds a tile chunk.c should cut (docs/lowering.md §11 "One-trip
 * loops"). cuTile's `for ci in range(cdiv(n, BLOCK))` with BLOCK covering
 * n is such a loop: Liger's LayerNorm (TileGym 1.5.1) carries 8192-wide
 * running sums round it, and its scatter's token; as plain values, chunk.c
 * cuts both passes. Before layouts, on the entry alone; calls libcommon only. */
#include <stdlib.h>
#include "sched_int.h"
#include "irutil.h"
#include "opinfo.h"
#include "xalloc.h"

static bool const_i(const Value *v, int64_t *out)
{
	return value_const_int(v, out);
}

typedef struct BigScan { int64_t threads; int over; bool big; } BigScan;

static int big_fn(Op *op, void *ctx)
{
	BigScan *b = ctx;
	for (int r = 0; r < op->nresults; r++) {
		const Type *t = op->results[r]->type;
		if (type_is_tile(t) && t->rank > 0 && type_num_elements(t) / b->threads > b->over) {
			b->big = true;
			return 1;
		}
	}
	return 0;
}

/* A `for` that runs exactly once (constant bounds; cuTile's
 * `for ci in range(cdiv(n, BLOCK))` where BLOCK covers n) is its body:
 * its counter the lower bound, its carried values their inits, its results
 * what the body continues with. Loop-carried tiles (a row's running sums)
 * then become plain values the chunk loops can cut. Not when the body
 * jumps anywhere but its own end (a nested continue or break), and only a
 * loop that holds a big tile (its stores' tokens, carried round the loop,
 * are then unused: cut too). */
int inline_one_trip_loops(Op *fn, int64_t threads, int over)
{
	int n = 0;
	for (bool again = true; again; ) {
		again = false;
		int nfor;
		Op **fors = ops_with_code(fn, CT_for, &nfor);
		for (int i = 0; i < nfor && !again; i++) {
			Op *f = fors[i];
			int64_t lb, ub, st;
			if (f->info->code != CT_for || f->noperands < 3 || f->nregions != 1 || !f->regions[0].first ||
			    f->regions[0].first->next || !const_i(f->operands[0], &lb) || !const_i(f->operands[1], &ub) ||
			    !const_i(f->operands[2], &st) || st <= 0 || lb >= ub || ub - lb > st || op_attr_flag(f, "unsignedCmp"))
				continue;
			/* only where it holds a big tile (what the chunk loops need) */
			BigScan bsn = { threads, over, false };
			op_walk(f, big_fn, &bsn);
			if (!bsn.big)
				continue;
			Block *b = f->regions[0].first;
			Op *term = b->last;
			if (!term || term->info->code != CT_continue || term->noperands != f->nresults ||
			    b->nargs != 1 + f->noperands - 3)
				continue;
			if (block_jumps_before(b, term))
				continue;
			replace_uses(fn, b->args[0], f->operands[0]);
			for (int a = 1; a < b->nargs; a++)
				replace_uses(fn, b->args[a], f->operands[3 + a - 1]);
			for (Op *o = b->first, *next; o && o != term; o = next) {
				next = o->next;
				op_remove(o);
				op_insert_before(f, o);
			}
			for (int r = 0; r < f->nresults; r++)
				replace_uses(fn, f->results[r], term->operands[r]);
			op_remove(f);
			n++;
			again = true;
		}
		free(fors);
	}
	return n;
}

