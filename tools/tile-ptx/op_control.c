/* op_control.c: control flow (op family; docs/lowering.md §5, §9): for,
 * if, loop, continue, break, yield, return. A region's values flow
 * through phis, one per register of every carried tile value; tokens
 * carried through a region become "after unknown memory ops". Bodies are
 * emitted through emit_region (util_region.c) with the contexts continue,
 * break and yield branch to.
 *
 * for: head (iv and carried phis, the bound check), body, latch (phis that
 * collect the values of every continue, iv + step), exit.
 * if: then and else blocks branching to a merge block whose phis are the
 * results; a missing else branches straight there.
 * loop: a header block with one phi per register of every carried value
 * (the body's arguments); `continue` adds incoming values to them and
 * branches back; `break` adds incoming values to the phis of the exit
 * block, which become the loop's results. Both may sit inside nested
 * `if`s; `for` loops inside a `loop` have their own context. A loop's
 * condition values are scalars, equal in every thread, so every thread
 * takes the same path.
 * Leaving a region frees the allocas made in it (util_region.c). */
#include <stdlib.h>
#include "emit.h"
#include "families.h"
#include "diag.h"
#include "xalloc.h"

static void emit_for_loop(E *e, Op *op)
{
	Block *body = op->regions[0].first;
	mma_resident_prologue(e, op);     /* its products' loop-invariant operands, staged once (util_ldsm.c) */
	mma_pipeline_prologue(e, op);     /* a pipelined K loop's first copies (util_ldsm.c) */
	int ninit = op->noperands - 3;
	LLVMValueRef lb = scalar(e, op->operands[0]), ub = scalar(e, op->operands[1]),
		     step = scalar(e, op->operands[2]);
	bool uns = op_attr_flag(op, "unsignedCmp");
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.head");
	LLVMBasicBlockRef bodybb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.body");
	LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.latch");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.exit");
	LLVMBuildBr(e->b, head);
	LLVMPositionBuilderAtEnd(e->b, head);
	LLVMValueRef iv = LLVMBuildPhi(e->b, LLVMTypeOf(lb), "iv");
	TV **carried = xcalloc((size_t)ninit + 1, sizeof *carried);
	TV **latchphi = xcalloc((size_t)ninit + 1, sizeof *latchphi);
	for (int i = 0; i < ninit; i++) {
		const Value *init = op->operands[3 + i];
		if (init->type->kind != TY_TILE)
			continue;
		carried[i] = phis_for(e, op->results[i]);
		TV *s = get(e, init);
		if (s->n != carried[i]->n)
			ice("tile-ptx: loop init %d has %d registers, expected %d", i, s->n, carried[i]->n);
		for (int k = 0; k < s->n; k++)
			LLVMAddIncoming(carried[i]->r[k], &s->r[k], &pre, 1);
	}
	LLVMValueRef cond = LLVMBuildICmp(e->b, uns ? LLVMIntULT : LLVMIntSLT, iv, ub, "");
	LLVMBuildCondBr(e->b, cond, bodybb, exit);
	/* latch phis collect the values of every continue */
	LLVMPositionBuilderAtEnd(e->b, latch);
	for (int i = 0; i < ninit; i++)
		if (carried[i])
			latchphi[i] = phis_for(e, op->results[i]);
	LLVMValueRef next = LLVMBuildAdd(e->b, iv, step, "");
	LLVMBuildBr(e->b, head);
	LLVMAddIncoming(iv, &lb, &pre, 1);
	LLVMAddIncoming(iv, &next, &latch, 1);
	for (int i = 0; i < ninit; i++)
		if (carried[i])
			for (int k = 0; k < carried[i]->n; k++)
				LLVMAddIncoming(carried[i]->r[k], &latchphi[i]->r[k], &latch, 1);
	/* body */
	LLVMPositionBuilderAtEnd(e->b, bodybb);
	TV *ivt = tv_new(e, body->args[0]);
	for (int k = 0; k < ivt->n; k++)
		ivt->r[k] = iv;
	set(e, body->args[0], ivt);
	for (int i = 0; i < ninit; i++) {
		if (carried[i])
			set(e, body->args[i + 1], carried[i]);
		else
			mark_token(e, body->args[i + 1], true, NULL);
	}
	Ctx c = { latch, ninit, latchphi, NULL, alloca_depth(e) };
	emit_region(e, body, &c, NULL);
	alloca_pop(e, c.scope);
	LLVMPositionBuilderAtEnd(e->b, exit);
	for (int i = 0; i < op->nresults; i++) {
		if (carried[i])
			set(e, op->results[i], carried[i]);
		else
			mark_token(e, op->results[i], true, NULL);
	}
	free(carried);
	free(latchphi);
}

/* A `for` whose product leaves wgmma in flight (async_depth, util_wgmma.c)
 * is guarded, `if (lb < ub) { loop; wait 0 } else { wait 0 }`, its results
 * merged after both waits: ptxas judges the wgmma pipeline in code order,
 * and the zero-trip path's copies of the initial values (which LLVM lays
 * out after the loop) must come after a wait, or ptxas takes them for
 * writes to accumulators in flight and serializes the loop (C7515). */
void emit_for(E *e, Op *op)
{
	if (!mma_wgmma_async_loop(op)) {
		emit_for_loop(e, op);
		return;
	}
	LLVMValueRef lb = scalar(e, op->operands[0]), ub = scalar(e, op->operands[1]);
	bool uns = op_attr_flag(op, "unsignedCmp");
	LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.run");
	LLVMBasicBlockRef skip = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.skip");
	LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.merge");
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, uns ? LLVMIntULT : LLVMIntSLT, lb, ub, ""), run, skip);
	LLVMPositionBuilderAtEnd(e->b, run);
	mma_wgmma_loop_begin(e, op);      /* tcgen05: the carried accumulators into tensor memory */
	emit_for_loop(e, op);
	mma_wgmma_drain(e, op);      /* products left in flight by the last step (util_wgmma.c) */
	LLVMBasicBlockRef run_end = LLVMGetInsertBlock(e->b);
	LLVMBuildBr(e->b, merge);
	LLVMPositionBuilderAtEnd(e->b, skip);
	mma_wgmma_wait_all(e);
	LLVMBuildBr(e->b, merge);
	LLVMPositionBuilderAtEnd(e->b, merge);
	for (int i = 0; i < op->nresults; i++) {
		const Value *init = op->operands[3 + i];
		if (init->type->kind != TY_TILE)
			continue;
		TV *ran = get(e, op->results[i]), *from = get(e, init), *t = tv_new(e, op->results[i]);
		for (int k = 0; k < t->n; k++) {
			t->r[k] = LLVMBuildPhi(e->b, LLVMTypeOf(ran->r[k]), "");
			LLVMValueRef vals[2] = { ran->r[k], from->r[k] };
			LLVMBasicBlockRef bbs[2] = { run_end, skip };
			LLVMAddIncoming(t->r[k], vals, bbs, 2);
		}
		set(e, op->results[i], t);
	}
}

void emit_if(E *e, Op *op)
{
	LLVMValueRef cond = scalar(e, op->operands[0]);
	LLVMBasicBlockRef thenbb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "if.then");
	LLVMBasicBlockRef elsebb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "if.else");
	LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "if.end");
	LLVMBuildCondBr(e->b, cond, thenbb, elsebb);
	LLVMPositionBuilderAtEnd(e->b, merge);
	TV **phis = xcalloc((size_t)op->nresults + 1, sizeof *phis);
	for (int i = 0; i < op->nresults; i++)
		if (op->results[i]->type->kind == TY_TILE)
			phis[i] = phis_for(e, op->results[i]);
	Ctx c = { merge, op->nresults, phis, NULL, alloca_depth(e) };
	LLVMPositionBuilderAtEnd(e->b, thenbb);
	emit_region(e, op->regions[0].first, e->loop, &c);
	alloca_pop(e, c.scope);
	LLVMPositionBuilderAtEnd(e->b, elsebb);
	if (op->nregions > 1 && op->regions[1].first) {
		emit_region(e, op->regions[1].first, e->loop, &c);
		alloca_pop(e, c.scope);
	} else
		LLVMBuildBr(e->b, merge);
	LLVMPositionBuilderAtEnd(e->b, merge);
	for (int i = 0; i < op->nresults; i++) {
		if (phis[i])
			set(e, op->results[i], phis[i]);
		else
			mark_token(e, op->results[i], true, NULL);
	}
	free(phis);
}

void emit_loop(E *e, Op *op)
{
	Block *body = op->regions[0].first;
	int n = op->noperands;
	if (!body || body->nargs != n || op->nresults != n)
		ice("tile-ptx: malformed loop");
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "loop.head");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "loop.exit");
	TV **carried = xcalloc((size_t)n + 1, sizeof *carried);
	TV **results = xcalloc((size_t)n + 1, sizeof *results);
	LLVMBuildBr(e->b, head);
	LLVMPositionBuilderAtEnd(e->b, exit);
	for (int i = 0; i < n; i++)
		if (op->results[i]->type->kind == TY_TILE)
			results[i] = phis_for(e, op->results[i]);
	LLVMPositionBuilderAtEnd(e->b, head);
	for (int i = 0; i < n; i++) {
		const Value *init = op->operands[i];
		if (init->type->kind != TY_TILE) {
			mark_token(e, body->args[i], true, NULL);
			continue;
		}
		carried[i] = phis_for(e, body->args[i]);
		TV *s = get(e, init);
		if (s->n != carried[i]->n)
			ice("tile-ptx: loop init %d has %d registers, expected %d", i, s->n, carried[i]->n);
		for (int k = 0; k < s->n; k++)
			LLVMAddIncoming(carried[i]->r[k], &s->r[k], &pre, 1);
		set(e, body->args[i], carried[i]);
	}
	Ctx brk = { exit, n, results, NULL, alloca_depth(e) };
	Ctx cont = { head, n, carried, &brk, brk.scope };
	emit_region(e, body, &cont, NULL);
	alloca_pop(e, cont.scope);
	if (!e->errors && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(e->b)))
		ice("tile-ptx: loop body without continue or break");
	LLVMPositionBuilderAtEnd(e->b, exit);
	for (int i = 0; i < n; i++) {
		if (results[i])
			set(e, op->results[i], results[i]);
		else
			mark_token(e, op->results[i], true, NULL);
	}
	free(carried);
	free(results);
}

void emit_break(E *e, Op *op)
{
	if (!e->loop || !e->loop->brk)
		ice("tile-ptx: break outside a loop");
	alloca_free_to(e, e->loop->scope);     /* the loop body's allocas */
	branch_with(e, e->loop->brk, op);
}

void emit_continue(E *e, Op *op)
{
	if (!e->loop)
		ice("tile-ptx: continue outside a loop");
	alloca_free_to(e, e->loop->scope);
	branch_with(e, e->loop, op);
}

void emit_yield(E *e, Op *op)
{
	if (!e->ifc)
		ice("tile-ptx: yield outside an if");
	alloca_free_to(e, e->ifc->scope);
	branch_with(e, e->ifc, op);
}

void emit_return(E *e, Op *op)
{
	alloca_free_to(e, 0);
	if (!e->loop && !e->ifc)        /* the kernel's own end: every thread gets here */
		tcgen05_kernel_end(e);
	LLVMBuildRetVoid(e->b);
}
