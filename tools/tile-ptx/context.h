/* context.h: the emitter context of tile-ptx (docs/architecture.md
 * "tile-ptx and tile-sched source layout"): E, the state of the module and
 * kernel being emitted, the per-value records it holds (TV registers, MR
 * memrefs, Tok tokens) and EmitFn, the signature of an op emitter. The
 * bottom header: the utility layer (emit.h) builds on it, the family
 * emitters' declarations (families.h) need only it.
 * A tile value is held, in every thread, as the registers its layout gives
 * that thread: register r of thread (lane, warp) holds the element at
 * row-major offset V(r) + L(lane) + W(warp). */
#ifndef TILE_PTX_CONTEXT_H
#define TILE_PTX_CONTEXT_H
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include "ptx.h"
#include "layout.h"

typedef struct TV {            /* a tile value: this thread's registers */
	int n;
	LLVMValueRef *r;
	Layout lay;
} TV;

typedef struct MR {            /* a memref: base pointer, sizes, strides (i64) */
	LLVMValueRef base;
	int rank;
	LLVMValueRef shape[8], stride[8];
} MR;

typedef struct Ctx {           /* where yield / continue branch to */
	LLVMBasicBlockRef target;
	int nvals;
	TV **phis;
	struct Ctx *brk;            /* a `loop`'s continue context: where break goes */
	int scope;                  /* allocas live when the region began (freed down to it on exit) */
} Ctx;

/* A token: after which memory ops (up to 4, else unknown). */
typedef struct Tok {
	bool dirty;                 /* after some memory op */
	int nprod;                  /* -1: unknown producers */
	const Op *prod[4];
} Tok;

typedef struct LWCache { char *key; LLVMValueRef off, primary; } LWCache;

/* The exchange buffer of the kernel being emitted (util_smem.c). */
typedef struct XchgBuf {
	LLVMValueRef buf;           /* [regions * region_bytes x i8] addrspace(3); NULL until first use */
	int64_t region_bytes;
	int regions;
	Op *last;                   /* the last use emitted, and its region */
	int last_region;
} XchgBuf;

/* Heap allocations (alloca) live in the kernel being emitted, innermost
 * last: a region frees those made since it began (util_region.c). */
typedef struct AllocaStack {
	LLVMValueRef *ptr;
	int n, cap;
} AllocaStack;

struct E;
typedef void EmitFn(struct E *e, Op *op);

typedef struct E {
	Module *m;
	const PtxOpts *o;
	EmitFn *const *table;       /* op code -> emitter (registry.c) */
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	bool needs_libdevice;
	int errors;
	LLVMValueRef smem;          /* the module's scratch buffer (util_smem.c), sized at the end */
	int64_t smem_bytes;
	/* debug info */
	LLVMDIBuilderRef dib;
	LLVMMetadataRef cu_file, sp;
	unsigned fn_line;
	/* the kernel being emitted (module.c resets these per kernel) */
	LLVMValueRef fn;
	LLVMValueRef entry_br;      /* prologue code goes before this */
	LLVMValueRef lane, warp;    /* i32 */
	int warps;
	int nvals;
	TV **tv;                    /* by value id: registers */
	MR **mr;                    /* by value id: memrefs */
	Tok *tok;                   /* by value id: what a token orders after */
	LWCache *lw;
	int nlw, caplw;
	TV **all;                   /* every TV of the kernel, freed at its end */
	int nall, capall;
	XchgBuf xchg;
	AllocaStack allocas;
	Ctx *loop, *ifc;            /* the region being emitted: its loop and if contexts */
	/* util_fuse.c: a fused group emits its ops a window of registers at a
	 * time; emitters that take part honour [fuse_lo, fuse_hi) (fuse_window) */
	bool fusing;
	int fuse_lo, fuse_hi;
	/* a copied operand load emitted for another step (util_ldsm.c): the stage
	 * half it fills (i32; NULL: the product's own), and no barrier or
	 * commit of its own (the caller's) */
	LLVMValueRef stage_sel;
	bool stage_raw;
	/* TMA (util_tma.c): the kernel's loads copied by TMA, tma[i] through
	 * the hidden parameter tma_hidden0 + i; the stage mbarriers and the
	 * phase bits this thread last waited for (an i32 alloca) */
	Op **tma;
	int ntma, tma_hidden0, tma_nbar;
	bool tma_bar_shared;    /* every product's stage s on barrier s (too many for one each) */
	LLVMValueRef tma_bar, tma_phase, tma_ephase;
	/* tcgen05 (util_tcgen05.c): the tensor-memory address (NULL: none), its
	 * columns, the slots (mbarrier, address) and the phase last waited for */
	LLVMValueRef t5_taddr, t5_slots, t5_phase;
	int t5_cols;
} E;

#endif
