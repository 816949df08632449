/* sink.c: weak loads and their conversions moved down to their first use
 * (issue 17: registers).
 *
 * A cuTile kernel loads its operands at the top (x, then the weights w and
 * b of a norm) and uses some of them only after a reduction or two; emitted
 * in that order every loaded element is live across the reductions (a
 * 4096-wide bf16 layernorm held w and b, 64 registers a thread, through
 * both). Tile IR orders memory operations by tokens only, not by program
 * order (docs/lowering.md §5 "Load sinking"), so a weak load whose result
 * token nobody uses may move past anything that is not itself an ordering
 * point; NVIDIA's PTX of the same kernels loads w and b after the
 * reductions.
 *
 * Per block, for each weak tiled or pointer load L (not copied into an MMA
 * staging buffer, its token result unused): the chain L, U1, U2, ... where
 * each Ui is the only user of the previous one's tile result, in the same
 * block, and a pure region-free op with one result (a conversion, a
 * reshape, a broadcast) moves, in order, to just before the first user of
 * the chain's last value — when on the way it passes an op with regions (a
 * reduction, a scan, a loop), and no op it may not pass: one with an ordering effect (an atomic, a fence, a
 * print, an assert, a load or store with an ordering other than weak) or a
 * region holding one. Across plain code it stays (see spans), and a chain
 * whose value goes to its block's terminator (a loop's `continue`: a load
 * issued one iteration ahead, prefetch.c) stays. Only the order of
 * the block changes; values, layouts and attributes do not.
 * TILE_SCHED_NO_SINK=1 turns the pass off. */
#include "sched_int.h"
#include "opinfo.h"
#include "irutil.h"

/* the first op after `from` in its block that uses v; NULL when none */
static Op *first_user(Op *from, const Value *v)
{
	for (Op *o = from->next; o; o = o->next)
		if (has_uses(o, (Value *)v))
			return o;
	return NULL;
}

static bool movable_load(const Op *op)
{
	if (op->info->code != AS_tiled_load && op->info->code != AS_load)
		return false;
	if (!op_is_weak(op) || op_attr_flag(op, "to_stage"))
		return false;
	/* results: the tile, then the token */
	return op->nresults == 2 && type_is_tile(op->results[0]->type) && !first_user((Op *)op, op->results[1]);
}

/* the op that carries the chain on from `op`: the only user of its tile
 * result, pure, one result, no regions; else NULL. (Moving it down keeps
 * its other operands defined before it.) */
static Op *chain_next(Op *op)
{
	Op *u = first_user(op, op->results[0]);
	if (!u || first_user(u, op->results[0]))
		return NULL;
	const OpInfo *i = u->info;
	if (!op_has(i, OPT_PURE) || op_has(i, OPT_REG) || u->nresults != 1 || !type_is_tile(u->results[0]->type))
		return NULL;
	return u;
}

/* an op the loaded values would be live across for long: one with regions
 * (a reduction, a scan, a loop). Not across plain code, nor a layout
 * conversion: ptxas places those loads itself, and moving an MMA operand's
 * load past the other operand's conversion cost 60 registers (mm_f32). */
static bool spans(const Op *op)
{
	return op_has(op->info, OPT_REG);
}

static void sink_load(Block *b, Op *l)
{
	enum { MAX_CHAIN = 16 };
	Op *chain[MAX_CHAIN];
	int len = 0;
	chain[len++] = l;
	for (Op *u; len < MAX_CHAIN && (u = chain_next(chain[len - 1])) != NULL; )
		chain[len++] = u;
	Op *use = first_user(chain[len - 1], chain[len - 1]->results[0]);
	if (!use || op_has(use->info, OPT_TERM))
		return;        /* none, or carried to the next iteration: a prefetch (prefetch.c) stays */
	bool gains = false;
	for (Op *o = l->next; o != use; o = o->next) {
		if (!op_weak_may_pass(o))
			return;        /* an ordering point before the use: stay */
		gains |= spans(o);
	}
	if (!gains)
		return;
	for (int k = 0; k < len; k++) {
		op_remove(chain[k]);
		block_insert_before(b, use, chain[k]);
	}
}

/* Bottom up: a chain moves down past ops already visited, never past the
 * start of one not yet visited. */
static void sink_block(Block *b)
{
	for (Op *op = b->last, *prev; op; op = prev) {
		prev = op->prev;
		for (int r = 0; r < op->nregions; r++)
			FOR_EACH_BLOCK(in, &op->regions[r])
				sink_block(in);
		if (movable_load(op))
			sink_load(b, op);
	}
}

void sink_loads(Op *fn)
{
	for (int r = 0; r < fn->nregions; r++)
		FOR_EACH_BLOCK(b, &fn->regions[r])
			sink_block(b);
}
