/* version.c: K loops versioned on their operands' alignment at run time, so
 * a product whose views carry no alignment facts still goes by TMA when the
 * pointers and strides it is launched with allow (docs/lowering.md §10
 * "TMA", "Alignment versioning"; issue 16).
 *
 * With --tma (sm_90 and later), before layouts: a `for` whose body holds,
 * at its top level, a product (mma_is_product) with an operand tiled_load in
 * that body that libcommon's tma_load_ok refuses only for want of facts —
 * it holds once the load's make_memref carries base_align 16 and, on each
 * dynamic stride, stride_div_by 16 / (element bytes) — is replaced by
 *
 *     %ok = (base & 15) == 0 && (stride & (16 / eb - 1)) == 0 && ...
 *     %r = if %ok { a copy of the loop whose such loads read copies of
 *                   their make_memrefs with those facts; yield }
 *          else   { the loop as it was; yield }
 *
 * (one test per such view: its base pointer and dynamic strides, in
 * elements, as cuTensorMapEncodeTiled needs them), %r replacing the loop's
 * results; the `if` is marked `versioned_for_tma` (remarks.c). mma.c's
 * stage_direct then sends the copy's loads by TMA; the
 * other arm keeps its register or cp.async staging. Both arms are in the
 * kernel: tile-ptx's MMA staging is one buffer for all products, its
 * hidden tensor maps are filled at every launch (nvhost.c, tile-run), and
 * a map built from an unaligned base is never used.
 *
 * NVIDIA's 13.5 does not do this: its cubin for a view without facts
 * (tests/corpus matmul) loads the operands through registers whatever the
 * pointers are. TILE_SCHED_NO_VERSION=1 turns it off (for A/B measurement).
 *
 * Accepts nv_tileas entries, before any layout; guarantees the same
 * results for every launch. Calls libcommon only (tma.h, irutil.h). */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "irutil.h"
#include "opinfo.h"
#include "tma.h"
#include "xalloc.h"
#include "knobs.h"

/* one view the copy of a loop reads with facts: the original make_memref,
 * its copy with the facts (inserted after it) */
typedef struct Faceted {
	Op *mr, *with;
	bool used;              /* a load that passes reads it */
} Faceted;

typedef struct Loop {
	Op *loop;
	Faceted *views;
	int nviews, capviews;
	Op **loads;             /* the loads (in the original loop) that then pass */
	int nloads, caploads;
} Loop;

/* the make_memref mr with the facts TMA needs: base_align 16, dynamic
 * strides multiples of 16 bytes; NULL when mr's element size does not
 * divide 16 or a constant stride is not such a multiple already */
static Op *with_facts(Module *m, Op *mr)
{
	const Type *tv = mr->results[0]->type;
	int eb = elem_bytes(tv->elem);
	if (eb < 1 || 16 % eb || tv->rank < 2 || tv->rank > 8)
		return NULL;
	int64_t div[8];
	for (int d = 0; d < tv->rank; d++) {
		div[d] = op_attr_int_at(mr, "stride_div_by", d, 1);
		if (d == tv->rank - 1)
			continue;
		if (tv->strides[d] != DYN_DIM) {
			if (tv->strides[d] * eb % 16)
				return NULL;
		} else if (div[d] * eb % 16) {
			div[d] = 16 / eb;       /* powers of two: the larger is the lcm */
		}
	}
	Op *w = op_clone(m, mr);
	if (op_attr_int(mr, "base_align", 1) < 16)
		op_set_attr(m, w, "base_align", attr_int(m, 16, NULL));
	op_set_attr(m, w, "stride_div_by", attr_ints(m, tv->rank, div));
	return w;
}

static Faceted *faceted_of(Module *m, Loop *l, Op *mr)
{
	for (int i = 0; i < l->nviews; i++)
		if (l->views[i].mr == mr)
			return &l->views[i];
	Op *w = with_facts(m, mr);
	if (!w)
		return NULL;
	if (l->nviews == l->capviews) {
		l->capviews = l->capviews ? 2 * l->capviews : 4;
		l->views = xrealloc(l->views, sizeof *l->views * (size_t)l->capviews);
	}
	l->views[l->nviews] = (Faceted){ mr, w, false };
	return &l->views[l->nviews++];
}

/* Would ld (an operand load of a product in the loop's body) pass
 * tma_load_ok if its view had the facts? Then it is recorded. */
static void consider(Module *m, Loop *l, Op *ld, int warps, int sm)
{
	TmapNote note;
	Op *mr = ld->operands[0]->def;
	/* a view made outside the loop: its copy and the test go before it */
	if (!mr || mr->info->code != AS_make_memref || value_made_inside(l->loop, mr->results[0]) ||
	    tma_load_ok(ld, warps, sm, &note))
		return;
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i] == ld)
			return;
	Faceted *fv = faceted_of(m, l, mr);
	if (!fv)
		return;
	ld->operands[0] = fv->with->results[0];        /* asked as if, then put back */
	bool ok = tma_load_ok(ld, warps, sm, &note);
	ld->operands[0] = mr->results[0];
	if (!ok)
		return;
	fv->used = true;
	if (l->nloads == l->caploads) {
		l->caploads = l->caploads ? 2 * l->caploads : 4;
		l->loads = xrealloc(l->loads, sizeof *l->loads * (size_t)l->caploads);
	}
	l->loads[l->nloads++] = ld;
}

/* the value v & mask == 0 (an i1 tile), its ops inserted before `at` */
static Value *low_bits_clear(Module *m, Op *at, Value *v, int64_t mask)
{
	Op *c = const_int_op(m, v->type, mask, at->loc);
	Op *z = const_int_op(m, v->type, 0, at->loc);
	Value *ab[2] = { v, c->results[0] };
	Op *a = op_build(m, CT_andi, 2, ab, 1, &v->type, at->loc);
	const Type *i1 = type_tile(m, type_scalar(m, SC_I1), 0, NULL);
	Value *az[2] = { a->results[0], z->results[0] };
	Op *e = op_build(m, CT_cmpi, 2, az, 1, &i1, at->loc);
	op_set_attr(m, e, "comparison_predicate", attr_string(m, "equal"));
	op_set_attr(m, e, "signedness", attr_string(m, "signed"));
	op_insert_before(at, c);
	op_insert_before(at, z);
	op_insert_before(at, a);
	op_insert_before(at, e);
	return e->results[0];
}

static Value *both(Module *m, Op *at, Value *x, Value *y)
{
	if (!x)
		return y;
	Value *xy[2] = { x, y };
	Op *a = op_build(m, CT_andi, 2, xy, 1, &x->type, at->loc);
	op_insert_before(at, a);
	return a->results[0];
}

/* the run-time test that every view of l meets its facts, before l's loop */
static Value *aligned_test(Module *m, Loop *l)
{
	Op *at = l->loop;
	Value *ok = NULL;
	for (int i = 0; i < l->nviews; i++) {
		Op *mr = l->views[i].mr;
		if (!l->views[i].used)
			continue;
		const Type *tv = mr->results[0]->type;
		int eb = elem_bytes(tv->elem);
		const Type *i64 = type_tile(m, type_scalar(m, SC_I64), 0, NULL);
		Op *p = op_build(m, CT_ptr_to_int, 1, &mr->operands[0], 1, &i64, at->loc);
		op_insert_before(at, p);
		ok = both(m, at, ok, low_bits_clear(m, at, p->results[0], 15));
		int start, ndyn = 0;
		if (op_group(mr, 2, &start) < 0)
			continue;
		for (int d = 0; d < tv->rank; d++) {
			if (tv->strides[d] != DYN_DIM)
				continue;
			Value *s = mr->operands[start + ndyn++];
			if (d < tv->rank - 1 && 16 / eb > 1)
				ok = both(m, at, ok, low_bits_clear(m, at, s, 16 / eb - 1));
		}
	}
	return ok;
}

/* the loop l->loop into an `if` on the test: its copy with the faceted
 * views, then the loop itself */
static void version(Module *m, Loop *l)
{
	Op *loop = l->loop;
	for (int i = 0; i < l->nviews; i++)
		if (l->views[i].used)
			block_insert_before(l->views[i].mr->parent, l->views[i].mr->next, l->views[i].with);
	/* the copy's loads, found by their place: the same walk over both */
	Op *copy = op_clone(m, loop);
	for (int i = 0; i < l->nloads; i++) {
		Op *x = loop->regions[0].first->first, *y = copy->regions[0].first->first;
		while (x != l->loads[i]) {
			x = x->next;
			y = y->next;
		}
		y->operands[0] = faceted_of(m, l, x->operands[0]->def)->with->results[0];
	}
	Value *ok = aligned_test(m, l);
	const Type **types = xmalloc(sizeof *types * (size_t)(loop->nresults + 1));
	for (int i = 0; i < loop->nresults; i++)
		types[i] = loop->results[i]->type;
	Op *iff = op_new(m, &op_table[CT_if], 1, &ok, loop->nresults, types, 2, loop->loc);
	free(types);
	op_set_attr(m, iff, "versioned_for_tma", attr_bool(m, true));   /* remarks.c says so */
	op_insert_before(loop, iff);
	Op *fn = op_toplevel(iff);
	for (int i = 0; i < loop->nresults; i++)
		replace_uses(fn, loop->results[i], iff->results[i]);
	op_remove(loop);
	Op *arm[2] = { copy, loop };
	for (int r = 0; r < 2; r++) {
		Block *b = region_add_block(m, &iff->regions[r], 0, NULL);
		block_append(b, arm[r]);
		Op *y = op_build(m, CT_yield, arm[r]->nresults, arm[r]->results, 0, NULL, loop->loc);
		block_append(b, y);
	}
}

typedef struct Walk {
	Module *m;
	int warps, sm;
	Loop *loops;
	int nloops, caploops;
} Walk;

static int find_loops(Op *op, void *ctx)
{
	Walk *w = ctx;
	if (op->info->code != CT_for || !op->nregions || !op->regions[0].first)
		return 0;
	Loop l = { .loop = op };
	Block *body = op->regions[0].first;
	FOR_EACH_OP(x, body) {
		if (!mma_is_product(x))
			continue;
		for (int k = 0; k < 2; k++) {
			bool tf32;
			Op *ld = mma_staged_load(x, k, &tf32);
			if (ld && ld->parent == body)
				consider(w->m, &l, ld, w->warps, w->sm);
		}
	}
	if (!l.nloads) {
		free(l.views);
		free(l.loads);
		return 0;
	}
	if (w->nloops == w->caploops) {
		w->caploops = w->caploops ? 2 * w->caploops : 4;
		w->loops = xrealloc(w->loops, sizeof *w->loops * (size_t)w->caploops);
	}
	w->loops[w->nloops++] = l;
	return 0;
}

int version_for_tma(Module *m, Op *fn, int warps, int sm)
{
	if (sm < 90 || knobs()->TILE_SCHED_NO_VERSION)
		return 0;
	Walk w = { .m = m, .warps = warps, .sm = sm };
	op_walk(fn, find_loops, &w);       /* found first, changed after: the walk sees no copies */
	for (int i = 0; i < w.nloops; i++) {
		version(m, &w.loops[i]);
		free(w.loops[i].views);
		free(w.loops[i].loads);
	}
	free(w.loops);
	return w.nloops;
}
