/* util_access.c: predicated loads and stores with an ordering (utility
 * layer, emit.h). A predicate guards an access with a branch around it (a
 * load then gives `otherwise` where the predicate is false); an ordering
 * other than weak makes the access atomic with that ordering and scope.
 * Weak 16-bit loads can go in pairs, two elements in one i32 that the
 * guards' phis merge (guarded_load_half). */
#include "emit.h"

const Order order_weak = { LLVMAtomicOrderingNotAtomic, false, 0 };

static void set_order(LLVMValueRef inst, const Order *o)
{
	if (o->ord == LLVMAtomicOrderingNotAtomic)
		return;
	LLVMSetOrdering(inst, o->ord);
	if (o->scoped)
		LLVMSetAtomicSyncScopeID(inst, o->scope);
}

LLVMValueRef and_pred(E *e, LLVMValueRef a, LLVMValueRef b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return LLVMBuildAnd(e->b, a, b, "");
}

LLVMValueRef guarded_load(E *e, LLVMTypeRef t, LLVMValueRef p, unsigned align, LLVMValueRef pred,
			  LLVMValueRef otherwise, const Order *o)
{
	if (!pred) {
		LLVMValueRef x = LLVMBuildLoad2(e->b, t, p, "");
		LLVMSetAlignment(x, align);
		set_order(x, o);
		return x;
	}
	LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ld");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ld.join");
	LLVMBuildCondBr(e->b, pred, ld, join);
	LLVMPositionBuilderAtEnd(e->b, ld);
	LLVMValueRef x = LLVMBuildLoad2(e->b, t, p, "");
	LLVMSetAlignment(x, align);
	set_order(x, o);
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
	LLVMValueRef phi = LLVMBuildPhi(e->b, t, "");
	LLVMValueRef vals[2] = { otherwise, x };
	LLVMBasicBlockRef bbs[2] = { from, ld };
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

LLVMBasicBlockRef guard_begin(E *e, LLVMValueRef pred)
{
	if (!pred)
		return NULL;
	LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "guard");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "guard.join");
	LLVMBuildCondBr(e->b, pred, then, join);
	LLVMPositionBuilderAtEnd(e->b, then);
	return join;
}

void guard_end(E *e, LLVMBasicBlockRef join)
{
	if (!join)
		return;
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
}

void guarded_store(E *e, LLVMValueRef v, LLVMValueRef p, unsigned align, LLVMValueRef pred, const Order *o)
{
	LLVMBasicBlockRef join = guard_begin(e, pred);
	LLVMValueRef st = LLVMBuildStore(e->b, v, p);
	LLVMSetAlignment(st, align);
	set_order(st, o);
	guard_end(e, join);
}

/* The pairs of 16-bit loads (issue 17). A thread's 16-bit elements each
 * took a 32-bit register from their load to their last use (ptxas does not
 * pack independent 16-bit values), so a 4096-wide row of bf16 held 32
 * registers where NVIDIA's PTX holds 16: its masked loads merge two
 * elements into one b32 (`mov.b32 %r, {%rs_lo, %rs_hi}`) and its phis are
 * on that b32. Here the same: each guard's phi is on the pair's i32, and
 * the halves are read out after both loads, so LLVM keeps the pair packed
 * (relu_squared_fwd 48 -> 34 registers on sm_90, swiglu_fwd 80 -> 56). */
static LLVMValueRef as_i16(E *e, LLVMValueRef x)
{
	return LLVMBuildBitCast(e->b, x, LLVMInt16TypeInContext(e->ctx), "");
}

LLVMValueRef pair16_splat(E *e, LLVMValueRef otherwise)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
	LLVMValueRef w = LLVMBuildZExt(e->b, as_i16(e, otherwise), i32, "");
	return LLVMBuildOr(e->b, w, LLVMBuildShl(e->b, w, LLVMConstInt(i32, 16, 0), ""), "");
}

LLVMValueRef guarded_load_half(E *e, LLVMValueRef pair, int half, LLVMTypeRef t, LLVMValueRef p, unsigned align,
			       LLVMValueRef pred)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
	LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef join = guard_begin(e, pred);
	LLVMValueRef x = LLVMBuildLoad2(e->b, t, p, "");
	LLVMSetAlignment(x, align);
	LLVMValueRef w = LLVMBuildZExt(e->b, as_i16(e, x), i32, "");
	if (half)
		w = LLVMBuildShl(e->b, w, LLVMConstInt(i32, 16, 0), "");
	LLVMValueRef kept = LLVMBuildAnd(e->b, pair, LLVMConstInt(i32, half ? 0xffffu : 0xffff0000u, 0), "");
	LLVMValueRef loaded = LLVMBuildOr(e->b, kept, w, "");
	if (!join)
		return loaded;
	LLVMBasicBlockRef ld = LLVMGetInsertBlock(e->b);
	guard_end(e, join);
	LLVMValueRef phi = LLVMBuildPhi(e->b, i32, "");
	LLVMValueRef vals[2] = { pair, loaded };
	LLVMBasicBlockRef bbs[2] = { from, ld };
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

LLVMValueRef pair16_half(E *e, LLVMValueRef pair, int half, LLVMTypeRef t)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
	if (half)
		pair = LLVMBuildLShr(e->b, pair, LLVMConstInt(i32, 16, 0), "");
	return LLVMBuildBitCast(e->b, LLVMBuildTrunc(e->b, pair, LLVMInt16TypeInContext(e->ctx), ""), t, "");
}
