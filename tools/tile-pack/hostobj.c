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

int pack_host_object(const PackOptions *o, const void *fatbin, size_t len, StrBuf *obj)
{
	LLVMInitializeX86TargetInfo();
	LLVMInitializeX86Target();
	LLVMInitializeX86TargetMC();
	LLVMInitializeX86AsmPrinter();
	LLVMInitializeAArch64TargetInfo();
	LLVMInitializeAArch64Target();
	LLVMInitializeAArch64TargetMC();
	LLVMInitializeAArch64AsmPrinter();

	const char *triple = pack_host_triple(o->host_arch, o->host_os);
	LLVMTargetRef target;
	char *err = NULL;
	if (LLVMGetTargetFromTriple(triple, &target, &err)) {
		diag_plain("LLVM has no target for %s: %s", triple, err);
		LLVMDisposeMessage(err);
		return -1;
	}
	LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, "generic", "",
							  LLVMCodeGenLevelNone, LLVMRelocPIC,
							  LLVMCodeModelDefault);
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tileiras", ctx);
	LLVMSetTarget(m, triple);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	LLVMSetModuleDataLayout(m, td);

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

	int rc = 0;
	LLVMMemoryBufferRef mb = NULL;
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &err, &mb)) {
		diag_plain("LLVM could not emit the host object for %s: %s", triple, err);
		LLVMDisposeMessage(err);
		rc = -1;
	} else {
		sb_putn(obj, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
		LLVMDisposeMemoryBuffer(mb);
	}
	LLVMDisposeTargetData(td);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	LLVMDisposeTargetMachine(tm);
	return rc;
}
