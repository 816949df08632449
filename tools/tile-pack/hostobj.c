/* hostobj.c: a host relocatable object carrying the fatbin, through the LLVM
 * C API: one module with two constants, emitted by the host target machine.
 *
 *   SYMBOL       [N x i8]  the fatbin bytes, section .nv_fatbin, align 8
 *   SYMBOL_size  i64       N
 *
 * A host program links the object and passes &SYMBOL to cuModuleLoadData (or
 * cuLibraryLoadData). x86_64/aarch64 Linux gives ELF, Windows gives COFF. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include "pack.h"
#include "diag.h"

const char *pack_host_triple(const char *arch, const char *os)
{
	bool win = os && strcmp(os, "windows") == 0;
	bool arm = arch && strcmp(arch, "aarch64") == 0;
	if (arm)
		return win ? "aarch64-pc-windows-msvc" : "aarch64-unknown-linux-gnu";
	return win ? "x86_64-pc-windows-msvc" : "x86_64-unknown-linux-gnu";
}

/* The other architecture's backend is referenced weakly: a static link
 * (tileiras-inproc, cuTile's compiles) then carries only this machine's, whose
 * host objects it makes (the other is ~9 MB and 25 static constructors run at
 * every start: 0.35-0.5 ms), while everything linked with libLLVM.so (the
 * tools, libtileiras.so) has both. Where it is absent, a host object for the
 * other architecture is "LLVM has no target" (the driver script then uses the
 * stages). */
#if defined(__aarch64__)
#pragma weak LLVMInitializeX86TargetInfo
#pragma weak LLVMInitializeX86Target
#pragma weak LLVMInitializeX86TargetMC
#pragma weak LLVMInitializeX86AsmPrinter
#define NATIVE(part) LLVMInitializeAArch64##part
#define OTHER(part) LLVMInitializeX86##part
#else
#pragma weak LLVMInitializeAArch64TargetInfo
#pragma weak LLVMInitializeAArch64Target
#pragma weak LLVMInitializeAArch64TargetMC
#pragma weak LLVMInitializeAArch64AsmPrinter
#define NATIVE(part) LLVMInitializeX86##part
#define OTHER(part) LLVMInitializeAArch64##part
#endif

static void init_targets(void)
{
	NATIVE(TargetInfo)();
	NATIVE(Target)();
	NATIVE(TargetMC)();
	NATIVE(AsmPrinter)();
	if (OTHER(TargetInfo) && OTHER(Target) && OTHER(TargetMC) && OTHER(AsmPrinter)) {
		OTHER(TargetInfo)();
		OTHER(Target)();
		OTHER(TargetMC)();
		OTHER(AsmPrinter)();
	}
}

int host_module_open(HostModule *h, const PackOptions *o, const char *name, int opt_level,
		     int code_model)
{
	init_targets();

	h->triple = pack_host_triple(o->host_arch, o->host_os);
	LLVMTargetRef target;
	char *err = NULL;
	if (LLVMGetTargetFromTriple(h->triple, &target, &err)) {
		diag_plain("LLVM has no target for %s: %s", h->triple, err);
		LLVMDisposeMessage(err);
		return -1;
	}
	h->tm = LLVMCreateTargetMachine(target, h->triple, "generic", "",
					(LLVMCodeGenOptLevel)opt_level, LLVMRelocPIC,
					(LLVMCodeModel)code_model);
	h->ctx = LLVMContextCreate();
	h->m = LLVMModuleCreateWithNameInContext(name, h->ctx);
	LLVMSetTarget(h->m, h->triple);
	h->td = LLVMCreateTargetDataLayout(h->tm);
	LLVMSetModuleDataLayout(h->m, h->td);
	return 0;
}

int host_module_emit(HostModule *h, const char *what, StrBuf *obj)
{
	int rc = 0;
	char *err = NULL;
	LLVMMemoryBufferRef mb = NULL;
	if (LLVMTargetMachineEmitToMemoryBuffer(h->tm, h->m, LLVMObjectFile, &err, &mb)) {
		diag_plain("LLVM could not emit the %s for %s: %s", what, h->triple, err);
		LLVMDisposeMessage(err);
		rc = -1;
	} else {
		sb_putn(obj, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
		LLVMDisposeMemoryBuffer(mb);
	}
	host_module_dispose(h);
	return rc;
}

void host_module_dispose(HostModule *h)
{
	LLVMDisposeTargetData(h->td);
	LLVMDisposeModule(h->m);
	LLVMContextDispose(h->ctx);
	LLVMDisposeTargetMachine(h->tm);
}

int pack_host_object(const PackOptions *o, const void *fatbin, size_t len, StrBuf *obj)
{
	HostModule h;
	if (host_module_open(&h, o, "tileiras", LLVMCodeGenLevelNone, LLVMCodeModelDefault))
		return -1;
	LLVMContextRef ctx = h.ctx;
	LLVMModuleRef m = h.m;

	LLVMValueRef bytes = LLVMConstStringInContext2(ctx, fatbin, len, 1);
	LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(bytes), o->symbol);
	LLVMSetInitializer(g, bytes);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMExternalLinkage);
	LLVMSetSection(g, ".nv_fatbin");
	LLVMSetAlignment(g, 8);

	StrBuf sname = {0};
	sb_printf(&sname, "%s_size", o->symbol);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMValueRef sz = LLVMAddGlobal(m, i64, sname.s);
	LLVMSetInitializer(sz, LLVMConstInt(i64, len, 0));
	LLVMSetGlobalConstant(sz, 1);
	LLVMSetLinkage(sz, LLVMExternalLinkage);
	LLVMSetAlignment(sz, 8);
	sb_free(&sname);

	return host_module_emit(&h, "host object", obj);
}
