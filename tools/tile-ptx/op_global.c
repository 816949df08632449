/* op_global.c: global and get_global (op family; docs/lowering.md §9).
 * global: a module-level array in global memory (addrspace 1) with the
 * dense initializer; public (the default) is visible in the cubin, private
 * is internal. get_global: its address, in every thread (a global used
 * before its definition is emitted when first used). */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "diag.h"
#include "xalloc.h"

static LLVMValueRef dense_const(E *e, const Type *el, const uint8_t *p, int nb)
{
	uint64_t x = 0;
	for (int k = 0; k < nb && k < 8; k++)
		x |= (uint64_t)p[k] << (8 * k);
	LLVMTypeRef mt = mem_ty(e, el);
	if (el->kind == TY_SCALAR && scalar_is_float(el->scalar) && LLVMGetTypeKind(mt) != LLVMIntegerTypeKind) {
		LLVMValueRef i = LLVMConstInt(LLVMIntTypeInContext(e->ctx, (unsigned)(nb * 8)), x, 0);
		return LLVMConstBitCast(i, mt);
	}
	return LLVMConstInt(mt, x, 0);
}

void emit_global(E *e, Op *op)
{
	const Attr *na = op_attr(op, "sym_name"), *va = op_attr(op, "value");
	if (!na || na->kind != AT_STRING || !va || va->kind != AT_DENSE || !va->type ||
	    va->type->kind != TY_TILE) {
		unsupported(e, op, "this global");
		return;
	}
	if (LLVMGetNamedGlobal(e->mod, na->u.s))
		return;
	const Type *el = va->type->elem;
	int nb = elem_bytes(el);
	if (nb == 0) {
		unsupported(e, op, "a global of 4-bit elements");
		return;
	}
	int64_t n = type_num_elements(va->type);
	LLVMTypeRef mt = mem_ty(e, el);
	LLVMValueRef *vals = xmalloc(sizeof *vals * (size_t)(n ? n : 1));
	for (int64_t i = 0; i < n; i++) {
		size_t at = va->u.dense.splat ? 0 : (size_t)i * (size_t)nb;
		vals[i] = at + (size_t)nb <= va->u.dense.n ? dense_const(e, el, va->u.dense.bytes + at, nb)
							    : LLVMConstNull(mt);
	}
	LLVMTypeRef at = LLVMArrayType2(mt, (uint64_t)n);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, na->u.s, 1);
	LLVMSetInitializer(g, LLVMConstArray2(mt, vals, (uint64_t)n));
	free(vals);
	int64_t align = op_attr_int(op, "alignment", 0);
	LLVMSetAlignment(g, (unsigned)(align > nb ? align : nb));
	if (op_attr_flag(op, "constant"))
		LLVMSetGlobalConstant(g, 1);
	if (op_enum_attr(op, "symbol_visibility", EK_VISIBILITY, VISIBILITY_public) == VISIBILITY_private)
		LLVMSetLinkage(g, LLVMInternalLinkage);
}

void emit_get_global(E *e, Op *op)
{
	const Attr *na = op_attr(op, "name");
	LLVMValueRef g = na && na->kind == AT_STRING ? LLVMGetNamedGlobal(e->mod, na->u.s) : NULL;
	if (!g && na && na->kind == AT_STRING) {
		FOR_EACH_OP(top, &e->m->body) {
			const Attr *s = op_attr(top, "sym_name");
			if (top->info->code == CT_global && s && s->kind == AT_STRING && strcmp(s->u.s, na->u.s) == 0)
				emit_global(e, top);
		}
		g = LLVMGetNamedGlobal(e->mod, na->u.s);
	}
	TV *t = tv_new(e, op->results[0]);
	if (!g) {
		unsupported(e, op, "get_global of an unknown symbol");
		for (int k = 0; k < t->n; k++)
			t->r[k] = LLVMGetPoison(elem_ty(e, op->results[0]->type->elem));
	} else {
		for (int k = 0; k < t->n; k++)
			t->r[k] = g;
	}
	set(e, op->results[0], t);
}

