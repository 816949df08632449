/* module.c: scheduled IR -> LLVM IR, the top of tile-ptx's emitter (see
 * ptx.h, emit.h, docs/lowering.md §5).
 *
 * A module becomes an LLVM module: its globals (op_global.c), then one
 * kernel per entry. A kernel gets NVIDIA's parameter ABI (one LLVM
 * parameter per entry block argument, pointers as ptr addrspace(1)),
 * .reqntid = 32 * num_warps, a prologue computing the lane and the warp,
 * and its body emitted through emit_region with the registry's table
 * (registry.c). The emitter context (E) lives here: per-kernel state is
 * reset at each entry and freed after it. The module's scratch buffer is
 * sized and defined at the end, once every use is known; --lineinfo adds
 * line-table debug info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "families.h"
#include "diag.h"
#include "xalloc.h"
#include "target.h"

/* A product's `stages` (tile-sched) within 1..MMA_MAX_STAGES, else a user
 * error at the product (a hand-edited IR), read as 1 from then on. */

/* The register cap an entry's `occupancy` hint asks for (cuTile's
 * @ct.kernel(occupancy=N): N CTAs an SM), as NVIDIA's 13.5 writes it
 * (.maxnreg; measured on sm_80 and sm_90 for N = 2..32 at 32..1024 threads,
 * tests/workers.bats): with T = the CTA's threads but at least 128, the 64K
 * registers of an SM over N CTAs of T, down to a multiple of 8, and at
 * least 32 + 4096 / T (64 at 128 threads, 48 at 256, 40 at 512); none for
 * N < 2, for a hint that is not an integer, or at 1024 threads. */
static int occupancy_maxnreg(const Module *m, const Op *fn, int threads)
{
	const Attr *h = entry_hint(m, fn, "occupancy");
	if (!h || h->kind != AT_INT || h->u.i < 2 || threads >= 1024)
		return 0;
	int64_t t = threads < 128 ? 128 : threads;
	int64_t cap = 65536 / (h->u.i * t) / 8 * 8, floor = 32 + 4096 / t;
	return (int)(cap < floor ? floor : cap);
}

static void emit_kernel(E *e, Op *fn)
{
	const Attr *name = op_attr(fn, "sym_name");
	Block *body = fn->regions[0].first;
	if (!name || name->kind != AT_STRING || !body)
		ice("tile-ptx: malformed entry");
	int nmaps = tma_plan(e, fn, name->u.s);      /* hidden tensor-map parameters */
	LLVMTypeRef *params = xcalloc((size_t)body->nargs + (size_t)nmaps + 1, sizeof *params);
	for (int i = 0; i < body->nargs; i++) {
		const Type *t = body->args[i]->type;
		if (t->kind != TY_TILE || t->rank != 0) {
			diag_error(fn->loc, "entry '%s': parameter %d of type %s is not supported",
				   name->u.s, i, t->str);
			e->errors++;
			free(params);
			return;
		}
		params[i] = elem_ty(e, t->elem);
	}
	for (int i = 0; i < nmaps; i++)
		params[body->nargs + i] = ty_genptr(e);
	LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, (unsigned)(body->nargs + nmaps), 0);
	free(params);
	e->fn = LLVMAddFunction(e->mod, name->u.s, fty);
	tma_params(e, e->fn);
	LLVMSetFunctionCallConv(e->fn, LLVMPTXKernelCallConv);
	char threads[16];
	snprintf(threads, sizeof threads, "%d", 32 * e->warps);
	LLVMAddAttributeAtIndex(e->fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(e->ctx, "nvvm.reqntid", 12, threads, (unsigned)strlen(threads)));
	LLVMAddAttributeAtIndex(e->fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(e->ctx, "nvvm.minctasm", 13, "1", 1));
	int cap = occupancy_maxnreg(e->m, fn, 32 * e->warps);
	if (cap) {
		char regs[16];
		snprintf(regs, sizeof regs, "%d", cap);
		LLVMAddAttributeAtIndex(e->fn, LLVMAttributeFunctionIndex,
					LLVMCreateStringAttribute(e->ctx, "nvvm.maxnreg", 12, regs, (unsigned)strlen(regs)));
	}
	if (e->dib) {
		const Loc *l = fn->loc;
		e->fn_line = l && l->file ? l->line : 0;
		LLVMMetadataRef file = e->cu_file;
		if (l && l->file) {
			const char *slash = strrchr(l->file, '/');
			const char *base = slash ? slash + 1 : l->file;
			size_t dlen = slash ? (size_t)(slash - l->file) : 0;
			file = LLVMDIBuilderCreateFile(e->dib, base, strlen(base), l->file, dlen);
		}
		LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(e->dib, file, NULL, 0, LLVMDIFlagZero);
		e->sp = LLVMDIBuilderCreateFunction(e->dib, file, name->u.s, strlen(name->u.s), name->u.s,
						    strlen(name->u.s), file, e->fn_line, sty, 0, 1, e->fn_line,
						    LLVMDIFlagZero, e->o->opt > 0);
		LLVMSetSubprogram(e->fn, e->sp);
		set_loc(e, fn->loc);
	}
	e->nvals = op_count_values(fn) + 1;
	e->xchg = (XchgBuf){ 0 };
	e->allocas.n = 0;
	e->loop = e->ifc = NULL;
	e->tv = xcalloc((size_t)e->nvals, sizeof *e->tv);
	e->mr = xcalloc((size_t)e->nvals, sizeof *e->mr);
	e->tok = xcalloc((size_t)e->nvals, sizeof *e->tok);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "entry");
	LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "body");
	LLVMPositionBuilderAtEnd(e->b, entry);
	LLVMValueRef tid = sreg(e, "tid.x");
	e->lane = LLVMBuildAnd(e->b, tid, c_i32(e, 31), "lane");
	e->warp = e->warps > 1 ? LLVMBuildLShr(e->b, tid, c_i32(e, 5), "warp") : c_i32(e, 0);
	e->entry_br = LLVMBuildBr(e->b, start);
	LLVMPositionBuilderAtEnd(e->b, start);
	for (int i = 0; i < body->nargs; i++) {
		TV *t = tv_new(e, body->args[i]);
		LLVMValueRef p = LLVMGetParam(e->fn, (unsigned)i);
		for (int k = 0; k < t->n; k++)
			t->r[k] = p;
		set(e, body->args[i], t);
	}
	tma_kernel_begin(e);
	tcgen05_kernel_begin(e, fn);
	return_if_only_copies(e, body);      /* util_copies.c */
	emit_region(e, body, NULL, NULL);
	/* an entry body ends with return; make sure the last block is closed */
	if (!e->errors && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(e->b))) {
		tcgen05_kernel_end(e);
		LLVMBuildRetVoid(e->b);
	}
	for (int i = 0; i < e->nall; i++) {
		free(e->all[i]->r);
		free(e->all[i]);
	}
	e->nall = 0;
	for (int i = 0; i < e->nvals; i++)
		free(e->mr[i]);
	free(e->tv);
	free(e->tma);
	e->tma = NULL;
	e->ntma = 0;
	free(e->mr);
	free(e->tok);
	e->tv = NULL;
	for (int i = 0; i < e->nlw; i++)
		free(e->lw[i].key);
	e->nlw = 0;
}

LLVMModuleRef emit_module(Module *m, LLVMContextRef ctx, const PtxOpts *o, bool *needs_libdevice)
{
	E ee = { .m = m, .o = o, .table = emit_table, .ctx = ctx }, *e = &ee;
	registry_check();
	const Attr *w = module_attr(m, "num_warps");
	e->warps = w && w->kind == AT_INT ? (int)w->u.i : 4;
	e->mod = LLVMModuleCreateWithNameInContext(m->name, ctx);
	e->b = LLVMCreateBuilderInContext(ctx);
	if (o->lineinfo) {
		e->dib = LLVMCreateDIBuilder(e->mod);
		const char *f = "<unknown>";
		FOR_EACH_OP(fn, &m->body)
			if (fn->loc && fn->loc->file) {
				f = fn->loc->file;
				break;
			}
		e->cu_file = LLVMDIBuilderCreateFile(e->dib, f, strlen(f), "", 0);
		LLVMDIBuilderCreateCompileUnit(e->dib, LLVMDWARFSourceLanguageC, e->cu_file, "tile-ptx", 8,
					       o->opt > 0, "", 0, 0, "", 0,
					       /* --lineinfo: .file/.loc only (DebugDirectivesOnly = 3, not
					        * in the C enum); LineTablesOnly and Full make LLVM print
					        * ".target ..., debug", which ptxas takes only at -O0 */
					       o->device_debug ? LLVMDWARFEmissionFull : (LLVMDWARFEmissionKind)3,
					       0, 0, 0, "", 0, "", 0);
		LLVMAddModuleFlag(e->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
				  LLVMValueAsMetadata(LLVMConstInt(ty_i32(e), LLVMDebugMetadataVersion(), 0)));
		LLVMAddModuleFlag(e->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
				  LLVMValueAsMetadata(c_i32(e, 2)));
	}
	FOR_EACH_OP(fn, &m->body) {
		if (fn->info->code == CT_global) {
			emit_global(e, fn);
			continue;
		}
		if (fn->info->code != CT_entry) {
			diag_error(fn->loc, "'%s' op is not supported by this compiler", fn->info->name);
			e->errors++;
			continue;
		}
		e->sp = NULL;
		LLVMSetCurrentDebugLocation2(e->b, NULL);
		const Attr *ew = op_attr(fn, "num_warps");     /* the entry's own, else the module's */
		e->warps = ew && ew->kind == AT_INT ? (int)ew->u.i : w && w->kind == AT_INT ? (int)w->u.i : 4;
		emit_kernel(e, fn);
		if (e->errors)
			break;
	}
	LLVMSetCurrentDebugLocation2(e->b, NULL);
	if (e->smem) {
		LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(ctx), (uint64_t)e->smem_bytes);
		LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, "__tile_smem_buf", 3);
		LLVMSetInitializer(g, LLVMGetUndef(at));
		LLVMSetLinkage(g, LLVMInternalLinkage);
		LLVMSetAlignment(g, 16);
		LLVMReplaceAllUsesWith(e->smem, g);
		LLVMDeleteGlobal(e->smem);
	}
	/* every kernel's buffers together within what its target gives a block:
	 * ptxas would refuse it (the pieces are each checked where they are
	 * chosen; this is their sum) */
	FOR_EACH_OP(fn, &m->body) {
		const char *sym = fn->info->code == CT_entry ? op_attr_str(fn, "sym_name", NULL) : NULL;
		LLVMValueRef f = sym && !e->errors ? LLVMGetNamedFunction(e->mod, sym) : NULL;
		int64_t used = f ? smem_of_function(e, f) : 0;
		if (used > target_smem_limit(o->target->sm)) {
			diag_error(fn->loc, "entry '%s' needs %lld bytes of shared memory; %s gives a block at most %lld",
				   sym, (long long)used, o->target->name, target_smem_limit(o->target->sm));
			e->errors++;
		}
	}
	if (e->dib) {
		LLVMDIBuilderFinalize(e->dib);
		LLVMDisposeDIBuilder(e->dib);
	}
	LLVMDisposeBuilder(e->b);
	free(e->lw);
	free(e->all);
	free(e->allocas.ptr);
	*needs_libdevice = e->needs_libdevice;
	if (e->errors) {
		LLVMDisposeModule(e->mod);
		return NULL;
	}
	return e->mod;
}
