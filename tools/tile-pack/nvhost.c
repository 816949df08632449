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
 *   __CUDA_TILEIR_FUNC_ON_ARGUMENTS_CHANGE_<i> (local):
 *       int (?, ?, ?, uint8_t *params), params = the parameter block (byte 0
 *       = its first parameter). For each tensor-map note of the entry
 *       (tile-sched --tma, libcommon tmap.h) it reads the map's base, shape
 *       and stride parameters and writes the map's words (0x00-0x3f of
 *       the hidden parameter, as libcommon's tmap_encode and NVIDIA's
 *       callbacks do; 0x40-0x7f untouched); then returns 0.
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
#include "tmap.h"

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

/* the value of a parameter (u32 or u64 at its offset) or constant, i64 */
static LLVMValueRef param_value(LLVMBuilderRef b, LLVMContextRef ctx, LLVMValueRef params, const TmapParam *lay,
				int param, uint64_t value, bool wide)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
	if (param < 0)
		return LLVMConstInt(i64, value, 0);
	LLVMValueRef off = LLVMConstInt(i64, (unsigned long long)lay[param].offset, 0);
	LLVMValueRef p = LLVMBuildGEP2(b, i8, params, &off, 1, "");
	LLVMTypeRef t = wide ? i64 : LLVMInt32TypeInContext(ctx);
	LLVMValueRef v = LLVMBuildLoad2(b, t, p, "");
	LLVMSetAlignment(v, 1);
	return wide ? v : LLVMBuildZExt(b, v, i64, "");
}

/* store v (an integer of its own width) at byte off of params */
static void put(LLVMBuilderRef b, LLVMContextRef ctx, LLVMValueRef params, uint64_t off, LLVMValueRef v, unsigned align)
{
	LLVMValueRef o = LLVMConstInt(LLVMInt64TypeInContext(ctx), off, 0);
	LLVMValueRef st = LLVMBuildStore(b, v, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), params, &o, 1, ""));
	LLVMSetAlignment(st, align);
}

/* the words of one map (libcommon tmap_encode, in IR) into its hidden parameter */
static void build_map(LLVMBuilderRef b, LLVMContextRef ctx, LLVMValueRef params, const TmapParam *lay,
		      const TmapNote *t)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
#define K(v) LLVMConstInt(i64, (unsigned long long)(v), 0)
	uint64_t eb = (uint64_t)tmap_elem_bytes(t->elem), at = (uint64_t)lay[t->hidden].offset;
	LLVMValueRef base = param_value(b, ctx, params, lay, t->base, 0, true);
	LLVMValueRef dims[TMAP_MAX_RANK], strides[TMAP_MAX_RANK];
	for (int i = 0; i < t->rank; i++) {
		dims[i] = param_value(b, ctx, params, lay, t->dims[i].param, t->dims[i].value, false);
		strides[i] = i ? param_value(b, ctx, params, lay, t->strides[i].param, t->strides[i].value, false) : K(1);
	}
	for (int k = 0; k < 8; k++)          /* 0x00-0x3f; 0x40-0x7f are the driver's */
		put(b, ctx, params, at + 8 * (uint64_t)k, K(0), 8);
	put(b, ctx, params, at, LLVMBuildAnd(b, base, K(0x01FFFFFFFFFFFFF0ull), ""), 8);
	LLVMValueRef span = dims[0];
	for (int i = 1; i < t->rank; i++)
		span = LLVMBuildAdd(b, span, LLVMBuildMul(b, strides[i], LLVMBuildSub(b, dims[i], K(1), ""), ""), "");
	LLVMValueRef big = LLVMBuildShl(b, LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildMul(b, K(eb), span, ""),
								       K(0x20000), ""), i64, ""), K(21), "");
	LLVMValueRef flags = LLVMBuildOr(b, K(tmap_flags(t->elem, t->swizzle, t->rank)), big, "");
	put(b, ctx, params, at + 0x08, LLVMBuildTrunc(b, flags, i32, ""), 8);
	for (int i = 1; i < t->rank; i++)
		put(b, ctx, params, at + 0x0c + 4 * (uint64_t)(i - 1),
		    LLVMBuildTrunc(b, LLVMBuildLShr(b, LLVMBuildMul(b, strides[i], K(eb), ""), K(4), ""), i32, ""), 4);
	for (int i = 0; i < t->rank; i++) {
		put(b, ctx, params, at + 0x20 + 4 * (uint64_t)i, LLVMBuildTrunc(b, LLVMBuildSub(b, dims[i], K(1), ""), i32, ""), 4);
		put(b, ctx, params, at + 0x37 + (uint64_t)i, LLVMConstInt(i8, t->box[i] - 1, 0), 1);
	}
#undef K
}

/* entry's ON_ARGUMENTS_CHANGE: its maps, or nothing. -1 after a diagnostic. */
static int arguments_change(LLVMValueRef f, LLVMContextRef ctx, const char *entry, const uint8_t *ptx, size_t len,
			    int sm, const TmapNote *notes, int nnotes)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
	TmapParam *lay = NULL;
	int rc = 0;
	for (int i = 0; i < nnotes && rc == 0; i++) {
		if (strcmp(notes[i].entry, entry) != 0)
			continue;
		if (!lay) {
			int base = tmap_cbank_base(sm);
			int n = base ? tmap_param_layout((const char *)ptx, len, entry, base, NULL, 0) : -1;
			if (!base) {
				diag_plain("kernel '%s' takes TMA tensor maps, but where sm_%d's constant bank holds "
					   "parameters is not known (targets.def)", entry, sm);
				rc = -1;
				break;
			}
			if (n < 0) {
				diag_plain("kernel '%s': cannot read its parameter list from the PTX", entry);
				rc = -1;
				break;
			}
			lay = xcalloc((size_t)n + 1, sizeof *lay);
			tmap_param_layout((const char *)ptx, len, entry, base, lay, n);
			/* every parameter the note names must be there, the right size */
			for (int j = 0; j < nnotes; j++) {
				const TmapNote *t = &notes[j];
				if (strcmp(t->entry, entry) != 0)
					continue;
				bool ok = t->hidden < n && lay[t->hidden].hidden && lay[t->hidden].size == TMAP_BYTES &&
					  t->base < n && lay[t->base].size == 8;
				for (int k = 0; k < 2 * t->rank && ok; k++) {
					const TmapVal *v = tmap_note_field(t, k);
					ok = v->param < 0 || (v->param < n && lay[v->param].size == 4);
				}
				if (!ok) {
					diag_plain("kernel '%s': the tensor-map note for parameter %d does not fit the "
						   "kernel's parameters", entry, t->hidden);
					rc = -1;
					break;
				}
			}
			if (rc)
				break;
		}
		build_map(b, ctx, LLVMGetParam(f, 3), lay, &notes[i]);
	}
	LLVMBuildRet(b, LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0));
	LLVMDisposeBuilder(b);
	free(lay);
	return rc;
}

int pack_nv_host(const PackOptions *o, const char *const *names, int n, const uint8_t *ptx, size_t len, int sm,
		 StrBuf *obj)
{
	TmapNote *notes = NULL;
	int nnotes = 0, bad;
	const char *why;
	if (!tmap_notes_of((const char *)ptx, len, &notes, &nnotes, &bad, &why)) {
		diag_plain("PTX line %d: malformed tensor-map note: %s", bad, why);
		return -1;
	}
	const char *triple = pack_host_triple(o->host_arch, o->host_os);
	bool x86 = strncmp(triple, "x86_64", 6) == 0;
	/* without optimization: the callbacks run once per change of a kernel's
	 * arguments, on the host; what costs is making them, once per compile
	 * (x86 codegen at -O2 took ~8 ms of a ~50 ms compile, ~4 ms at -O0) */
	HostModule h;
	if (host_module_open(&h, o, "tileir_host", LLVMCodeGenLevelNone, x86 ? LLVMCodeModelLarge : LLVMCodeModelDefault))
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
		LLVMTypeRef cb_params[] = { ptr, ptr, ptr, ptr };
		LLVMValueRef f = LLVMAddFunction(m, nm.s, LLVMFunctionType(i32, cb_params, 4, 0));
		LLVMSetLinkage(f, LLVMInternalLinkage);
		if (arguments_change(f, ctx, names[i], ptx, len, sm, notes, nnotes) < 0) {
			free(notes);
			free(recs);
			sb_free(&nm);
			host_module_dispose(&h);
			return -1;
		}
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
	free(notes);
	return host_module_emit(&h, ".nv.host object", obj);
}
