/* chunk_cut.c: the loop that replaces a group of chunk.c's cones
 * (docs/lowering.md §11): loop-carried accumulators (a reduce sink's,
 * from identity splats) and carries (a scan along the axis), then each cone
 * op at chunk shape in program order — a tiled load or store at index
 * idx * (N/C) + %c with `tile` C along the axis, an iota as iota(C) + j*C,
 * a scan as combine(broadcast(carry), scan(chunk)) — the sinks, the
 * `continue`, and after the loop one reduce of each reduce sink's
 * accumulators. A reversed scan's group counts the chunks down. */
#include <stdlib.h>
#include <string.h>
#include "chunk.h"
#include "irutil.h"
#include "opinfo.h"
#include "xalloc.h"

/* a cone's accessors (chunk.c reads them too) */
int chunk_cone_axis(const Cone *k, const Value *v)
{
	for (int i = 0; i < k->nvals; i++)
		if (k->vals[i].v == v)
			return k->vals[i].axis;
	return -1;
}

bool chunk_cone_has_op(const Cone *k, const Op *op)
{
	for (int i = 0; i < k->nops; i++)
		if (k->ops[i] == op)
			return true;
	return false;
}

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
	Value *scaled = emit(w, int_arith_op(w->m, CT_muli, idx, w->kconst, loc));
	return emit(w, int_arith_op(w->m, CT_addi, scaled, w->iv, loc));
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
	Value *off = emit(w, int_arith_op(m, CT_muli, w->iv, emit(w, const_int_op(m, i32, w->ch, op->loc)), op->loc));
	int64_t one = 1;
	Op *r = op_build(m, CT_reshape, 1, &off, 1, (const Type *[]){ type_tile(m, tile_elem(ct), 1, &one) }, op->loc);
	Value *b = emit(w, op_build(m, CT_broadcast, 1, (Value *[]){ emit(w, r) }, 1, &ct, op->loc));
	map_put(&w->map, op->results[0], emit(w, int_arith_op(m, CT_addi, io, b, op->loc)));
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
bool chunk_carried_scan(const Op *op, int axis)
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
void chunk_rewrite_group(const Ctx *c, Cone *ks, int nk, int64_t ch)
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
			int a = chunk_cone_axis(&ks[i], o->results[0]);
			bool seen = false;
			for (int q2 = 0; q2 < nscan; q2++)
				seen |= scans[q2] == o;
			if (seen || !chunk_carried_scan(o, a))
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
		Value *last = emit(&w, const_int_op(m, i32, iters - 1, loc));
		w.iv = emit(&w, int_arith_op(m, CT_subi, last, body->args[0], loc));
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
			if (chunk_cone_has_op(&ks[i], o))
				axis = chunk_cone_axis(&ks[i], o->results[0]);
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

