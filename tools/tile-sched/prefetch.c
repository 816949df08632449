/* prefetch.c: a loop's loads issued one iteration ahead, in registers
 * (issue 38: the rows at the copy bandwidth; docs/lowering.md §11 "Load
 * prefetch").
 *
 * A reduction over a row longer than one tile (cuTile's online log-sum-exp
 * of a cross-entropy, a norm over chunks) loads a chunk, reduces it across
 * the CTA, loads the next: the memory system idles while the CTA reduces.
 * Here such a load is made one iteration early:
 *
 *     for i in [lb, ub) step s, carried c:          t0 = load V[idx(lb)]
 *       t = load V[idx(i)]                  ==>     for i in [lb, ub) step s, carried c, cur = t0:
 *       ... t ...                                     nxt = load V[idx(i + s)]
 *       continue c'                                   ... cur ...
 *                                                     continue c', nxt
 *
 * so the load of chunk i + s is in flight while chunk i is reduced. Which
 * loads (per `for`, before layouts, on the entry alone):
 *  - a weak nv_tileas.tiled_load at the top level of the body whose token
 *    result is unused, whose view and token come from outside the loop and
 *    whose indices are the counter, values from outside the loop, or pure
 *    scalar arithmetic of those (cloned for lb and for i + s);
 *  - in a loop that writes nothing (no store, atomic, fence, print or
 *    assert anywhere in it: a load moved earlier must not pass a write it
 *    could see), holds no product (mma.c stages those operands itself) and
 *    jumps only at its end;
 *  - while the loads taken hold at most PREFETCH_BYTES a thread (the
 *    second copy of each is live across the body).
 * The early loads read one chunk past the loop's last (and the first one
 * even when the loop runs no iteration): on dims their index moves along
 * they are masked (in_bounds 0), so such a read touches no memory outside
 * the view; the values are then not used. sink.c leaves a load whose value
 * goes to the loop's `continue` where it is. TILE_SCHED_NO_LOAD_PREFETCH=1
 * turns the pass off (A/B). Calls libcommon only. */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "irutil.h"
#include "opinfo.h"
#include "mma.h"
#include "xalloc.h"
#include "knobs.h"

enum { PREFETCH_BYTES = 64, SLICE_DEPTH = 8, MAX_LOADS = 8 };

/* does op (or anything in its regions) write, order, or make a product? */
static int writes(Op *op, void *ctx)
{
	(void)ctx;
	enum OpCode c = op->info->code;
	if (mma_is_product(op))
		return 1;
	if (!op_has(op->info, OPT_MEM))
		return 0;
	if ((c == AS_tiled_load || c == AS_load) && op_is_weak(op))
		return 0;
	return 1;       /* a store, atomic, fence, print, assert, alloca (token ops carry no OPT_MEM) */
}

/* Can v be recomputed for another counter value: made outside the loop,
 * the counter, or pure one-result scalar arithmetic of those in the body?
 * *moves: v depends on the counter. */
static bool sliceable(const Op *loop, const Block *body, const Value *v, int depth, bool *moves)
{
	if (!value_made_inside(loop, v))
		return true;
	if (v == body->args[0]) {
		*moves = true;
		return true;
	}
	const Op *d = v->def;
	if (!d || d->parent != body || depth >= SLICE_DEPTH || d->nresults != 1 || d->nregions ||
	    !op_has(d->info, OPT_PURE) || op_has(d->info, OPT_MEM) || !type_is_tile(d->results[0]->type) ||
	    d->results[0]->type->rank != 0)
		return false;
	for (int i = 0; i < d->noperands; i++)
		if (!sliceable(loop, body, d->operands[i], depth + 1, moves))
			return false;
	return true;
}

/* v recomputed with the counter `iv` replaced by `with`, new ops before at */
static Value *reslice(Module *m, const Op *loop, const Block *body, Value *v, Value *with, Op *at)
{
	if (!value_made_inside(loop, v))
		return v;
	if (v == body->args[0])
		return with;
	Op *c = op_clone(m, v->def);
	for (int i = 0; i < c->noperands; i++)
		c->operands[i] = reslice(m, loop, body, c->operands[i], with, at);
	op_insert_before(at, c);
	return c->results[0];
}

/* the indices of ld (operand group 1) for counter `with`, new ops before at;
 * dims whose index moves are masked */
static void retarget(Module *m, const Op *loop, const Block *body, Op *ld, Value *with, Op *at)
{
	int start, n = op_group(ld, 1, &start);
	int64_t inb[16];
	for (int d = 0; d < n && d < 16; d++) {
		bool moves = false;
		sliceable(loop, body, ld->operands[start + d], 0, &moves);
		inb[d] = moves ? 0 : op_attr_int_at(ld, "in_bounds", d, 0);
		ld->operands[start + d] = reslice(m, loop, body, ld->operands[start + d], with, at);
	}
	if (op_attr(ld, "in_bounds"))
		op_set_attr(m, ld, "in_bounds", attr_ints(m, n, inb));
}

static bool candidate(const Op *loop, const Block *body, const Op *ld)
{
	if (ld->info->code != AS_tiled_load || !op_is_weak(ld) || ld->nresults != 2 ||
	    !type_is_tile(ld->results[0]->type) || has_uses(op_toplevel((Op *)ld), ld->results[1]))
		return false;
	const char *copy = op_attr_str(ld, "copy", "vec_ldst");
	if (strcmp(copy, "vec_ldst") != 0)
		return false;
	int start, n = op_group(ld, 1, &start);
	if (n < 0 || n > 16 || value_made_inside(loop, ld->operands[0]) ||
	    value_made_inside(loop, ld->operands[ld->noperands - 1]))
		return false;
	bool moves = false;
	for (int d = 0; d < n; d++)
		if (!sliceable(loop, body, ld->operands[start + d], 0, &moves))
			return false;
	return moves;     /* a load that does not move with the counter is sink.c's / LLVM's */
}

/* loop with its loads lds[0..n) carried one iteration ahead */
static void prefetch(Module *m, Op *fn, Op *loop, Op **lds, int n)
{
	Block *body = loop->regions[0].first;
	const Loc *loc = loop->loc;
	/* before the loop: each load for the lower bound */
	Value **init = xmalloc(sizeof *init * (size_t)n);
	for (int k = 0; k < n; k++) {
		Op *p = op_clone(m, lds[k]);
		retarget(m, loop, body, p, loop->operands[0], loop);
		op_insert_before(loop, p);
		init[k] = p->results[0];
	}
	/* the loop, with n more carried values */
	int nops = loop->noperands + n, nres = loop->nresults + n, nargs = body->nargs + n;
	Value **ops = xmalloc(sizeof *ops * (size_t)nops);
	const Type **rt = xmalloc(sizeof *rt * (size_t)nres);
	const Type **at = xmalloc(sizeof *at * (size_t)nargs);
	for (int i = 0; i < loop->noperands; i++)
		ops[i] = loop->operands[i];
	for (int i = 0; i < loop->nresults; i++)
		rt[i] = loop->results[i]->type;
	for (int i = 0; i < body->nargs; i++)
		at[i] = body->args[i]->type;
	for (int k = 0; k < n; k++) {
		ops[loop->noperands + k] = init[k];
		rt[loop->nresults + k] = at[body->nargs + k] = lds[k]->results[0]->type;
	}
	Op *nl = op_new(m, loop->info, nops, ops, nres, rt, 1, loc);
	for (int i = 0; i < loop->nattrs; i++)
		op_set_attr(m, nl, loop->attrs[i].name, loop->attrs[i].attr);
	Block *nb = region_add_block(m, &nl->regions[0], nargs, at);
	op_insert_before(loop, nl);
	for (int i = 0; i < body->nargs; i++)
		replace_uses(loop, body->args[i], nb->args[i]);
	for (Op *o = body->first, *next; o; o = next) {
		next = o->next;
		op_remove(o);
		block_append(nb, o);
	}
	/* in the body: the next iteration's loads first (before the first op
	 * that is not one of them), this one's from the carried values */
	Op *anchor = nb->first;
	for (bool moved = true; moved; ) {
		moved = false;
		for (int k = 0; k < n && anchor; k++)
			if (anchor == lds[k]) {
				anchor = anchor->next;
				moved = true;
			}
	}
	Op *step = int_arith_op(m, CT_addi, nb->args[0], loop->operands[2], loc);
	op_insert_before(anchor, step);
	Op *term = nb->last;
	Value **cont = xmalloc(sizeof *cont * (size_t)(term->noperands + n));
	for (int i = 0; i < term->noperands; i++)
		cont[i] = term->operands[i];
	for (int k = 0; k < n; k++) {
		replace_uses(nl, lds[k]->results[0], nb->args[body->nargs + k]);
		op_remove(lds[k]);
		op_insert_before(anchor, lds[k]);
		retarget(m, nl, nb, lds[k], step->results[0], lds[k]);
		cont[term->noperands + k] = lds[k]->results[0];
	}
	Op *nt = op_build(m, CT_continue, term->noperands + n, cont, 0, NULL, term->loc);
	op_insert_before(term, nt);
	op_remove(term);
	for (int i = 0; i < loop->nresults; i++)
		replace_uses(fn, loop->results[i], nl->results[i]);
	op_remove(loop);
	free(init);
	free(ops);
	free(rt);
	free(at);
	free(cont);
}

int prefetch_loop_loads(Module *m, Op *fn, int warps)
{
	if (knobs()->TILE_SCHED_NO_LOAD_PREFETCH)
		return 0;
	int nfor;
	Op **fors = ops_with_code(fn, CT_for, &nfor);       /* found first, changed after */
	int done = 0;
	int64_t threads = (int64_t)warps * 32;
	for (int i = 0; i < nfor; i++) {
		Op *loop = fors[i];
		if (loop->nregions != 1 || !loop->regions[0].first || loop->regions[0].first->next ||
		    loop->noperands < 3 || op_attr_flag(loop, "unsignedCmp"))
			continue;
		Block *body = loop->regions[0].first;
		Op *term = body->last;
		if (!term || term->info->code != CT_continue || term->noperands != loop->nresults ||
		    body->nargs != 1 + loop->noperands - 3)
			continue;
		bool bad = block_jumps_before(body, term);
		for (Op *o = body->first; o && !bad; o = o->next)
			bad = op_walk(o, writes, NULL);
		if (bad)
			continue;
		Op *lds[MAX_LOADS];
		int n = 0;
		int64_t bytes = 0;
		for (Op *o = body->first; o && n < MAX_LOADS; o = o->next) {
			if (!candidate(loop, body, o))
				continue;
			const Type *t = o->results[0]->type;
			int64_t b = type_num_elements(t) * elem_bytes(t->elem) / threads;
			if (bytes + b > PREFETCH_BYTES)
				continue;
			bytes += b;
			lds[n++] = o;
		}
		if (!n)
			continue;
		prefetch(m, fn, loop, lds, n);
		done++;
	}
	free(fors);
	return done;
}
