/* fma_mma.c: an f32 x f32 -> f32 mmaf (no tensor core: FMA, as NVIDIA's
 * tileiras does it; libcommon's mma_atom_for) over more than FMA_K_CHUNK
 * elements of K becomes a chain of products over K chunks, in ops the later
 * stages already have:
 *
 *   acc = mmaf(extract a[0, j] : M x 16, extract b[j, 0] : 16 x N, acc)   j = 0 .. K/16-1
 *
 * The FMA path holds a warp's whole operand fragments in registers (A: one
 * value per row atom and K element), so a 32x32x64 product (mmaf_scaled's
 * decoded operands) needed ~380 operand registers and spilled; a chunk of 16
 * keeps what is live to 16 columns of A and rows of B (issue 15: no spills).
 * Products of 16 or fewer K elements are left as they are. */
#include <stdlib.h>
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"

#define FMA_K_CHUNK 16

static bool is_f32(const Type *t)
{
	return t->elem && t->elem->kind == TY_SCALAR && t->elem->scalar == SC_F32;
}

Value *lower_fma_chunks(Module *m, Op *fn, Op *op)
{
	Value *a = op->operands[0], *b = op->operands[1], *c = op->operands[2];
	int64_t k = a->type->rank == 2 ? a->type->shape[1] : 0;
	if (op->info->code != CT_mmaf || a->type->rank != 2 || !is_f32(a->type) || !is_f32(b->type) || !is_f32(c->type) ||
	    k <= FMA_K_CHUNK || k % FMA_K_CHUNK || getenv("TILE_LOWER_NO_FMA_CHUNKS"))
		return op->results[0];
	const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
	Op *z = const_int_op(m, i32, 0, op->loc);
	op_insert_before(op, z);
	int64_t sa[2] = { a->type->shape[0], FMA_K_CHUNK }, sb[2] = { FMA_K_CHUNK, b->type->shape[1] };
	const Type *ta = type_tile(m, a->type->elem, 2, sa), *tb = type_tile(m, b->type->elem, 2, sb);
	Value *acc = c;
	for (int64_t j = 0; j < k / FMA_K_CHUNK; j++) {
		Op *jc = const_int_op(m, i32, j, op->loc);
		op_insert_before(op, jc);
		Value *oa[3] = { a, z->results[0], jc->results[0] }, *ob[3] = { b, jc->results[0], z->results[0] };
		Value *ops[3] = { lower_emit1(m, op, CT_extract, 3, oa, ta), lower_emit1(m, op, CT_extract, 3, ob, tb), acc };
		acc = lower_product_like(m, op, ops)->results[0];
	}
	replace_uses(fn, op->results[0], acc);
	op_remove(op);
	return acc;
}
