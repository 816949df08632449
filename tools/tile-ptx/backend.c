/* backend.c: the NVPTX end of tile-ptx (see ptx.h).
 * Target machine for nvptx64-nvidia-cuda with the target's sm_XX and the
 * lowest PTX ISA version that knows it (target.h) — its family-specific
 * variant (sm_100f, PTX 8.8) when the module uses an instruction that
 * needs one (the e2m1 and ue8m0 conversions); libdevice linked only
 * when a math function needs it ($CUDA_ROOT/nvvm/libdevice/libdevice.10.bc,
 * CUDA_ROOT defaulting to /usr/local/cuda); verify; "default<On>" (O2 for -O3, below); emit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Support.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include "ptx.h"
#include "knobs.h"
#include "tool.h"
#include "diag.h"
#include "tmap.h"
#include "toolkit.h"

#define TRIPLE "nvptx64-nvidia-cuda"

static void llvm_fatal(const char *reason)
{
	ice("LLVM: %s", reason);
}

/* PTX ISA version: the target's lowest, raised where LLVM needs more for
 * what we use (sm_89 converts 8-bit floats only from PTX 8.1 on). */
/* LLVM's verifier message is one line of summary, then the offending
 * instructions: only the summary goes into the internal error. */
static const char *first_line(char *msg)
{
	if (!msg)
		return "?";
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	return msg;
}

/* the newest PTX ISA LLVM 22's NVPTX back end writes (+ptx90) */
#define LLVM_MAX_PTX 90

static TargetVariant variant(const PtxOpts *o)
{
	return o->arch ? TARGET_ARCH : o->family ? TARGET_FAMILY : TARGET_PLAIN;
}

static int ptx_version(const Target *t)
{
	int v = t->min_ptx;
	if (t->sm == 89 && v < 81)
		v = 81;
	return v;
}

/* Once per process, whichever thread comes first (libtileiras). */
static void init_nvptx(void)
{
	LLVMInstallFatalErrorHandler(llvm_fatal);
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
}

/* LLVM reads -nvptx-short-ptr once, when it makes a target machine (its data
 * layout): set and read under one lock, as libtileiras's threads may ask
 * for either width at once */
static pthread_mutex_t short_ptr_lock = PTHREAD_MUTEX_INITIALIZER;

static LLVMTargetMachineRef create_target_machine(LLVMTargetRef t, const char *cpu, const char *features,
						  LLVMCodeGenOptLevel lvl, bool short_ptr)
{
	static int now = -1;      /* the option's value, -1 before the first */
	pthread_mutex_lock(&short_ptr_lock);
	if (now != (int)short_ptr) {
		const char *argv[] = { "tile-ptx", short_ptr ? "-nvptx-short-ptr=true" : "-nvptx-short-ptr=false" };
		LLVMParseCommandLineOptions(2, argv, NULL);
		now = short_ptr;
	}
	LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, TRIPLE, cpu, features, lvl, LLVMRelocDefault,
							  LLVMCodeModelDefault);
	pthread_mutex_unlock(&short_ptr_lock);
	return tm;
}

LLVMTargetMachineRef backend_target_machine(const PtxOpts *o, bool long_local)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init_nvptx);
	LLVMTargetRef t;
	char *err = NULL;
	if (LLVMGetTargetFromTriple(TRIPLE, &t, &err)) {
		diag_plain("LLVM has no NVPTX target: %s", err ? err : "?");
		LLVMDisposeMessage(err);
		return NULL;
	}
	char features[32];
	int v = ptx_version(o->target);
	if (o->min_ptx > v)
		v = o->min_ptx;
	if (v > LLVM_MAX_PTX)
		v = LLVM_MAX_PTX;       /* a target LLVM generates as another (retarget()) */
	snprintf(features, sizeof features, "+ptx%d", v);
	LLVMCodeGenOptLevel lvl = o->opt == 0 ? LLVMCodeGenLevelNone : o->opt == 1 ? LLVMCodeGenLevelLess
				 : o->opt == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
	return create_target_machine(t, target_llvm_arch(o->target, variant(o)), features, lvl,
				     !knobs()->TILE_PTX_LONG_SHARED && !long_local);
}

static LLVMModuleRef load_libdevice(LLVMContextRef ctx)
{
	const char *root = toolkit_env(TK_CUDA_ROOT);
	if (!root || !*root)
		root = "/usr/local/cuda";
	char path[4096];
	snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", root);
	LLVMMemoryBufferRef buf;
	char *err = NULL;
	if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &err)) {
		diag_plain("this kernel needs libdevice for its math functions, but %s cannot be read: %s "
			   "(set CUDA_ROOT to the CUDA toolkit)", path, err ? err : "?");
		LLVMDisposeMessage(err);
		return NULL;
	}
	/* Lazily: function bodies are read only when the linker pulls them in.
	 * Marking every definition linkonce_odr makes the linker pull in only
	 * what the kernel references (and what that references), instead of
	 * all ~1000 functions that the O3 pipeline would then simplify before
	 * GlobalOpt deletes them (that was ~100 ms of a 160 ms tile-ptx run). */
	LLVMModuleRef m;
	if (LLVMGetBitcodeModuleInContext2(ctx, buf, &m)) {
		LLVMDisposeMemoryBuffer(buf);
		diag_plain("%s is not a valid LLVM bitcode file", path);
		return NULL;
	}
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
			LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage)
			LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
	return m;     /* owns buf */
}

/* Does the module call an intrinsic that only a family-specific target has? */
static bool needs_family(LLVMModuleRef mod)
{
	static const char *const fam[] = { "llvm.nvvm.ff.to.e2m1x2.", "llvm.nvvm.e2m1x2.to.",
					   "llvm.nvvm.ff.to.ue8m0x2.", "llvm.nvvm.bf16x2.to.ue8m0x2.",
					   "llvm.nvvm.ue8m0x2.to." };
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
			if (strncmp(name, fam[i], strlen(fam[i])) == 0)
				return true;
	}
	return false;
}

/* util_tma.c's tensor-map notes ("tileiras.tensormap"), as PTX comment lines */
static void tensormap_notes(LLVMModuleRef mod, StrBuf *notes)
{
	unsigned n = LLVMGetNamedMetadataNumOperands(mod, "tileiras.tensormap");
	if (!n)
		return;
	LLVMValueRef *ops = calloc(n, sizeof *ops);
	LLVMGetNamedMetadataOperands(mod, "tileiras.tensormap", ops);
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef s = LLVMGetOperand(ops[i], 0);
		unsigned len = 0;
		const char *line = s ? LLVMGetMDString(s, &len) : NULL;
		if (!line)
			ice("tile-ptx: malformed tensor-map note");
		sb_putn(notes, line, len);
		sb_putc(notes, '\n');
	}
	free(ops);
}

/* A target LLVM generates as another (targets.def llvm_as): the text's
 * ".version" and ".target" lines rewritten in place to the target's own
 * (its PTX ISA at least its min_ptx), the rest as LLVM wrote it. */
static void retarget(StrBuf *ptx, const PtxOpts *o)
{
	const char *as = target_llvm_arch(o->target, variant(o)), *own = target_ptx_arch(o->target, variant(o));
	StrBuf out = { 0 };
	size_t at = 0;
	bool version = false, target = false;
	while (at < ptx->len) {
		const char *line = ptx->s + at, *nl = memchr(line, '\n', ptx->len - at);
		size_t n = nl ? (size_t)(nl - line) + 1 : ptx->len - at;
		unsigned major, minor;
		size_t asn = strlen(as);
		if (!version && sscanf(line, ".version %u.%u", &major, &minor) == 2) {
			unsigned v = major * 10 + minor, want = (unsigned)o->target->min_ptx;
			sb_printf(&out, ".version %u.%u\n", (v > want ? v : want) / 10, (v > want ? v : want) % 10);
			version = true;
		} else if (!target && n > 8 + asn && memcmp(line, ".target ", 8) == 0 && memcmp(line + 8, as, asn) == 0 &&
			   (line[8 + asn] == '\n' || line[8 + asn] == ',')) {
			sb_puts(&out, ".target ");
			sb_puts(&out, own);
			sb_putn(&out, line + 8 + asn, n - 8 - asn);
			target = true;
		} else {
			sb_putn(&out, line, n);
		}
		at += n;
	}
	if (!version || !target)
		ice("tile-ptx: LLVM's PTX for %s has no .version or no '.target %s' line", o->target->name, as);
	sb_free(ptx);
	*ptx = out;
}

/* The PTX with each noted map's parameter declared .hidden (LLVM cannot:
 * a launcher passes only the user's parameters, docs/abi.md §5.3.1) and
 * the notes at the end, for tile-pack and tile-run. */
static void mark_hidden(StrBuf *out, const char *ptx, size_t len, const StrBuf *notes)
{
	TmapNote *all;
	int n, bad;
	const char *why;
	if (!tmap_notes_of(notes->s, notes->len, &all, &n, &bad, &why))
		ice("tile-ptx: tensor-map note %d: %s", bad, why);
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(ptx + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - ptx) + 1 : len;
		bool hide = false;
		for (int i = 0; i < n && !hide; i++) {
			char want[400];
			int w = snprintf(want, sizeof want, "\t.param .align 64 .b8 %s_param_%d[128]", all[i].entry, all[i].hidden);
			hide = w > 0 && (size_t)w < sizeof want && end - at >= (size_t)w && memcmp(ptx + at, want, (size_t)w) == 0 &&
			       (ptx[at + (size_t)w] == ',' || ptx[at + (size_t)w] == '\n');
		}
		if (hide)
			sb_puts(out, "\t.hidden");     /* "\t.hidden\t.param", as NVIDIA's */
		sb_putn(out, ptx + at, end - at);
		at = end;
	}
	free(all);
	sb_putn(out, notes->s, notes->len);
}

/* Does a libdevice function the module calls keep an array in local
 * memory (the f32 sin/cos/tan/pow argument reduction's Payne-Hanek
 * table)? ptxas keeps it on the stack (32 bytes) when local addresses
 * are 32-bit and in registers when they are 64-bit, so such a module
 * gets 64-bit local (and shared, const) pointers: LLVM sets the three
 * together. */
static bool libdevice_local_array(LLVMModuleRef mod)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		if (LLVMIsDeclaration(f) || (strncmp(name, "__nv_", 5) != 0 && strncmp(name, "__internal_", 11) != 0))
			continue;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				if (LLVMGetInstructionOpcode(i) == LLVMAlloca)
					return true;
	}
	return false;
}

int backend_run(LLVMModuleRef mod, LLVMContextRef ctx, const PtxOpts *o, bool needs_libdevice, StrBuf *out)
{
	PtxOpts with = *o;
	if (needs_family(mod)) {
		if (!target_has(o->target, TF_ARCH_F))
			ice("tile-ptx: a family-specific conversion reached %s", o->target->name);
		with.family = true;
		if (with.min_ptx < 88)
			with.min_ptx = 88;     /* family-specific targets are PTX 8.8 */
	}
	if (LLVMGetNamedMetadataNumOperands(mod, "tileiras.arch")) {
		/* inline PTX only the arch-specific target has (util_wgmma.c) */
		if (!target_has(o->target, TF_ARCH_A))
			ice("tile-ptx: an arch-specific instruction reached %s", o->target->name);
		with.arch = true;
	}
	if (LLVMGetNamedFunction(mod, "llvm.nvvm.fence.proxy.alias") && with.min_ptx < 75)
		with.min_ptx = 75;      /* fence.proxy.alias (memory_fence_alias_tko) is PTX 7.5 */
	if (o->device_debug && with.min_ptx < 75)
		with.min_ptx = 75;      /* full DWARF sections use label differences, PTX 7.5 */
	/* inline PTX an emitter marked as needing a newer ISA (op_mma.c: mma.sync on sm_75) */
	unsigned nmin = LLVMGetNamedMetadataNumOperands(mod, "tileiras.min_ptx");
	if (nmin) {
		LLVMValueRef *ops = calloc(nmin, sizeof *ops);
		LLVMGetNamedMetadataOperands(mod, "tileiras.min_ptx", ops);
		for (unsigned i = 0; i < nmin; i++) {
			LLVMValueRef v = LLVMGetOperand(ops[i], 0);
			int need = v ? (int)LLVMConstIntGetZExtValue(v) : 0;
			if (with.min_ptx < need)
				with.min_ptx = need;
		}
		free(ops);
	}
	o = &with;
	StrBuf notes = { 0 };
	tensormap_notes(mod, &notes);
	char *msg = NULL;
	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg))
		ice("tile-ptx built invalid LLVM IR: %s", first_line(msg));
	LLVMDisposeMessage(msg);
	if (needs_libdevice) {
		LLVMModuleRef ld = load_libdevice(ctx);
		if (!ld) {
			LLVMDisposeModule(mod);
			return EXIT_INPUT;
		}
		LLVMSetTarget(ld, TRIPLE);
		LLVMSetModuleDataLayout(ld, LLVMGetModuleDataLayout(mod));
		if (LLVMLinkModules2(mod, ld))
			ice("tile-ptx: linking libdevice failed");
		backend_libdevice_intrinsics(mod);      /* libdevice_asm.c */
		/* only the kernels stay visible, so unused library code goes */
		for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
			if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != LLVMPTXKernelCallConv)
				LLVMSetLinkage(f, LLVMInternalLinkage);
		LLVMAddModuleFlag(mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
				  LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)));
	}
	LLVMTargetMachineRef tm = backend_target_machine(o, needs_libdevice && libdevice_local_array(mod));
	if (!tm) {
		LLVMDisposeModule(mod);
		return EXIT_INPUT;
	}
	LLVMSetTarget(mod, TRIPLE);
	LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
	LLVMSetModuleDataLayout(mod, dl);
	LLVMDisposeTargetData(dl);
	/* -O3 runs LLVM's O2 pipeline: over every corpus, MMA, attention and
	 * TileGym module for sm_80/90/100/120 (768 PTX) the two give the same
	 * PTX, and O2 takes ~1 ms less of a compile's ~10 in LLVM (O3's extra
	 * passes, non-trivial unswitching and argument promotion among them,
	 * find nothing in a kernel tile-ptx built; O1 changes 255 of the 768).
	 * Code generation stays at the aggressive level. */
	char passes[32];
	snprintf(passes, sizeof passes, "default<O%d>", o->opt == 3 ? 2 : o->opt);
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	LLVMErrorRef perr = LLVMRunPasses(mod, passes, tm, po);
	LLVMDisposePassBuilderOptions(po);
	if (perr) {
		char *m = LLVMGetErrorMessage(perr);
		ice("tile-ptx: the LLVM pipeline failed: %s", m);
	}
	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg))
		ice("tile-ptx: LLVM IR invalid after optimization: %s", first_line(msg));
	LLVMDisposeMessage(msg);
	if (o->emit_llvm) {
		char *s = LLVMPrintModuleToString(mod);
		sb_puts(out, s);
		LLVMDisposeMessage(s);
	} else {
		LLVMMemoryBufferRef buf;
		char *err = NULL;
		if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf))
			ice("tile-ptx: NVPTX code generation failed: %s", err ? err : "?");
		StrBuf ptx = { 0 };
		if (notes.len)
			mark_hidden(&ptx, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), &notes);
		else
			sb_putn(&ptx, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
		LLVMDisposeMemoryBuffer(buf);
		if (o->target->llvm_as)
			retarget(&ptx, o);
		sb_putn(out, ptx.s, ptx.len);
		sb_free(&ptx);
	}
	sb_free(&notes);
	LLVMDisposeModule(mod);
	LLVMDisposeTargetMachine(tm);
	return EXIT_OK;
}
