/* util_smem.c: shared memory (utility layer, emit.h): the module's scratch
 * buffer and the kernel's exchange buffer (docs/lowering.md §8).
 *
 * Scratch buffer. One static shared array for the module, as large as its
 * largest use (module.c sizes it at the end): broadcasts of owners'
 * registers (smem_broadcast), print's gathered arguments, the plain
 * convert_layout. Each use has a barrier before and after.
 *
 * Exchange buffer. Each kernel that needs one gets a static shared array of
 * two equal regions (one when it has a single use, or two would pass
 * 48 KiB), each as large as the largest single use in the kernel (xchg_need).
 * A use writes its region, waits at bar.sync, reads. Uses alternate between
 * the regions, so a use needs no barrier before its writes when the use
 * before it (in emission order) is in the same block: that use's own
 * barrier came after every thread finished reading the region now being
 * written. The first use of the kernel at its top level needs none either,
 * nor the first use in a `for` or `loop` body that holds an even number of
 * uses (directly, with no continue in a branch) when the use before the
 * loop is in the loop's block: the regions then alternate across
 * iterations too. A `break` anywhere is fine: it leaves the loop, and the
 * use after the loop is in another block than the loop's last use, so it
 * waits at a barrier first. Elsewhere (first use inside a branch, ...) a
 * barrier comes first. */
#include <stdio.h>
#include <string.h>
#include <llvm-c/Target.h>
#include "emit.h"
#include "irutil.h"
#include "diag.h"
#include "target.h"

/* ------------------------------------------------------------ the kernel's total */

/* the shared-memory globals v refers to, through constant expressions */
static void smem_refs(LLVMValueRef v, LLVMValueRef *seen, int *n, int cap, int depth)
{
	if (LLVMIsAGlobalVariable(v)) {
		if (LLVMGetPointerAddressSpace(LLVMTypeOf(v)) != 3)
			return;
		for (int i = 0; i < *n; i++)
			if (seen[i] == v)
				return;
		if (*n < cap)
			seen[(*n)++] = v;
		return;
	}
	if (depth < 4 && LLVMIsAConstantExpr(v))
		for (int i = 0; i < LLVMGetNumOperands(v); i++)
			smem_refs(LLVMGetOperand(v, (unsigned)i), seen, n, cap, depth + 1);
}

int64_t smem_of_function(E *e, LLVMValueRef f)
{
	LLVMValueRef seen[64];
	int n = 0;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
			for (int i = 0; i < LLVMGetNumOperands(in); i++)
				smem_refs(LLVMGetOperand(in, (unsigned)i), seen, &n, 64, 0);
	LLVMTargetDataRef td = LLVMCreateTargetData("");
	int64_t total = 0;
	for (int i = 0; i < n; i++) {
		int64_t align = LLVMGetAlignment(seen[i]) ? LLVMGetAlignment(seen[i]) : 1;
		total = (total + align - 1) / align * align + (int64_t)LLVMABISizeOfType(td, LLVMGlobalGetValueType(seen[i]));
	}
	LLVMDisposeTargetData(td);
	return total;
}

/* ------------------------------------------------------------ scratch */

void smem_kernel_name(E *e, const char *what, char *name, size_t cap)
{
	size_t n;
	const char *fname = LLVMGetValueName2(e->fn, &n);
	snprintf(name, cap, "__tile_%s_%.*s", what, (int)(n > 250 ? 250 : n), fname);
}

LLVMValueRef smem_kernel_global(E *e, const char *what, LLVMTypeRef type, unsigned align)
{
	char name[300];
	smem_kernel_name(e, what, name, sizeof name);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, type, name, 3);
	LLVMSetInitializer(g, LLVMGetUndef(type));
	LLVMSetLinkage(g, LLVMInternalLinkage);
	LLVMSetAlignment(g, align);
	return g;
}

LLVMValueRef smem_scratch(E *e, int64_t bytes)
{
	if (bytes > e->smem_bytes)
		e->smem_bytes = bytes;
	if (!e->smem)
		e->smem = LLVMAddGlobalInAddressSpace(e->mod, LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), 1),
						      "__tile_smem", 3);
	return e->smem;
}

/* Give every register of t the value its element's first owner holds
 * (t->r[k] is set for the owners' registers only), through shared memory. */
void smem_broadcast(E *e, TV *t, const Type *el)
{
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	int eb = elem_bytes(el) ? elem_bytes(el) : 1;
	int64_t n = layout_cosize(&t->lay);
	LLVMValueRef base = smem_scratch(e, n * eb);
	LLVMValueRef primary = owner_pred(e, &t->lay);
	barrier(e);
	for (int k = 0; k < t->n; k++) {
		if (!layout_reg_is_primary(&t->lay, k))
			continue;
		LLVMValueRef off = LLVMBuildZExt(e->b, elem_offset(e, &t->lay, k), LLVMInt64TypeInContext(e->ctx), "");
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, base, &off, 1, "");
		LLVMValueRef v = mt != et ? LLVMBuildZExt(e->b, t->r[k], mt, "") : t->r[k];
		if (primary) {
			LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "bc.st");
			LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "bc.join");
			LLVMBuildCondBr(e->b, primary, st, join);
			LLVMPositionBuilderAtEnd(e->b, st);
			LLVMSetAlignment(LLVMBuildStore(e->b, v, p), (unsigned)eb);
			LLVMBuildBr(e->b, join);
			LLVMPositionBuilderAtEnd(e->b, join);
		} else {
			LLVMSetAlignment(LLVMBuildStore(e->b, v, p), (unsigned)eb);
		}
	}
	barrier(e);
	for (int k = 0; k < t->n; k++) {
		LLVMValueRef off = LLVMBuildZExt(e->b, elem_offset(e, &t->lay, k), LLVMInt64TypeInContext(e->ctx), "");
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, base, &off, 1, "");
		LLVMValueRef x = LLVMBuildLoad2(e->b, mt, p, "");
		LLVMSetAlignment(x, (unsigned)eb);
		t->r[k] = mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
	}
}

/* ------------------------------------------------------------ exchange buffer */

static int need_walk(Op *op, void *ctx)
{
	int64_t *acc = ctx;            /* largest use, number of uses */
	int64_t b = xchg_need(op);
	if (b > acc[0])
		acc[0] = b;
	acc[1] += b > 0;
	return 0;
}

typedef struct LoopUses { Block *body; int n; bool ok; } LoopUses;

static int loop_walk(Op *o, void *ctx)
{
	LoopUses *u = ctx;
	if (xchg_need(o) > 0) {
		u->n++;
		u->ok &= o->parent == u->body;
	}
	if (o->info->code == CT_continue && o->parent != u->body)
		u->ok = false;
	return 0;
}

/* The `for` or `loop` whose body directly holds op when op is the body's
 * first use, every use in the loop is directly in its body, their number is
 * even, and no continue skips part of the body (a continue in a nested
 * loop counts too: conservative); else NULL. */
static Op *body_loop(Op *op)
{
	Block *b = op->parent;
	Op *loop = b && b->parent ? b->parent->parent : NULL;
	if (!loop || (loop->info->code != CT_for && loop->info->code != CT_loop) || b != loop->regions[0].first)
		return NULL;
	LoopUses u = { b, 0, true };
	op_walk(loop, loop_walk, &u);
	if (!u.ok || u.n < 2 || u.n % 2)
		return NULL;
	for (Op *o = b->first; o && o != op; o = o->next)
		if (xchg_need(o) > 0)
			return NULL;
	return loop;
}

/* The kernel's buffer, sized for every use in it, made at its first use. */
static void xchg_make(E *e, Op *op)
{
	XchgBuf *S = &e->xchg;
	Op *top = op_toplevel(op);
	int64_t acc[2] = { 0, 0 };
	op_walk(top, need_walk, acc);
	int64_t max = (acc[0] + 15) & ~(int64_t)15;
	if (max < 16)
		max = 16;
	S->region_bytes = max;
	S->regions = acc[1] > 1 && 2 * max <= 48 * 1024 ? 2 : 1;
	if (max > target_smem_limit(e->o->target->sm)) {
		diag_error(op->loc, "'%s' op needs %lld bytes of shared memory; %s gives a block at most %lld",
			   op->info->name, (long long)max, e->o->target->name, target_smem_limit(e->o->target->sm));
		e->errors++;
		S->regions = 1;
		S->region_bytes = 16;
	}
	S->buf = smem_kernel_global(e, "xchg", LLVMArrayType2(LLVMInt8TypeInContext(e->ctx),
							     (uint64_t)(S->regions * S->region_bytes)), 16);
}

/* Start a use: the region's base (i8 addrspace(3) pointer), after a
 * barrier unless none is needed. */
LLVMValueRef xchg_begin(E *e, Op *op)
{
	XchgBuf *S = &e->xchg;
	if (!S->buf)
		xchg_make(e, op);
	int region = 0;
	bool need_bar = true;
	Op *top = op_toplevel(op);
	Op *loop = NULL;
	if (!S->last && op->parent == top->regions[0].first) {
		need_bar = false;
	} else if (S->last && S->regions == 2 && S->last->parent == op->parent) {
		need_bar = false;
		region = 1 - S->last_region;
	} else if (S->regions == 2 && (loop = body_loop(op)) != NULL &&
		   ((!S->last && loop->parent == top->regions[0].first) ||
		    (S->last && S->last->parent == loop->parent))) {
		/* the first use in a loop body whose uses alternate evenly: the
		 * previous iteration's last use (or the use before the loop, in the
		 * other region) had its barrier after this region's last reads */
		need_bar = false;
		region = S->last ? 1 - S->last_region : 0;
	}
	if (need_bar)
		barrier(e);
	S->last = op;
	S->last_region = region;
	LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(e->ctx), (unsigned long long)(region * S->region_bytes), 0);
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), S->buf, &off, 1, "xchg");
}

/* Pointer to element type t at byte offset off (i32) from base. */
static LLVMValueRef xchg_ptr(E *e, LLVMValueRef base, LLVMValueRef off)
{
	LLVMValueRef o64 = LLVMBuildZExt(e->b, off, LLVMInt64TypeInContext(e->ctx), "");
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), base, &o64, 1, "");
}

void xchg_store(E *e, LLVMValueRef base, LLVMValueRef byte_off, LLVMValueRef v, const Type *el,
		LLVMValueRef pred)
{
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	if (mt != et)
		v = LLVMBuildZExt(e->b, v, mt, "");
	LLVMValueRef p = xchg_ptr(e, base, byte_off);
	if (!pred) {
		LLVMValueRef st = LLVMBuildStore(e->b, v, p);
		int eb = elem_bytes(el);
		LLVMSetAlignment(st, (unsigned)(eb ? eb : 1));
		return;
	}
	LLVMBasicBlockRef stbb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "xst");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "xst.join");
	LLVMBuildCondBr(e->b, pred, stbb, join);
	LLVMPositionBuilderAtEnd(e->b, stbb);
	LLVMValueRef st = LLVMBuildStore(e->b, v, p);
	int eb = elem_bytes(el);
	LLVMSetAlignment(st, (unsigned)(eb ? eb : 1));
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
}

LLVMValueRef xchg_load(E *e, LLVMValueRef base, LLVMValueRef byte_off, const Type *el)
{
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	LLVMValueRef x = LLVMBuildLoad2(e->b, mt, xchg_ptr(e, base, byte_off), "");
	int eb = elem_bytes(el);
	LLVMSetAlignment(x, (unsigned)(eb ? eb : 1));
	return mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
}
