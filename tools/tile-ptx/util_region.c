/* util_region.c: regions (utility layer, emit.h): the one entry point of
 * op emission and of region recursion, and what a region's end does.
 *
 * emit_op looks the op up in the registry's table (E.table) and calls its
 * emitter; an op with none is a "not supported yet" user error. emit_region
 * emits a block in the contexts of the loop and the if around it (E.loop,
 * E.ifc: where continue, break and yield branch to); control flow and the
 * combiners of reduce and scan recurse through it, never by calling each
 * other.
 *
 * Every region (the entry, a loop body, an if branch) is an allocation
 * scope for alloca's heap memory: leaving it frees, after a barrier, what
 * was allocated in it. `yield` frees the branch's, `continue` and `break`
 * everything since the loop body began, `return` everything. */
#include <stdlib.h>
#include "emit.h"
#include "diag.h"
#include "xalloc.h"

void set_loc(E *e, const Loc *l)
{
	if (!e->dib)
		return;
	unsigned line = l && l->file ? l->line : e->fn_line, col = l && l->file ? l->col : 0;
	LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(e->ctx, line, col, e->sp, NULL);
	LLVMSetCurrentDebugLocation2(e->b, loc);
}

void emit_op(E *e, Op *op)
{
	set_loc(e, op->loc);
	EmitFn *f = e->table[op->info->code];
	if (f) {
		f(e, op);
		return;
	}
	diag_error(op->loc, "'%s' op is not supported by this compiler", op->info->name);
	e->errors++;
	for (int i = 0; i < op->nresults; i++)
		if (op->results[i]->type->kind == TY_TILE)
			set_poison(e, op->results[i]);
}

void emit_region(E *e, Block *blk, Ctx *loop, Ctx *ifc)
{
	Ctx *outer_loop = e->loop, *outer_ifc = e->ifc;
	e->loop = loop;
	e->ifc = ifc;
	for (Op *op = blk->first, *next; op && !e->errors; op = next) {
		next = op->next;
		int n, w;
		if (!fuse_group(e, op, &next, &n, &w)) {      /* util_fuse.c */
			emit_op(e, op);
			continue;
		}
		/* the group, every op for w registers at a time; its invariant
		 * ops whole, in the first window */
		for (int lo = 0; lo < n && !e->errors; lo += w) {
			e->fuse_lo = lo;
			e->fuse_hi = lo + w;
			for (Op *o = op; o != next && !e->errors; o = o->next) {
				bool inv = fuse_invariant(e, o, op);
				if (inv && lo > 0)
					continue;
				e->fusing = !inv;
				emit_op(e, o);
			}
		}
		e->fusing = false;
	}
	e->loop = outer_loop;
	e->ifc = outer_ifc;
}

Op *emit_region_to_yield(E *e, Block *blk)
{
	Ctx *outer_loop = e->loop, *outer_ifc = e->ifc;
	Op *yield = NULL;
	e->loop = NULL;
	e->ifc = NULL;
	FOR_EACH_OP(op, blk) {
		if (op->info->code == CT_yield) {
			yield = op;
			break;
		}
		emit_op(e, op);
	}
	e->loop = outer_loop;
	e->ifc = outer_ifc;
	return yield;
}

/* ------------------------------------------------------------ branches */

TV *phis_for(E *e, const Value *v)
{
	TV *t = tv_new(e, v);
	LLVMTypeRef ty = elem_ty(e, v->type->elem);
	for (int k = 0; k < t->n; k++)
		t->r[k] = LLVMBuildPhi(e->b, ty, "");
	return t;
}

void branch_with(E *e, Ctx *c, Op *term)
{
	LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
	if (term->noperands != c->nvals)
		ice("tile-ptx: '%s' yields %d values, expected %d", term->info->name, term->noperands, c->nvals);
	for (int i = 0; i < c->nvals; i++) {
		if (!c->phis[i])
			continue;
		TV *s = get(e, term->operands[i]);
		if (s->n != c->phis[i]->n)
			ice("tile-ptx: '%s' value %d has %d registers, expected %d", term->info->name, i, s->n,
			    c->phis[i]->n);
		for (int k = 0; k < s->n; k++)
			LLVMAddIncoming(c->phis[i]->r[k], &s->r[k], &here, 1);
	}
	LLVMBuildBr(e->b, c->target);
}

/* ------------------------------------------------------------ allocation scopes */

void alloca_push(E *e, LLVMValueRef p)
{
	AllocaStack *s = &e->allocas;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		LLVMValueRef *np = xrealloc(s->ptr, sizeof *np * (size_t)cap);
		s->ptr = np;
		s->cap = cap;
	}
	s->ptr[s->n++] = p;
}

int alloca_depth(E *e)
{
	return e->allocas.n;
}

void alloca_pop(E *e, int depth)
{
	if (depth < e->allocas.n)
		e->allocas.n = depth;
}

/* Thread 0 frees, after a barrier, the allocations made since depth. */
void alloca_free_to(E *e, int depth)
{
	AllocaStack *s = &e->allocas;
	if (depth < 0)
		depth = 0;
	if (s->n <= depth)
		return;
	barrier(e);
	LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "free");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "free.join");
	LLVMBuildCondBr(e->b, thread0(e), doit, join);
	LLVMPositionBuilderAtEnd(e->b, doit);
	LLVMTypeRef pt = ty_genptr(e);
	LLVMValueRef ff = declared(e, "free", LLVMVoidTypeInContext(e->ctx), &pt, 1);
	for (int i = s->n - 1; i >= depth; i--) {
		LLVMValueRef p = LLVMBuildAddrSpaceCast(e->b, s->ptr[i], ty_genptr(e), "");
		call(e, ff, &p, 1);
	}
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
}
