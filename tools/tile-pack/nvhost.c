/* nvhost.c: the host-side launch-callback object of a TILEIR cubin, which
 * ptxas embeds as section .nv.host (`ptxas --nv-host=OBJ`), laid out as the
 * one NVIDIA's tileiras 13.5 writes for kernels without TMA (docs/abi.md
 * §5.3, read from its objects; no NVIDIA code is copied):
 *
 *   __CUDA_TILEIR_CALLBACKS (global, 72 bytes)
 *       { 2, 0, 0, 0, 64, &__CUDA_TILEIR_FUNC_CALLBACKS, N, 2, &__CUDA_TILEIR_ON_PRE_LOAD }
 *   __CUDA_TILEIR_FUNC_CALLBACKS (local, 64 bytes per entry, PTX order)
 *       { &__CUDA_TILEIR_FUNC_NAME_<i>, 0, 0, 0, 0, &__CUDA_TILEIR_FUNC_ON_ARGUMENTS_CHANGE_<i>, 0, 0 }
 *   __CUDA_TILEIR_FUNC_NAME_<i> (local): the entry's name, NUL-terminated
 *   __CUDA_TILEIR_FUNC_ON_ARGUMENTS_CHANGE_<i> (local): returns 0. Our
 *       kernels have no hidden parameters (NVIDIA's fill TMA tensor maps here).
 *   __CUDA_TILEIR_ON_PRE_LOAD (global)
 *       int (const void **driver, void *handle, int version, void **out):
 *       version 0: return 1. version < 2: first driver[6](handle, 16, &scratch).
 *       Then copy __CUDA_TILEIR_CALLBACKS to a private 72-byte block, zero
 *       its third word, *out = that block, return 0.
 *
 * Accepts: the entry names. Guarantees: an ELF (COFF for --host-os=windows)
 * relocatable for --host-arch, x86-64 in the large code model as NVIDIA's.
 * Whether the driver needs this object to launch our kernels is not known
 * without a GPU (docs/abi.md §5.4); tile-pack --nv-host=none leaves it out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include "pack.h"
#include "diag.h"
#include "xalloc.h"

#define CALLBACKS_WORDS 9
#define FUNC_WORDS 8

static LLVMValueRef i64c(LLVMTypeRef t, unsigned long long v)
{
	return LLVMConstInt(t, v, 0);
}

static LLVMValueRef pre_load(LLVMModuleRef m, LLVMContextRef ctx, LLVMValueRef table,
			     LLVMValueRef copy)
{
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMTypeRef params[] = { ptr, ptr, i32, ptr };
	LLVMValueRef f = LLVMAddFunction(m, "__CUDA_TILEIR_ON_PRE_LOAD",
					 LLVMFunctionType(i32, params, 4, 0));
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
	LLVMBasicBlockRef refuse = LLVMAppendBasicBlockInContext(ctx, f, "refuse");
	LLVMBasicBlockRef check1 = LLVMAppendBasicBlockInContext(ctx, f, "check1");
	LLVMBasicBlockRef ask = LLVMAppendBasicBlockInContext(ctx, f, "ask");
	LLVMBasicBlockRef give = LLVMAppendBasicBlockInContext(ctx, f, "give");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);

	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef scratch = LLVMBuildAlloca(b, i32, "scratch");
	LLVMValueRef ver = LLVMGetParam(f, 2);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, ver, LLVMConstInt(i32, 0, 0), ""), refuse, check1);

	LLVMPositionBuilderAtEnd(b, refuse);
	LLVMBuildRet(b, LLVMConstInt(i32, 1, 0));

	LLVMPositionBuilderAtEnd(b, check1);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, ver, LLVMConstInt(i32, 2, 0), ""), ask, give);

	LLVMPositionBuilderAtEnd(b, ask);
	LLVMValueRef idx = LLVMConstInt(i64, 6, 0);
	LLVMValueRef slot = LLVMBuildGEP2(b, ptr, LLVMGetParam(f, 0), &idx, 1, "");
	LLVMValueRef fn = LLVMBuildLoad2(b, ptr, slot, "");
	LLVMTypeRef qparams[] = { ptr, i32, ptr };
	LLVMTypeRef qty = LLVMFunctionType(i32, qparams, 3, 0);
	LLVMValueRef args[] = { LLVMGetParam(f, 1), LLVMConstInt(i32, 16, 0), scratch };
	LLVMBuildCall2(b, qty, fn, args, 3, "");
	LLVMBuildBr(b, give);

	LLVMPositionBuilderAtEnd(b, give);
	LLVMBuildMemCpy(b, copy, 16, table, 16, LLVMConstInt(i64, CALLBACKS_WORDS * 8, 0));
	LLVMValueRef two = LLVMConstInt(i64, 2, 0);
	LLVMValueRef word2 = LLVMBuildGEP2(b, i64, copy, &two, 1, "");
	LLVMBuildStore(b, LLVMConstInt(i64, 0, 0), word2);
	LLVMBuildStore(b, copy, LLVMGetParam(f, 3));
	LLVMBuildRet(b, LLVMConstInt(i32, 0, 0));
	LLVMDisposeBuilder(b);
	return f;
}

int pack_nv_host(const PackOptions *o, const char *const *names, int n, StrBuf *obj)
{
	const char *triple = pack_host_triple(o->host_arch, o->host_os);
	bool x86 = strncmp(triple, "x86_64", 6) == 0;
	HostModule h;
	if (host_module_open(&h, o, "tileir_host", LLVMCodeGenLevelDefault,
			     x86 ? LLVMCodeModelLarge : LLVMCodeModelDefault))
		return -1;
	LLVMContextRef ctx = h.ctx;
	LLVMModuleRef m = h.m;
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);

	/* per entry: name, argument-change callback, 64-byte record */
	LLVMTypeRef rec_fields[FUNC_WORDS] = { ptr, i64, i64, i64, i64, ptr, i64, i64 };
	LLVMTypeRef rec_ty = LLVMStructTypeInContext(ctx, rec_fields, FUNC_WORDS, 0);
	LLVMValueRef *recs = xcalloc((size_t)n + 1, sizeof *recs);
	StrBuf nm = {0};
	for (int i = 0; i < n; i++) {
		LLVMValueRef s = LLVMConstStringInContext2(ctx, names[i], strlen(names[i]), 0);
		nm.len = 0;
		sb_printf(&nm, "__CUDA_TILEIR_FUNC_NAME_%d", i);
		LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(s), nm.s);
		LLVMSetInitializer(g, s);
		LLVMSetGlobalConstant(g, 1);
		LLVMSetLinkage(g, LLVMInternalLinkage);
		LLVMSetAlignment(g, 16);
		nm.len = 0;
		sb_printf(&nm, "__CUDA_TILEIR_FUNC_ON_ARGUMENTS_CHANGE_%d", i);
		LLVMValueRef f = LLVMAddFunction(m, nm.s, LLVMFunctionType(i32, NULL, 0, 0));
		LLVMSetLinkage(f, LLVMInternalLinkage);
		LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
		LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
		LLVMBuildRet(b, LLVMConstInt(i32, 0, 0));
		LLVMDisposeBuilder(b);
		LLVMValueRef fields[FUNC_WORDS] = { g, i64c(i64, 0), i64c(i64, 0), i64c(i64, 0),
						    i64c(i64, 0), f, i64c(i64, 0), i64c(i64, 0) };
		recs[i] = LLVMConstNamedStruct(rec_ty, fields, FUNC_WORDS);
	}
	sb_free(&nm);
	LLVMTypeRef arr_ty = LLVMArrayType2(rec_ty, (uint64_t)n);
	LLVMValueRef funcs = LLVMAddGlobal(m, arr_ty, "__CUDA_TILEIR_FUNC_CALLBACKS");
	LLVMSetInitializer(funcs, LLVMConstArray2(rec_ty, recs, (uint64_t)n));
	LLVMSetGlobalConstant(funcs, 1);
	LLVMSetLinkage(funcs, LLVMInternalLinkage);
	LLVMSetAlignment(funcs, 16);
	free(recs);

	LLVMTypeRef tab_fields[CALLBACKS_WORDS] = { i64, i64, i64, i64, i64, ptr, i64, i64, ptr };
	LLVMTypeRef tab_ty = LLVMStructTypeInContext(ctx, tab_fields, CALLBACKS_WORDS, 0);
	LLVMValueRef table = LLVMAddGlobal(m, tab_ty, "__CUDA_TILEIR_CALLBACKS");
	LLVMSetGlobalConstant(table, 1);
	LLVMSetLinkage(table, LLVMExternalLinkage);
	LLVMSetAlignment(table, 16);
	LLVMValueRef copy = LLVMAddGlobal(m, LLVMArrayType2(i64, CALLBACKS_WORDS),
					  "__CUDA_TILEIR_CALLBACKS_ON_PRE_LOAD");
	LLVMSetInitializer(copy, LLVMConstNull(LLVMArrayType2(i64, CALLBACKS_WORDS)));
	LLVMSetLinkage(copy, LLVMInternalLinkage);
	LLVMSetAlignment(copy, 16);
	LLVMValueRef pl = pre_load(m, ctx, table, copy);
	LLVMValueRef tab[CALLBACKS_WORDS] = { i64c(i64, 2), i64c(i64, 0), i64c(i64, 0), i64c(i64, 0),
					      i64c(i64, FUNC_WORDS * 8), funcs, i64c(i64, (unsigned)n),
					      i64c(i64, 2), pl };
	LLVMSetInitializer(table, LLVMConstNamedStruct(tab_ty, tab, CALLBACKS_WORDS));

	char *verr = NULL;
	if (LLVMVerifyModule(m, LLVMReturnStatusAction, &verr))
		ice("the .nv.host module is invalid LLVM IR: %s", verr ? verr : "?");
	LLVMDisposeMessage(verr);
	return host_module_emit(&h, ".nv.host object", obj);
}
