/* chunk.c: tiles larger than a CTA's registers hold, computed in loops
 * over chunks (issue 42; docs/lowering.md §11 "Tiles of any size"): which
 * tiles, which ops, which loops. chunk_cut.c builds the loops, one_trip.c
 * first replaces one-trip loops that hold big tiles by their bodies.
 *
 * Before layouts, per block of an entry: a value is *big* when a thread
 * would hold more than CHUNK_OVER of its elements. A *sink* is a weak
 * tiled or pointer store whose cone holds a big tile, or a `reduce` of big
 * tiles along one dim whose combiner is elementwise. Its *cone* is what it
 * reads back through its block and the blocks enclosing it: weak tiled and
 * pointer loads (tokens unused), pure elementwise ops, broadcasts, unit
 * reshapes, permutes, splat constants, i32 iotas, reductions along another
 * dim and scans — every value with the same extent N along its chunk axis
 * (a reduce sink's dim; a store's outermost dim a chunk can shrink under
 * the budget), tracked per value through reductions and permutes. A sink is
 * cut when every value of its cone is read only by cut cones and sinks;
 * consecutive sinks share a loop when what the later reads is ready at the
 * first and no ordering point lies between (tokens order weak memory ops,
 * §5), a forward and a reversed scan never. The chunk C: the largest power
 * of two dividing N keeping each chunk value at CHUNK_ELEMS elements a
 * thread (CHUNK_ELEMS_ACC with accumulators), a group the smallest of its
 * cones'. Afterwards the sinks and their now-dead cones are removed: code
 * size grows with the program, not with the tile. TILE_SCHED_NO_CHUNK=1
 * turns the pass off.
 *
 * Accepts nv_tileas entries before any layout; calls libcommon only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chunk.h"
#include "irutil.h"
#include "knobs.h"
#include "opinfo.h"
#include "xalloc.h"


static bool is_big(const Ctx *c, const Type *t)
{
	return type_is_tile(t) && t->rank > 0 && type_num_elements(t) / c->threads > CHUNK_OVER;
}

static bool in_block(const Ctx *c, const Value *v)
{
	return v->def && v->def->parent == c->blk;
}

/* v is made by an op of c->blk or of a block enclosing it (so it is
 * available, and its operands are, wherever c->blk's loop goes) */
static bool in_scope(const Ctx *c, const Value *v)
{
	if (!v->def)
		return false;
	for (const Block *b = c->blk; b; ) {
		if (v->def->parent == b)
			return true;
		const Op *p = b->parent ? b->parent->parent : NULL;
		b = p ? p->parent : NULL;
	}
	return false;
}

static void cone_put_op(Cone *k, Op *op)
{
	if (chunk_cone_has_op(k, op))
		return;
	if (k->nops == k->capops) {
		k->capops = k->capops ? 2 * k->capops : 16;
		k->ops = xrealloc(k->ops, sizeof *k->ops * (size_t)k->capops);
	}
	k->ops[k->nops++] = op;
}

static void cone_put_val(Cone *k, Value *v, int axis)
{
	if (k->nvals == k->capvals) {
		k->capvals = k->capvals ? 2 * k->capvals : 16;
		k->vals = xrealloc(k->vals, sizeof *k->vals * (size_t)k->capvals);
	}
	k->vals[k->nvals++] = (CV){ v, axis };
}

/* a tiled load / store this pass can cut: weak, per-thread copies, indices
 * of type tile<i32>, the tile's own step along the axis, its token unused */
/* a memory op a chunk loop may repeat and reorder: weak, per-thread
 * copies (not staged, not multimem), its result token unused */
static bool access_ok(const Ctx *c, const Op *op)
{
	return op_is_weak(op) && !op_attr_flag(op, "to_stage") && !op_attr(op, "multimem") &&
	       strcmp(op_attr_str(op, "copy", "vec_ldst"), "vec_ldst") == 0 &&
	       !has_uses(c->fn, op->results[op->nresults - 1]);
}

static bool tiled_ok(const Ctx *c, const Op *op, int axis, int64_t n)
{
	if (!access_ok(c, op))
		return false;
	int start, cnt = op_group(op, op->info->code == AS_tiled_load ? 1 : 2, &start);
	if (axis >= cnt || op_attr_int_at(op, "tile", axis, -1) != n)
		return false;
	if (op_attr(op, "step") && op_attr_int_at(op, "step", axis, -1) != n)
		return false;
	const Type *it = op->operands[start + axis]->type;
	return type_is_tile(it) && it->rank == 0 && tile_elem(it)->kind == TY_SCALAR && tile_elem(it)->scalar == SC_I32;
}

static bool elementwise_body(const Op *red)
{
	if (red->nregions != 1 || !red->regions[0].first || red->regions[0].first->next)
		return false;
	FOR_EACH_OP(o, red->regions[0].first) {
		if (o->info->code == CT_yield)
			continue;
		if (o->nregions || !(op_is_elementwise(o->info) || o->info->code == CT_constant) ||
		    !op_has(o->info, OPT_PURE))
			return false;
		if (o->info->code == CT_constant) {
			const Attr *a = op_attr(o, "value");
			if (!a || a->kind != AT_DENSE || !a->u.dense.splat)
				return false;
		}
	}
	return true;
}

/* a reshape from s to t that only adds or drops unit dims: the dim of s
 * that t's `axis` (not a unit dim) is; -1 for any other reshape */
static int unit_reshape_axis(const Type *s, const Type *t, int axis)
{
	int ks = 0, kt = 0, found = -1;
	for (;;) {
		while (ks < s->rank && s->shape[ks] == 1)
			ks++;
		while (kt < t->rank && t->shape[kt] == 1)
			kt++;
		if (ks == s->rank || kt == t->rank)
			return ks == s->rank && kt == t->rank ? found : -1;
		if (s->shape[ks] != t->shape[kt])
			return -1;
		if (kt == axis)
			found = ks;
		ks++;
		kt++;
	}
}

static bool add_value(const Ctx *c, Cone *k, Value *v, int axis);

/* every tile operand of op of rank `rank` (a pointer load's or store's
 * pointers, value, mask, padding) into k's cone along axis */
static bool add_tiles(const Ctx *c, Cone *k, const Op *op, int rank, int axis)
{
	for (int i = 0; i < op->noperands; i++) {
		Value *o = op->operands[i];
		if (type_is_tile(o->type) && o->type->rank == rank && !add_value(c, k, o, axis))
			return false;
	}
	return true;
}

/* v (extent n along axis) into k's cone; false when it cannot be cut */
static bool add_value(const Ctx *c, Cone *k, Value *v, int axis)
{
	int have = chunk_cone_axis(k, v);
	if (have >= 0)
		return have == axis;
	const Type *t = v->type;
	if (!type_is_tile(t) || axis < 0 || axis >= t->rank || t->rank > MAX_RANK || t->shape[axis] != k->n ||
	    !in_scope(c, v))
		return false;
	Op *op = v->def;
	cone_put_val(k, v, axis);
	switch (op->info->code) {
	case AS_tiled_load:
		if (v->index != 0 || !tiled_ok(c, op, axis, k->n))
			return false;
		break;
	case CT_constant: {
		const Attr *a = op_attr(op, "value");
		if (!a || a->kind != AT_DENSE || !a->u.dense.splat)
			return false;
		break;
	}
	case CT_iota: {
		/* chunk j of an i32 iota: iota(C) + j * C (cut_iota) */
		const Type *e = tile_elem(t);
		if (t->rank != 1 || e->kind != TY_SCALAR || e->scalar != SC_I32)
			return false;
		break;
	}
	case AS_load: {
		/* a gather: pointers, mask and padding tiles all of its shape, each cut */
		if (v->index != 0 || !access_ok(c, op) || !add_tiles(c, k, op, t->rank, axis))
			return false;
		break;
	}
	case CT_broadcast: {
		Value *s = op->operands[0];
		if (s->type->rank != t->rank)
			return false;
		if (s->type->shape[axis] == k->n) {
			if (!add_value(c, k, s, axis))
				return false;
		} else if (s->type->shape[axis] != 1)
			return false;
		break;
	}
	case CT_reshape: {
		/* only unit dims added or dropped: the axis is the same non-unit dim */
		Value *s = op->operands[0];
		int sa = unit_reshape_axis(s->type, t, axis);
		if (sa < 0 || !add_value(c, k, s, sa))
			return false;
		break;
	}
	case CT_permute: {
		/* result dim d is source dim permutation[d]: a chunk of the result
		 * is the permutation of the source's chunk along that dim (a
		 * transpose feeding a store needs no whole-tile exchange) */
		int sa = (int)op_attr_int_at(op, "permutation", axis, -1);
		if (sa < 0 || !add_value(c, k, op->operands[0], sa))
			return false;
		break;
	}
	case CT_scan: {
		/* along another dim: each chunk scans alone; along the axis: the
		 * chunk's scan combined with the carry of the chunks before it
		 * (rewrite_group's carry; a reversed one's loop runs the chunks
		 * last to first) */
		int dim = (int)op_attr_int(op, "dim", -1);
		if (dim < 0 || !elementwise_body(op))
			return false;
		for (int i = 0; i < op->noperands; i++)
			if (!add_value(c, k, op->operands[i], axis))
				return false;
		for (int i = 0; i < op->nresults; i++)
			if (op->results[i] != v && chunk_cone_axis(k, op->results[i]) < 0)
				cone_put_val(k, op->results[i], axis);
		break;
	}
	case CT_reduce: {
		int dim = (int)op_attr_int(op, "dim", -1);
		int sa = axis < dim ? axis : axis + 1;
		if (dim < 0 || !elementwise_body(op))
			return false;
		for (int i = 0; i < op->noperands; i++)
			if (!add_value(c, k, op->operands[i], sa))
				return false;
		for (int i = 0; i < op->nresults; i++)
			if (op->results[i] != v && chunk_cone_axis(k, op->results[i]) < 0)
				cone_put_val(k, op->results[i], axis);
		break;
	}
	default:
		if (!op_is_elementwise(op->info) || !op_has(op->info, OPT_PURE) || op->nregions || op->nresults != 1)
			return false;
		for (int i = 0; i < op->noperands; i++) {
			Value *o = op->operands[i];
			if (!type_is_tile(o->type) || o->type->rank != t->rank || !add_value(c, k, o, axis))
				return false;
		}
	}
	cone_put_op(k, op);
	return true;
}

/* the chunk extent along the axis for a value of type t: the largest power
 * of two dividing n that keeps the chunk at `per` elements a thread, or 0 */
static int64_t chunk_per(const Ctx *c, const Type *t, int axis, int per)
{
	int64_t n = t->shape[axis], rest = type_num_elements(t) / n, ch = 0;
	for (int64_t x = 1; x < n && n % x == 0 && rest * x <= per * c->threads; x *= 2)
		ch = x;
	return ch;
}

static int64_t chunk_for(const Ctx *c, const Type *t, int axis)
{
	return chunk_per(c, t, axis, CHUNK_ELEMS);
}

/* a store sink's axis: the outermost whose chunks fit the budget */
static int store_axis(const Ctx *c, const Type *t)
{
	for (int a = 0; a < t->rank; a++)
		if (t->shape[a] > 1 && chunk_for(c, t, a) > 0)
			return a;
	return -1;
}

static void cone_free(Cone *k)
{
	free(k->ops);
	free(k->vals);
	memset(k, 0, sizeof *k);
}

/* a store sink's cone, built (`built`): kept when it holds a big tile,
 * else freed */
static bool holds_big(const Ctx *c, Cone *k, bool built)
{
	bool big = false;
	for (int i = 0; built && i < k->nvals && !big; i++)
		big = is_big(c, k->vals[i].v->type);
	if (!big)
		cone_free(k);
	return big;
}

/* k's sink and cone from `sink`, or false */
static bool make_cone(const Ctx *c, Op *sink, Cone *k)
{
	memset(k, 0, sizeof *k);
	k->sink = sink;
	if (sink->info->code == AS_tiled_store) {
		/* a store of a big tile, or of a small one that a big one makes (a
		 * column sum of a 64x1024 tile over one warp) */
		Value *val = sink->operands[1];
		if (!type_is_tile(val->type) || val->type->rank == 0)
			return false;
		k->axis = store_axis(c, val->type);
		if (k->axis < 0)
			return false;
		k->n = val->type->shape[k->axis];
		return holds_big(c, k, k->n >= 2 && tiled_ok(c, sink, k->axis, k->n) && add_value(c, k, val, k->axis));
	}
	if (sink->info->code == AS_store) {
		/* a scatter: pointers, value and mask tiles of one shape, each cut */
		const Type *t = sink->operands[0]->type;
		if (!type_is_tile(t) || t->rank == 0 || !access_ok(c, sink))
			return false;
		k->axis = store_axis(c, t);
		if (k->axis < 0)
			return false;
		k->n = t->shape[k->axis];
		return holds_big(c, k, add_tiles(c, k, sink, t->rank, k->axis));
	}
	if (sink->info->code == CT_reduce) {
		const Type *t = sink->operands[0]->type;
		if (!is_big(c, t) || is_big(c, sink->results[0]->type) || !elementwise_body(sink))
			return false;
		k->axis = (int)op_attr_int(sink, "dim", -1);
		if (k->axis < 0 || k->axis >= t->rank || chunk_for(c, t, k->axis) == 0)
			return false;
		k->n = t->shape[k->axis];
		for (int i = 0; i < sink->noperands; i++)
			if (!add_value(c, k, sink->operands[i], k->axis)) {
				cone_free(k);
				return false;
			}
		return true;
	}
	return false;
}

static bool in_any(Cone *ks, int nk, const Op *op)
{
	for (int i = 0; i < nk; i++)
		if (!ks[i].dead && (ks[i].sink == op || chunk_cone_has_op(&ks[i], op)))
			return true;
	return false;
}

typedef struct Uses { const Value *v; Cone *ks; int nk; bool escapes; } Uses;

static int use_fn(Op *op, void *ctx)
{
	Uses *u = ctx;
	for (int i = 0; i < op->noperands; i++)
		if (op->operands[i] == u->v && !in_any(u->ks, u->nk, op)) {
			u->escapes = true;
			return 1;
		}
	return 0;
}

/* drop cones one of whose ops has a result some op reads that is neither
 * a live cone's op nor its sink (a big value the tile must keep whole) */
static void drop_escaping(const Ctx *c, Cone *ks, int nk)
{
	for (bool changed = true; changed; ) {
		changed = false;
		for (int i = 0; i < nk && !changed; i++) {
			if (ks[i].dead)
				continue;
			for (int j = 0; j < ks[i].nops && !ks[i].dead; j++) {
				Op *op = ks[i].ops[j];
				for (int r = 0; r < op->nresults && !ks[i].dead; r++) {
					Uses u = { op->results[r], ks, nk, false };
					op_walk(c->fn, use_fn, &u);
					if (u.escapes) {
						ks[i].dead = true;
						changed = true;
					}
				}
			}
		}
	}
}

static int position(const Ctx *c, const Op *op)
{
	int i = 0;
	for (Op *o = c->blk->first; o; o = o->next, i++)
		if (o == op)
			return i;
	return -1;
}

/* may cone b join the loop placed at a's sink (a before b)? */
static bool can_join(const Ctx *c, Cone *a, Cone *b, int64_t ch_a, int64_t ch_b)
{
	(void)ch_a;
	(void)ch_b;
	if (a->axis < 0 || b->n != a->n || (a->dir | b->dir) == 3)
		return false;
	int pa = position(c, a->sink);
	/* everything b's cone and sink read from this block is ready at a's sink */
	for (int j = -1; j < b->nops; j++) {
		Op *op = j < 0 ? b->sink : b->ops[j];
		for (int i = 0; i < op->noperands; i++) {
			Value *v = op->operands[i];
			if (!in_block(c, v) || chunk_cone_axis(b, v) >= 0)
				continue;
			if (position(c, v->def) >= pa)
				return false;
		}
	}
	/* nothing between that orders memory */
	for (Op *o = a->sink->next; o && o != b->sink; o = o->next)
		if (!chunk_cone_has_op(b, o) && !op_weak_may_pass(o))
			return false;
	return true;
}

static bool any_use(const Ctx *c, const Op *op)
{
	for (int r = 0; r < op->nresults; r++)
		if (has_uses(c->fn, op->results[r]))
			return true;
	return false;
}

static int chunk_block(const Ctx *c)
{
	int nk = 0, cap = 0;
	Cone *ks = NULL;
	for (Op *o = c->blk->first; o; o = o->next) {
		if (o->info->code != AS_tiled_store && o->info->code != AS_store && o->info->code != CT_reduce)
			continue;
		Cone k;
		if (!make_cone(c, o, &k))
			continue;
		if (nk == cap) {
			cap = cap ? 2 * cap : 8;
			ks = xrealloc(ks, sizeof *ks * (size_t)cap);
		}
		ks[nk++] = k;
	}
	if (!nk)
		return 0;
	/* the chunk of each cone: the smallest its values allow, at 8 elements a
	 * thread where the loop carries chunk-shaped accumulators (a reduce
	 * sink's: each chunk value then holds its registers twice over; 64x8192
	 * sum of squares: 31 registers, 47 at 16), else 16 */
	int64_t *ch = xcalloc((size_t)nk, sizeof *ch);
	for (int i = 0; i < nk; i++) {
		for (int j = 0; j < ks[i].nops; j++)
			if (chunk_carried_scan(ks[i].ops[j], chunk_cone_axis(&ks[i], ks[i].ops[j]->results[0])))
				ks[i].dir |= op_attr_flag(ks[i].ops[j], "reverse") ? 2 : 1;
		if (ks[i].dir == 3)
			ks[i].dead = true;
		int per = ks[i].sink->info->code == CT_reduce ? CHUNK_ELEMS_ACC : CHUNK_ELEMS;
		for (int pass = 0; pass < 2; pass++, per = CHUNK_ELEMS) {
			ch[i] = INT64_MAX;
			for (int j = 0; j < ks[i].nvals; j++) {
				int64_t x = chunk_per(c, ks[i].vals[j].v->type, ks[i].vals[j].axis, per);
				if (x < ch[i])
					ch[i] = x;
			}
			if (ch[i] >= 1 && ch[i] != INT64_MAX)
				break;
		}
		if (ch[i] < 1 || ch[i] == INT64_MAX)
			ks[i].dead = true;
	}
	/* a reduction that is a live sink of its own is not also cut inside a
	 * later sink's cone (a row sum stored: the sum is the loop, the store
	 * of its small result stays) */
	for (int i = 0; i < nk; i++)
		for (int j = 0; j < nk && !ks[i].dead; j++)
			if (j != i && !ks[j].dead && chunk_cone_has_op(&ks[i], ks[j].sink))
				ks[i].dead = true;
	drop_escaping(c, ks, nk);
	/* groups of consecutive live cones, then their loops */
	int groups = 0;
	Cone *g = xmalloc(sizeof *g * (size_t)nk);
	for (int i = 0; i < nk; ) {
		if (ks[i].dead) {
			i++;
			continue;
		}
		int ng = 0, j = i;
		int64_t gch = ch[i];       /* the group's: the smallest of its cones' (any smaller one divides) */
		g[ng++] = ks[j++];
		while (j < nk && !ks[j].dead && can_join(c, &ks[i], &ks[j], ch[i], ch[j])) {
			if (ch[j] < gch)
				gch = ch[j];
			g[ng++] = ks[j++];
		}
		chunk_rewrite_group(c, g, ng, gch);
		groups++;
		i = j;
	}
	/* the sinks, then what fed only them */
	for (int i = 0; i < nk; i++)
		if (!ks[i].dead)
			op_remove(ks[i].sink);
	for (bool changed = true; changed; ) {
		changed = false;
		for (int i = 0; i < nk; i++) {
			if (ks[i].dead)
				continue;
			for (int j = 0; j < ks[i].nops; j++) {
				Op *op = ks[i].ops[j];
				if (op->parent && !any_use(c, op)) {
					op_remove(op);
					changed = true;
				}
			}
		}
	}
	for (int i = 0; i < nk; i++)
		cone_free(&ks[i]);
	free(ks);
	free(ch);
	free(g);
	return groups;
}

static void collect_blocks(Op *op, Block ***bs, int *n, int *cap)
{
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r]) {
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 8;
				*bs = xrealloc(*bs, sizeof **bs * (size_t)*cap);
			}
			(*bs)[(*n)++] = b;
			FOR_EACH_OP(o, b)
				collect_blocks(o, bs, n, cap);
		}
}

int chunk_big_tiles(Module *m, Op *fn, int warps)
{
	if (knobs()->TILE_SCHED_NO_CHUNK)
		return 0;
	int inlined = inline_one_trip_loops(fn, 32 * (int64_t)warps, CHUNK_OVER);
	Block **bs = NULL;
	int n = 0, cap = 0, loops = 0;
	collect_blocks(fn, &bs, &n, &cap);
	for (int i = 0; i < n; i++) {
		Ctx c = { .m = m, .fn = fn, .blk = bs[i], .threads = 32 * (int64_t)warps };
		loops += chunk_block(&c);
	}
	free(bs);
	return loops + inlined;
}

