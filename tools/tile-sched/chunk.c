/* chunk.c: tiles larger than a CTA's registers hold, computed in a loop
 * over chunks (issue 42; docs/lowering.md §11 "Tiles of any size").
 *
 * Before layouts, per block of an entry: a value is *big* when a thread
 * would hold more than CHUNK_OVER of its elements. A *sink* is a weak
 * `tiled_store` of a big tile or a `reduce` of big tiles along one dim
 * whose combiner is elementwise. Its *cone* is what it reads, back through
 * the block: weak `tiled_load`s (token unused), pure elementwise ops,
 * `broadcast`s, splat constants and reductions along another dim — every
 * value with the same extent N along the sink's chunk axis (a store's
 * outermost axis that a chunk can shrink below the budget; a reduce's own
 * dim). When every big value of the cones is used only by cones and sinks,
 * the sinks (consecutive ones together, when what they read is ready at the
 * first and no ordering point lies between) become
 *
 *     %acc.. = for %c in [0, N/C) iter(identity splats) {
 *         the cone at chunk shape (C along the axis), each load and store
 *         at index idx * (N/C) + %c; a reduce sink's combiner applied
 *         elementwise: acc = combine(acc, chunk)
 *         continue %acc'..
 *     }
 *     %r = reduce %acc..        (each reduce sink, once, after the loop)
 *
 * C: the largest power of two dividing N that keeps every chunk value at
 * CHUNK_ELEMS elements a thread (NVIDIA's 13.5 loops over 16 a thread).
 * Ordering: Tile IR orders weak memory ops by tokens only (docs/lowering.md
 * §5), so chunk loads and stores may interleave as long as no store of the
 * group has a token from a load of it (loads' tokens must be unused) and no
 * op with an ordering effect lies between the ops that move.
 * A reduction's order of combination changes (chunk-wise then across);
 * the combiner is associative by Tile IR's reduce contract.
 * Afterwards the original sinks and their now-dead cones are removed, so
 * code size grows with the program, not with the tile. Everything the loop
 * holds is ordinary nv_tileas ops: the layouts pass and tile-ptx see a
 * `for` like any other. TILE_SCHED_NO_CHUNK=1 turns the pass off.
 *
 * Accepts nv_tileas entries before any layout; calls libcommon only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "irutil.h"
#include "opinfo.h"
#include "xalloc.h"
#include "diag.h"
#include "mma.h"

#define CHUNK_OVER 32       /* elements a thread above which a value is big */
#define CHUNK_ELEMS 16      /* elements a thread in each chunk value */
#define CHUNK_ELEMS_ACC 8   /* the same where the loop carries chunk-shaped accumulators */
/* elements a thread of a tile left whole (after chunking) past which the
 * kernel is refused: straight-line code for each, compile time and memory
 * growing with the tile: a 64K-element cumsum over 128 threads (512 a
 * thread) compiles in 12 s, a 256K one (2048) not in 5 minutes; NVIDIA's
 * 13.5 takes 61 s for the 64K one */
#define TILE_WHOLE_MAX 1024
#define MAX_RANK 16          /* the shape arrays below; Tile IR's tiles are far smaller */

typedef struct CV { Value *v; int axis; } CV;     /* a cone value and its chunk axis */

typedef struct Cone {
	Op *sink;
	int axis;              /* the sink's operand's chunk axis */
	int64_t n;             /* extent along it */
	Op **ops;              /* cone ops (original), any order */
	int nops, capops;
	CV *vals;
	int nvals, capvals;
	bool dead;             /* dropped: a value of its cone escapes */
	int dir;               /* its scans along the axis: 1 forward, 2 reversed, 3 both (dropped) */
} Cone;

typedef struct Ctx {
	Module *m;
	Op *fn;
	Block *blk;
	int64_t threads;
} Ctx;

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

static int cone_axis(const Cone *k, const Value *v)
{
	for (int i = 0; i < k->nvals; i++)
		if (k->vals[i].v == v)
			return k->vals[i].axis;
	return -1;
}

static bool cone_has_op(const Cone *k, const Op *op)
{
	for (int i = 0; i < k->nops; i++)
		if (k->ops[i] == op)
			return true;
	return false;
}

static void cone_put_op(Cone *k, Op *op)
{
	if (cone_has_op(k, op))
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
static bool tiled_ok(const Ctx *c, const Op *op, int axis, int64_t n)
{
	if (!op_is_weak(op) || op_attr_flag(op, "to_stage"))
		return false;
	if (strcmp(op_attr_str(op, "copy", "vec_ldst"), "vec_ldst") != 0 || op_attr(op, "multimem"))
		return false;
	int start, cnt = op_group(op, op->info->code == AS_tiled_load ? 1 : 2, &start);
	if (axis >= cnt || op_attr_int_at(op, "tile", axis, -1) != n)
		return false;
	if (op_attr(op, "step") && op_attr_int_at(op, "step", axis, -1) != n)
		return false;
	const Type *it = op->operands[start + axis]->type;
	if (!type_is_tile(it) || it->rank != 0 || tile_elem(it)->kind != TY_SCALAR || tile_elem(it)->scalar != SC_I32)
		return false;
	Value *tok = op->results[op->nresults - 1];
	return !has_uses(c->fn, tok);
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

/* v (extent n along axis) into k's cone; false when it cannot be cut */
static bool add_value(const Ctx *c, Cone *k, Value *v, int axis)
{
	int have = cone_axis(k, v);
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
		if (v->index != 0 || !op_is_weak(op) || has_uses(c->fn, op->results[op->nresults - 1]) ||
		    strcmp(op_attr_str(op, "copy", "vec_ldst"), "vec_ldst") != 0)
			return false;
		for (int i = 0; i < op->noperands; i++) {
			Value *o = op->operands[i];
			if (type_is_tile(o->type) && o->type->rank == t->rank && !add_value(c, k, o, axis))
				return false;
		}
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
			if (op->results[i] != v && cone_axis(k, op->results[i]) < 0)
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
			if (op->results[i] != v && cone_axis(k, op->results[i]) < 0)
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
		if (k->n < 2 || !tiled_ok(c, sink, k->axis, k->n) || !add_value(c, k, val, k->axis)) {
			cone_free(k);
			return false;
		}
		bool big = false;
		for (int i = 0; i < k->nvals && !big; i++)
			big = is_big(c, k->vals[i].v->type);
		if (!big)
			cone_free(k);
		return big;
	}
	if (sink->info->code == AS_store) {
		/* a scatter: pointers, value and mask tiles of one shape, each cut */
		const Type *t = sink->operands[0]->type;
		if (!type_is_tile(t) || t->rank == 0 || !op_is_weak(sink) ||
		    has_uses(c->fn, sink->results[sink->nresults - 1]) ||
		    strcmp(op_attr_str(sink, "copy", "vec_ldst"), "vec_ldst") != 0)
			return false;
		k->axis = store_axis(c, t);
		if (k->axis < 0)
			return false;
		k->n = t->shape[k->axis];
		for (int i = 0; i < sink->noperands; i++) {
			Value *o = sink->operands[i];
			if (type_is_tile(o->type) && o->type->rank == t->rank && !add_value(c, k, o, k->axis)) {
				cone_free(k);
				return false;
			}
		}
		bool big = false;
		for (int i = 0; i < k->nvals && !big; i++)
			big = is_big(c, k->vals[i].v->type);
		if (!big)
			cone_free(k);
		return big;
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
		if (!ks[i].dead && (ks[i].sink == op || cone_has_op(&ks[i], op)))
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

/* may an op moved up to `at` pass `op`? (no ordering effect: sink.c's rule) */
static bool passable(const Op *op);

static int barrier_fn(Op *op, void *ctx)
{
	if (!passable(op)) {
		*(bool *)ctx = false;
		return 1;
	}
	return 0;
}

static bool passable(const Op *op)
{
	const OpInfo *i = op->info;
	if (op_has(i, OPT_REG)) {
		bool ok = true;
		for (int r = 0; r < op->nregions && ok; r++)
			FOR_EACH_BLOCK(b, &op->regions[r])
				FOR_EACH_OP(o, b)
					if (op_walk(o, barrier_fn, &ok))
						break;
		return ok;
	}
	if (!op_has(i, OPT_MEM))
		return true;
	switch (i->code) {
	case AS_tiled_load: case AS_load: case AS_tiled_store: case AS_store:
		return op_is_weak(op);
	default:
		return false;
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
			if (!in_block(c, v) || cone_axis(b, v) >= 0)
				continue;
			if (position(c, v->def) >= pa)
				return false;
		}
	}
	/* nothing between that orders memory */
	for (Op *o = a->sink->next; o && o != b->sink; o = o->next)
		if (!cone_has_op(b, o) && !passable(o))
			return false;
	return true;
}

/* ---------------------------------------------------------------- rewrite */

typedef struct Map { Value **from, **to; int n, cap; } Map;

static void map_put(Map *mp, Value *a, Value *b)
{
	if (mp->n == mp->cap) {
		mp->cap = mp->cap ? 2 * mp->cap : 32;
		mp->from = xrealloc(mp->from, sizeof *mp->from * (size_t)mp->cap);
		mp->to = xrealloc(mp->to, sizeof *mp->to * (size_t)mp->cap);
	}
	mp->from[mp->n] = a;
	mp->to[mp->n++] = b;
}

static Value *map_get(const Map *mp, Value *a)
{
	for (int i = mp->n - 1; i >= 0; i--)
		if (mp->from[i] == a)
			return mp->to[i];
	return a;
}

static const Type *chunk_type(Module *m, const Type *t, int axis, int64_t ch)
{
	int64_t shape[16];
	for (int d = 0; d < t->rank; d++)
		shape[d] = d == axis ? ch : t->shape[d];
	return type_tile(m, tile_elem(t), t->rank, shape);
}

/* a splat constant of type t with the bytes of attribute `a` (dense splat,
 * typed int or float identity) */
static Op *splat_op(Module *m, const Type *t, const Attr *a, const Loc *loc)
{
	uint8_t bytes[8] = { 0 };
	int nb = elem_bytes(tile_elem(t));
	if (nb < 1 || nb > 8)
		nb = 1;
	if (a->kind == AT_DENSE) {
		memcpy(bytes, a->u.dense.bytes, a->u.dense.n < 8 ? a->u.dense.n : 8);
	} else {
		uint64_t x = a->kind == AT_FLOAT ? a->u.bits : (uint64_t)a->u.i;
		for (int i = 0; i < nb; i++)
			bytes[i] = (uint8_t)(x >> (8 * i));
	}
	Op *k = op_build(m, CT_constant, 0, NULL, 1, &t, loc);
	op_set_attr(m, k, "value", attr_dense(m, t, (size_t)nb, bytes, true));
	return k;
}

typedef struct RW {
	Module *m;
	Block *body;
	Value *iv;
	int64_t ch, iters;
	Map map;
	Value *kconst;
} RW;

static Value *emit(RW *w, Op *op)
{
	block_append(w->body, op);
	return op->nresults ? op->results[0] : NULL;
}

/* idx * iters + iv, the chunk's index along the axis */
static Value *chunk_index(RW *w, Value *idx, const Loc *loc)
{
	const Type *t = idx->type;
	if (!w->kconst)
		w->kconst = emit(w, const_int_op(w->m, t, w->iters, loc));
	Value *ops[2] = { idx, w->kconst };
	Op *mul = op_build(w->m, CT_muli, 2, ops, 1, &t, loc);
	op_set_attr(w->m, mul, "overflow", attr_string(w->m, "none"));
	ops[0] = emit(w, mul);
	ops[1] = w->iv;
	Op *add = op_build(w->m, CT_addi, 2, ops, 1, &t, loc);
	op_set_attr(w->m, add, "overflow", attr_string(w->m, "none"));
	return emit(w, add);
}

static void set_tile_attr(Module *m, Op *n, const char *name, int axis, int64_t ch)
{
	const Attr *a = op_attr(n, name);
	if (!a || a->kind != AT_INTS)
		return;
	int64_t v[16];
	for (int i = 0; i < a->u.ints.n && i < 16; i++)
		v[i] = i == axis ? ch : a->u.ints.v[i];
	op_set_attr(m, n, name, attr_ints(m, a->u.ints.n, v));
}

/* a tiled load or store at chunk shape: the axis's index and tile cut */
static Op *cut_tiled(RW *w, const Op *op, int axis)
{
	Op *n = op_clone(w->m, op);
	for (int i = 0; i < n->noperands; i++)
		n->operands[i] = map_get(&w->map, op->operands[i]);
	int start;
	op_group(op, op->info->code == AS_tiled_load ? 1 : 2, &start);
	n->operands[start + axis] = chunk_index(w, op->operands[start + axis], op->loc);
	set_tile_attr(w->m, n, "tile", axis, w->ch);
	set_tile_attr(w->m, n, "step", axis, w->ch);
	/* the widest access stays within a chunk's run along the axis */
	const Type *t = op->info->code == AS_tiled_load ? op->results[0]->type : op->operands[1]->type;
	if (tiled_vector_dim(op, t->rank) == axis) {
		int64_t vb = op_attr_int(op, "vector_bytes", 0), run = w->ch * elem_bytes(tile_elem(t));
		if (vb > run && run > 0)
			op_set_attr(w->m, n, "vector_bytes", attr_int(w->m, run, NULL));
	}
	return n;
}

/* chunk j of an i32 iota: iota(C) + broadcast(j * C) */
static void cut_iota(RW *w, Op *op)
{
	Module *m = w->m;
	const Type *ct = chunk_type(m, op->results[0]->type, 0, w->ch), *i32 = w->iv->type;
	Value *io = emit(w, op_build(m, CT_iota, 0, NULL, 1, &ct, op->loc));
	Value *ops[2] = { w->iv, emit(w, const_int_op(m, i32, w->ch, op->loc)) };
	Op *mul = op_build(m, CT_muli, 2, ops, 1, &i32, op->loc);
	op_set_attr(m, mul, "overflow", attr_string(m, "none"));
	Value *off = emit(w, mul);
	int64_t one = 1;
	Op *r = op_build(m, CT_reshape, 1, &off, 1, (const Type *[]){ type_tile(m, tile_elem(ct), 1, &one) }, op->loc);
	Value *b = emit(w, op_build(m, CT_broadcast, 1, (Value *[]){ emit(w, r) }, 1, &ct, op->loc));
	Op *add = op_build(m, CT_addi, 2, (Value *[]){ io, b }, 1, &ct, op->loc);
	op_set_attr(m, add, "overflow", attr_string(m, "none"));
	map_put(&w->map, op->results[0], emit(w, add));
}

/* op of the cone (axis: its result's) at chunk shape, appended to the body */
static void cut_op(RW *w, Op *op, int axis)
{
	Op *n;
	if (op->info->code == CT_iota) {
		cut_iota(w, op);
		return;
	}
	if (op->info->code == AS_tiled_load)
		n = cut_tiled(w, op, axis);
	else {
		n = op_clone(w->m, op);
		for (int i = 0; i < n->noperands; i++)
			n->operands[i] = map_get(&w->map, op->operands[i]);
	}
	for (int i = 0; i < n->nresults; i++)
		if (type_is_tile(op->results[i]->type) && op->results[i]->type->rank > axis)
			n->results[i]->type = chunk_type(w->m, op->results[i]->type, axis, w->ch);
	if (op->info->code == CT_constant) {
		const Attr *a = op_attr(op, "value");
		op_set_attr(w->m, n, "value", attr_dense(w->m, n->results[0]->type, a->u.dense.n, a->u.dense.bytes, true));
	}
	emit(w, n);
	for (int i = 0; i < op->nresults; i++)
		map_put(&w->map, op->results[i], n->results[i]);
}

/* acc' = combine(acc, x) elementwise at the chunk type: the reduce's body
 * with its scalar types widened; returns the yields' values */
static void combine(RW *w, const Op *red, Value **acc, Value **x, Value **out)
{
	const Block *b = red->regions[0].first;
	const Type *ct = acc[0]->type;
	Map local = { 0 };
	for (int i = 0; i < red->noperands; i++) {
		map_put(&local, b->args[2 * i], acc[i]);
		map_put(&local, b->args[2 * i + 1], x[i]);
	}
	FOR_EACH_OP(o, b) {
		if (o->info->code == CT_yield) {
			for (int i = 0; i < o->noperands; i++)
				out[i] = map_get(&local, o->operands[i]);
			break;
		}
		Op *n = op_clone(w->m, o);
		for (int i = 0; i < n->noperands; i++)
			n->operands[i] = map_get(&local, o->operands[i]);
		for (int i = 0; i < n->nresults; i++)
			n->results[i]->type = type_tile(w->m, tile_elem(o->results[i]->type), ct->rank, ct->shape);
		if (o->info->code == CT_constant) {
			const Attr *a = op_attr(o, "value");
			op_set_attr(w->m, n, "value", attr_dense(w->m, n->results[0]->type, a->u.dense.n, a->u.dense.bytes, true));
		}
		emit(w, n);
		for (int i = 0; i < o->nresults; i++)
			map_put(&local, o->results[i], n->results[i]);
	}
	free(local.from);
	free(local.to);
}

/* t without dim `axis` (a scan's carry, a chunk's total) */
static const Type *reduced_type(Module *m, const Type *t, int axis)
{
	int64_t shape[16];
	int r = 0;
	for (int d = 0; d < t->rank; d++)
		if (d != axis)
			shape[r++] = t->shape[d];
	return type_tile(m, tile_elem(t), r, shape);
}

/* a scan along its chunk axis: its carry goes round the loop */
static bool carried_scan(const Op *op, int axis)
{
	return op->info->code == CT_scan && op_attr_int(op, "dim", -1) == axis;
}

static Value *emit_shape(RW *w, enum OpCode code, Value *x, const Type *t, const Loc *loc)
{
	return emit(w, op_build(w->m, code, 1, &x, 1, &t, loc));
}

/* scan op (along axis) of a chunk, given the carry of the chunks before:
 *   s = scan(chunk); y = combine(broadcast(carry), s)
 *   carry' = combine(carry, reduce(chunk))   (the scan's own body)
 * y replaces the scan's results; next gets carry' */
static void cut_scan(RW *w, Op *op, int axis, Value **carry, Value **next)
{
	Module *m = w->m;
	int n = op->noperands;
	Op *sc = op_clone(m, op);
	for (int i = 0; i < n; i++)
		sc->operands[i] = map_get(&w->map, op->operands[i]);
	for (int i = 0; i < sc->nresults; i++)
		sc->results[i]->type = chunk_type(m, op->results[i]->type, axis, w->ch);
	emit(w, sc);
	/* the chunk's totals: a reduce with the scan's body and identities */
	Op *body = op_clone(m, op);
	const Type **rt = xmalloc(sizeof *rt * (size_t)n);
	for (int i = 0; i < n; i++)
		rt[i] = reduced_type(m, sc->operands[i]->type, axis);
	Op *red = op_new(m, &op_table[CT_reduce], n, sc->operands, n, rt, 1, op->loc);
	red->regions[0] = body->regions[0];
	red->regions[0].parent = red;
	FOR_EACH_BLOCK(b, &red->regions[0])
		b->parent = &red->regions[0];
	op_set_attr(m, red, "dim", op_attr(op, "dim"));
	op_set_attr(m, red, "identities", op_attr(op, "identities"));
	emit(w, red);
	/* the carry over the chunk */
	Value **cb = xmalloc(sizeof *cb * (size_t)n), **y = xmalloc(sizeof *y * (size_t)n);
	for (int i = 0; i < n; i++) {
		const Type *ct = sc->results[i]->type;
		int64_t shape[16];
		for (int d = 0; d < ct->rank; d++)
			shape[d] = d == axis ? 1 : ct->shape[d];
		Value *r = emit_shape(w, CT_reshape, carry[i], type_tile(m, tile_elem(ct), ct->rank, shape), op->loc);
		cb[i] = emit_shape(w, CT_broadcast, r, ct, op->loc);
	}
	combine(w, op, cb, sc->results, y);
	combine(w, op, carry, red->results, next);
	for (int i = 0; i < op->nresults; i++)
		map_put(&w->map, op->results[i], y[i]);
	free(rt);
	free(cb);
	free(y);
}

typedef struct Order { Op **ops; int n, cap; } Order;

static int order_fn(Op *op, void *ctx)
{
	Order *o = ctx;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 256;
		o->ops = xrealloc(o->ops, sizeof *o->ops * (size_t)o->cap);
	}
	o->ops[o->n++] = op;
	return 0;
}

/* the loop for cones ks[0..nk) (one group: same axis extent, same chunk) */
static void rewrite_group(const Ctx *c, Cone *ks, int nk, int64_t ch)
{
	Module *m = c->m;
	Op *at = ks[0].sink;
	const Loc *loc = at->loc;
	const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
	int64_t iters = ks[0].n / ch;
	/* loop-carried: each reduce sink's operands at chunk shape, then each
	 * scan along the axis's carry (its operands without the axis) */
	int nred = 0, ninit;
	for (int i = 0; i < nk; i++)
		if (ks[i].sink->info->code == CT_reduce)
			nred += ks[i].sink->noperands;
	Op **scans = NULL;
	int *scan_axis = NULL, nscan = 0, ncarry = 0;
	for (int i = 0; i < nk; i++)
		for (int j = 0; j < ks[i].nops; j++) {
			Op *o = ks[i].ops[j];
			int a = cone_axis(&ks[i], o->results[0]);
			bool seen = false;
			for (int q2 = 0; q2 < nscan; q2++)
				seen |= scans[q2] == o;
			if (seen || !carried_scan(o, a))
				continue;
			scans = xrealloc(scans, sizeof *scans * (size_t)(nscan + 1));
			scan_axis = xrealloc(scan_axis, sizeof *scan_axis * (size_t)(nscan + 1));
			scans[nscan] = o;
			scan_axis[nscan++] = a;
			ncarry += o->noperands;
		}
	ninit = nred + ncarry;
	/* the loop's direction: reversed scans along the axis want the chunks
	 * last to first, forward ones first to last (can_join keeps them apart) */
	bool reverse = false;
	for (int i = 0; i < nscan; i++)
		reverse |= op_attr_flag(scans[i], "reverse");
	Value **ops = xmalloc(sizeof *ops * (size_t)(3 + ninit));
	const Type **types = xmalloc(sizeof *types * (size_t)(1 + ninit));
	Op *k0 = const_int_op(m, i32, 0, loc), *kn = const_int_op(m, i32, iters, loc), *k1 = const_int_op(m, i32, 1, loc);
	op_insert_before(at, k0);
	op_insert_before(at, kn);
	op_insert_before(at, k1);
	ops[0] = k0->results[0];
	ops[1] = kn->results[0];
	ops[2] = k1->results[0];
	types[0] = i32;
	int q = 0;
	for (int i = 0; i < nk; i++) {
		Op *s = ks[i].sink;
		if (s->info->code != CT_reduce)
			continue;
		const Attr *ids = op_attr(s, "identities");
		for (int j = 0; j < s->noperands; j++, q++) {
			const Type *t = chunk_type(m, s->operands[j]->type, ks[i].axis, ch);
			Op *id = splat_op(m, t, ids->u.array.v[j], s->loc);
			op_insert_before(at, id);
			ops[3 + q] = id->results[0];
			types[1 + q] = t;
		}
	}
	for (int i = 0; i < nscan; i++) {
		Op *sc = scans[i];
		const Attr *ids = op_attr(sc, "identities");
		for (int j = 0; j < sc->noperands; j++, q++) {
			const Type *t = reduced_type(m, sc->operands[j]->type, scan_axis[i]);
			Op *id = splat_op(m, t, ids->u.array.v[j], sc->loc);
			op_insert_before(at, id);
			ops[3 + q] = id->results[0];
			types[1 + q] = t;
		}
	}
	Op *loop = op_new(m, &op_table[CT_for], 3 + ninit, ops, ninit, types + 1, 1, loc);
	Block *body = region_add_block(m, &loop->regions[0], 1 + ninit, types);
	op_insert_before(at, loop);
	RW w = { .m = m, .body = body, .iv = body->args[0], .ch = ch, .iters = iters };
	if (reverse) {      /* chunk iters - 1 - %c: a reversed scan's chunks last to first */
		Op *last = const_int_op(m, i32, iters - 1, loc);
		emit(&w, last);
		Value *sub[2] = { last->results[0], body->args[0] };
		Op *d = op_build(m, CT_subi, 2, sub, 1, &i32, loc);
		op_set_attr(m, d, "overflow", attr_string(m, "none"));
		w.iv = emit(&w, d);
	}
	/* the cones' ops, once each, in program order (those of enclosing
	 * blocks, loop-invariant there, first) */
	Value **next = xmalloc(sizeof *next * (size_t)(ninit + 1));
	Order ord = { 0 };
	op_walk(c->fn, order_fn, &ord);
	for (int j = 0; j < ord.n; j++) {
		Op *o = ord.ops[j];
		if (o == loop || !o->nresults)
			continue;
		int axis = -1;
		for (int i = 0; i < nk && axis < 0; i++)
			if (cone_has_op(&ks[i], o))
				axis = cone_axis(&ks[i], o->results[0]);
		if (axis < 0 || map_get(&w.map, o->results[0]) != o->results[0])
			continue;
		int si = -1, off = nred;
		for (int i = 0; i < nscan && si < 0; i++) {
			if (scans[i] == o)
				si = i;
			else
				off += scans[i]->noperands;
		}
		if (si >= 0)
			cut_scan(&w, o, axis, body->args + 1 + off, next + off);
		else
			cut_op(&w, o, axis);
	}
	free(ord.ops);
	free(scans);
	free(scan_axis);
	/* the sinks */
	q = 0;
	for (int i = 0; i < nk; i++) {
		Op *s = ks[i].sink;
		if (s->info->code == AS_tiled_store) {
			emit(&w, cut_tiled(&w, s, ks[i].axis));
			continue;
		}
		if (s->info->code == AS_store) {
			Op *n = op_clone(m, s);
			for (int j = 0; j < n->noperands; j++)
				n->operands[j] = map_get(&w.map, s->operands[j]);
			emit(&w, n);
			continue;
		}
		Value **acc = body->args + 1 + q, **x = xmalloc(sizeof *x * (size_t)s->noperands);
		for (int j = 0; j < s->noperands; j++)
			x[j] = map_get(&w.map, s->operands[j]);
		combine(&w, s, acc, x, next + q);
		free(x);
		q += s->noperands;
	}
	Op *cont = op_build(m, CT_continue, ninit, next, 0, NULL, loc);
	block_append(body, cont);
	/* after the loop: each reduce sink once over its accumulators */
	q = 0;
	for (int i = 0; i < nk; i++) {
		Op *s = ks[i].sink;
		if (s->info->code != CT_reduce)
			continue;
		Op *fin = op_clone(m, s);
		for (int j = 0; j < s->noperands; j++)
			fin->operands[j] = loop->results[q + j];
		q += s->noperands;
		op_insert_before(at, fin);
		for (int j = 0; j < s->nresults; j++)
			replace_uses(c->fn, s->results[j], fin->results[j]);
	}
	free(next);
	free(ops);
	free(types);
	free(w.map.from);
	free(w.map.to);
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
			if (carried_scan(ks[i].ops[j], cone_axis(&ks[i], ks[i].ops[j]->results[0])))
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
			if (j != i && !ks[j].dead && cone_has_op(&ks[i], ks[j].sink))
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
		rewrite_group(c, g, ng, gch);
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

/* ---------------------------------------------------------------- one-trip loops */

static bool const_i(const Value *v, int64_t *out)
{
	return value_const_int(v, out);
}

static int has_jump(Op *op, void *ctx)
{
	if (op->info->code == CT_continue || op->info->code == CT_break) {
		*(bool *)ctx = true;
		return 1;
	}
	return 0;
}

typedef struct BigScan { int64_t threads; bool big; } BigScan;

static int big_fn(Op *op, void *ctx)
{
	BigScan *b = ctx;
	for (int r = 0; r < op->nresults; r++) {
		const Type *t = op->results[r]->type;
		if (type_is_tile(t) && t->rank > 0 && type_num_elements(t) / b->threads > CHUNK_OVER) {
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
static int inline_one_trip(Module *m, Op *fn, int64_t threads)
{
	int n = 0;
	for (bool again = true; again; ) {
		again = false;
		Order ord = { 0 };
		op_walk(fn, order_fn, &ord);
		for (int i = 0; i < ord.n && !again; i++) {
			Op *f = ord.ops[i];
			int64_t lb, ub, st;
			if (f->info->code != CT_for || f->noperands < 3 || f->nregions != 1 || !f->regions[0].first ||
			    f->regions[0].first->next || !const_i(f->operands[0], &lb) || !const_i(f->operands[1], &ub) ||
			    !const_i(f->operands[2], &st) || st <= 0 || lb >= ub || ub - lb > st || op_attr_flag(f, "unsignedCmp"))
				continue;
			/* only where it holds a big tile (what the chunk loops need) */
			BigScan bsn = { threads, false };
			op_walk(f, big_fn, &bsn);
			if (!bsn.big)
				continue;
			Block *b = f->regions[0].first;
			Op *term = b->last;
			if (!term || term->info->code != CT_continue || term->noperands != f->nresults ||
			    b->nargs != 1 + f->noperands - 3)
				continue;
			bool jumps = false;
			for (Op *o = b->first; o && o != term && !jumps; o = o->next)
				op_walk(o, has_jump, &jumps);
			if (jumps)
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
		free(ord.ops);
	}
	return n;
}

int chunk_big_tiles(Module *m, Op *fn, int warps)
{
	if (getenv("TILE_SCHED_NO_CHUNK"))
		return 0;
	int inlined = inline_one_trip(m, fn, 32 * (int64_t)warps);
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

/* ---------------------------------------------------------------- what no chunk can hold */

typedef struct SizeCheck {
	int64_t threads;
	Op *first, *keeper;     /* the first over-large value's op; the first that keeps one whole */
	const Type *tf, *tk;
} SizeCheck;

/* an op that only passes a tile along (a load, an elementwise op, a
 * broadcast): a chunk loop would take it; the op that keeps the tile
 * whole is another */
static bool passes_along(const Op *op)
{
	switch (op->info->code) {
	case AS_tiled_load: case AS_load: case CT_broadcast: case CT_constant: case CT_reshape:
		return true;
	default:
		return op_is_elementwise(op->info);
	}
}

static int size_fn(Op *op, void *ctx)
{
	SizeCheck *sc = ctx;
	for (int i = 0; i < op->nresults; i++) {
		const Type *t = op->results[i]->type;
		if (!type_is_tile(t) || t->rank == 0 || type_num_elements(t) / sc->threads <= TILE_WHOLE_MAX)
			continue;
		if (!sc->first) {
			sc->first = op;
			sc->tf = t;
		}
		if (!sc->keeper && !passes_along(op)) {
			sc->keeper = op;
			sc->tk = t;
		}
	}
	return sc->keeper ? 1 : 0;
}

static int product_fn(Op *op, void *ctx)
{
	if (mma_is_product(op)) {
		*(bool *)ctx = true;
		return 1;
	}
	return 0;
}

int check_tile_sizes(Op *fn, int warps)
{
	/* an entry with a product is left to its accumulator's own budget
	 * (libcommon mma: fragments, staging, K chunks): a 256x256 f32
	 * accumulator over one warp is 2048 registers a thread, and compiles */
	bool product = false;
	op_walk(fn, product_fn, &product);
	if (product)
		return 0;
	SizeCheck sc = { .threads = 32 * (int64_t)warps };
	op_walk(fn, size_fn, &sc);
	Op *op = sc.keeper ? sc.keeper : sc.first;
	const Type *t = sc.keeper ? sc.tk : sc.tf;
	if (!op)
		return 0;
	diag_error(op->loc, "'%s' op: its %s result would be %lld elements a thread over %lld threads; a "
		   "tile this op keeps whole (not computed in chunks: docs/lowering.md section 11) is "
		   "supported up to %d elements a thread: use a smaller tile", op->info->name, t->str,
		   (long long)(type_num_elements(t) / sc.threads), (long long)sc.threads, TILE_WHOLE_MAX);
	return 1;
}
