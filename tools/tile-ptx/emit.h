/* emit.h: tile-ptx's emitter state, shared by emit.c (elementwise, memory,
 * control flow) and the files that emit the other op families: reduce.c
 * (reduce, scan), shape.c (permute, cat, extract, pack/unpack,
 * convert_layout) and smem.c (shared-memory buffers and barriers for them).
 * See ptx.h and docs/lowering.md §5, §8. */
#ifndef TILE_PTX_EMIT_H
#define TILE_PTX_EMIT_H
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include "ptx.h"
#include "layout.h"

typedef struct TV {
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
	struct Ctx *brk;            /* a `loop`'s continue context: where break goes (control.c) */
	int scope;                  /* allocas live when the region began (freed down to it on exit) */
} Ctx;

/* A token: after which memory ops (up to 4, else unknown). */
typedef struct Tok {
	bool dirty;                 /* after some memory op */
	int nprod;                  /* -1: unknown producers */
	const Op *prod[4];
} Tok;

typedef struct LWCache { char *key; LLVMValueRef off, primary; } LWCache;

typedef struct E {
	Module *m;
	const PtxOpts *o;
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMValueRef entry_br;      /* prologue code goes before this */
	LLVMValueRef lane, warp;    /* i32 */
	int warps;
	int nvals;
	TV **tv;
	MR **mr;
	struct Tok *tok;            /* by value id: what a token orders after */
	LWCache *lw;
	int nlw, caplw;
	TV **all;                   /* every TV of the kernel, freed at its end */
	int nall, capall;
	bool needs_libdevice;
	int errors;
	LLVMValueRef smem;
	int64_t smem_bytes;
	/* debug info */
	LLVMDIBuilderRef dib;
	LLVMMetadataRef cu_file, sp;
	unsigned fn_line;
} E;

/* emit.c helpers used by the other emitter files */
TV *tv_new(E *e, const Value *v);
TV *get(E *e, const Value *v);
void set(E *e, const Value *v, TV *t);
LLVMTypeRef elem_ty(E *e, const Type *t);
LLVMTypeRef mem_ty(E *e, const Type *t);
LWCache *lw_of(E *e, const Layout *l);
LLVMValueRef elem_offset(E *e, const Layout *l, int64_t r);
LLVMValueRef call_intr(E *e, const char *name, LLVMTypeRef over, LLVMValueRef *args, int n);
void barrier(E *e);
void unsupported(E *e, const Op *op, const char *what);
void emit_op(E *e, Op *op, Ctx *loop, Ctx *ifc);
/* Control-flow plumbing shared by emit.c and control.c: one phi per register
 * of v's tile; branch to c->target feeding term's operands to c's phis. */
TV *phis_for(E *e, const Value *v);
void branch_with(E *e, Ctx *c, Op *term);
/* more emit.c helpers, for atomic.c, debug.c, control.c, math.c */
LLVMValueRef scalar(E *e, const Value *v);
LLVMValueRef call(E *e, LLVMValueRef f, LLVMValueRef *args, int n);
LLVMValueRef declared(E *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n);
LLVMValueRef sreg(E *e, const char *name);
void order_after(E *e, const Value *tok, const Op *op);
void mark_token(E *e, const Value *v, bool dirty, const Op *prod);
LLVMValueRef libdevice1(E *e, const char *base, const Type *el, LLVMValueRef *args, int n);
const char *ptx_rounding(const char *mode);          /* "nearest_even" -> "rn", zero "rz", ...; else NULL */
const char *ptx_rounding_directed(const char *mode); /* "rz", "rm", "rp" for the directed modes, else NULL */
/* one-operand inline PTX without side effects */
LLVMValueRef asm_pure1(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef x);

/* atomic.c */
void emit_atomic(E *e, Op *op);
const char *ptx_sem(const char *sem);          /* "acq_rel" -> ".acq_rel" */
const char *ptx_scope(const char *scope);      /* "tl_blk" -> ".cta", device ".gpu", sys ".sys" */
LLVMValueRef smem_scratch(E *e, int64_t bytes);   /* the kernel's shared buffer, >= bytes */
void smem_broadcast(E *e, TV *t, const Type *el);  /* owners' registers to every copy */
/* debug.c: print_tko, assert; globals and get_global */
void emit_print(E *e, Op *op);
void emit_assert(E *e, Op *op);
void emit_get_global(E *e, Op *op);
void emit_global(E *e, Op *op);
void emit_alloca(E *e, Op *op);               /* heap scratch, freed at return */
void emit_alloca_free(E *e);                  /* before a return */
int alloca_depth(E *e);                       /* allocas live now: a region's scope */
void alloca_free_to(E *e, int depth);         /* free those made since depth (region exit) */
void alloca_pop(E *e, int depth);             /* the region's emission ended */
/* control.c: loop, break; gdc and fence ops */
void emit_loop(E *e, Op *op, Ctx *outer);
void emit_break(E *e, Op *op, Ctx *loop);
void emit_sync_op(E *e, Op *op);
/* math.c: elementwise math with rounding modes / ftz / approx that the plain
 * forms in emit.c do not cover; false when emit.c should do it */
bool math_ew(E *e, Op *op, LLVMValueRef *a, LLVMValueRef *out);
/* convert.c: ftof between any float formats with the op's rounding mode
 * (itof / ftoi ops convert through f32: nearest_even); the formats that are
 * not an LLVM float type (tf32, f8*, f4) need it for itof / ftoi too */
LLVMValueRef convert_float(E *e, Op *op, LLVMValueRef x, const Type *from, const Type *to);
bool convert_is_narrow(const Type *t);
bool convert_float_pair(E *e, Op *op, const LLVMValueRef x[2], const Type *from, const Type *to,
			LLVMValueRef out[2]);     /* two registers through one packed cvt, or false */
LLVMValueRef cvt_rounded(E *e, const char *rnd, LLVMValueRef x, const Type *from, const Type *to);

/* reduce.c, shape.c, xchg.c: reduce, scan, shape ops, and the shared-memory
 * exchange they and convert_layout use (docs/lowering.md §8) */
void emit_reduce(E *e, Op *op);
void emit_scan(E *e, Op *op);
LLVMValueRef warp_shfl(E *e, const char *kind, LLVMValueRef v, LLVMValueRef b);   /* any register type */
int64_t reduce_smem_bytes(Op *op);            /* 0 when no shared-memory round */
int64_t scan_smem_bytes(Op *op);
void emit_permute(E *e, Op *op);
void emit_cat(E *e, Op *op);
void emit_extract(E *e, Op *op);
void emit_insert(E *e, Op *op);
void emit_pack(E *e, Op *op);                 /* pack and unpack */
struct BitMap;
int64_t xchg_need(Op *op);                    /* bytes of shared memory an op needs */
LLVMValueRef xchg_begin(E *e, Op *op);        /* region base; barrier first if needed */
void xchg_store(E *e, LLVMValueRef base, LLVMValueRef byte_off, LLVMValueRef v, const Type *el,
		LLVMValueRef pred);
LLVMValueRef xchg_load(E *e, LLVMValueRef base, LLVMValueRef byte_off, const Type *el);
void xchg_move(E *e, Op *op, int nsrc, TV **srcs, int64_t src_elems, const Type *el, TV *dst,
	       const struct BitMap *m, int64_t cadd, LLVMValueRef radd);
bool xchg_convert(E *e, Op *op);              /* convert_layout, swizzled; false: not handled */

#endif
