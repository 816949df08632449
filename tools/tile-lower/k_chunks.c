/* k_chunks.c: a rank-2 product whose whole K the later stages should not
 * take at once becomes a chain of products over K chunks, in ops the later
 * stages already have:
 *
 *   acc = mmaf(a[:, j*Kc : (j+1)*Kc], b[j*Kc : (j+1)*Kc, :], acc)   j = 0 .. K/Kc-1
 *
 * (mmai alike, its attributes kept; an mmaf_scaled with its scales cut the
 * same way, Kc/B of them a chunk). Each operand chunk is a load of the chunk
 * where the operand is a plain tiled_load (a clone with the chunk's `tile`
 * and its K index scaled), through an ftof that rounds it (tf32) if there is
 * one, else an `extract` of the operand. Cut are:
 *  - a product computed by FMA (no tensor core, as NVIDIA's tileiras does it:
 *    f32 x f32 -> f32, and any product smaller than its type's MMA atom;
 *    libcommon's mma_fma_product) over more than FMA_K_CHUNK elements of K:
 *    the FMA path holds a warp's whole operand fragments in registers (A: one
 *    value per row atom and K element), so a 32x32x64 product (mmaf_scaled's
 *    decoded operands) needed ~380 operand registers and spilled; a chunk of
 *    16 keeps what is live to 16 columns of A and rows of B (issue 15);
 *  - a product staged in shared memory (ldmatrix, wgmma, block-scaled
 *    mma.sync), or an mmaf_scaled decoded to f32 operands (scaled_mma.c),
 *    whose operands together are more than three quarters of the target's
 *    shared memory (libcommon mma_stage_limit: a 256x256x256 f16 product is
 *    256 KiB): chunks of the largest power of two of K whose operands fit
 *    mma_stage_budget, so tile-ptx stages one chunk at a time in one buffer
 *    (issue 41). An extract of a whole operand would move it through an
 *    exchange buffer as large as the operand: hence the chunk loads.
 * Products of 16 or fewer K elements are left as they are. */
#include <stdlib.h>
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"
#include "knobs.h"
#include "mma.h"

#define FMA_K_CHUNK 16
#define EXTRACT_MAX 8192     /* bytes of an operand a K loop may extract its chunks from */

/* K elements per scale of a block-scaled product (x_scale [M, K/B]); 1 for others */
static int64_t scale_block(const Op *op)
{
	if (op->info->code != CT_mmaf_scaled || op->noperands != 5 || op->operands[3]->type->rank != 2)
		return 1;
	int64_t ks = op->operands[3]->type->shape[1];
	return ks > 0 ? op->operands[0]->type->shape[1] / ks : 1;
}

static int count_products(Op *op, void *ctx)
{
	if (mma_is_product(op))
		++*(int *)ctx;
	return 0;
}

/* the K chunk for product op on sm, or 0 to leave it whole */
static int64_t k_chunk(const Op *op, int sm)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1], blk = scale_block(op);
	bool scaled = op->info->code == CT_mmaf_scaled;
	if (!scaled && mma_fma_product(a->elem, c->elem, m, n, k, sm))
		return knobs()->TILE_LOWER_NO_FMA_CHUNKS ? 0 : FMA_K_CHUNK;
	/* a block-scaled product decoded to an f32 FMA product (scaled_mma.c):
	 * chunks of one scale block (at least 16), the FMA's own chunk */
	if (scaled && !mma_block_scaled_ok(op, sm) && !knobs()->TILE_LOWER_NO_FMA_CHUNKS) {
		int64_t least = blk > FMA_K_CHUNK ? blk : FMA_K_CHUNK;
		if (k > least && k % least == 0)
			return least;
	}
	/* staged operands, or a block-scaled product's decoded f32 ones (scaled_mma.c) */
	int eb = scaled && !mma_block_scaled_ok(op, sm) ? 4 : elem_bytes(a->elem) ? elem_bytes(a->elem) : 1;
	/* a quarter of the target's shared memory left to the kernel's other
	 * buffers (exchange, scratch, barriers: 4 KiB beside a 96 KiB block-scaled
	 * staging on sm_120 in cuTile's scaled matmul) */
	if ((m + n) * k * eb <= mma_stage_limit(sm) / 4 * 3)
		return 0;
	/* one of several products of a loop (attention's S = Q K^T and P V) whose
	 * operands fit the target whole: cut, its chunks would be pipelined
	 * beside the others in regions of their own (cuTile's AttentionFMHA at
	 * 256x128 tiles on sm_120: 118,800 bytes, past 99 KiB; whole, it fits) */
	Op *outer = op_parent_op(op);
	if (outer && (outer->info->code == CT_for || outer->info->code == CT_loop) &&
	    (m + n) * k * eb <= mma_stage_limit(sm)) {
		int products = 0;
		op_walk(outer, count_products, &products);
		if (products > 1)
			return 0;
	}
	int64_t least = blk > FMA_K_CHUNK ? blk : FMA_K_CHUNK, kc = k;
	while (kc > least && (m + n) * kc * eb > mma_stage_budget(sm))
		kc /= 2;
	return kc % blk ? 0 : kc;
}

/* index i * scale + j (rank-0 i32 tiles; j a constant, or the loop's
 * counter when jv is given), before `at` */
static Value *scaled_index(Module *m, Op *at, Value *i, int64_t scale, int64_t j, Value *jv)
{
	const Type *t = i->type;
	Op *cs = const_int_op(m, t, scale, at->loc);
	op_insert_before(at, cs);
	if (!jv) {
		Op *cj = const_int_op(m, t, j, at->loc);
		op_insert_before(at, cj);
		jv = cj->results[0];
	}
	Op *mo = int_arith_op(m, CT_muli, i, cs->results[0], at->loc);
	op_insert_before(at, mo);
	Op *ao = int_arith_op(m, CT_addi, mo->results[0], jv, at->loc);
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
static Value *load_chunk(Module *m, Op *at, Op *ld, int kd, int64_t kc, int64_t j, Value *jv)
{
	const Type *t = ld->results[0]->type;
	int64_t shape[2] = { t->shape[0], t->shape[1] };
	shape[kd] = kc;
	Op *c = op_clone(m, ld);
	c->operands[1 + kd] = scaled_index(m, at, ld->operands[1 + kd], t->shape[kd] / kc, j, jv);
	c->results[0]->type = type_tile(m, t->elem, 2, shape);
	op_set_attr(m, c, "tile", attr_ints(m, 2, shape));
	op_insert_before(at, c);
	return c->results[0];
}

/* the conversion (ftof: a tf32 operand's rounding) that makes v from a
 * value it alone reads, or NULL */
static Op *conversion_of(const Value *v)
{
	Op *d = v->def;
	return d && d->info->code == CT_ftof && d->noperands == 1 && d->nresults == 1 && d->results[0] == v ? d : NULL;
}

/* chunk j of kc (along dim kd) of operand v of product op: a load of the
 * chunk where v is a plain tiled_load (ld, chunk_load) or its conversion
 * (cv: converted a chunk at a time too), else an extract */
static Value *operand_chunk(Module *m, Op *op, Value *v, Op *ld, Op *cv, int kd, int64_t kc, int64_t j, Value *jv)
{
	if (ld) {
		Value *chunk = load_chunk(m, op, ld, kd, kc, j, jv);
		if (!cv)
			return chunk;
		Op *c = op_clone(m, cv);
		c->operands[0] = chunk;
		c->results[0]->type = type_tile(m, v->type->elem, 2, chunk->type->shape);
		op_insert_before(op, c);
		return c->results[0];
	}
	const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
	Op *z = const_int_op(m, i32, 0, op->loc);
	op_insert_before(op, z);
	if (!jv) {
		Op *jc = const_int_op(m, i32, j, op->loc);
		op_insert_before(op, jc);
		jv = jc->results[0];
	}
	int64_t shape[2] = { v->type->shape[0], v->type->shape[1] };
	shape[kd] = kc;
	Value *idx[3] = { v, kd ? z->results[0] : jv, kd ? jv : z->results[0] };
	return lower_emit1(m, op, CT_extract, 3, idx, type_tile(m, v->type->elem, 2, shape));
}

Op *lower_k_chunks(Module *m, Op *fn, Op *op, int sm, Op **out, int cap, int *nout)
{
	bool scaled = op->info->code == CT_mmaf_scaled;
	int nparts = scaled ? 5 : 3;
	int64_t k = op->operands[0]->type->rank == 2 ? op->operands[0]->type->shape[1] : 0;
	bool rank2 = true;
	for (int i = 0; i < nparts && i < op->noperands; i++)
		rank2 &= op->operands[i]->type->rank == 2;
	int64_t kc = (op->info->code == CT_mmaf || op->info->code == CT_mmai || (scaled && op->noperands == 5)) &&
			     rank2 && k > FMA_K_CHUNK ? k_chunk(op, sm) : 0;
	if (!kc || kc >= k || k % kc || (out && k / kc > cap)) {
		if (out && cap > 0)
			out[0] = op;
		if (nout)
			*nout = 1;
		return op;
	}
	/* operands cut along K: A (x) along its columns, B (y) along its rows; a
	 * block-scaled product's scales alike, kc / B of them a chunk. Each loaded
	 * a chunk at a time where it is loaded (no copy of the whole tile through
	 * shared memory, which would be as large as what the chunks avoid) */
	static const struct { int opnd, kd; } cut[4] = { { 0, 1 }, { 1, 0 }, { 3, 1 }, { 4, 0 } };
	int ncut = scaled ? 4 : 2;
	int64_t blk = scale_block(op);
	Op *lds[4], *cvs[4];
	int64_t w[4];      /* each cut operand's chunk width along K: kc, scales kc / B */
	for (int i = 0; i < ncut; i++) {
		w[i] = i < 2 ? kc : kc / blk;
		Value *v = op->operands[cut[i].opnd];
		cvs[i] = conversion_of(v);
		lds[i] = chunk_load(cvs[i] ? cvs[i]->operands[0] : v, cut[i].kd, w[i]);
	}
	Value *acc = op->operands[2];
	Op *p = op, *ret = NULL;
	/* a loop when both operands load their own chunks, and a block-scaled
	 * product's scales do too or are small enough to extract from: an
	 * extract at the loop's counter moves its whole operand through an
	 * exchange buffer once an iteration (at a constant index, a register
	 * subset costs nothing: the chain below) */
	bool rolled = !knobs()->TILE_LOWER_NO_K_LOOP;
	for (int i = 0; i < ncut; i++) {
		const Type *t = op->operands[cut[i].opnd]->type;
		rolled &= lds[i] != NULL ||
			  (i >= 2 && type_num_elements(t) * (elem_bytes(t->elem) ? elem_bytes(t->elem) : 1) <= EXTRACT_MAX);
	}
	int64_t nparts_made = rolled ? 1 : k / kc;
	if (rolled) {
		/* every operand loads its own chunks: one loop over them, so the code
		 * is one chunk's whatever K is */
		const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
		Op *k0 = const_int_op(m, i32, 0, op->loc), *kn = const_int_op(m, i32, k / kc, op->loc);
		Op *k1 = const_int_op(m, i32, 1, op->loc);
		op_insert_before(op, k0);
		op_insert_before(op, kn);
		op_insert_before(op, k1);
		Value *fops[4] = { k0->results[0], kn->results[0], k1->results[0], acc };
		Op *loop = op_new(m, &op_table[CT_for], 4, fops, 1, &acc->type, 1, op->loc);
		const Type *bt[2] = { i32, acc->type };
		Block *body = region_add_block(m, &loop->regions[0], 2, bt);
		Op *cont = op_build(m, CT_continue, 1, &body->args[1], 0, NULL, op->loc);
		block_append(body, cont);
		op_insert_before(op, loop);
		Value *ops[5] = { NULL, NULL, body->args[1], NULL, NULL };
		for (int i = 0; i < ncut; i++)
			ops[cut[i].opnd] = operand_chunk(m, cont, op->operands[cut[i].opnd], lds[i], cvs[i], cut[i].kd, w[i], 0,
							 body->args[0]);
		p = lower_product_at(m, op, cont, ops, nparts);
		cont->operands[0] = p->results[0];
		if (out)
			out[0] = p;
		acc = loop->results[0];
		ret = loop;
	} else
		for (int64_t j = 0; j < k / kc; j++) {
			Value *ops[5] = { NULL, NULL, acc, NULL, NULL };
			for (int i = 0; i < ncut; i++)
				ops[cut[i].opnd] = operand_chunk(m, op, op->operands[cut[i].opnd], lds[i], cvs[i], cut[i].kd, w[i], j,
								 NULL);
			p = lower_product_like(m, op, ops, nparts);
			if (out)
				out[j] = p;
			acc = p->results[0];
		}
	replace_uses(fn, op->results[0], acc);
	op_remove(op);
	/* the whole-tile loads (and conversions) the chunks replace, where nothing else reads them */
	for (int i = 0; i < ncut; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= lds[j] == lds[i] || (cvs[i] && cvs[j] == cvs[i]);
		if (seen || !lds[i])
			continue;
		if (cvs[i] && !has_uses(fn, cvs[i]->results[0]))
			op_remove(cvs[i]);
		if (!has_uses(fn, lds[i]->results[0]) && !has_uses(fn, lds[i]->results[1]))
			op_remove(lds[i]);
	}
	if (nout)
		*nout = (int)nparts_made;
	return ret ? ret : p;
}
