/* control.c: `loop` / `break`, and the 13.4 synchronisation ops
 * (docs/lowering.md §9).
 *
 * loop: a header block with one phi per register of every carried value
 * (the body's arguments); `continue` adds incoming values to them and
 * branches back (emit.c's continue handling, through the loop's Ctx);
 * `break` adds incoming values to the phis of the exit block, which become
 * the loop's results. Both may sit inside nested `if`s; `for` loops inside a
 * `loop` have their own context. A loop's condition values are scalars,
 * equal in every thread, so every thread takes the same path.
 *
 * gdc_wait_tko / gdc_launch_dependents_tko: griddepcontrol.wait /
 * .launch_dependents on sm_90 and newer (programmatic dependent launch);
 * older targets have no dependent launches, so nothing to wait for.
 * memory_fence_alias_tko: fence.proxy.alias. The result token orders like
 * the operand token. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "opinfo.h"
#include "irutil.h"
#include "diag.h"

void emit_loop(E *e, Op *op, Ctx *outer)
{
	(void)outer;
	Block *body = op->regions[0].first;
	int n = op->noperands;
	if (!body || body->nargs != n || op->nresults != n)
		ice("tile-ptx: malformed loop");
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "loop.head");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "loop.exit");
	TV **carried = calloc((size_t)n + 1, sizeof *carried);
	TV **results = calloc((size_t)n + 1, sizeof *results);
	if (!carried || !results)
		ice("out of memory");
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
	FOR_EACH_OP(o, body) {
		emit_op(e, o, &cont, NULL);
		if (e->errors)
			break;
	}
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

void emit_break(E *e, Op *op, Ctx *loop)
{
	if (!loop || !loop->brk)
		ice("tile-ptx: break outside a loop");
	alloca_free_to(e, loop->scope);     /* debug.c: the loop body's allocas */
	branch_with(e, loop->brk, op);
}

static const Value *token_operand(const Op *op)
{
	for (int i = 0; i < op->noperands; i++)
		if (op->operands[i]->type->kind == TY_TOKEN)
			return op->operands[i];
	return NULL;
}

void emit_sync_op(E *e, Op *op)
{
	const char *intr = NULL;
	switch (op->info->code) {
	case CT_gdc_wait_tko:
		intr = e->o->target->sm >= 90 ? "llvm.nvvm.griddepcontrol.wait" : NULL;
		break;
	case CT_gdc_launch_dependents_tko:
		intr = e->o->target->sm >= 90 ? "llvm.nvvm.griddepcontrol.launch.dependents" : NULL;
		break;
	case CT_memory_fence_alias_tko:
		intr = "llvm.nvvm.fence.proxy.alias";
		break;
	default:
		unsupported(e, op, "this op");
		return;
	}
	if (intr)
		call_intr(e, intr, NULL, NULL, 0);
	/* the result token orders like the operand token */
	const Value *in = token_operand(op);
	const Value *out = op->nresults ? op->results[0] : NULL;
	if (out && out->type->kind == TY_TOKEN) {
		if (in && in->id >= 0 && in->id < e->nvals)
			e->tok[out->id] = e->tok[in->id];
		else
			mark_token(e, out, in != NULL, NULL);
	}
}
