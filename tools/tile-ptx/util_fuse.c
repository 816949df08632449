/* util_fuse.c: loads, elementwise ops and stores of one layout emitted two
 * registers at a time (issue 17: registers). TILE_PTX_NO_FUSE=1 turns it off.
 *
 * An op is emitted for all of a thread's registers before the next, so a
 * row kernel's tail — load w, load b, fma, convert, store — loads all 32
 * elements of w and b before the first fma and holds every result until the
 * stores: 64 registers of weights where NVIDIA's PTX, which loads, computes
 * and stores element by element, holds a few. A fused group is a run of
 * consecutive ops in one block, outside loops, that all work on tiles of
 * one layout: weak scalar tiled loads and stores whose token comes straight
 * from create_mem_token (no barrier before them), elementwise ops
 * (emit_elementwise), and reshapes or broadcasts that
 * copy register k to register k. The group is emitted in windows of two
 * registers (a 16-bit pair, util_access.c): every op of the group for
 * registers 0-1, then 2-3, ... Each op still computes the same value for
 * each register, in the same order per register, so the results are the
 * ops' own; only the interleaving across registers changes. Ops of the
 * group keep their results whole for uses after it. This file finds the
 * group (fuse_group); util_region.c emits it window by window. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "layout.h"
#include "irutil.h"
#include "knobs.h"

/* the tile an op of a group works on, or NULL when the op cannot be fused */
static const Value *fused_tile(E *e, Op *op)
{
	const OpInfo *i = op->info;
	if (i->code == AS_tiled_load || i->code == AS_tiled_store) {
		bool store = i->code == AS_tiled_store;
		if (!op_is_weak(op) || mma_load_copied(op) || op_attr(op, "multimem") ||
		    op_attr(op, "dim_map"))
			return NULL;
		const Value *v = store ? op->operands[1] : op->results[0];
		int eb = elem_bytes(v->type->elem);
		const Attr *vb = op_attr(op, "vector_bytes");
		if (eb < 2 || !vb || vb->kind != AT_INT || vb->u.i > eb)   /* scalar accesses: vec 1 */
			return NULL;
		const Value *tok = op_group_value(op, store ? 3 : 2);
		if (!tok || !tok->def || tok->def->info->code != AS_create_mem_token)
			return NULL;
		return v;
	}
	if (i->code == AS_load || i->code == AS_store) {
		const Value *tok = op_group_value(op, 3);
		if (!op_is_weak(op) || !tok || !tok->def || tok->def->info->code != AS_create_mem_token)
			return NULL;
		return i->code == AS_store ? op->operands[1] : op->results[0];
	}
	/* every elementwise op's emitter (arith, convert, math in
	 * dialect_cuda_tile.def) goes through emit_elementwise */
	if (op_is_elementwise(i) && op->nresults == 1)
		return op->results[0];
	if ((i->code == CT_reshape || i->code == CT_broadcast) && op->noperands == 1 && op->operands[0]->lay &&
	    op->results[0]->lay && layout_equal(op->operands[0]->lay, op->results[0]->lay) &&
	    type_num_elements(op->operands[0]->type) == type_num_elements(op->results[0]->type))
		return op->results[0];
	return NULL;
}

/* an op of the group that is no member (not of the first's layout): pure,
 * no regions, every operand from before the group (a constant, a scalar's
 * reshape or broadcast); emitted whole, once */
bool fuse_invariant(E *e, Op *op, Op *first)
{
	const Value *v = fused_tile(e, op), *v0 = fused_tile(e, first);
	if (!(op->info->traits & OPT_PURE) || op->nregions || op == first ||
	    (v && v->lay && v0 && v0->lay && layout_equal(v->lay, v0->lay)))
		return false;
	for (int i = 0; i < op->noperands; i++)
		for (const Op *o = first; o && o != op; o = o->next)
			if (op->operands[i]->def == o)
				return false;
	return true;
}

/* registers a gather / scatter of the group moves at once (op_memory.c) */
static int mem_window(E *e, Op *op, const Value *v)
{
	int eb = elem_bytes(v->type->elem);
	if (op->info->code != AS_load && op->info->code != AS_store)
		return 1;
	int cap = eb > 0 ? (int)(op_attr_int(op, "vector_bytes", eb) / eb) : 1;
	return cap > 1 ? layout_run_width(v->lay, cap) : 1;
}

bool fuse_group(E *e, Op *op, Op **end, int *nregs, int *window)
{
	if (knobs()->TILE_PTX_NO_FUSE || e->loop || e->fusing || knobs()->TILE_PTX_VERSIONING)
		return false;
	const Value *v0 = fused_tile(e, op);
	if (!v0 || !v0->lay || !type_is_tile(v0->type))
		return false;
	const Layout *lay = v0->lay;
	int n = (int)layout_nregs(lay), loads = 0, others = 0, w = FUSE_WINDOW;
	Op *o = op, *last = op;
	for (; o; o = o->next) {
		const Value *v = fused_tile(e, o);
		if (!v || !v->lay || !layout_equal(v->lay, lay)) {
			if (fuse_invariant(e, o, op))
				continue;
			break;
		}
		last = o;
		int mw = mem_window(e, o, v);
		if (mw > w)
			w = mw;
		if (o->info->code == AS_tiled_load || o->info->code == AS_load)
			loads++;
		else
			others++;
	}
	if (!loads || !others || n < 2 * w || n % w)
		return false;
	*end = last->next;       /* invariant ops after the last member stay outside */
	*nregs = n;
	*window = w;
	return true;
}
