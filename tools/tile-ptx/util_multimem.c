/* util_multimem.c: one element of a 13.5 multimem access (utility layer,
 * emit.h): multimem.ld_reduce, multimem.red or multimem.st on a multicast
 * global address, the way NVIDIA's 13.5 emits them for sm_100 (measured
 * 2026-11-24: one instruction per element, `.relaxed.sys` for a weak or
 * relaxed access; docs/lowering.md §9). An acquire load or release store
 * keeps its ordering; the scope is the op's (tl_blk -> .cta, device ->
 * .gpu, default .sys). Values travel as bits (a .b32 register serves a
 * .f32 operand); the predicate, when there is one, branches around the
 * access, and a load then gives `otherwise`. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

/* ".add.f32", ".min.s32", ".and.b64", or (no reduction: a store) ".f32" */
static void type_suffix(char *out, size_t n, const char *red, const Type *el)
{
	bool isf = el->kind == TY_SCALAR && scalar_is_float(el->scalar);
	int bits = scalar_bits(el->scalar);
	const char *t;
	char ib[8];
	if (isf) {
		t = el->scalar == SC_BF16 ? "bf16" : bits == 16 ? "f16" : bits == 64 ? "f64" : "f32";
	} else if (!red || !strcmp(red, "and") || !strcmp(red, "or") || !strcmp(red, "xor")) {
		snprintf(ib, sizeof ib, "b%d", bits);
		t = ib;
	} else {
		bool sgn = !strcmp(red, "min") || !strcmp(red, "max");
		snprintf(ib, sizeof ib, "%c%d", sgn ? 's' : 'u', bits);
		t = ib;
	}
	const char *op = !red ? NULL : !strcmp(red, "umin") ? "min" : !strcmp(red, "umax") ? "max" : red;
	snprintf(out, n, "%s%s.%s", op ? "." : "", op ? op : "", t);
}

LLVMValueRef multimem_access(E *e, const Op *op, const char *kind, const Type *el, LLVMValueRef p,
			     LLVMValueRef v, LLVMValueRef pred, LLVMValueRef otherwise)
{
	int bits = scalar_bits(el->scalar);
	LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)bits);
	LLVMTypeRef et = LLVMTypeOf(otherwise ? otherwise : v);
	bool load = !strcmp(kind, "ld_reduce");
	const char *sem = op_attr_str(op, "memory_ordering_semantics", "weak");
	const char *ord = !strcmp(sem, "acquire") ? "acquire" : !strcmp(sem, "release") ? "release" : "relaxed";
	const char *sc = op_attr_str(op, "memory_scope", "sys");
	const char *scope = !strcmp(sc, "tl_blk") ? "cta" : !strcmp(sc, "device") ? "gpu" : "sys";
	char suffix[32], text[160];
	type_suffix(suffix, sizeof suffix, load || !strcmp(kind, "red") ? op_attr_str(op, "reduction", "add") : NULL,
		    el);
	const char *reg = bits == 64 ? "l" : bits == 16 ? "h" : "r";
	char cons[32];
	if (load) {
		snprintf(text, sizeof text, "multimem.ld_reduce.%s.%s.global%s $0, [$1];", ord, scope, suffix);
		snprintf(cons, sizeof cons, "=%s,l,~{memory}", reg);
	} else {
		snprintf(text, sizeof text, "multimem.%s.%s.%s.global%s [$0], $1;", kind, ord, scope, suffix);
		snprintf(cons, sizeof cons, "l,%s,~{memory}", reg);
	}
	LLVMBasicBlockRef from = NULL, acc = NULL, join = NULL;
	if (pred) {
		from = LLVMGetInsertBlock(e->b);
		acc = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "mm");
		join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "mm.join");
		LLVMBuildCondBr(e->b, pred, acc, join);
		LLVMPositionBuilderAtEnd(e->b, acc);
	}
	LLVMValueRef addr = LLVMBuildPtrToInt(e->b, p, ty_i64(e), "");
	LLVMValueRef x = NULL;
	if (load) {
		x = asm_call(e, it, text, cons, &addr, 1);
		x = LLVMBuildBitCast(e->b, x, et, "");
	} else {
		LLVMValueRef args[2] = { addr, LLVMBuildBitCast(e->b, v, it, "") };
		asm_call(e, LLVMVoidTypeInContext(e->ctx), text, cons, args, 2);
	}
	if (!pred)
		return x;
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
	if (!load)
		return NULL;
	return phi2(e, otherwise, from, x, acc);
}
