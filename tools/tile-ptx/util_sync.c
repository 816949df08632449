/* util_sync.c: barriers and memory tokens (utility layer, emit.h).
 *
 * A token value records after which memory ops it orders (Tok). A memory
 * op ordered after a token waits at a barrier, unless every op the token
 * stands for touched exactly the same elements from the same threads (then
 * each thread only reads back what it wrote itself). */
#include <stdio.h>
#include "emit.h"
#include "irutil.h"

void barrier(E *e)
{
	LLVMValueRef z = c_i32(e, 0);
	call_intr(e, "llvm.nvvm.barrier.cta.sync.aligned.all", NULL, &z, 1);
}

void mbar_wait(E *e, LLVMValueRef bar, LLVMValueRef parity, const char *name)
{
	char wait[64], ready[64];
	snprintf(wait, sizeof wait, "%s.wait", name);
	snprintf(ready, sizeof ready, "%s.ready", name);
	LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(e->ctx, e->fn, wait);
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ctx, e->fn, ready);
	LLVMBuildBr(e->b, spin);
	LLVMPositionBuilderAtEnd(e->b, spin);
	LLVMValueRef a[2] = { bar, parity };
	LLVMValueRef ok = asm_call(e, ty_i32(e),
				   "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n"
				   "selp.u32 $0, 1, 0, p;\n}", "=r,r,r,~{memory}", a, 2);
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, ok, c_i32(e, 0), ""), done, spin);
	LLVMPositionBuilderAtEnd(e->b, done);
}

LLVMValueRef thread0(E *e)
{
	LLVMValueRef id = e->warps > 1 ? LLVMBuildOr(e->b, e->lane, e->warp, "") : e->lane;
	return LLVMBuildICmp(e->b, LLVMIntEQ, id, c_i32(e, 0), "");
}

static const Value *tiled_value(const Op *op)
{
	return op->info->code == AS_tiled_load ? op->results[0] : op->operands[1];
}

/* Do two tiled ops touch the same elements from the same threads: same
 * memref, indices, tile and layout, no replication? */
static bool same_footprint(const Op *a, const Op *b)
{
	bool ta = a->info->code == AS_tiled_load || a->info->code == AS_tiled_store;
	bool tb = b->info->code == AS_tiled_load || b->info->code == AS_tiled_store;
	if (!ta || !tb || a->operands[0] != b->operands[0])
		return false;
	int ia, ib;
	int na = op_group(a, a->info->code == AS_tiled_load ? 1 : 2, &ia);
	int nb = op_group(b, b->info->code == AS_tiled_load ? 1 : 2, &ib);
	if (na != nb || na < 0)
		return false;
	for (int i = 0; i < na; i++)
		if (a->operands[ia + i] != b->operands[ib + i])
			return false;
	if (op_attr(a, "dim_map") || op_attr(b, "dim_map"))
		return false;
	const Value *va = tiled_value(a), *vb = tiled_value(b);
	return va->type == vb->type && va->lay && vb->lay && layout_equal(va->lay, vb->lay) &&
	       !lay_has_copies(va->lay);
}

void order_after(E *e, const Value *tok, const Op *op)
{
	if (!tok)
		return;
	if (tok->id < 0 || tok->id >= e->nvals) {
		barrier(e);
		return;
	}
	const Tok *t = &e->tok[tok->id];
	if (!t->dirty)
		return;
	bool need = t->nprod < 0;
	for (int i = 0; !need && i < t->nprod; i++)
		need = !same_footprint(t->prod[i], op);
	if (need)
		barrier(e);
}

/* A token made by memory op `prod` (NULL: after unknown memory ops). */
void mark_token(E *e, const Value *v, bool dirty, const Op *prod)
{
	if (!v || v->type->kind != TY_TOKEN)
		return;
	Tok *t = &e->tok[v->id];
	t->dirty = dirty;
	t->nprod = dirty ? (prod ? 1 : -1) : 0;
	t->prod[0] = prod;
}

/* The result token of an op that touches no memory orders like its operand
 * token; without a known one, dirty_if_unknown says what to assume. */
void token_like(E *e, const Value *out, const Value *in, bool dirty_if_unknown)
{
	if (!out || out->type->kind != TY_TOKEN)
		return;
	if (in && in->id >= 0 && in->id < e->nvals)
		e->tok[out->id] = e->tok[in->id];
	else
		mark_token(e, out, dirty_if_unknown, NULL);
}
