/* op_constant.c: constant and iota (op family; docs/lowering.md §5).
 * constant: a splat (or a tile whose registers hold the same elements in
 * every lane) is register constants; any other dense tile is a table in
 * constant memory indexed by each register's element offset. Elements are
 * stored as MLIR does: the format's own bits, in ceil(bits/8) bytes.
 * iota: each register is its element offset. */
#include <stdlib.h>
#include "emit.h"
#include "families.h"
#include "diag.h"
#include "xalloc.h"

static uint64_t dense_elem(const Attr *a, int64_t i, int nb)
{
	size_t at = a->u.dense.splat ? 0 : (size_t)i * (size_t)nb;
	uint64_t x = 0;
	for (int k = 0; k < nb && at + (size_t)k < a->u.dense.n; k++)
		x |= (uint64_t)a->u.dense.bytes[at + (size_t)k] << (8 * k);
	return x;
}

/* An element's bit pattern as stored in a dense constant (MLIR's: the
 * format's own bits, in ceil(bits/8) bytes) as a register constant. */
static LLVMValueRef const_bits(E *e, const Type *elem, uint64_t bits)
{
	LLVMTypeRef t = elem_ty(e, elem);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_I1)
		return LLVMConstInt(t, bits & 1, 0);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_TF32)    /* 19 bits: the top of an f32 */
		return LLVMConstBitCast(LLVMConstInt(ty_i32(e), (bits & 0x7ffff) << 13, 0), t);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_F4E2M1FN)  /* the low nibble */
		return LLVMConstInt(t, bits & 0xf, 0);
	if (is_llvm_float(elem)) {
		int w = elem->scalar == SC_F16 || elem->scalar == SC_BF16 ? 16 :
			elem->scalar == SC_F64 ? 64 : 32;
		LLVMValueRef i = LLVMConstInt(LLVMIntTypeInContext(e->ctx, (unsigned)w), bits, 0);
		return LLVMConstBitCast(i, t);
	}
	return LLVMConstInt(t, bits, 0);
}

void emit_constant(E *e, Op *op)
{
	const Value *v = op->results[0];
	const Attr *a = op_attr(op, "value");
	const Type *el = v->type->elem;
	int nb = el->kind == TY_SCALAR ? (scalar_bits(el->scalar) + 7) / 8 : 0;   /* dense storage */
	TV *t = tv_new(e, v);
	if (!a || a->kind != AT_DENSE || nb == 0) {
		unsupported(e, op, "this constant");
		set(e, v, t);
		for (int k = 0; k < t->n; k++)
			t->r[k] = LLVMGetPoison(elem_ty(e, el));
		return;
	}
	bool lane_free = true;
	for (int i = t->lay.begin[1]; i < layout_nleaves(&t->lay); i++)
		lane_free &= t->lay.stride[i] == 0 || t->lay.shape[i] == 1;
	if (a->u.dense.splat || type_num_elements(v->type) == 1) {
		LLVMValueRef c = const_bits(e, el, dense_elem(a, 0, nb));
		for (int k = 0; k < t->n; k++)
			t->r[k] = c;
	} else if (lane_free) {
		for (int k = 0; k < t->n; k++)
			t->r[k] = const_bits(e, el, dense_elem(a, layout_eval_mode(&t->lay, 0, k), nb));
	} else {
		/* a table in constant memory, indexed by each register's offset */
		int64_t n = type_num_elements(v->type);
		LLVMValueRef *vals = xmalloc(sizeof *vals * (size_t)n);
		LLVMTypeRef mt = mem_ty(e, el);
		for (int64_t i = 0; i < n; i++) {
			LLVMValueRef c = const_bits(e, el, dense_elem(a, i, nb));
			vals[i] = to_mem_const(e, c, mt);
		}
		LLVMTypeRef at = LLVMArrayType2(mt, (uint64_t)n);
		LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, "__tile_const", 4);
		LLVMSetInitializer(g, LLVMConstArray2(mt, vals, (uint64_t)n));
		LLVMSetGlobalConstant(g, 1);
		LLVMSetLinkage(g, LLVMInternalLinkage);
		free(vals);
		for (int k = 0; k < t->n; k++) {
			LLVMValueRef idx[2] = { c_i64(e, 0), LLVMBuildZExt(e->b, elem_offset(e, &t->lay, k), ty_i64(e), "") };
			LLVMValueRef p = LLVMBuildGEP2(e->b, at, g, idx, 2, "");
			LLVMValueRef x = LLVMBuildLoad2(e->b, mt, p, "");
			t->r[k] = mt == elem_ty(e, el) ? x : LLVMBuildTrunc(e->b, x, elem_ty(e, el), "");
		}
	}
	set(e, v, t);
}

void emit_iota(E *e, Op *op)
{
	const Value *v = op->results[0];
	TV *t = tv_new(e, v);
	LLVMTypeRef et = elem_ty(e, v->type->elem);
	for (int k = 0; k < t->n; k++) {
		LLVMValueRef x = elem_offset(e, &t->lay, k);
		unsigned w = LLVMGetIntTypeWidth(et);
		t->r[k] = w > 32 ? LLVMBuildZExt(e->b, x, et, "") : w < 32 ? LLVMBuildTrunc(e->b, x, et, "") : x;
	}
	set(e, v, t);
}

