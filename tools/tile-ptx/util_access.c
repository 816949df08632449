/* util_access.c: predicated loads and stores with an ordering (utility
 * layer, emit.h). A predicate guards a store, an ordered load or a 16-bit
 * pair with a branch around it (a load then gives `otherwise` where the
 * predicate is false); a weak load of global memory is one predicated PTX
 * `ld` instead (predicated_load). An ordering other than weak makes the
 * access atomic with that ordering and scope. Weak 16-bit loads can go in
 * pairs, two elements in one i32 that the guards' phis merge
 * (guarded_load_half). */
#include <stdio.h>

#include "emit.h"
#include "knobs.h"

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

/* Bits of each register of a load of t (one to four 16-, 32- or 64-bit
 * elements, *n of them, 16 bytes at most: a 32-byte ld.v4.b64 is sm_100's
 * only), or 0 */
static unsigned register_bits(LLVMTypeRef t, unsigned *n)
{
	bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
	LLVMTypeRef et = vec ? LLVMGetElementType(t) : t;
	LLVMTypeKind kind = LLVMGetTypeKind(et);
	unsigned bits = kind == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(et)
			: kind == LLVMHalfTypeKind || kind == LLVMBFloatTypeKind ? 16
			: kind == LLVMFloatTypeKind ? 32
			: kind == LLVMDoubleTypeKind ? 64 : 0;
	*n = vec ? LLVMGetVectorSize(t) : 1;
	if ((*n != 1 && *n != 2 && *n != 4) || (bits != 16 && bits != 32 && bits != 64) || *n * bits > 128)
		return 0;
	return bits;
}

/* A weak load under a predicate as one predicated PTX `ld` (inline PTX,
 * ordered like a store against LLVM's other memory accesses): the address
 * is computed whether or not the element is in bounds, which costs no
 * access, and no branch is left for LLVM's MachineSink to move the address
 * arithmetic into. Behind a branch ptxas if-converted each guarded load
 * with its address computed in vector registers from predicated constant
 * loads; computed ahead, it stays in uniform registers (issue 17: sm_90
 * vector_add 18 -> 13 registers, cross_entropy_fwd 128 -> 95, median over
 * the corpus and TileGym set ours/NVIDIA 0.88 -> 0.82). NULL where the
 * pointer is not global or generic, or the type is not one to four 16-,
 * 32- or 64-bit registers (those keep the branch).
 * TILE_PTX_BRANCHED_LOADS=1 keeps every load behind a branch. */
static LLVMValueRef predicated_load(E *e, LLVMTypeRef t, LLVMValueRef p, LLVMValueRef pred, LLVMValueRef otherwise)
{
	unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p)), n;
	unsigned bits = register_bits(t, &n);
	if ((as != 0 && as != 1) || !bits || knobs()->TILE_PTX_BRANCHED_LOADS)
		return NULL;
	LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, bits);
	char rc = bits == 16 ? 'h' : bits == 32 ? 'r' : 'l';
	/* "{ .reg .pred p; setp.ne.b32 p, $pred, 0; @p ld.global.v4.b32 {$0, ..}, [$ptr]; }"
	 * with each output tied to its `otherwise` input */
	char text[192], cons[64];
	int tl = snprintf(text, sizeof text, "{\n.reg .pred p;\nsetp.ne.b32 p, $%u, 0;\n@p ld%s%s.b%u %s", n + 1,
			  as == 1 ? ".global" : "", n == 4 ? ".v4" : n == 2 ? ".v2" : "", bits, n > 1 ? "{" : "");
	int cl = 0;
	for (unsigned k = 0; k < n; k++) {
		tl += snprintf(text + tl, sizeof text - (size_t)tl, "%s$%u", k ? ", " : "", k);
		cl += snprintf(cons + cl, sizeof cons - (size_t)cl, "=%c,", rc);
	}
	snprintf(text + tl, sizeof text - (size_t)tl, "%s, [$%u];\n}", n > 1 ? "}" : "", n);
	cl += snprintf(cons + cl, sizeof cons - (size_t)cl, "l,r");
	for (unsigned k = 0; k < n; k++)
		cl += snprintf(cons + cl, sizeof cons - (size_t)cl, ",%u", k);
	snprintf(cons + cl, sizeof cons - (size_t)cl, ",~{memory}");
	LLVMValueRef args[2 + 4];
	args[0] = p;
	args[1] = LLVMBuildZExt(e->b, pred, ty_i32(e), "");
	bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;   /* n > 1 only for one */
	for (unsigned k = 0; k < n; k++) {
		LLVMValueRef x = vec ? LLVMBuildExtractElement(e->b, otherwise, c_i32(e, (int)k), "") : otherwise;
		args[2 + k] = LLVMBuildBitCast(e->b, x, it, "");
	}
	LLVMTypeRef rts[4] = { it, it, it, it };
	LLVMValueRef r = asm_call(e, n == 1 ? it : LLVMStructTypeInContext(e->ctx, rts, n, 0), text, cons, args,
				  (int)n + 2);
	if (!vec)
		return LLVMBuildBitCast(e->b, r, t, "");
	LLVMTypeRef et = LLVMGetElementType(t);
	LLVMValueRef v = LLVMGetUndef(t);
	for (unsigned k = 0; k < n; k++) {
		LLVMValueRef x = n == 1 ? r : LLVMBuildExtractValue(e->b, r, k, "");
		v = LLVMBuildInsertElement(e->b, v, LLVMBuildBitCast(e->b, x, et, ""), c_i32(e, (int)k), "");
	}
	return v;
}

LLVMValueRef guarded_load(E *e, LLVMTypeRef t, LLVMValueRef p, unsigned align, LLVMValueRef pred,
			  LLVMValueRef otherwise, const Order *o)
{
	if (pred && o->ord == LLVMAtomicOrderingNotAtomic) {
		LLVMValueRef x = predicated_load(e, t, p, pred, otherwise);
		if (x)
			return x;
	}
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
	return phi2(e, otherwise, from, x, ld);
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
	return phi2(e, pair, from, loaded, ld);
}

LLVMValueRef pair16_half(E *e, LLVMValueRef pair, int half, LLVMTypeRef t)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
	if (half)
		pair = LLVMBuildLShr(e->b, pair, LLVMConstInt(i32, 16, 0), "");
	return LLVMBuildBitCast(e->b, LLVMBuildTrunc(e->b, pair, LLVMInt16TypeInContext(e->ctx), ""), t, "");
}
