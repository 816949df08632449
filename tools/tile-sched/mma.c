/* mma.c: the layouts of mmaf (docs/lowering.md "MMA"): the accumulator,
 * its result and everything in their class (the loop-carried accumulator,
 * its epilogue) take the mma.sync accumulator fragment layout. The A and B
 * operands: with 16-bit atoms on sm_75+ (mma_ldmatrix_ok) they keep their
 * own layouts and the mmaf gets the unit attribute `via_ldmatrix`: tile-ptx
 * stages them in shared memory (swizzled) and loads the fragments with
 * ldmatrix; otherwise they are converted into their fragment layouts
 * (nv_tileas.convert_layout, inserted after layouts are chosen). The tilings and
 * fragments are libcommon's (mma.h). An mmaf whose shapes have no tiling
 * keeps default layouts; tile-ptx then reports it unsupported. mmai the same.
 * On sm_90 a product that fits a warpgroup tiling (mma_choose: wgmma) gets
 * `via_wgmma` instead: A and B keep their layouts, tile-ptx stages both in
 * wgmma's swizzled K-major shared layout and multiplies with wgmma.
 * Calls only classes.c. */
#include <stdlib.h>
#include "sched_int.h"
#include "mma.h"
#include "opinfo.h"
#include "irutil.h"
#include "xalloc.h"
#include "target.h"

/* The tiling of an mmaf / mmai: its atom (libcommon/mma.h) for the
 * operand and accumulator types on the module's target. */
static int target_sm(F *f)
{
	const Attr *ta = module_attr(f->m, "target");
	const Target *tg = ta && ta->kind == AT_STRING ? target_by_name(ta->u.s) : NULL;
	return tg ? tg->sm : 80;
}

static bool tiling_of(F *f, const Op *op, MmaTiling *t)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	if (a->rank != 2 || b->rank != 2)
		return false;
	return mma_choose(tile_elem(a), tile_elem(c), a->shape[0], b->shape[1], a->shape[1], f->warps, target_sm(f), t,
			  NULL);
}

void mma_constrain(F *f, Op *op)
{
	unite(f, op->operands[2], op->results[0]);
	if (f->nmmas == f->capmmas) {
		f->capmmas = f->capmmas ? 2 * f->capmmas : 8;
		f->mmas = xrealloc(f->mmas, sizeof *f->mmas * (size_t)f->capmmas);
	}
	f->mmas[f->nmmas++] = op;
}

void mma_preassign(F *f)
{
	for (int i = 0; i < f->nmmas; i++) {
		MmaTiling t;
		int r = find(f, f->mmas[i]->results[0]->id);
		if (f->assigned[r] || !tiling_of(f, f->mmas[i], &t))
			continue;
		mma_layout_c(&t, &f->lay[r]);
		f->assigned[r] = true;
	}
}

void mma_fix(F *f)
{
	for (int i = 0; i < f->nmmas; i++) {
		Op *op = f->mmas[i];
		MmaTiling t;
		if (!tiling_of(f, op, &t))
			continue;
		if (t.wg) {
			op_set_attr(f->m, op, "via_wgmma", attr_bool(f->m, true));
			continue;
		}
		if (mma_ldmatrix_ok(t.atom, tile_elem(op->operands[0]->type), target_sm(f))) {
			op_set_attr(f->m, op, "via_ldmatrix", attr_bool(f->m, true));
			continue;
		}
		for (int k = 0; k < 2; k++) {
			Layout want;
			if (k == 0)
				mma_layout_a(&t, &want);
			else
				mma_layout_b(&t, &want);
			Value *src = op->operands[k];
			if (src->lay && layout_equal(src->lay, &want))
				continue;
			const Type *ty = src->type;
			Op *cv = op_build(f->m, AS_convert_layout, 1, &src, 1, &ty, op->loc);
			set_layout(f->m, cv->results[0], &want);
			op_insert_before(op, cv);
			op->operands[k] = cv->results[0];
		}
	}
	free(f->mmas);
}
