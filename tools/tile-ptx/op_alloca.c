/* op_alloca.c: alloca (op family; docs/lowering.md §9): scratch memory for
 * the tile block from the device heap, as NVIDIA's tileiras does: thread 0
 * calls the aligned-malloc system call (a null result traps), the pointer
 * is broadcast through shared memory. The allocation belongs to the region
 * it is made in, which frees it when left (util_region.c), so an alloca in
 * a loop body is a malloc and a free per iteration (NVIDIA's too). The
 * `global` flag makes no difference: the heap is global memory either
 * way. */
#include "emit.h"
#include "families.h"
#include "irutil.h"

void emit_alloca(E *e, Op *op)
{
	const Value *res = op->results[0];
	const Type *pt = res->type->elem;
	TV *t = tv_new(e, res);
	set(e, res, t);
	for (int k = 0; k < t->n; k++)
		t->r[k] = LLVMGetPoison(elem_ty(e, pt));
	int64_t eb = pt->kind == TY_PTR ? elem_bytes(pt->elem) : 1;
	int64_t bytes = op_attr_int(op, "num_elem", 1) * (eb ? eb : 1);
	int64_t align = op_attr_int(op, "alignment", 0);
	if (align <= 16)
		align = 16;
	LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "alloca");
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "alloca.null");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "alloca.join");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
	LLVMBuildCondBr(e->b, thread0(e), doit, join);
	LLVMPositionBuilderAtEnd(e->b, doit);
	LLVMTypeRef ps[2] = { ty_i64(e), ty_i64(e) };
	LLVMValueRef mf = declared(e, "__cuda_syscall_aligned_malloc", ty_genptr(e), ps, 2);
	LLVMValueRef args[2] = { c_i64(e, bytes ? bytes : 1), c_i64(e, align) };
	LLVMValueRef p = call(e, mf, args, 2);
	LLVMValueRef g = LLVMBuildAddrSpaceCast(e->b, p, LLVMPointerTypeInContext(e->ctx, 1), "");
	LLVMBuildCondBr(e->b, LLVMBuildIsNull(e->b, p, ""), fail, join);
	LLVMPositionBuilderAtEnd(e->b, fail);
	call_intr(e, "llvm.trap", NULL, NULL, 0);
	LLVMBuildUnreachable(e->b);
	LLVMPositionBuilderAtEnd(e->b, join);
	LLVMValueRef phi = phi2(e, LLVMGetPoison(LLVMTypeOf(g)), from, g, doit);
	for (int k = 0; k < t->n; k++)
		t->r[k] = layout_reg_is_primary(&t->lay, k) ? phi : LLVMGetPoison(LLVMTypeOf(g));
	smem_broadcast(e, t, pt);
	alloca_push(e, t->r[0]);
}
