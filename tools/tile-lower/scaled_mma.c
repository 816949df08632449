/* scaled_mma.c: mmaf_scaled (block-scaled MMA, ops.md §2.11: x [.., M, K]
 * with scales x_scale [.., M, Ks], y [.., K, N] with y_scale [.., Ks, N];
 * operands in the op: x, y, acc, x_scale, y_scale;
 * blocks of B = K / Ks along K) as the ops the later stages have, the way
 * NVIDIA's 13.5 compiles it on sm_100 and sm_120 (measured 2026-11-24: the
 * 8-bit and scale elements decoded, multiplied in f32, an FMA product, no
 * tensor core):
 *
 *   xf = ftof(x) : f32;  sx = ftof(x_scale) : f32      (y alike)
 *   sx' = reshape sx to [.., M, Ks, 1], broadcast to [.., M, Ks, B],
 *         reshape to [.., M, K]                        (y: [.., Ks, 1, N])
 *   d  = mmaf(xf * sx', yf * sy', acc)                 f32 x f32: FMA
 *
 * A rank-3 (batched) result goes through batched_mma.c like any mmaf. The
 * types the target lacks (f8 below sm_89, f4E2M1FN / f8E8M0FNU below
 * sm_100) are refused later by to_as.c with NVIDIA's exit code. */
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"
#include "diag.h"

static Value *one(Module *m, Op *at, enum OpCode code, Value *x, const Type *t)
{
	Op *o = op_build(m, code, 1, &x, 1, &t, at->loc);
	if (code == CT_ftof)
		op_set_attr(m, o, "rounding_mode", attr_string(m, "nearest_even"));
	op_insert_before(at, o);
	return o->results[0];
}

static Value *mulf(Module *m, Op *at, Value *a, Value *b)
{
	Value *ops[2] = { a, b };
	Op *o = op_build(m, CT_mulf, 2, ops, 1, &a->type, at->loc);
	op_set_attr(m, o, "rounding_mode", attr_string(m, "nearest_even"));
	op_insert_before(at, o);
	return o->results[0];
}

/* the f32 scale of every element of a [.., R, C] operand whose scales are
 * blocks along dim kd (the K dim: C for x, R for y) */
static Value *expand(Module *m, Op *at, Value *scale, const Type *like, int kd)
{
	const Type *f32 = type_scalar(m, SC_F32);
	int r = like->rank;
	Value *s = one(m, at, CT_ftof, scale, type_tile(m, f32, r, scale->type->shape));
	int64_t ks = scale->type->shape[kd], blk = like->shape[kd] / ks;
	int64_t sh[8];
	for (int i = 0, j = 0; i < r; i++) {           /* unit dim right after kd */
		sh[j++] = scale->type->shape[i];
		if (i == kd)
			sh[j++] = 1;
	}
	s = one(m, at, CT_reshape, s, type_tile(m, f32, r + 1, sh));
	sh[kd + 1] = blk;
	s = one(m, at, CT_broadcast, s, type_tile(m, f32, r + 1, sh));
	return one(m, at, CT_reshape, s, type_tile(m, f32, r, like->shape));
}

bool lower_scaled_mma(Module *m, Op *fn, Op *op, int sm)
{
	/* operands (x, y, acc, x_scale, y_scale): verify_families.c's fam_mmaf_scaled */
	Value *x = op->operands[0], *y = op->operands[1], *acc = op->operands[2];
	Value *xs = op->operands[3], *ys = op->operands[4];
	int r = acc->type->rank;
	if (acc->type->elem->kind != TY_SCALAR || acc->type->elem->scalar != SC_F32 || r < 2 || r > 3) {
		diag_error(op->loc, "'%s' op: a %s accumulator is not supported (f32 of rank 2 or 3 is)",
			   op->info->name, acc->type->str);
		return false;
	}
	const Type *f32 = type_scalar(m, SC_F32);
	Value *xf = one(m, op, CT_ftof, x, type_tile(m, f32, r, x->type->shape));
	Value *yf = one(m, op, CT_ftof, y, type_tile(m, f32, r, y->type->shape));
	xf = mulf(m, op, xf, expand(m, op, xs, x->type, r - 1));
	yf = mulf(m, op, yf, expand(m, op, ys, y->type, r - 2));
	Value *ops[3] = { xf, yf, acc };
	Op *mm = op_build(m, CT_mmaf, 3, ops, 1, &acc->type, op->loc);
	op_insert_before(op, mm);
	replace_uses(fn, op->results[0], mm->results[0]);
	op_remove(op);
	if (r == 2) {
		lower_k_chunks(m, fn, mm, sm, NULL, 0, NULL);      /* FMA over K chunks: no spills */
		return true;
	}
	return lower_batched_mma(m, fn, mm, sm);
}
