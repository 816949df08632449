/* build.c: what tile-lower's rewrites of a product (batched_mma.c,
 * k_chunks.c) share, under both: one new op inserted before another, its
 * location that one's. lower_emit1: an op of one result; lower_product_at /
 * lower_product_like: a product with op's code and attributes on other
 * operands, before `at` / before op. Calls only libcommon. */
#include "lower.h"
#include "irutil.h"

Value *lower_emit1(Module *m, Op *at, enum OpCode code, int n, Value **ops, const Type *t)
{
	Op *o = op_build(m, code, n, ops, 1, &t, at->loc);
	op_insert_before(at, o);
	return o->results[0];
}

Op *lower_product_at(Module *m, Op *op, Op *at, Value *const *ops, int n)
{
	Op *mm = op_build(m, (enum OpCode)op->info->code, n, (Value **)ops, 1, (const Type *[]){ ops[2]->type }, op->loc);
	for (int i = 0; i < op->nattrs; i++)
		op_set_attr(m, mm, op->attrs[i].name, op->attrs[i].attr);
	op_insert_before(at, mm);
	return mm;
}

Op *lower_product_like(Module *m, Op *op, Value *const *ops, int n)
{
	return lower_product_at(m, op, op, ops, n);
}
