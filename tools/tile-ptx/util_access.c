/* util_access.c: predicated loads and stores with an ordering (utility
 * layer, emit.h). A predicate guards an access with a branch around it (a
 * load then gives `otherwise` where the predicate is false); an ordering
 * other than weak makes the access atomic with that ordering and scope. */
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
