/* util_index.c: how the i32 operands of a tiled access widen to the i64
 * of its address arithmetic (utility layer, emit.h; docs/lowering.md §5
 * "Index arithmetic").
 *
 * NVIDIA's tileiras 13.5 computes a tiled access in 64 bits from
 * zero-extended i32 values: tile index, size and stride alike (its PTX:
 * `cvt.u64.u32`, `mul.wide.u32`, `mul.lo.s64`, `setp.ge.u64`), so an
 * element offset past 2^31 is exact and a negative i32 tile index reads
 * as a huge unsigned one, whose tile is out of bounds (padding, no
 * access). tile_index_i64 is that widening for a tile index. A size or
 * stride is zero-extended (flagged nneg) where an `assume bounded<lb, ...>`
 * with lb >= 0 or a non-negative constant says it cannot be negative (what
 * every cuTile export says): the same value as a sign extension, but
 * LLVM then knows the high half is zero and ptxas computes one 32x32->64
 * product instead of a 64x64 one (vector_add 18 -> 11 registers on sm_90).
 * Without such a fact it is sign-extended, as before. i64 operands are
 * used as they are. */
#include "emit.h"
#include "irutil.h"

static LLVMValueRef zext_nneg(E *e, LLVMValueRef x)
{
	LLVMValueRef z = LLVMBuildZExt(e->b, x, ty_i64(e), "");
	if (LLVMIsAInstruction(z))
		LLVMSetNNeg(z, 1);
	return z;
}

/* v cannot be negative: a non-negative constant, or an assume chain with a
 * lower bound >= 0 */
static bool known_nonneg(const Value *v)
{
	for (;;) {
		int64_t k;
		if (value_const_int(v, &k))
			return k >= 0;
		if (!v->def || v->def->info->code != CT_assume || v->def->noperands != 1)
			return false;
		const Attr *p = op_attr(v->def, "predicate");
		if (p && p->kind == AT_BOUNDED && p->u.bounded.has_lb && p->u.bounded.lb >= 0)
			return true;
		v = v->def->operands[0];
	}
}

LLVMValueRef tile_index_i64(E *e, const Value *v)
{
	LLVMValueRef x = scalar(e, v);
	if (LLVMGetIntTypeWidth(LLVMTypeOf(x)) == 64)
		return x;
	return LLVMBuildZExt(e->b, x, ty_i64(e), "");
}

LLVMValueRef extent_i64(E *e, const Value *v)
{
	LLVMValueRef x = scalar(e, v);
	if (LLVMGetIntTypeWidth(LLVMTypeOf(x)) == 64)
		return x;
	return known_nonneg(v) ? zext_nneg(e, x) : as_i64(e, x);
}
