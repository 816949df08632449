/* util_types.c: LLVM types of the IR's elements, in registers and in memory,
 * and small constant helpers (utility layer, emit.h).
 * f8 and f4 formats live in an i8 register (a 4-bit value in its low
 * nibble), tf32 in an f32 whose low 13 bits are zero, i1 as a byte in
 * memory, pointers as ptr addrspace(1). */
#include "emit.h"

LLVMTypeRef elem_ty(E *e, const Type *t)
{
	if (t->kind == TY_PTR)
		return LLVMPointerTypeInContext(e->ctx, 1);
	switch (t->scalar) {
	case SC_I1: return LLVMInt1TypeInContext(e->ctx);
	case SC_I4: return LLVMIntTypeInContext(e->ctx, 4);
	case SC_I8: return LLVMInt8TypeInContext(e->ctx);
	case SC_I16: return LLVMInt16TypeInContext(e->ctx);
	case SC_I32: return ty_i32(e);
	case SC_I64: return ty_i64(e);
	case SC_F16: return LLVMHalfTypeInContext(e->ctx);
	case SC_BF16: return LLVMBFloatTypeInContext(e->ctx);
	case SC_F32: case SC_TF32: return LLVMFloatTypeInContext(e->ctx);
	case SC_F64: return LLVMDoubleTypeInContext(e->ctx);
	case SC_F8E4M3FN: case SC_F8E5M2: case SC_F8E8M0FNU: case SC_F4E2M1FN: case SC_F8E5M3FNU:
		return LLVMInt8TypeInContext(e->ctx);
	default: return ty_i32(e);
	}
}

LLVMTypeRef mem_ty(E *e, const Type *t)
{
	if (t->kind == TY_SCALAR && t->scalar == SC_I1)
		return LLVMInt8TypeInContext(e->ctx);
	return elem_ty(e, t);
}

bool is_llvm_float(const Type *t)
{
	return t->kind == TY_SCALAR && scalar_is_float(t->scalar) && t->scalar != SC_F8E4M3FN &&
	       t->scalar != SC_F8E5M2 && t->scalar != SC_F8E8M0FNU && t->scalar != SC_F4E2M1FN;
}

LLVMValueRef as_i64(E *e, LLVMValueRef x)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	if (LLVMGetIntTypeWidth(t) == 64)
		return x;
	return LLVMBuildSExt(e->b, x, ty_i64(e), "");
}

LLVMValueRef to_mem_const(E *e, LLVMValueRef c, LLVMTypeRef mt)
{
	if (LLVMTypeOf(c) == mt)
		return c;
	return LLVMConstInt(mt, LLVMConstIntGetZExtValue(c), 0);
}
