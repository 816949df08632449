/* util_printf.c: device-side printf (utility layer, emit.h) for print_tko
 * and assert: vprintf(format, buffer) with the arguments at their natural
 * alignment in a stack buffer made in the entry block (so loops do not grow
 * the stack; lifetime markers let the buffers of different prints share
 * it), and constant C strings in global memory. */
#include <string.h>
#include "emit.h"

/* A NUL-terminated constant string in global memory, as a generic pointer. */
LLVMValueRef cstring(E *e, const char *s, const char *name)
{
	size_t n = strlen(s) + 1;
	LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), n);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, name, 1);
	LLVMSetInitializer(g, LLVMConstStringInContext2(e->ctx, s, n - 1, 0));
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	LLVMSetAlignment(g, 1);
	return LLVMConstAddrSpaceCast(g, ty_genptr(e));
}

static LLVMValueRef vprintf_fn(E *e)
{
	LLVMTypeRef ps[2] = { ty_genptr(e), ty_genptr(e) };
	return declared(e, "vprintf", ty_i32(e), ps, 2);
}

/* An alloca in the entry block (so loops do not grow the stack). */
static LLVMValueRef entry_alloca(E *e, int64_t bytes)
{
	EntryPos pos = entry_begin(e);
	LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), (uint64_t)(bytes ? bytes : 8));
	LLVMValueRef a = LLVMBuildAlloca(e->b, at, "vprintfBuffer");
	LLVMSetAlignment(a, 8);
	entry_end(e, pos);
	return a;
}

/* Lifetime markers, so the buffers of different prints share stack. */
static void lifetime(E *e, const char *name, LLVMValueRef p, int64_t bytes)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMTypeRef pt = LLVMTypeOf(p);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(e->mod, id, &pt, 1);
	LLVMValueRef args[2] = { c_i64(e, bytes), p };
	if (LLVMCountParamTypes(LLVMGlobalGetValueType(f)) == 1)
		call(e, f, &p, 1);
	else
		call(e, f, args, 2);
}

/* vprintf(fmt, buffer holding vals[] at natural alignment) */
void emit_vprintf(E *e, const char *fmt, LLVMValueRef *vals, int n)
{
	int64_t off = 0, offs[VPRINTF_MAX_ARGS + 8];
	int szs[VPRINTF_MAX_ARGS + 8];
	for (int i = 0; i < n; i++) {
		LLVMTypeRef t = LLVMTypeOf(vals[i]);
		int sz = LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 8 : (int)(LLVMGetIntTypeWidth(t) / 8);
		off = (off + sz - 1) / sz * sz;
		offs[i] = off;
		szs[i] = sz;
		off += sz;
	}
	int64_t bytes = (off + 7) / 8 * 8;
	LLVMValueRef buf = n ? entry_alloca(e, bytes) : LLVMConstNull(ty_genptr(e));
	if (n)
		lifetime(e, "llvm.lifetime.start", buf, bytes);
	for (int i = 0; i < n; i++) {
		LLVMValueRef o = c_i64(e, offs[i]);
		LLVMValueRef p = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), buf, &o, 1, "");
		LLVMSetAlignment(LLVMBuildStore(e->b, vals[i], p), (unsigned)szs[i]);
	}
	LLVMValueRef args[2] = { cstring(e, fmt, "printfFormat"), buf };
	if (n && LLVMGetPointerAddressSpace(LLVMTypeOf(buf)) != 0)
		args[1] = LLVMBuildAddrSpaceCast(e->b, buf, ty_genptr(e), "");
	call(e, vprintf_fn(e), args, 2);
	if (n)
		lifetime(e, "llvm.lifetime.end", buf, bytes);
}

