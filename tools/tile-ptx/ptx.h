/* ptx.h: tile-ptx's run (ptx.c) and its two halves (docs/lowering.md §5).
 *   module.c   scheduled IR -> LLVM IR: each tile value becomes the list of
 *              LLVM values one thread holds (its registers, in the order of
 *              the value's layout); every op becomes per-register code
 *              (registry.c, op_*.c over util_*.c: emit.h).
 *   backend.c  NVPTX target machine, libdevice linking, the -O pipeline,
 *              verification, PTX text. */
#ifndef TILE_PTX_H
#define TILE_PTX_H
#include <stdbool.h>
#include <llvm-c/Core.h>
#include "ir.h"
#include "target.h"
#include "strbuf.h"

typedef struct PtxOpts {
	const Target *target;
	int opt;              /* 0..3 */
	bool lineinfo;
	bool device_debug;    /* -g: full debug info (.target ..., debug; needs -O0) */
	int min_ptx;          /* a PTX ISA version the module needs (0: the target's lowest) */
	bool emit_llvm;       /* LLVM IR text instead of PTX */
	bool family;          /* the family-specific target (sm_100f): set by backend_run */
	bool arch;            /* the arch-specific target (sm_90a: wgmma): set by backend_run */
} PtxOpts;

/* ptx.c: the stage's run, for its executable and libtileiras: scheduled IR
 * m for gpu (else the module's target; o->target set) as PTX (LLVM IR with
 * o->emit_llvm) into out. 0, or EXIT_INPUT after the diagnostics. */
int ptx_run(Module *m, const char *gpu, PtxOpts *o, StrBuf *out);

/* Build the LLVM module for m. NULL after a user error (diagnosed). */
LLVMModuleRef emit_module(Module *m, LLVMContextRef ctx, const PtxOpts *o, bool *needs_libdevice);

/* Link libdevice when needed, verify, optimize, print PTX (or LLVM IR) into
 * out. 0 on success, else EXIT_INPUT after a diagnostic. Consumes mod. */
int backend_run(LLVMModuleRef mod, LLVMContextRef ctx, const PtxOpts *o,
		bool needs_libdevice, StrBuf *out);

/* libdevice_asm.c: libdevice's inline `rcp.approx.ftz.f32` as the
 * intrinsic of the same instruction */
void backend_libdevice_intrinsics(LLVMModuleRef mod);

/* The nvptx target machine for o (NULL after a diagnostic): 32-bit shared,
 * const and local pointers, unless long_local or TILE_PTX_LONG_SHARED */
struct LLVMOpaqueTargetMachine;
struct LLVMOpaqueTargetMachine *backend_target_machine(const PtxOpts *o, bool long_local);

#endif
