/* k_chunks.c: a rank-2 product whose whole K the later stages should not
 * take at once becomes a chain of products over K chunks, in ops the later
 * stages already have:
 *
 *   acc = mmaf(extract a[0, j] : M x Kc, extract b[j, 0] : Kc x N, acc)   j = 0 .. K/Kc-1
 *
 * (mmai alike, its attributes kept). Two kinds of product are cut:
 *  - one computed by FMA (no tensor core, as NVIDIA's tileiras does it: f32 x
 *    f32 -> f32, and any product smaller than its type's MMA atom; libcommon's
 *    mma_fma_product) over more than FMA_K_CHUNK elements of K: the FMA path
 *    holds a warp's whole operand fragments in registers (A: one value per row
 *    atom and K element), so a 32x32x64 product (mmaf_scaled's decoded
 *    operands) needed ~380 operand registers and spilled; a chunk of 16 keeps
 *    what is live to 16 columns of A and rows of B (issue 15: no spills);
 *  - one staged in shared memory (ldmatrix, wgmma) whose operands together
 *    are more than the target's shared memory (libcommon mma_stage_limit: a
 *    256x256x256 f16 product is 256 KiB): chunks of the largest power of two
 *    of K whose staging fits mma_stage_budget, so tile-ptx stages one
 *    chunk at a time in one buffer (issue 41).
 * Products of 16 or fewer K elements are left as they are. */
#include <stdlib.h>
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"
#include "mma.h"

#define FMA_K_CHUNK 16

/* the K chunk for product op on sm, or 0 to leave it whole */
static int64_t k_chunk(const Op *op, int sm)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
	if (mma_fma_product(a->elem, c->elem, m, n, k, sm))
		return getenv("TILE_LOWER_NO_FMA_CHUNKS") ? 0 : FMA_K_CHUNK;
	int eb = elem_bytes(a->elem) ? elem_bytes(a->elem) : 1;
	if ((m + n) * k * eb <= mma_stage_limit(sm))
		return 0;
	int64_t kc = k;
	while (kc > FMA_K_CHUNK && (m + n) * kc * eb > mma_stage_budget(sm))
		kc /= 2;
	return kc;
}

/* index i * scale + j (rank-0 i32 tiles), before `at` */
static Value *scaled_index(Module *m, Op *at, Value *i, int64_t scale, int64_t j)
{
	const Type *t = i->type;
	Op *cs = const_int_op(m, t, scale, at->loc), *cj = const_int_op(m, t, j, at->loc);
	op_insert_before(at, cs);
	op_insert_before(at, cj);
	Value *mul[2] = { i, cs->results[0] };
	Op *mo = op_build(m, CT_muli, 2, mul, 1, &t, at->loc);
	op_set_attr(m, mo, "overflow", attr_string(m, "none"));
	op_insert_before(at, mo);
	Value *add[2] = { mo->results[0], cj->results[0] };
	Op *ao = op_build(m, CT_addi, 2, add, 1, &t, at->loc);
	op_set_attr(m, ao, "overflow", attr_string(m, "none"));
	op_insert_before(at, ao);
	return ao->results[0];
}

/* The plain rank-2 tiled_load that makes operand v, whose chunks of kc
 * along dim kd a load of its own can read (its vector stays inside a
 * chunk); else NULL */
static Op *chunk_load(const Value *v, int kd, int64_t kc)
{
	Op *ld = v->def;
	if (!ld || (ld->info->code != AA_tiled_load && ld->info->code != AS_tiled_load) || ld->results[0] != v || v->type->rank != 2)
		return NULL;
	const Attr *seg = op_attr(ld, "operand_segment_sizes");
	int eb = elem_bytes(v->type->elem);
	if (!seg || seg->kind != AT_INTS || seg->u.ints.n < 2 || seg->u.ints.v[0] != 1 || seg->u.ints.v[1] != 2 ||
	    eb < 1 || (kd == 1 && op_attr_int(ld, "vector_bytes", 16) > kc * eb))
		return NULL;
	return ld;
}

/* Chunk j (of kc along dim kd) of tiled_load ld: the same load of a kc-wide
 * tile at index idx[kd] * (K / kc) + j */
static Value *load_chunk(Module *m, Op *at, Op *ld, int kd, int64_t kc, int64_t j)
{
	const Type *t = ld->results[0]->type;
	int64_t shape[2] = { t->shape[0], t->shape[1] };
	shape[kd] = kc;
	Op *c = op_clone(m, ld);
	c->operands[1 + kd] = scaled_index(m, at, ld->operands[1 + kd], t->shape[kd] / kc, j);
	c->results[0]->type = type_tile(m, t->elem, 2, shape);
	op_set_attr(m, c, "tile", attr_ints(m, 2, shape));
	op_insert_before(at, c);
	return c->results[0];
}

Value *lower_k_chunks(Module *m, Op *fn, Op *op, int sm)
{
	Value *a = op->operands[0], *b = op->operands[1], *c = op->operands[2];
	int64_t k = a->type->rank == 2 ? a->type->shape[1] : 0;
	if ((op->info->code != CT_mmaf && op->info->code != CT_mmai) || a->type->rank != 2 || k <= FMA_K_CHUNK)
		return op->results[0];
	int64_t kc = k_chunk(op, sm);
	if (!kc || kc >= k || k % kc)
		return op->results[0];
	const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
	Op *z = const_int_op(m, i32, 0, op->loc);
	op_insert_before(op, z);
	int64_t sa[2] = { a->type->shape[0], kc }, sb[2] = { kc, b->type->shape[1] };
	const Type *ta = type_tile(m, a->type->elem, 2, sa), *tb = type_tile(m, b->type->elem, 2, sb);
	/* a staged product's chunks: each operand loaded a chunk at a time where
	 * it is loaded (no copy of the whole tile through shared memory, which
	 * would be as large as what the chunks avoid) */
	bool fma = mma_fma_product(a->type->elem, c->type->elem, a->type->shape[0], b->type->shape[1], k, sm);
	Op *la = fma ? NULL : chunk_load(a, 1, kc), *lb = fma ? NULL : chunk_load(b, 0, kc);
	Value *acc = c;
	for (int64_t j = 0; j < k / kc; j++) {
		Op *jc = const_int_op(m, i32, j, op->loc);
		op_insert_before(op, jc);
		Value *oa[3] = { a, z->results[0], jc->results[0] }, *ob[3] = { b, jc->results[0], z->results[0] };
		Value *ops[3] = { la ? load_chunk(m, op, la, 1, kc, j) : lower_emit1(m, op, CT_extract, 3, oa, ta),
				  lb ? load_chunk(m, op, lb, 0, kc, j) : lower_emit1(m, op, CT_extract, 3, ob, tb), acc };
		acc = lower_product_like(m, op, ops)->results[0];
	}
	replace_uses(fn, op->results[0], acc);
	op_remove(op);
	/* the whole-tile loads the chunks replace, where nothing else reads them */
	for (int i = 0; i < 2; i++) {
		Op *ld = i ? lb : la;
		if (ld && (i == 0 || lb != la) && !has_uses(fn, ld->results[0]) && !has_uses(fn, ld->results[1]))
			op_remove(ld);
	}
	return acc;
}
