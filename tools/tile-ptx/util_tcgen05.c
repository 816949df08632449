/* util_tcgen05.c: the warpgroup path's products by Blackwell's tcgen05 (utility
 * layer, emit.h; opt-in TILE_TCGEN05, libcommon mma_tcgen05_target: sm_100,
 * sm_103, sm_110). The tiling and the staging are wgmma's (util_wgmma.c stages
 * A and B in shared memory in the canonical swizzled layouts and calls
 * tcgen05_product instead of issuing wgmma); only the instructions differ:
 *
 *   kernel start (tcgen05_kernel_begin): warp 0 allocates the tensor-memory
 *     columns the kernel's largest product needs (a power of two, 32..512)
 *     and gives up its permit; thread 0 initializes one mbarrier; fences and
 *     a bar.sync publish the address;
 *   each product: every warp stores its accumulator registers into its lanes
 *     (tcgen05.st: f32/s32 as 16x256b, whose register r is the wgmma D
 *     fragment's element r; packed f16 pairs as 16x128b.unpack::16b, whose
 *     register r is the fragment's packed register r), then
 *     wait::st, fence, bar.sync, fence; thread 0 issues one tcgen05.mma
 *     (cta_group::1, M 64: rows 16q.. of an m64 block in lanes 32q..32q+15,
 *     the warpgroup's warps' own quarters) per m64 block and K step, with
 *     the wgmma descriptors plus sm_100's version bit 46, and commits them to
 *     the mbarrier; every thread waits for the phase, fences and loads its
 *     registers back (tcgen05.ld, the same shapes), wait::ld. Each warpgroup
 *     g's block j sits at column (g * mt + j) * n/wn;
 *   kernel end (tcgen05_kernel_end, at the return): fences, a bar.sync, and
 *     warp 0 frees the columns.
 * A product whose accumulator is its K loop's carried value and nothing
 * else's (the plan's async_depth 1 there: util_wgmma.c) keeps it in tensor
 * memory from the loop's start (tcgen05_acc_to_tmem) to its exit
 * (tcgen05_acc_from_tmem): no store or load a step. Any other product's
 * goes through tensor memory on every call. Left for issue 37: the
 * warp-specialized TMA / MMA / epilogue roles (commits straight onto the
 * stages' empty barriers instead of a wait a step), 2-CTA clusters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "mma.h"
#include "mma_plan.h"
#include "xalloc.h"
#include "diag.h"

/* inline PTX, convergent (the .sync.aligned forms must not be moved into
 * divergent code), any number of operands */
static LLVMValueRef asm_conv(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args, int n)
{
	LLVMTypeRef *pt = xcalloc((size_t)(n ? n : 1), sizeof *pt);
	for (int i = 0; i < n; i++)
		pt[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ft = LLVMFunctionType(ret, pt, (unsigned)n, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
	LLVMValueRef call = LLVMBuildCall2(e->b, ft, f, args, (unsigned)n, "");
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", strlen("convergent"));
	LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, kind, 0));
	free(pt);
	return call;
}

static void asm_void(E *e, const char *text, LLVMValueRef *args, int n, const char *cons)
{
	asm_conv(e, LLVMVoidTypeInContext(e->ctx), text, cons, args, n);
}

typedef struct Cols {
	E *e;
	int64_t most;
} Cols;

static int count_cols(Op *op, void *ctx)
{
	Cols *c = ctx;
	MmaTiling t;
	if (mma_is_product(op) && mma_path(op) == MMA_PATH_WGMMA && mma_planned_tiling(op, &t)) {
		int64_t n = mma_tcgen05_columns(&t);
		if (n > c->most)
			c->most = n;
	}
	return 0;
}

/* the slot words: [0] the mbarrier, [1] the tensor-memory address */
static LLVMValueRef slot(E *e, int i)
{
	LLVMValueRef idx = c_i32(e, i);
	return LLVMBuildPtrToInt(e->b, LLVMBuildGEP2(e->b, ty_i64(e), e->t5_slots, &idx, 1, ""), ty_i32(e), "");
}

static void fence_sync(E *e)
{
	asm_void(e, "tcgen05.fence::before_thread_sync;", NULL, 0, "~{memory}");
	barrier(e);
	asm_void(e, "tcgen05.fence::after_thread_sync;", NULL, 0, "~{memory}");
}

void tcgen05_kernel_begin(E *e, Op *fn)
{
	e->t5_taddr = NULL;
	e->t5_cols = 0;
	if (!mma_tcgen05_target(e->o->target->sm))
		return;
	Cols c = { e, 0 };
	op_walk(fn, count_cols, &c);
	if (!c.most)
		return;
	int cols = 32;
	while (cols < c.most)
		cols *= 2;
	e->t5_cols = cols;
	need_ptx(e, 86);
	need_arch(e);
	e->t5_slots = smem_kernel_global(e, "tmem", LLVMArrayType2(ty_i64(e), 2), 8);
	EntryPos pos = entry_begin(e);
	e->t5_phase = LLVMBuildAlloca(e->b, ty_i32(e), "tmem.phase");
	LLVMBuildStore(e->b, c_i32(e, 0), e->t5_phase);
	entry_end(e, pos);
	LLVMBasicBlockRef after = guard_begin(e, LLVMBuildICmp(e->b, LLVMIntEQ, e->warp, c_i32(e, 0), ""));
	LLVMValueRef a[2] = { slot(e, 1), c_i32(e, cols) };
	asm_void(e, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], $1;\n"
		    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", a, 2, "r,r,~{memory}");
	guard_end(e, after);
	after = guard_begin(e, thread0(e));
	LLVMValueRef b = slot(e, 0);
	asm_void(e, "mbarrier.init.shared::cta.b64 [$0], 1;\nfence.mbarrier_init.release.cluster;", &b, 1, "r,~{memory}");
	guard_end(e, after);
	fence_sync(e);
	LLVMValueRef s = slot(e, 1);
	e->t5_taddr = asm_conv(e, ty_i32(e), "ld.shared.b32 $0, [$1];", "=r,r,~{memory}", &s, 1);
}

void tcgen05_kernel_end(E *e)
{
	if (!e->t5_taddr)
		return;
	fence_sync(e);
	LLVMBasicBlockRef after = guard_begin(e, LLVMBuildICmp(e->b, LLVMIntEQ, e->warp, c_i32(e, 0), ""));
	LLVMValueRef a[2] = { e->t5_taddr, c_i32(e, e->t5_cols) };
	asm_void(e, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;", a, 2, "r,r,~{memory}");
	guard_end(e, after);
}

/* "{$from, ..}" of n operands */
static void regs_text(StrBuf *sb, int from, int n)
{
	sb_printf(sb, "{");
	for (int i = 0; i < n; i++)
		sb_printf(sb, "%s$%d", i ? ", " : "", from + i);
	sb_printf(sb, "}");
}

/* the instruction descriptor (PTX ISA: bits 4-5 D type, 7-9 / 10-12 A / B
 * type, 16 B MN-major, 17-22 N/8, 24-28 M/16; bit 3 saturate) and kind */
static uint32_t idesc(const char *dt, const char *at, int64_t n, bool bmn, const char **kind)
{
	uint32_t d = !strcmp(dt, "f16") ? 0 : !strcmp(dt, "f32") ? 1 : 2, a;
	if (!strcmp(at, "f16") || !strcmp(at, "bf16"))
		*kind = "f16", a = at[0] == 'b';
	else if (!strcmp(at, "tf32"))
		*kind = "tf32", a = 2;
	else if (!strcmp(at, "e4m3") || !strcmp(at, "e5m2"))
		*kind = "f8f6f4", a = at[1] == '5';
	else
		*kind = "i8", a = at[0] == 's';
	uint32_t b = a;      /* the same type (the atom is one type; s8 x u8 has its own below) */
	return d << 4 | a << 7 | b << 10 | (uint32_t)bmn << 16 | (uint32_t)(n / 8) << 17 | 4u << 24 | (d == 2) << 3;
}

/* a product's accumulator registers (its C layout: m64 block j's values
 * at acc + j * n/wn/2) to this warp's lanes of its tensor memory (store),
 * or back (load; no wait): f32/s32 as 16x256b (register r = wgmma's D
 * fragment element r), packed f16 pairs as 16x128b.unpack::16b / pack::16b
 * (register r = the fragment's packed register r); warpgroup g's block j
 * at column (g * mt + j) * n/wn, warp quarter q's lanes 32q.. */
static void move_acc(E *e, Op *op, const MmaTiling *t, LLVMValueRef *acc, bool store)
{
	const Type *ec = tile_elem(op->operands[2]->type);
	bool half = ec->scalar == SC_F16, integer = ec->scalar == SC_I32;
	int64_t nw = t->n / t->wn, per = nw / 2;
	int nd = (int)(half ? nw / 4 : nw / 2), x = (int)(nw / 8);
	const char *shape = half ? "16x128b" : "16x256b";
	LLVMTypeRef rt = half || integer ? ty_i32(e) : LLVMTypeOf(acc[0]);
	const char *rc = rt == ty_i32(e) ? "r" : "f";
	LLVMValueRef g = LLVMBuildLShr(e->b, e->warp, c_i32(e, 2), "");
	LLVMValueRef q = LLVMBuildAnd(e->b, e->warp, c_i32(e, 3), "");
	LLVMValueRef mine = LLVMBuildAdd(e->b, e->t5_taddr, LLVMBuildShl(e->b, q, c_i32(e, 21), ""), "");
	StrBuf text = { 0 }, cons = { 0 };
	if (store) {
		sb_printf(&text, "tcgen05.st.sync.aligned.%s.x%d%s.b32 [$0], ", shape, x, half ? ".unpack::16b" : "");
		regs_text(&text, 1, nd);
		sb_printf(&cons, "r");
		for (int i = 0; i < nd; i++)
			sb_printf(&cons, ",%s", rc);
	} else {
		sb_printf(&text, "tcgen05.ld.sync.aligned.%s.x%d%s.b32 ", shape, x, half ? ".pack::16b" : "");
		regs_text(&text, 0, nd);
		sb_printf(&text, ", [$%d]", nd);
		for (int i = 0; i < nd; i++)
			sb_printf(&cons, "%s=%s", i ? "," : "", rc);
		sb_printf(&cons, ",r");
	}
	sb_printf(&text, ";");
	sb_printf(&cons, ",~{memory}");
	LLVMValueRef *args = xcalloc((size_t)nd + 1, sizeof *args);
	LLVMTypeRef *rts = xcalloc((size_t)nd, sizeof *rts);
	for (int i = 0; i < nd; i++)
		rts[i] = rt;
	LLVMTypeRef sty = LLVMStructTypeInContext(e->ctx, rts, (unsigned)nd, 0);
	for (int64_t j = 0; j < t->mt; j++) {
		LLVMValueRef col = LLVMBuildMul(e->b, LLVMBuildAdd(e->b, LLVMBuildMul(e->b, g, c_i32(e, (int)t->mt), ""),
								 c_i32(e, (int)j), ""), c_i32(e, (int)nw), "");
		LLVMValueRef a = LLVMBuildAdd(e->b, mine, col, "");
		LLVMValueRef *v = acc + j * per;
		if (store) {
			args[0] = a;
			for (int i = 0; i < nd; i++)
				args[1 + i] = half ? pack_b32(e, v + 2 * i, 2) : v[i];
			asm_void(e, text.s, args, nd + 1, cons.s);
			continue;
		}
		LLVMValueRef r = asm_conv(e, nd == 1 ? rt : sty, text.s, cons.s, &a, 1);
		for (int i = 0; i < nd; i++) {
			LLVMValueRef ri = nd == 1 ? r : LLVMBuildExtractValue(e->b, r, (unsigned)i, "");
			if (half)
				unpack_b32(e, ri, LLVMTypeOf(v[0]), v + 2 * i, 2);
			else
				v[i] = ri;
		}
	}
	free(args);
	free(rts);
	sb_free(&text);
	sb_free(&cons);
}

void tcgen05_acc_to_tmem(E *e, Op *op, const MmaTiling *t, LLVMValueRef *acc)
{
	move_acc(e, op, t, acc, true);
	asm_void(e, "tcgen05.wait::st.sync.aligned;", NULL, 0, "~{memory}");
	fence_sync(e);
}

void tcgen05_acc_from_tmem(E *e, Op *op, const MmaTiling *t, LLVMValueRef *acc)
{
	move_acc(e, op, t, acc, false);
	asm_void(e, "tcgen05.wait::ld.sync.aligned;", NULL, 0, "~{memory}");
}

void tcgen05_product(E *e, Op *op, const MmaTiling *t, LLVMValueRef abase, LLVMValueRef bb, int w, int wb, bool bmn,
		     const char *dt, const char *at, const char *bt, LLVMValueRef *acc, bool resident,
		     LLVMValueRef (*desc)(E *, LLVMValueRef, int, int64_t))
{
	int64_t nw = t->n / t->wn;
	/* the accumulator into tensor memory (resident: it is there already,
	 * since the loop's start, tcgen05_acc_to_tmem) */
	if (!resident) {
		move_acc(e, op, t, acc, true);
		asm_void(e, "tcgen05.wait::st.sync.aligned;", NULL, 0, "~{memory}");
	}
	fence_sync(e);
	/* thread 0 issues every block's products and commits them */
	const char *kind;
	uint32_t id = idesc(dt, at, nw, bmn, &kind);
	if (strcmp(at, bt))     /* s8 x u8: B's own type */
		id = (id & ~(7u << 10)) | (uint32_t)(bt[0] == 's') << 10;
	char mma[200];
	snprintf(mma, sizeof mma, "{\n.reg .pred p;\nsetp.ne.b32 p, $3, 0;\ntcgen05.mma.cta_group::1.kind::%s [$0], $1, $2, %u, p;\n}",
		 kind, id);
	LLVMBasicBlockRef after = guard_begin(e, thread0(e));
	int64_t astride, bstride;
	mma_wgmma_group_strides(t, w, bmn, elem_bytes(tile_elem(op->operands[0]->type)), &astride, &bstride);
	for (int64_t gi = 0; gi < t->wm; gi++)
		for (int64_t gj = 0; gj < t->wn; gj++) {
			int64_t gg = gi + t->wm * gj;            /* the warpgroup (W mode (4, wm, wn)) */
			for (int64_t kk = 0; kk < t->kt; kk++) {
				for (int64_t j = 0; j < t->mt; j++) {
					int64_t ao, bo;
					mma_wgmma_step_offsets(t, w, wb, bmn, kk, j, &ao, &bo);
					LLVMValueRef aaddr = LLVMBuildAdd(e->b, abase, c_i64(e, gi * astride + ao), "");
					LLVMValueRef baddr = LLVMBuildAdd(e->b, bb, c_i64(e, gj * bstride + bo), "");
					LLVMValueRef m[4] = {
						LLVMBuildAdd(e->b, e->t5_taddr, c_i32(e, (int)((gg * t->mt + j) * nw)), ""),
						LLVMBuildOr(e->b, desc(e, aaddr, w, 0), c_i64(e, 1ll << 46), ""),
						LLVMBuildOr(e->b, desc(e, baddr, wb, bmn ? t->k * wb : 0), c_i64(e, 1ll << 46), ""),
						c_i32(e, 1),
					};
					asm_void(e, mma, m, 4, "r,l,l,r,~{memory}");
				}
			}
		}
	LLVMValueRef bar = slot(e, 0);
	asm_void(e, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [$0];", &bar, 1, "r,~{memory}");
	guard_end(e, after);
	/* every thread: the phase, then its registers back */
	LLVMValueRef ph = LLVMBuildLoad2(e->b, ty_i32(e), e->t5_phase, "");
	mbar_wait(e, slot(e, 0), ph, "tmem");
	LLVMBuildStore(e->b, LLVMBuildXor(e->b, ph, c_i32(e, 1), ""), e->t5_phase);
	asm_void(e, "tcgen05.fence::after_thread_sync;", NULL, 0, "~{memory}");
	if (!resident) {
		move_acc(e, op, t, acc, false);
		asm_void(e, "tcgen05.wait::ld.sync.aligned;", NULL, 0, "~{memory}");
	}
}
