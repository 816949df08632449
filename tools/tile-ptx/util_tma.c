/* util_tma.c: staged wgmma operands copied by the Tensor Memory Accelerator
 * (utility layer, emit.h; docs/lowering.md §10 "TMA", docs/abi.md §5.3.1).
 * A tiled_load its product's plan copies by TMA (tile-sched --tma,
 * where libcommon's tma_load_ok holds, which is checked again here) is one
 * TMA copy per swizzle-row block of its product's staging instead of every
 * thread's 16-byte cp.async chunks. Its map is a hidden
 * `.param .align 64 .b8 [128]` after the entry's parameters
 * (nvvm.grid_constant: used in place through cvta.param), described by a
 * `// tileiras.tensormap` note (libcommon tmap.h) that tile-pack turns into
 * the host callback that fills it and tile-run reads to fill it itself.
 *
 * Synchronisation: full mbarriers, one per stage of each product with TMA
 * loads (`__tile_mbar_<kernel>`, arrival count 1; a product's own set, in
 * the order of its first TMA load, so attention's two pipelined products
 * do not share: bar_base; past 16 in all, every product's stage s uses
 * barrier s), initialised by thread 0 at the kernel's start (every copy
 * comes after a bar.sync). A copy's tile may be of rank 2 to 5 (unit
 * leading dims): its coordinates are the tile origins in the map's dims
 * order (libcommon tma_map_order). The product's last TMA load issues the copies of all its TMA
 * operands (op_memory.c): one elect.sync lane of warp 0 arrives on the
 * stage's barrier with expect_tx = their bytes, then one copy per box,
 * each completing its bytes on it. Every thread waits at the product with
 * try_wait.parity on the phase it last saw flipped (one bit per barrier
 * in an alloca, which mem2reg turns into registers): exactly one
 * completion per copy and one wait per completion, in any loop nest. The
 * stage's previous readers (wgmma, async proxy) are done before the copy
 * by the bar.sync that precedes every copy; earlier generic writes to the
 * buffer are ordered by a fence.proxy.async before that bar.sync (not
 * needed in a pipelined loop's own steps, which only wgmma read).
 *
 * With TILE_PTX_TMA_RING=1 (slower on an H200, docs/benchmarks.md), a
 * pipelined product with both operands by TMA (tma_ring) has no bar.sync a
 * step: each stage also has an empty barrier (arrival count = the CTA's
 * warps); lane 0 of every warp arrives on it once the warp's wgmma that
 * read the stage completed and a bar.warp.sync ordered its lanes
 * (tma_release; CUTLASS arrives once per warpgroup), and the producer lane
 * waits on it before refilling the stage (its phase bits start at 1, so
 * the first fill of each stage does not wait): one release per fill, in
 * any loop nest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "mma.h"
#include "tma.h"
#include "tmap.h"
#include "diag.h"
#include "xalloc.h"
#include "knobs.h"

/* ------------------------------------------------------------ planning */

typedef struct Plan {
	E *e;
	const Block *body;
	Op **loads;
	int n, cap;
	StrBuf notes;
	const char *entry;
} Plan;

static int plan_walk(Op *op, void *ctx)
{
	Plan *p = ctx;
	TmapNote n;
	if (op->info->code == AS_tiled_store ? !op_attr_flag(op, "tma")
	    : op->info->code != AS_tiled_load || mma_load_staging(op) != MMA_STAGING_TMA)
		return 0;
	bool store = op->info->code == AS_tiled_store;
	if (store ? !tma_store_ok(op, p->e->o->target->sm, &n) : !tma_load_ok(op, p->e->warps, p->e->o->target->sm, &n)) {
		/* tile-sched never writes this; a hand-edited IR can */
		diag_error(op->loc, store ? "'%s' op: tma on a store that TMA cannot copy"
				     : "'%s' op: its product's plan copies it by TMA, which TMA cannot",
			   op->info->name);
		p->e->errors++;
		return 0;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		p->loads = xrealloc(p->loads, (size_t)p->cap * sizeof *p->loads);
	}
	snprintf(n.entry, sizeof n.entry, "%s", p->entry);
	n.hidden = p->body->nargs + p->n;
	p->loads[p->n++] = op;
	tmap_note_print(&p->notes, &n);
	return 0;
}

int tma_plan(E *e, Op *fn, const char *entry)
{
	free(e->tma);
	e->tma = NULL;
	e->ntma = 0;
	e->tma_bar = e->tma_phase = e->tma_ephase = NULL;
	e->tma_nbar = 0;
	Block *body = fn->regions[0].first;
	Plan p = { e, body, NULL, 0, 0, { 0 }, entry };
	op_walk(fn, plan_walk, &p);
	e->tma = p.loads;
	e->ntma = p.n;
	e->tma_hidden0 = body->nargs;
	if (p.n) {
		/* the notes, for backend.c to append to the PTX (and to mark the parameters .hidden) */
		char *line = p.notes.s;
		while (line && *line) {
			char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			LLVMMetadataRef s = LLVMMDStringInContext2(e->ctx, line, len);
			LLVMMetadataRef md = LLVMMDNodeInContext2(e->ctx, &s, 1);
			LLVMAddNamedMetadataOperand(e->mod, "tileiras.tensormap", LLVMMetadataAsValue(e->ctx, md));
			line = nl ? nl + 1 : NULL;
		}
		need_ptx(e, 88);     /* .hidden parameters are PTX 8.8 */
	}
	sb_free(&p.notes);
	return p.n;
}

/* ------------------------------------------------------------ emission */

static int tma_index(E *e, const Op *ld)
{
	for (int i = 0; i < e->ntma; i++)
		if (e->tma[i] == ld)
			return i;
	return -1;
}

bool tma_op(E *e, const Op *op)
{
	return tma_index(e, op) >= 0;
}

bool mma_operand_tma(E *e, const Op *mma, int k)
{
	bool tf32;
	const Op *d = mma_staged_load(mma, k, &tf32);
	return d && tma_op(e, d);
}

void tma_params(E *e, LLVMValueRef fn)
{
	LLVMTypeRef map = LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), TMAP_BYTES);
	unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), align = LLVMGetEnumAttributeKindForName("align", 5);
	/* the arch-specific target (sm_90a, sm_120a, ...: backend.c), as NVIDIA's */
	if (e->ntma)
		need_arch(e);
	for (int i = 0; i < e->ntma; i++) {
		unsigned at = (unsigned)(e->tma_hidden0 + i) + 1;
		LLVMAddAttributeAtIndex(fn, at, LLVMCreateTypeAttribute(e->ctx, byval, map));
		LLVMAddAttributeAtIndex(fn, at, LLVMCreateEnumAttribute(e->ctx, align, 64));
		LLVMAddAttributeAtIndex(fn, at, LLVMCreateStringAttribute(e->ctx, "nvvm.grid_constant", 18, "", 0));
	}
}

static LLVMValueRef bar_addr(E *e, LLVMValueRef sel)
{
	LLVMValueRef p = LLVMBuildGEP2(e->b, ty_i64(e), e->tma_bar, &sel, 1, "");
	return LLVMBuildPtrToInt(e->b, p, ty_i32(e), "");
}

/* the distinct products of the kernel's TMA loads, in order; their count */
static int tma_products(E *e, Op **out)
{
	int n = 0;
	for (int i = 0; i < e->ntma; i++) {
		int k;
		Op *mma = mma_product_of_load(e->tma[i], &k);
		bool seen = !mma;
		for (int j = 0; j < n && !seen; j++)
			seen = out[j] == mma;
		if (!seen)
			out[n++] = mma;
	}
	return n;
}

/* Each product with TMA loads has its own full barriers, one per stage,
 * in the order of its first TMA load (attention's two products run their
 * rings at once); with more than 16 in all (the phase bits' word holds 32,
 * full and empty), every product's stage s waits on barrier s. */
static int bar_base(E *e, const Op *mma)
{
	if (e->tma_bar_shared)
		return 0;
	Op **ps = xcalloc((size_t)e->ntma + 1, sizeof *ps);
	int n = tma_products(e, ps), at = 0;
	for (int i = 0; i < n && ps[i] != mma; i++)
		at += (int)mma_stages(ps[i], 1);
	free(ps);
	return at;
}

/* the barrier index of stage sel of product mma's ring */
static LLVMValueRef bar_index(E *e, const Op *mma, LLVMValueRef sel)
{
	int base = bar_base(e, mma);
	return base ? LLVMBuildAdd(e->b, sel, c_i32(e, base), "") : sel;
}

void tma_kernel_begin(E *e)
{
	if (!e->ntma)
		return;
	Op **ps = xcalloc((size_t)e->ntma + 1, sizeof *ps);
	int np = tma_products(e, ps), nbar = 0, deepest = 1;
	for (int i = 0; i < np; i++) {
		int st = (int)mma_stages(ps[i], 1);
		nbar += st;
		if (st > deepest)
			deepest = st;
	}
	free(ps);
	e->tma_bar_shared = nbar > 16 || nbar < 1;
	if (e->tma_bar_shared)
		nbar = deepest;
	/* full barriers 0..nbar-1, then the empty ones (tma_ring) */
	e->tma_nbar = nbar;
	e->tma_bar = smem_kernel_global(e, "mbar", LLVMArrayType2(ty_i64(e), (uint64_t)(2 * nbar)), 8);
	/* the phase bits, zero at the start */
	EntryPos pos = entry_begin(e);
	e->tma_phase = LLVMBuildAlloca(e->b, ty_i32(e), "tma.phase");
	LLVMBuildStore(e->b, c_i32(e, 0), e->tma_phase);
	/* the producer's empty-barrier phases start at 1: its first wait on
	 * each (a fresh stage) returns at once */
	e->tma_ephase = LLVMBuildAlloca(e->b, ty_i32(e), "tma.ephase");
	LLVMBuildStore(e->b, c_i32(e, (1 << nbar) - 1), e->tma_ephase);
	entry_end(e, pos);
	LLVMBasicBlockRef after = guard_begin(e, thread0(e));
	for (int s = 0; s < 2 * nbar; s++) {
		LLVMValueRef a[2] = { bar_addr(e, c_i32(e, s)), c_i32(e, s < nbar ? 1 : e->warps) };
		asm_call(e, LLVMVoidTypeInContext(e->ctx), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2);
	}
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "fence.mbarrier_init.release.cluster;", "~{memory}", NULL, 0);
	for (int i = 0; i < e->ntma; i++) {
		LLVMValueRef m = LLVMGetParam(e->fn, (unsigned)(e->tma_hidden0 + i));
		asm_call(e, LLVMVoidTypeInContext(e->ctx), "prefetch.tensormap [$0];", "l,~{memory}", &m, 1);
	}
	guard_end(e, after);
}

/* Does a pipelined product's staging ring run on mbarriers alone? Both
 * operands by TMA: consumers then release a stage by arriving on its
 * empty barrier (lane 0 of each warp, after the wgmma that read it
 * completed: tma_release) and the producer lane waits on it before
 * refilling the stage, instead of a bar.sync of the whole CTA every step. */
bool tma_ring(E *e, const Op *mma)
{
	/* opt-in (TILE_PTX_TMA_RING=1): on an H200 (2026-11-26) the bar.sync a
	 * step was faster, 630 against 563 TFLOP/s on the 128x128x32 f16 4096^3
	 * launch (docs/benchmarks.md "TMA on the GPU") */
	return knobs()->TILE_PTX_TMA_RING && e->tma_ephase && (mma_path(mma) == MMA_PATH_WGMMA) &&
	       mma_operand_tma(e, mma, 0) &&
	       mma_operand_tma(e, mma, 1) && mma_stages(mma, 1) > 1;
}

/* spin until barrier `bar` completed the phase of parity bit `sel` of the
 * phase bits in alloca `bits_at`, then flip that bit */
static void wait_phase(E *e, LLVMValueRef bar, LLVMValueRef bits_at, LLVMValueRef sel)
{
	LLVMValueRef bits = LLVMBuildLoad2(e->b, ty_i32(e), bits_at, "");
	LLVMValueRef ph = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, bits, sel, ""), c_i32(e, 1), "");
	mbar_wait(e, bar, ph, "tma");
	LLVMBuildStore(e->b, LLVMBuildXor(e->b, bits, LLVMBuildShl(e->b, c_i32(e, 1), sel, ""), ""), bits_at);
}

void tma_release(E *e, Op *mma, LLVMValueRef sel)
{
	if (!tma_ring(e, mma))
		return;
	/* lane 0 of each warp, after a bar.warp.sync orders its lanes' reads of
	 * the stage (their wgmma completed) before its arrival */
	LLVMValueRef a = bar_addr(e, LLVMBuildAdd(e->b, bar_index(e, mma, sel), c_i32(e, e->tma_nbar), ""));
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "bar.warp.sync -1;", "~{memory}", NULL, 0);
	LLVMBasicBlockRef after = guard_begin(e, LLVMBuildICmp(e->b, LLVMIntEQ, e->lane, c_i32(e, 0), ""));
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [$0];\n}",
		 "r,~{memory}", &a, 1);
	guard_end(e, after);
}

int tma_product_loads(E *e, const Op *mma, Op **out)
{
	int n = 0;
	for (int k = 0; k < 2; k++) {
		bool tf32;
		Op *d = mma_staged_load(mma, k, &tf32);
		if (d && tma_op(e, d))
			out[n++] = d;
	}
	if (n == 2)      /* block order */
		for (const Op *x = out[1]; x; x = x->next)
			if (x == out[0]) {
				Op *t = out[0];
				out[0] = out[1];
				out[1] = t;
				break;
			}
	return n;
}

void tma_copy(E *e, Op *mma, int n, Op *const *lds, const LLVMValueRef *sbase, const StageGeom *g,
	      const LLVMValueRef (*org)[TMAP_MAX_RANK], LLVMValueRef sel)
{
	int64_t bytes = 0;
	for (int l = 0; l < n; l++)
		bytes += type_num_elements(lds[l]->results[0]->type) * elem_bytes(tile_elem(lds[l]->results[0]->type));
	sel = bar_index(e, mma, sel);
	LLVMValueRef bar = bar_addr(e, sel);
	/* one lane of warp 0 by elect.sync (as NVIDIA's): ptxas then knows one
	 * thread issues, and keeps the copies' operands in uniform registers
	 * without a loop over the active threads' values */
	LLVMBasicBlockRef in_warp0 = guard_begin(e, LLVMBuildICmp(e->b, LLVMIntEQ, e->warp, c_i32(e, 0), ""));
	LLVMValueRef el = asm_call(e, ty_i32(e), "{\n.reg .pred p;\n.reg .b32 l;\nelect.sync l|p, -1;\nselp.u32 $0, 1, 0, p;\n}",
				   "=r,~{memory}", NULL, 0);
	LLVMBasicBlockRef after = guard_begin(e, LLVMBuildICmp(e->b, LLVMIntNE, el, c_i32(e, 0), ""));
	if (tma_ring(e, mma))      /* the stage's last readers released it */
		wait_phase(e, bar_addr(e, LLVMBuildAdd(e->b, sel, c_i32(e, e->tma_nbar), "")), e->tma_ephase, sel);
	LLVMValueRef a[2] = { bar, c_i32(e, bytes) };
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;",
		 "r,r,~{memory}", a, 2);
	for (int l = 0; l < n; l++) {
		LLVMValueRef map = LLVMGetParam(e->fn, (unsigned)(e->tma_hidden0 + tma_index(e, lds[l])));
		/* the map's coordinates: the tile origins in its dims' order (tma_map_order) */
		int order[TMAP_MAX_RANK], r = tma_map_order(lds[l], order);
		if (r < 2)
			ice("tile-ptx: a TMA load without a map order");
		LLVMValueRef c[TMAP_MAX_RANK];
		for (int j = 0; j < r; j++)
			c[j] = LLVMBuildTrunc(e->b, org[l][order[j]], ty_i32(e), "");
		/* [$0], [$1, {$2, .., $(r+1)}], [$(r+2)] */
		char text[200], cons[64];
		int tl = snprintf(text, sizeof text,
				  /* sm_100 and later: the CTA's own shared memory (.shared::cta, PTX 8.6, as
				   * NVIDIA's): with .shared::cluster ptxas for sm_120 guards each copy with a
				   * call to a fallback (CALL.ABS, an 8-byte stack); sm_90 keeps the form its
				   * GPU runs checked */
				  "cp.async.bulk.tensor.%dd.%s.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {", r,
				  e->o->target->sm >= 100 ? "shared::cta" : "shared::cluster");
		int cl = snprintf(cons, sizeof cons, "r,l");
		for (int j = 0; j < r; j++) {
			tl += snprintf(text + tl, sizeof text - (size_t)tl, "%s$%d", j ? ", " : "", j + 2);
			cl += snprintf(cons + cl, sizeof cons - (size_t)cl, ",r");
		}
		snprintf(text + tl, sizeof text - (size_t)tl, "}], [$%d];", r + 2);
		snprintf(cons + cl, sizeof cons - (size_t)cl, ",r,~{memory}");
		int64_t blocks = g[l].scols * g[l].eb / g[l].w;
		for (int64_t j = 0; j < blocks; j++) {
			LLVMValueRef off = c_i64(e, j * g[l].srows * g[l].w);
			LLVMValueRef dst = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), sbase[l], &off, 1, "");
			LLVMValueRef args[TMAP_MAX_RANK + 3];
			args[0] = LLVMBuildPtrToInt(e->b, dst, ty_i32(e), "");
			args[1] = map;
			for (int i = 0; i < r; i++)
				args[2 + i] = i ? c[i] : LLVMBuildAdd(e->b, c[0], c_i32(e, j * g[l].w / g[l].eb), "");
			args[r + 2] = bar;
			asm_call(e, LLVMVoidTypeInContext(e->ctx), text, cons, args, (unsigned)r + 3);
		}
	}
	guard_end(e, after);
	guard_end(e, in_warp0);
}

void tma_wait(E *e, Op *mma, LLVMValueRef sel)
{
	if (!mma_operand_tma(e, mma, 0) && !mma_operand_tma(e, mma, 1))
		return;
	sel = bar_index(e, mma, sel);
	wait_phase(e, bar_addr(e, sel), e->tma_phase, sel);
}

void tma_fence_before_copy(E *e, Op *ld)
{
	if (tma_op(e, ld))
		asm_call(e, LLVMVoidTypeInContext(e->ctx), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0);
}

/* ------------------------------------------------------------ stores */

LLVMValueRef tma_map_param(E *e, const Op *op)
{
	return LLVMGetParam(e->fn, (unsigned)(e->tma_hidden0 + tma_index(e, op)));
}
