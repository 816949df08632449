/* batched_mma.c: a batched mmaf / mmai (rank-3 operands [Bt, M, K] x
 * [Bt, K, N] + [Bt, M, N], ops.md §2.11) becomes Bt ordinary rank-2
 * products, in cuda_tile ops the later stages already have:
 *
 *   a_b = reshape(extract a[b, 0, 0] : 1xMxK) : MxK     (b, c alike)
 *   d_b = mmaf(a_b, b_b, c_b)                         the op's attributes
 *   d   = cat(reshape(d_0) : 1xMxN, ..., dim 0)       a balanced tree of cats
 *
 * so tile-sched lays each product out like any other (the accumulator of
 * each gets the MMA fragment layout, extract / reshape / cat become register
 * moves or layout conversions) and tile-ptx emits Bt x the instructions of
 * one product. A batch of one is just the reshapes. */
#include <stdlib.h>
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"
#include "diag.h"
#include "xalloc.h"

/* slice b of a rank-3 tile as a rank-2 one */
static Value *slice(Module *m, Op *at, Value *v, int64_t b, Value *const idx[3])
{
	const Type *t = v->type;
	int64_t one[3] = { 1, t->shape[1], t->shape[2] };
	Value *ops[4] = { v, idx[0], idx[1], idx[2] };
	(void)b;
	/* a batch of one is the tile itself: no extract, so the operand's load
	 * stays in sight of the product's staging (a batched product's copies
	 * by TMA, mma_staged_load) */
	Value *x = t->shape[0] == 1 ? v : lower_emit1(m, at, CT_extract, 4, ops, type_tile(m, t->elem, 3, one));
	return lower_emit1(m, at, CT_reshape, 1, &x, type_tile(m, t->elem, 2, one + 1));
}

/* cat of parts [lo, hi) along dim 0 (hi - lo a power of two) */
static Value *cat_tree(Module *m, Op *at, Value **parts, int lo, int hi)
{
	if (hi - lo == 1)
		return parts[lo];
	int mid = lo + (hi - lo) / 2;
	Value *ops[2] = { cat_tree(m, at, parts, lo, mid), cat_tree(m, at, parts, mid, hi) };
	const Type *t = ops[0]->type;
	int64_t shape[3] = { t->shape[0] + ops[1]->type->shape[0], t->shape[1], t->shape[2] };
	Op *o = op_build(m, CT_cat, 2, ops, 1, (const Type *[]){ type_tile(m, t->elem, 3, shape) }, at->loc);
	op_set_attr(m, o, "dim", attr_int(m, 0, NULL));
	op_insert_before(at, o);
	return o->results[0];
}

bool lower_batched_mma(Module *m, Op *fn, Op *op, int sm)
{
	Value *a = op->operands[0], *bm = op->operands[1], *c = op->operands[2];
	int64_t bt = c->type->shape[0];
	if (bt < 1 || (bt & (bt - 1)) || bt > 256) {
		diag_error(op->loc, "'%s' op: a batch of %lld products is not supported (a power of two up to 256 is)",
			   op->info->name, (long long)bt);
		return false;
	}
	const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
	Value *zero = NULL;
	Value **parts = xcalloc((size_t)bt, sizeof *parts);
	for (int64_t b = 0; b < bt; b++) {
		Op *k = const_int_op(m, i32, b, op->loc);
		op_insert_before(op, k);
		if (!zero) {
			Op *z = const_int_op(m, i32, 0, op->loc);
			op_insert_before(op, z);
			zero = z->results[0];
		}
		Value *idx[3] = { k->results[0], zero, zero };
		Value *ops[3] = { slice(m, op, a, b, idx), slice(m, op, bm, b, idx), slice(m, op, c, b, idx) };
		Op *mm = lower_product_like(m, op, ops, 3);
		int64_t one[3] = { 1, c->type->shape[1], c->type->shape[2] };
		Value *d = lower_k_chunks(m, fn, mm, sm, NULL, 0, NULL)->results[0];     /* FMA or too large: K chunks */
		parts[b] = lower_emit1(m, op, CT_reshape, 1, &d, type_tile(m, c->type->elem, 3, one));
	}
	Value *r = cat_tree(m, op, parts, 0, (int)bt);
	free(parts);
	replace_uses(fn, op->results[0], r);
	op_remove(op);
	return true;
}
