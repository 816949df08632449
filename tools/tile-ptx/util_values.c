/* util_values.c: tile values as register lists (utility layer, emit.h).
 *
 * Every tile value of the kernel has a TV: the registers this thread holds,
 * in the order of the value's layout (docs/ir.md §4.3). Register r holds
 * the element at row-major offset V(r) + L(lane) + W(warp); V(r) is a
 * constant, L + W is computed once per layout in the kernel's prologue
 * (lw_of), together with the "first owner" predicate that picks one thread
 * among those that hold copies of the same elements. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "diag.h"
#include "xalloc.h"

TV *tv_new(E *e, const Value *v)
{
	TV *t = xcalloc(1, sizeof *t);
	if (!v->lay)
		ice("tile-ptx: tile value without a layout (%s)", v->type->str);
	t->lay = *v->lay;
	t->n = (int)layout_nregs(&t->lay);
	t->r = xcalloc((size_t)t->n + 1, sizeof *t->r);
	if (e->nall == e->capall) {
		e->capall = e->capall ? 2 * e->capall : 64;
		e->all = xrealloc(e->all, sizeof *e->all * (size_t)e->capall);
	}
	e->all[e->nall++] = t;
	return t;
}

TV *tv_result(E *e, const Value *v)
{
	if (e->fusing && v->id >= 0 && v->id < e->nvals && e->tv[v->id])
		return e->tv[v->id];
	return tv_new(e, v);
}

void fuse_window(const E *e, int n, int *lo, int *hi)
{
	*lo = e->fusing ? e->fuse_lo : 0;
	*hi = e->fusing && e->fuse_hi < n ? e->fuse_hi : n;
}

TV *get(E *e, const Value *v)
{
	if (v->id < 0 || v->id >= e->nvals || !e->tv[v->id])
		ice("tile-ptx: value %%%d has no registers", v->id);
	return e->tv[v->id];
}

void set(E *e, const Value *v, TV *t)
{
	e->tv[v->id] = t;
}

LLVMValueRef scalar(E *e, const Value *v)
{
	return get(e, v)->r[0];
}

void set_poison(E *e, const Value *v)
{
	TV *t = tv_new(e, v);
	for (int k = 0; k < t->n; k++)
		t->r[k] = LLVMGetPoison(elem_ty(e, v->type->elem));
	set(e, v, t);
}

LLVMValueRef phi2(E *e, LLVMValueRef a, LLVMBasicBlockRef from_a, LLVMValueRef b, LLVMBasicBlockRef from_b)
{
	LLVMValueRef phi = LLVMBuildPhi(e->b, LLVMTypeOf(a), "");
	LLVMValueRef vals[2] = { a, b };
	LLVMBasicBlockRef bbs[2] = { from_a, from_b };
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

LWCache *lw_of(E *e, const Layout *l)
{
	char key[512];
	layout_str(l, key, sizeof key);
	for (int i = 0; i < e->nlw; i++)
		if (strcmp(e->lw[i].key, key) == 0)
			return &e->lw[i];
	if (e->nlw == e->caplw) {
		e->caplw = e->caplw ? 2 * e->caplw : 16;
		e->lw = xrealloc(e->lw, sizeof *e->lw * (size_t)e->caplw);
	}
	LWCache *c = &e->lw[e->nlw++];
	c->key = xstrdup(key);
	EntryPos pos = entry_begin(e);
	LLVMValueRef off = c_i32(e, 0), prim = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
	for (int m = 1; m <= 2; m++) {
		LLVMValueRef x = m == 1 ? e->lane : e->warp;
		int64_t div = 1;
		for (int i = l->begin[m]; i < l->begin[m + 1]; i++) {
			int64_t s = l->shape[i], d = l->stride[i];
			if (s > 1) {
				LLVMValueRef q = LLVMBuildUDiv(e->b, x, c_i32(e, div), "");
				q = LLVMBuildURem(e->b, q, c_i32(e, s), "");
				if (d != 0)
					off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, q, c_i32(e, d), ""), "");
				else
					prim = LLVMBuildAnd(e->b, prim,
							    LLVMBuildICmp(e->b, LLVMIntEQ, q, c_i32(e, 0), ""), "");
			}
			div *= s;
		}
	}
	c->off = off;
	c->primary = prim;
	entry_end(e, pos);
	return c;
}

LLVMValueRef elem_offset(E *e, const Layout *l, int64_t r)
{
	LWCache *c = lw_of(e, l);
	return LLVMBuildAdd(e->b, c->off, c_i32(e, layout_eval_mode(l, 0, r)), "");
}

LLVMValueRef owner_pred(E *e, const Layout *l)
{
	LLVMValueRef p = lw_of(e, l)->primary;
	if (LLVMIsAConstantInt(p) && LLVMConstIntGetZExtValue(p) == 1)
		return NULL;
	return p;
}

bool lay_has_copies(const Layout *l)
{
	for (int i = 0; i < layout_nleaves(l); i++)
		if (l->stride[i] == 0 && l->shape[i] > 1)
			return true;
	return false;
}

void emit_elementwise(E *e, Op *op, EwFn *one, EwPairFn *pair)
{
	TV *t = tv_result(e, op->results[0]);
	TV *ops[4];
	if (op->noperands > 4)
		ice("tile-ptx: elementwise op with %d operands", op->noperands);
	for (int i = 0; i < op->noperands; i++) {
		ops[i] = get(e, op->operands[i]);
		if (ops[i]->n != t->n)
			ice("tile-ptx: '%s': operand %d has %d registers, result %d", op->info->name, i,
			    ops[i]->n, t->n);
	}
	int k, hi;
	fuse_window(e, t->n, &k, &hi);
	if (pair)
		for (; k + 1 < hi; k += 2) {
			LLVMValueRef x[2] = { ops[0]->r[k], ops[0]->r[k + 1] };
			if (!pair(e, op, x, t->r + k))
				break;
		}
	for (; k < hi; k++) {
		LLVMValueRef a[4];
		for (int i = 0; i < op->noperands; i++)
			a[i] = ops[i]->r[k];
		t->r[k] = one(e, op, a);
	}
	set(e, op->results[0], t);
}

/* k elements (of one type) as one 32-bit register, the first in the low
 * bits; one 32-bit or 64-bit element is passed as it is (op_mma.c's
 * mma.sync operands use this too) */
LLVMValueRef pack_b32(E *e, LLVMValueRef *x, int k)
{
	LLVMTypeRef t = LLVMTypeOf(x[0]);
	if (k == 1)
		return (LLVMGetTypeKind(t) == LLVMDoubleTypeKind ||
			(LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 32))
			       ? x[0] : LLVMBuildBitCast(e->b, x[0], ty_i32(e), "");
	LLVMValueRef v = LLVMGetUndef(LLVMVectorType(t, (unsigned)k));
	for (int i = 0; i < k; i++)
		v = LLVMBuildInsertElement(e->b, v, x[i], c_i32(e, i), "");
	return LLVMBuildBitCast(e->b, v, ty_i32(e), "");
}

void unpack_b32(E *e, LLVMValueRef r, LLVMTypeRef el, LLVMValueRef *out, int k)
{
	LLVMValueRef v = LLVMBuildBitCast(e->b, r, LLVMVectorType(el, (unsigned)k), "");
	for (int i = 0; i < k; i++)
		out[i] = LLVMBuildExtractElement(e->b, v, c_i32(e, i), "");
}

EntryPos entry_begin(E *e)
{
	EntryPos p = { LLVMGetInsertBlock(e->b), LLVMGetCurrentDebugLocation2(e->b) };
	LLVMPositionBuilderBefore(e->b, e->entry_br);
	return p;
}

void entry_end(E *e, EntryPos p)
{
	LLVMPositionBuilderAtEnd(e->b, p.here);
	LLVMSetCurrentDebugLocation2(e->b, p.loc);
}
