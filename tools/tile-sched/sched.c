/* sched.c: layout assignment (see sched.h), the per-kernel driver; the
 * value classes live in classes.c, the shape ops' rules in shape.c.
 *
 * Per kernel:
 *  1. Tile values that must share one layout are put in one class
 *     (union-find): operands and results of elementwise ops, assume,
 *     reshape (same linear order), the pieces of a pointer load/store, and
 *     loop-carried / yielded values of for and if.
 *  2. A class holding the tile of a memory op is anchored: its per-thread
 *     chunk may be at most the op's vector_bytes. Each anchored class gets
 *     the blocked layout with chunk min(vector, elements per thread).
 *  3. A class that only feeds broadcasts takes the layout its broadcast
 *     result implies (layout_derive_source), so the broadcast is a register
 *     copy; other free classes get a default blocked layout.
 *  4. Every broadcast and reshape is checked to be thread-local
 *     (layout_local_gather); where it is not, nv_tileas.convert_layout is
 *     inserted to give the operand the layout its user needs. */
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "opinfo.h"
#include "irutil.h"
#include "layout.h"
#include "mma.h"
#include "diag.h"
#include "sched_int.h"
#include "xalloc.h"
#include "knobs.h"

static int collect(Op *op, void *ctx)
{
	F *f = ctx;
	for (int i = 0; i < op->nresults; i++)
		f->vals[op->results[i]->id] = op->results[i];
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r])
			for (int i = 0; i < b->nargs; i++)
				f->vals[b->args[i]->id] = b->args[i];
	return 0;
}

static int64_t vec_elems(const Op *op, const Type *elem)
{
	int eb = elem_bytes(elem);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_F4E2M1FN)
		return 2 * op_attr_int(op, "vector_bytes", 1);     /* two to a byte */
	if (eb == 0)
		return 1;
	return op_attr_int(op, "vector_bytes", eb) / eb;        /* absent: one element */
}

/* A tiled access anchors its tile's class to chunks along the tile dim
 * its vector_bytes counts (tiled_vector_dim). A transposed view's run down
 * a column: there only for the B operand of a product staged K-major
 * (MmaTiling.bk: the chunks land whole there), one element each elsewhere,
 * as before column chunks existed. After constrain: the products are known. */
static int anchor_tiled(Op *op, void *ctx)
{
	F *f = ctx;
	bool load = op->info->code == AS_tiled_load;
	if (!load && op->info->code != AS_tiled_store)
		return 0;
	Value *v = load ? op->results[0] : op->operands[1];
	int d = tiled_vector_dim(op, v->type->rank);
	bool column = d != v->type->rank - 1;
	anchor_dim(f, v, !column || (load && mma_b_down_columns(f, op)) ? vec_elems(op, v->type->elem) : 1, d);
	return 0;
}

static int constrain(Op *op, void *ctx)
{
	F *f = ctx;
	const OpInfo *in = op->info;
	if (in->dialect == DIALECT_CUDA_TILE && (op_is_elementwise(in) || in->code == CT_assume ||
						 in->code == CT_reshape)) {
		Value *first = NULL;
		for (int i = 0; i < op->noperands + op->nresults; i++) {
			Value *v = i < op->noperands ? op->operands[i] : op->results[i - op->noperands];
			if (!type_is_tile(v->type))
				continue;
			if (first)
				unite(f, first, v);
			else
				first = v;
		}
		return 0;
	}
	if (op_is_shape(in)) {
		shape_constrain(f, op);     /* shape.c */
		return 0;
	}
	switch (in->code) {
	case CT_broadcast:
		f->bcasts[f->nbcasts++] = op;
		break;
	case CT_mmaf: case CT_mmai: case CT_mmaf_scaled:
		mma_constrain(f, op);     /* mma.c */
		break;
	case CT_for: {
		Block *body = op->regions[0].first;
		int ninit = op->noperands - 3;
		for (int i = 0; i < ninit && i < op->nresults; i++) {
			unite(f, op->operands[3 + i], op->results[i]);
			if (body && body->nargs > i + 1)
				unite(f, op->results[i], body->args[i + 1]);
		}
		break;
	}
	case CT_continue: {
		Op *loop = op_enclosing_loop(op);
		for (int i = 0; loop && i < op->noperands && i < loop->nresults; i++)
			unite(f, op->operands[i], loop->results[i]);
		break;
	}
	case CT_yield: {
		Op *p = op_parent_op(op);
		for (int i = 0; p && p->info->code == CT_if && i < op->noperands && i < p->nresults; i++)
			unite(f, op->operands[i], p->results[i]);
		break;
	}
	case AS_load:
	case AS_store: {
		Value *v = in->code == AS_load ? op->results[0] : op->operands[1];
		for (int i = 0; i < op->noperands; i++)
			unite(f, v, op->operands[i]);
		anchor(f, v, vec_elems(op, v->type->elem));
		break;
	}
	case AS_atomic_rmw: case AS_atomic_cas:     /* one element per access */
		for (int i = 0; i < op->noperands; i++)
			unite(f, op->results[0], op->operands[i]);
		anchor(f, op->results[0], 1);
		break;
	case CT_loop: {     /* init i, iter value i, result i (and continue/break operands i) */
		Block *body = op->regions[0].first;
		for (int i = 0; i < op->noperands && i < op->nresults; i++) {
			unite(f, op->operands[i], op->results[i]);
			if (body && body->nargs > i)
				unite(f, op->results[i], body->args[i]);
		}
		break;
	}
	case CT_break: {
		Op *loop = op_enclosing_loop(op);
		for (int i = 0; loop && i < op->noperands && i < loop->nresults; i++)
			unite(f, op->operands[i], loop->results[i]);
		break;
	}
	default:
		break;
	}
	return 0;
}

static TileMap map_of(Op *op)
{
	const Type *d = op->results[0]->type, *s = op->operands[0]->type;
	TileMap tm = { op->info->code == CT_broadcast ? TM_BROADCAST : TM_IDENTITY,
		       d->rank, s->rank, {0}, {0}, {0} };
	for (int i = 0; i < d->rank && i < 8; i++)
		tm.dst_shape[i] = d->shape[i];
	for (int i = 0; i < s->rank && i < 8; i++)
		tm.src_shape[i] = s->shape[i];
	return tm;
}

/* Make a broadcast or reshape thread-local, inserting a conversion. */
static int fix_local(Op *op, void *ctx)
{
	F *f = ctx;
	if (op->info->code != CT_broadcast && op->info->code != CT_reshape)
		return 0;
	Value *src = op->operands[0], *dst = op->results[0];
	if (!src->lay || !dst->lay)
		ice("tile-sched: unparsable layout");
	Layout ls = *src->lay, ld = *dst->lay;
	TileMap tm = map_of(op);
	int64_t nregs = layout_nregs(&ld);
	int64_t *regs = xmalloc(sizeof *regs * (size_t)nregs);
	if (!layout_local_gather(&ls, &ld, &tm, f->warps, regs)) {
		Layout want;
		if (!layout_derive_source(&ld, &tm, &want) ||
		    !layout_local_gather(&want, &ld, &tm, f->warps, regs))
			ice("tile-sched: cannot derive a source layout for '%s'", op->info->name);
		const Type *t = src->type;
		Op *cv = op_build(f->m, AS_convert_layout, 1, &src, 1, &t, op->loc);
		set_layout(f->m, cv->results[0], &want);
		op_insert_before(op, cv);
		op->operands[0] = cv->results[0];
	}
	free(regs);
	return 0;
}

/* Does class r feed a broadcast? */
static bool bcast_source(F *f, int r)
{
	for (int k = 0; k < f->nbcasts; k++)
		if (find(f, f->bcasts[k]->operands[0]->id) == r)
			return true;
	return false;
}

static void sched_fn(Module *m, Op *fn, int warps, bool tma)
{
	F ff = { .m = m, .fn = fn, .warps = warps, .tma = tma }, *f = &ff;
	/* a test hook: the layouts loads alone would give (rows over warps,
	 * broadcast sources laid out for their load), so the tests keep reaching
	 * the cross-warp reduction rounds and broadcast conversions */
	f->plain = knobs()->TILE_SCHED_PLAIN_LAYOUTS;
	f->nvals = op_count_values(fn) + 1;
	f->vals = xcalloc((size_t)f->nvals, sizeof *f->vals);
	f->parent = xmalloc(sizeof *f->parent * (size_t)f->nvals);
	f->vmax = xcalloc((size_t)f->nvals, sizeof *f->vmax);
	f->vstride = xcalloc((size_t)f->nvals, sizeof *f->vstride);
	f->pairs = xcalloc((size_t)f->nvals, sizeof *f->pairs);
	f->rowred = xcalloc((size_t)f->nvals, sizeof *f->rowred);
	f->assigned = xcalloc((size_t)f->nvals, sizeof *f->assigned);
	f->lay = xcalloc((size_t)f->nvals, sizeof *f->lay);
	f->bcasts = xcalloc((size_t)f->nvals, sizeof *f->bcasts);
	for (int i = 0; i < f->nvals; i++)
		f->parent[i] = i;
	op_walk(fn, collect, f);
	op_walk(fn, constrain, f);
	op_walk(fn, anchor_tiled, f);
	for (int i = 0; i < f->nshops; i++) {     /* reductions along the innermost dim */
		Op *op = f->shops[i];
		if (op->info->code != CT_reduce)
			continue;
		for (int k = 0; k < op->noperands; k++) {
			const Type *t = op->operands[k]->type;
			if (type_is_tile(t) && t->rank > 0 && op_attr_int(op, "dim", -1) == t->rank - 1)
				f->rowred[find(f, op->operands[k]->id)] |= ROW_REDUCED;
		}
	}
	mma_prefer_rows(f);

	/* reduction results that take their source's layout (shape.c) */
	shape_preassign(f);
	/* accumulators of mmaf take the fragment layout (mma.c) */
	mma_preassign(f);
	/* anchored classes first, but those broadcast into a bigger tile (a
	 * loaded row of weights, say): they take the layout their broadcast
	 * implies, below, so the broadcast needs no conversion */
	for (int i = 0; i < f->nvals; i++) {
		Value *v = f->vals[i];
		if (!v || !type_is_tile(v->type))
			continue;
		int r = find(f, i);
		if (!f->vmax[r] || f->assigned[r])
			continue;
		if (!bcast_source(f, r) || f->plain)
			assign_blocked(f, r, v);
	}
	/* broadcast sources follow their results */
	for (bool changed = true; changed; ) {
		changed = false;
		for (int i = 0; i < f->nbcasts; i++) {
			Op *b = f->bcasts[i];
			int rs = find(f, b->results[0]->id), ss = find(f, b->operands[0]->id);
			if (!f->assigned[rs] || f->assigned[ss])
				continue;
			TileMap tm = map_of(b);
			if (!layout_derive_source(&f->lay[rs], &tm, &f->lay[ss]))
				continue;
			f->assigned[ss] = true;
			changed = true;
		}
		changed = shape_propagate(f) || changed;     /* shape.c */
		if (changed)
			continue;
		/* give one free class a default and go round again */
		for (int i = 0; i < f->nvals && !changed; i++) {
			Value *v = f->vals[i];
			if (!v || !type_is_tile(v->type))
				continue;
			int r = find(f, i);
			if (!f->assigned[r]) {
				/* prefer results of broadcasts: sources then follow */
				if (bcast_source(f, r))
					continue;
				assign_blocked(f, r, v);
				changed = true;
			}
		}
		for (int i = 0; i < f->nvals && !changed; i++) {
			Value *v = f->vals[i];
			if (v && type_is_tile(v->type) && !f->assigned[find(f, i)]) {
				assign_blocked(f, find(f, i), v);
				changed = true;
			}
		}
	}
	for (int i = 0; i < f->nvals; i++) {
		Value *v = f->vals[i];
		if (!v || !type_is_tile(v->type))
			continue;
		int r = find(f, i);
		int64_t n = type_num_elements(v->type);
		const char *err = NULL;
		if (!layout_check_tile(&f->lay[r], n, warps, &err))
			ice("tile-sched: class layout does not fit %s: %s", v->type->str, err);
		set_layout(m, v, &f->lay[r]);
	}
	op_walk(fn, fix_local, f);
	shape_fix(f);                   /* shape.c */
	mma_fix(f);                     /* mma.c */
	if (!knobs()->TILE_SCHED_NO_SINK)
		sink_loads(fn);                 /* sink.c */
	free(f->vals);
	free(f->parent);
	free(f->vmax);
	free(f->pairs);
	free(f->rowred);
	free(f->vstride);
	free(f->assigned);
	free(f->lay);
	free(f->bcasts);
	free(f->shops);
}

/* Is every tile value of the entry a single element? */
static int one_element(Op *op, void *ctx)
{
	bool *all = ctx;
	for (int i = 0; i < op->nresults; i++)
		if (type_is_tile(op->results[i]->type) && type_num_elements(op->results[i]->type) > 1)
			*all = false;
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r])
			for (int i = 0; i < b->nargs; i++)
				if (type_is_tile(b->args[i]->type) && type_num_elements(b->args[i]->type) > 1)
					*all = false;
	return 0;
}

/* the largest MMA accumulator of an entry, in elements */
static int largest_acc(Op *op, void *ctx)
{
	int64_t *most = ctx;
	if (mma_is_product(op) && op->nresults == 1) {
		int64_t n = type_num_elements(op->results[0]->type);
		if (n > *most)
			*most = n;
	}
	return 0;
}

/* Warps for an entry without a hint or --num-warps: NVIDIA's one warp for a
 * kernel of single-element tiles; 8 where an MMA accumulator would take more
 * than 64 registers a thread over 4 warps (a 128x128 f32 tile: 128 each,
 * which spilled; 8 warps hold it in 64 with no spill, measured 2026-11-24
 * on tests/mma/launch's 128x128x32 f16/bf16 matmuls); else the default. */
static int entry_warps(Op *fn, int dflt)
{
	bool all = true;
	op_walk(fn, one_element, &all);
	if (all)
		return 1;
	int64_t acc = 0;
	op_walk(fn, largest_acc, &acc);
	if (dflt == 4 && acc / (4 * 32) > 64)
		return 8;
	return dflt;
}

int sched_module(Module *m, int num_warps, bool fixed, bool tma)
{
	int errors = 0;
	ir_number_values(m);
	FOR_EACH_OP(fn, &m->body)
		if (fn->info->code == CT_entry) {
			int hint = fixed ? 0 : entry_hint_warps(m, fn);    /* 13.5's num_worker_warps */
			int w = hint ? hint : fixed ? num_warps : entry_warps(fn, num_warps);
			if (w != num_warps)
				op_set_attr(m, fn, "num_warps", attr_int(m, w, NULL));
			if (chunk_big_tiles(m, fn, w))            /* chunk.c */
				ir_number_values(m);
			if (check_tile_sizes(fn, w)) {
				errors++;
				continue;
			}
			/* version.c's new values numbered (numbering restarts in each entry) */
			if (tma && version_for_tma(m, fn, w, mma_module_sm(m)))
				ir_number_values(m);
			if (prefetch_loop_loads(m, fn, w))       /* prefetch.c */
				ir_number_values(m);
			sched_fn(m, fn, w, tma);
			mma_write_plans(m, fn, w);                /* plan.c */
		}
	if (errors)
		return 1;
	module_set_attr(m, "num_warps", attr_int(m, num_warps, NULL));
	m->stage = "scheduled";
	return 0;
}
