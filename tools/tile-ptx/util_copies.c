/* util_copies.c: threads that hold only copies return at once (utility
 * layer, emit.h; docs/lowering.md "Threads that hold only copies").
 *
 * A tile smaller than the CTA is replicated: each element lives in several
 * threads, one of which, its owner, stores it (owner_pred). In an entry
 * whose body is straight-line, thread-local code — elementwise ops, the
 * copies of reshape and broadcast, constants and scalars, memrefs and
 * tokens, weak loads and stores without TMA, staging or multimem — a thread
 * that owns no element of any stored tile has nothing to do: nothing it
 * computes reaches another thread or memory. Such a thread returns before
 * the body (`if (!(owner of a stored tile)) return`); the owners' stores
 * keep their masks, which LLVM then folds. An entry with any other op (a
 * reduction, a layout exchange, a barrier, an atomic or ordered access, a
 * print, a region), or a store every thread owns, is left as it is.
 * indirect_gather (64 elements over 128 threads): the copies no longer
 * load, and the thread index is no longer live to the store for the owner
 * test (issue 17: 14 -> 10 registers on sm_90 and sm_100, as NVIDIA's,
 * whose copies load and store everything). TILE_PTX_KEEP_COPIES=1 turns it
 * off. */
#include "emit.h"
#include "irutil.h"
#include "knobs.h"

/* what a thread does alone: no other thread, and no memory but through a
 * weak access of its own */
static bool thread_local_op(E *e, const Op *op)
{
	const OpInfo *i = op->info;
	switch (i->code) {
	case AS_tiled_load:
	case AS_tiled_store:
		return op_is_weak(op) && !mma_load_copied(op) && !tma_op(e, op) && !op_attr(op, "multimem");
	case AS_load:
	case AS_store:
		return op_is_weak(op);
	case AS_make_memref:
	case AS_create_mem_token:
	case AS_join_mem_token:
	case CT_assume:
	case CT_constant:
	case CT_get_tile_block_id:
	case CT_get_num_tile_blocks:
	case CT_reshape:
	case CT_broadcast:
	case CT_return:
		return true;
	default:
		return op_is_elementwise(i) && op_has(i, OPT_PURE) && !op_has(i, OPT_REG);
	}
}

void return_if_only_copies(E *e, Block *body)
{
	if (knobs()->TILE_PTX_KEEP_COPIES)
		return;
	LLVMValueRef owner = NULL;
	FOR_EACH_OP(op, body) {
		if (!thread_local_op(e, op))
			return;
		if (op->info->code != AS_tiled_store && op->info->code != AS_store)
			continue;
		const Value *v = op->noperands > 1 ? op->operands[1] : NULL;
		LLVMValueRef p = v && v->lay ? owner_pred(e, v->lay) : NULL;
		if (!p)          /* every thread stores some element */
			return;
		owner = owner ? LLVMBuildOr(e->b, owner, p, "") : p;
	}
	if (!owner)
		return;
	LLVMBasicBlockRef copies = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "copies.return");
	LLVMBasicBlockRef owners = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "owners");
	LLVMBuildCondBr(e->b, owner, owners, copies);
	LLVMPositionBuilderAtEnd(e->b, copies);
	LLVMBuildRetVoid(e->b);
	LLVMPositionBuilderAtEnd(e->b, owners);
}
