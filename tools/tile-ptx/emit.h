/* emit.h: tile-ptx's utility layer: the helpers every op emitter builds
 * on, over the emitter context (context.h) (docs/lowering.md §5, docs/architecture.md
 * "tile-ptx and tile-sched source layout").
 *
 * Layers, bottom up; a file calls only into its own layer or the ones
 * below it (scripts/include-graph checks there is no cycle):
 *   context.h  the emitter context E and the op emitter's signature EmitFn
 *   util_*.c   this header: types, tile values (register lists), intrinsics
 *              and inline asm, attribute getters, rounding names, barriers
 *              and tokens, guarded accesses, shared memory, layout exchanges,
 *              LLVM-free layout plans, regions (the one recursion entry point)
 *   op_*.c     one file per op family (families.h); each calls only util_*
 *   registry.c the table op -> emitter (the dispatcher)
 *   module.c   modules and kernels: the context's life, the prologue
 * (A tile value's registers: context.h.) */
#ifndef TILE_PTX_EMIT_H
#define TILE_PTX_EMIT_H
#include "context.h"
#include "layout_map.h"
#include "opinfo.h"
#include "enums.h"
#include "mma.h"
#include "mma_plan.h"
#include "mma_staging.h"
#include "tmap.h"

/* ------------------------------------------------------------ util_types.c */
LLVMTypeRef elem_ty(E *e, const Type *t);            /* register type of an element */
LLVMTypeRef mem_ty(E *e, const Type *t);             /* type in memory (i1 is a byte) */
bool is_llvm_float(const Type *t);                   /* a float LLVM has a type for (not f8/f4) */
static inline LLVMTypeRef ty_i32(E *e) { return LLVMInt32TypeInContext(e->ctx); }
static inline LLVMTypeRef ty_i64(E *e) { return LLVMInt64TypeInContext(e->ctx); }
static inline LLVMTypeRef ty_f32(E *e) { return LLVMFloatTypeInContext(e->ctx); }
static inline LLVMTypeRef ty_genptr(E *e) { return LLVMPointerTypeInContext(e->ctx, 0); }
static inline LLVMValueRef c_i32(E *e, int64_t v) { return LLVMConstInt(ty_i32(e), (unsigned long long)v, 1); }
static inline LLVMValueRef c_i64(E *e, int64_t v) { return LLVMConstInt(ty_i64(e), (unsigned long long)v, 1); }
LLVMValueRef as_i64(E *e, LLVMValueRef x);           /* a scalar integer, sign-extended */
LLVMValueRef to_mem_const(E *e, LLVMValueRef c, LLVMTypeRef mt);   /* i1 constant -> i8 */

/* ------------------------------------------------------------ util_index.c */
/* i32 operands of a tiled access widened to i64 as NVIDIA's: a tile index
 * zero-extended; a size or stride zero-extended where an assume or a
 * constant says it is not negative, else sign-extended */
LLVMValueRef tile_index_i64(E *e, const Value *v);
LLVMValueRef extent_i64(E *e, const Value *v);

/* ------------------------------------------------------------ util_values.c */
/* Prologue code: entry_begin puts the builder before the entry's branch,
 * entry_end back where it was, with the debug location it had (positioning
 * before an instruction takes that instruction's location). */
typedef struct EntryPos {
	LLVMBasicBlockRef here;
	LLVMMetadataRef loc;
} EntryPos;
EntryPos entry_begin(E *e);
void entry_end(E *e, EntryPos p);
TV *tv_new(E *e, const Value *v);                    /* registers for v's layout (unset) */
/* the registers of a result: tv_new, or in a fused group (util_fuse.c) the
 * ones an earlier window of the group made */
TV *tv_result(E *e, const Value *v);
/* the registers [*lo, *hi) of n an emitter fills now: all, or the fused window */
void fuse_window(const E *e, int n, int *lo, int *hi);
/* util_fuse.c: does a fused group start at op? true with *end (the op
 * after it, NULL at the block's end), the registers of its layout and its
 * window: util_region.c emits it *window registers at a time (FUSE_WINDOW,
 * or a vector gather's run), its invariant ops (fuse_invariant) whole */
enum { FUSE_WINDOW = 2 };
bool fuse_group(E *e, Op *op, Op **end, int *nregs, int *window);
bool fuse_invariant(E *e, Op *op, Op *first);
TV *get(E *e, const Value *v);                       /* v's registers (an internal error if none) */
/* a phi here of a coming from block from_a and b from from_b */
LLVMValueRef phi2(E *e, LLVMValueRef a, LLVMBasicBlockRef from_a, LLVMValueRef b, LLVMBasicBlockRef from_b);
void set(E *e, const Value *v, TV *t);
LLVMValueRef scalar(E *e, const Value *v);           /* register 0 */
void set_poison(E *e, const Value *v);               /* v's registers all poison */
LWCache *lw_of(E *e, const Layout *l);               /* L(lane) + W(warp) and the owner predicate */
LLVMValueRef elem_offset(E *e, const Layout *l, int64_t r);   /* row-major offset of register r (i32) */
LLVMValueRef owner_pred(E *e, const Layout *l);      /* "first owner of its elements", NULL: every thread */
bool lay_has_copies(const Layout *l);
/* An elementwise op, register by register: one(e, op, operand registers)
 * gives a result register; pair, when not NULL, is tried first on two
 * registers at once (false: nothing emitted, do them one by one). */
typedef LLVMValueRef EwFn(E *e, Op *op, LLVMValueRef *a);
typedef bool EwPairFn(E *e, Op *op, const LLVMValueRef x[2], LLVMValueRef out[2]);
void emit_elementwise(E *e, Op *op, EwFn *one, EwPairFn *pair);     /* some element held by several threads or registers */

LLVMValueRef pack_b32(E *e, LLVMValueRef *x, int k);   /* k elements as one 32-bit register (64-bit: as is) */
void unpack_b32(E *e, LLVMValueRef r, LLVMTypeRef el, LLVMValueRef *out, int k);   /* its inverse: k elements of type el */

/* ------------------------------------------------------------ util_intr.c */
void unsupported(E *e, const Op *op, const char *what);   /* a "not supported yet" user error */
LLVMValueRef intrinsic(E *e, const char *name, LLVMTypeRef *over, int nover);
LLVMValueRef call(E *e, LLVMValueRef f, LLVMValueRef *args, int n);
LLVMValueRef call_intr(E *e, const char *name, LLVMTypeRef over, LLVMValueRef *args, int n);
LLVMValueRef declared(E *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n);
LLVMValueRef sreg(E *e, const char *name);           /* %tid.x, %ctaid.y, ... */
/* one-operand inline PTX without side effects */
LLVMValueRef asm_pure1(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef x);
/* inline PTX with side effects, up to ASM_CALL_MAX_ARGS operands */
#define ASM_CALL_MAX_ARGS 8
LLVMValueRef asm_call(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args, int n);
/* what inline PTX needs of the module (backend.c reads both): a PTX ISA
 * version of at least v ("tileiras.min_ptx"), the arch-specific target
 * (sm_90a, sm_120a, ...: "tileiras.arch") */
void need_ptx(E *e, int v);
void need_arch(E *e);
LLVMValueRef warp_shfl(E *e, const char *kind, LLVMValueRef v, LLVMValueRef b);   /* bfly/up/down/idx, any register type */

/* ------------------------------------------------------------ util_attr.c */
/* (typed getters: ir.h's op_attr_str, op_attr_flag, op_attr_int, op_attr_int_at) */
/* enum attribute `name` of kind k as its value (enums.h: ROUNDING_zero, ...);
 * dflt when absent, -1 for a spelling the table does not know */
int op_enum_attr(const Op *op, const char *name, EnumKind k, int dflt);
bool op_is_signed(const Op *op);                     /* signedness, default signed */

/* ------------------------------------------------------------ util_round.c */
const char *ptx_rounding(int rm);                    /* ROUNDING_nearest_even -> "rn", zero "rz", ...; else NULL */
const char *ptx_rounding_directed(int rm);           /* "rz", "rm", "rp" for the directed modes, else NULL */
LLVMValueRef widen(E *e, LLVMValueRef x, const Type *el);    /* f16/bf16 -> f32, others unchanged */
LLVMValueRef narrow(E *e, LLVMValueRef x, const Type *el);   /* back */
LLVMValueRef f8_to_f32(E *e, LLVMValueRef x, const Type *from);   /* e4m3 / e5m2 (an i8) -> f32, exact */
/* llvm.nvvm.<base>.<rnd>[.ftz].<f|d> on f32/f64 (else unsupported) */
LLVMValueRef nvvm_rounded(E *e, Op *op, const char *base, const char *rnd, bool ftz, const Type *el,
			  LLVMValueRef *args, int n);
/* cvt.<rnd>.<to>.<from> of one value; to/from: f16, bf16, f32, f64 */
LLVMValueRef cvt_rounded(E *e, const char *rnd, LLVMValueRef x, const Type *from, const Type *to);
/* f16/bf16 add, sub, mul, div, fma, sqrt with a directed rounding, through f32 */
LLVMValueRef half_directed(E *e, Op *op, const char *rnd, const Type *el, LLVMValueRef *a);

/* ------------------------------------------------------------ util_sync.c */
void barrier(E *e);                                  /* bar.sync 0 */
LLVMValueRef thread0(E *e);                          /* is this thread 0 of the tile block */
/* spin on mbarrier.try_wait.parity until bar's phase `parity` completes (blocks NAME.wait / NAME.ready) */
void mbar_wait(E *e, LLVMValueRef bar, LLVMValueRef parity, const char *name);
void order_after(E *e, const Value *tok, const Op *op);     /* a barrier unless tok needs none */
void mark_token(E *e, const Value *v, bool dirty, const Op *prod);
void token_like(E *e, const Value *out, const Value *in, bool dirty_if_unknown);   /* out orders like in */

/* ------------------------------------------------------------ util_access.c */
/* The ordering of a memory op: weak (plain access), or relaxed / acquire /
 * release at a scope (atomic access, one element at a time). */
typedef struct Order {
	LLVMAtomicOrdering ord;     /* LLVMAtomicOrderingNotAtomic for weak */
	bool scoped;
	unsigned scope;
} Order;
extern const Order order_weak;
LLVMValueRef and_pred(E *e, LLVMValueRef a, LLVMValueRef b);      /* NULL is "true" */
/* pred NULL: unconditional; a load gives `otherwise` where pred is false */
/* util_multimem.c: one element of a multimem access: kind "ld_reduce" (returns
 * the value; `otherwise` where pred is false), "red" or "st" (stores v) */
LLVMValueRef multimem_access(E *e, const Op *op, const char *kind, const Type *el, LLVMValueRef p,
			     LLVMValueRef v, LLVMValueRef pred, LLVMValueRef otherwise);
LLVMValueRef guarded_load(E *e, LLVMTypeRef t, LLVMValueRef p, unsigned align, LLVMValueRef pred,
			  LLVMValueRef otherwise, const Order *o);
void guarded_store(E *e, LLVMValueRef v, LLVMValueRef p, unsigned align, LLVMValueRef pred, const Order *o);
/* two 16-bit elements in the halves of one i32 (element 0 low) through
 * their guards: pair16_splat is `otherwise` in both halves, guarded_load_half
 * loads one half where pred holds, pair16_half reads a half back as t */
LLVMValueRef pair16_splat(E *e, LLVMValueRef otherwise);
LLVMValueRef guarded_load_half(E *e, LLVMValueRef pair, int half, LLVMTypeRef t, LLVMValueRef p, unsigned align,
			       LLVMValueRef pred);
LLVMValueRef pair16_half(E *e, LLVMValueRef pair, int half, LLVMTypeRef t);
/* code only where pred holds: guard_begin branches into a block of its own
 * (NULL pred: no branch, returns NULL), guard_end joins after it */
LLVMBasicBlockRef guard_begin(E *e, LLVMValueRef pred);
void guard_end(E *e, LLVMBasicBlockRef join);

/* ------------------------------------------------------------ util_tcgen05.c */
/* the kernel's tensor memory for its warpgroup-path products on a tcgen05
 * target: allocated at the start, freed at the return */
void tcgen05_kernel_begin(E *e, Op *fn);
void tcgen05_kernel_end(E *e);
/* a warpgroup-path product by tcgen05.mma (util_wgmma.c stages its operands
 * and gives the staged A and B addresses; desc makes wgmma's descriptor) */
void tcgen05_product(E *e, Op *op, const MmaTiling *t, LLVMValueRef abase, LLVMValueRef bb, int w, int wb, bool bmn,
		     const char *dt, const char *at, const char *bt, LLVMValueRef *acc, bool resident,
		     LLVMValueRef (*desc)(E *, LLVMValueRef, int, int64_t));
/* a product's accumulator registers (its C layout) into its tensor memory
 * (waited for and fenced), or back */
void tcgen05_acc_to_tmem(E *e, Op *op, const MmaTiling *t, LLVMValueRef *acc);
void tcgen05_acc_from_tmem(E *e, Op *op, const MmaTiling *t, LLVMValueRef *acc);

/* ------------------------------------------------------------ util_smem.c */
LLVMValueRef smem_scratch(E *e, int64_t bytes);      /* the module's scratch buffer, >= bytes */
/* a kernel's own shared-memory global, "__tile_WHAT_<kernel>" (undefined
 * contents, internal); smem_kernel_name: that name, to look it up */
void smem_kernel_name(E *e, const char *what, char *name, size_t cap);
LLVMValueRef smem_kernel_global(E *e, const char *what, LLVMTypeRef type, unsigned align);
int64_t smem_of_function(E *e, LLVMValueRef f);     /* bytes of the shared-memory globals f uses */
void smem_broadcast(E *e, TV *t, const Type *el);    /* owners' registers to every copy */
LLVMValueRef xchg_begin(E *e, Op *op);               /* an exchange-buffer region; barrier first if needed */
void xchg_store(E *e, LLVMValueRef base, LLVMValueRef byte_off, LLVMValueRef v, const Type *el,
		LLVMValueRef pred);
LLVMValueRef xchg_load(E *e, LLVMValueRef base, LLVMValueRef byte_off, const Type *el);

/* ------------------------------------------------------------ util_ldsm.c */
/* Where a staged MMA operand's elements go (util_ldsm.c): the ldmatrix
 * staging (row-major, mma_swizzle) or wgmma's (mma_wgmma_offset, rows of w
 * bytes); bit permutations then XORs of the element offset */
typedef struct StageGeom {
	int64_t rows, cols;     /* the operand tile */
	bool tr, wg;
	int eb, shift, w;       /* w: wgmma's row bytes */
	int64_t srows, scols;   /* as staged */
} StageGeom;
/* A tiled_load its product's plan copies (cp.async or TMA): its product's
 * staging region and geometry; false when there is none */
bool mma_stage_of_load(E *e, Op *ld, LLVMValueRef *base, StageGeom *g);
LLVMValueRef mma_stage_addr(E *e, LLVMValueRef base, const StageGeom *g, LLVMValueRef elem_off);
void mma_stage_begin(E *e, Op *mma, bool writes);     /* the barrier before a product's own stores */
void mma_copies_wait(E *e, Op *mma);                 /* the wait for its copied operands */
void mma_cp_async_commit(E *e);
void mma_stage_copy_begin(E *e, Op *ld, bool in_loop);   /* the barrier before copies into the buffer */
Op *mma_user_of(Op *ld, int *k);                     /* the product a copied load feeds, its operand k */
LLVMValueRef mma_stage_sel(E *e, Op *mma);           /* the stage half (i32) a product or a copy for it uses now */
/* Pipelined K loop (tile-sched: `stages` = 2 on the product, `prefetch` on its copied loads):
 * the staging buffer holds two halves; before the loop the first step's copies go into half 0
 * (prologue, at the for), each step copies the next step's tiles into the other half
 * (mma_prefetch, at the load: true when it did) and the product reads this step's half
 * (mma_stage_base) after cp.async.wait_group 1 (mma_stage_pipelined). */
void mma_pipeline_prologue(E *e, Op *loop);
bool mma_prefetch(E *e, Op *ld);
LLVMValueRef mma_stage_base(E *e, Op *mma);          /* the product's staging (this step's half) */
bool mma_stage_pipelined(const Op *mma);
int mma_stage_ahead(const Op *mma);                  /* how many steps ahead its copies run */
LLVMValueRef mma_stage_sel_back(E *e, Op *mma, int back);   /* the stage of the step `back` steps before this one */
LLVMValueRef mma_first_step(E *e, Op *mma);          /* i1: this is its loop's first step */
LLVMValueRef mma_last_stage(E *e, Op *loop, Op *mma);   /* after its loop (which ran): the last step's stage */
/* cp.async.cg 16 bytes src -> dst (shared), zeros where !in_bounds; only where owner (NULL: all) */
void mma_cp_async16(E *e, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef in_bounds, LLVMValueRef owner);
LLVMValueRef mma_stage_buf(E *e, Op *op);            /* the kernel's MMA staging buffer (ldmatrix, wgmma paths) */
/* s (rows x cols, row-major) into the buffer at base, swizzled; transposed: as cols x rows;
 * wg_w > 0: in wgmma's layout with rows of wg_w bytes (libcommon's mma_wgmma_offset)
 * instead of ldmatrix's */
void mma_stage_store(E *e, TV *s, const Type *el, LLVMValueRef base, int64_t rows, int64_t cols, bool transpose,
		     int wg_w);
/* operand k staged once before its loop (the product's plan: resident) */
bool mma_resident(const Op *mma, int k);
/* wgmma's A read from its register fragment (the product's plan: fragment) */
bool mma_wgmma_a_in_regs(const Op *mma);
LLVMValueRef mma_resident_base(E *e, Op *mma, int k);
void mma_resident_prologue(E *e, Op *loop);      /* at the loop's start, before its first step */
/* operand k's staging geometry in product mma over tiling t: ldmatrix's
 * swizzled rows, or (wgmma; an ldmatrix product's operand that came by
 * TMA) rows of libcommon's tma_box_row_bytes in wgmma's layout */
StageGeom mma_operand_geom(E *e, Op *mma, const MmaTiling *t, int k);
/* 4-byte registers units[0..n) of fragment layout frag (offsets in the
 * staged tile of geometry g; out[4/bytes * unit + j]) by ldmatrix (.trans
 * for 16-bit B) */
void mma_ldsm(E *e, LLVMValueRef base, const Layout *frag, const StageGeom *g, const Type *el, bool trans,
	      const int64_t *units, int nunits, LLVMValueRef *out);

/* ------------------------------------------------------------ util_tma.c */
/* --tma: staged operands (wgmma on sm_90; ldmatrix on sm_90..sm_121) and product stores by TMA (see util_tma.c) */
int tma_plan(E *e, Op *fn, const char *entry);       /* before the kernel's function: its TMA loads and stores; hidden maps */
void tma_params(E *e, LLVMValueRef fn);              /* their parameters' attributes (byval, grid_constant) */
void tma_kernel_begin(E *e);                         /* the mbarriers, at the kernel's start */
bool tma_op(E *e, const Op *op);                     /* a load or store that goes by TMA (tma_plan) */
bool mma_operand_tma(E *e, const Op *mma, int k);
int tma_product_loads(E *e, const Op *mma, Op **out);   /* its TMA loads (<= 2), in block order */
/* the copies of a product's n TMA loads lds[l] into sbase[l] (staging geometry g[l]) from tile
 * origins org[l] (i64, one per tile dim), completing on stage sel's mbarrier: one elected lane,
 * one expect_tx for them all (the last of the loads calls it, op_memory.c) */
void tma_copy(E *e, Op *mma, int n, Op *const *lds, const LLVMValueRef *sbase, const StageGeom *g,
	      const LLVMValueRef (*org)[TMAP_MAX_RANK], LLVMValueRef sel);
void tma_wait(E *e, Op *mma, LLVMValueRef sel);      /* every thread: the product's TMA operands in stage sel landed */
bool tma_ring(E *e, const Op *mma);                  /* its pipeline runs on full/empty mbarriers, no bar.sync */
void tma_release(E *e, Op *mma, LLVMValueRef sel);   /* every thread: done reading stage sel (tma_ring) */
void tma_fence_before_copy(E *e, Op *ld);            /* before the barrier that precedes a TMA copy */
LLVMValueRef tma_map_param(E *e, const Op *op);      /* the hidden map parameter of a TMA load or store */

/* ------------------------------------------------------------ util_wgmma.c */
/* op's product by wgmma over tiling t (t->wg): A, B staged, acc (the C
 * layout's registers) updated in place; dt/at/bt the PTX type names */
void mma_wgmma(E *e, Op *op, const MmaTiling *t, TV *A, TV *B, const char *dt, const char *at, const char *bt,
	       LLVMValueRef *acc);
/* after a `for` whose product left wgmma groups in flight (async_depth):
 * wgmma.wait_group 0 with the loop's accumulator results tied through it */
void mma_wgmma_drain(E *e, Op *loop);
bool mma_wgmma_async_loop(const Op *loop);           /* a `for` whose product leaves wgmma in flight */
/* at such a loop's start (its trip count is not 0): on tcgen05, the
 * carried accumulators into tensor memory */
void mma_wgmma_loop_begin(E *e, Op *loop);
void mma_wgmma_wait_all(E *e);                       /* wgmma.wait_group 0, nothing tied */

/* ------------------------------------------------------------ util_xchg.c */
/* Move tiles into dst's layout through shared memory, or warp shuffles
 * when the move stays in each warp (see util_xchg.c). */
void xchg_move(E *e, Op *op, int nsrc, TV **srcs, int64_t src_elems, const Type *el, TV *dst,
	       const BitMap *m, int64_t cadd, LLVMValueRef radd);

/* ------------------------------------------------------------ util_plan.c */
/* LLVM-free plans over layouts, shared by the emitters and the sizing of
 * the exchange buffer. */
typedef struct RInfo {         /* a reduce */
	int lo, nb;                 /* offset bits of the reduced dim */
	unsigned lane_k, warp_k;    /* lane / warp coordinate bits in the dim */
	unsigned lane_rep, warp_rep;/* replicated (stride 0) lane / warp bits of the source */
	Layout src, slice;
	BitMap map;
	bool round;                 /* goes through shared memory */
} RInfo;
typedef struct SInfo {         /* a scan */
	int lo, nb;
	int vl[BITMAP_MAX], nvl;     /* offset bits held by registers below the lanes */
	int vh[BITMAP_MAX], nvh;     /* ... above the warps */
	int a, m;                    /* lane bits a .. a+m-1 */
	int aw, mw;                  /* warp bits */
	unsigned lane_rep, warp_rep;
	Layout l;
} SInfo;
#define LOCAL_MAX_DYN 3        /* convert_local: lane/warp-picked register bits */
#define LOCAL_MAX_SEL 64       /* ... and selects in all */
/* A move that stays inside each warp: one shfl.sync.idx per destination
 * register (per value of its receiver-dependent source register bits). */
#define WARP_MAX_DYN 2
#define WARP_MAX_SHFL 32
typedef struct WarpPlan {
	int sbits;                       /* source offset bits */
	BitOwner os[BITMAP_MAX];         /* the source layout's bit owners */
	signed char from[BITMAP_MAX];    /* source bit <- destination bit (-1: from cadd) */
	BitOwner od[BITMAP_MAX];         /* the destination layout's bit owners */
	int nd;                          /* receiver-dependent source register bits */
	signed char dsrc[WARP_MAX_DYN];  /* ... the source bit of each */
} WarpPlan;
Layout value_layout(const Value *v);                 /* a tile value's layout (internal error if none) */
bool reduce_info(const Op *op, RInfo *ri);
bool scan_info(const Op *op, SInfo *si);
int tile_elem_bytes(const Type *tile);                /* bytes of a tile's element in memory, at least 1 */
int plan_warp_bits(const Layout *l);                 /* log2 of the warps a layout spans */
int64_t operand_offsets(const Op *op, int64_t slots, int64_t *off);   /* per-operand arrays; total bytes */
bool convert_ok(const Op *op);                       /* a conversion of power-of-two leaves */
bool convert_local(const Op *op, int *nbits, BitOwner *own_s, BitOwner *own_d);   /* in each thread */
bool warp_plan(const Layout *s, const Layout *d, const BitMap *m, int sbits, WarpPlan *p);   /* in each warp */
int64_t xchg_need(Op *op);                           /* bytes of exchange buffer an op needs */

/* ------------------------------------------------------------ util_region.c */
void set_loc(E *e, const Loc *l);                    /* debug location of what follows */
void emit_op(E *e, Op *op);                          /* through the registry's table */
/* Emit a block's ops (stops at the first error) in the given loop and if
 * contexts: the one entry point of region recursion. */
void emit_region(E *e, Block *blk, Ctx *loop, Ctx *ifc);
/* A combiner block (no loop or if around it): its ops up to the yield,
 * which it returns (NULL when there is none). */
Op *emit_region_to_yield(E *e, Block *blk);
TV *phis_for(E *e, const Value *v);                  /* one phi per register of v, here */
void branch_with(E *e, Ctx *c, Op *term);            /* to c->target, feeding term's operands */
void alloca_push(E *e, LLVMValueRef p);              /* a heap allocation of the current region */
int alloca_depth(E *e);                              /* allocas live now: a region's scope */
void alloca_pop(E *e, int depth);                    /* the region's emission ended */
void alloca_free_to(E *e, int depth);                /* free those made since depth (region exit) */

/* ------------------------------------------------------------ util_copies.c */
/* At an entry's start: a thread owning no element of any tile the body
 * stores returns, where the body is straight-line thread-local code. */
void return_if_only_copies(E *e, Block *body);

/* ------------------------------------------------------------ util_printf.c */
#define VPRINTF_MAX_ARGS 32
LLVMValueRef cstring(E *e, const char *s, const char *name);   /* a constant C string, generic pointer */
void emit_vprintf(E *e, const char *fmt, LLVMValueRef *vals, int n);

#endif
