/* mma.c: the layouts of mmaf (docs/lowering.md "MMA"): the accumulator,
 * its result and everything in their class (the loop-carried accumulator,
 * its epilogue) take the mma.sync accumulator fragment layout. The A and B
 * operands: with 16-bit atoms on sm_75+ (mma_ldmatrix_ok) they keep their
 * own layouts and the mmaf gets the unit attribute `via_ldmatrix`: tile-ptx
 * stages them in shared memory (swizzled) and loads the fragments with
 * ldmatrix; otherwise they are converted into their fragment layouts
 * (nv_tileas.convert_layout, inserted after layouts are chosen). The tilings and
 * fragments are libcommon's (mma.h). An mmaf whose shapes have no tiling
 * keeps default layouts; tile-ptx then reports it unsupported. mmai the same.
 * On sm_90 a product that fits a warpgroup tiling (mma_choose: wgmma) gets
 * `via_wgmma` instead: A and B keep their layouts, tile-ptx stages both in
 * wgmma's swizzled shared layouts and multiplies with wgmma. Either way, an
 * operand loaded just before the product may go straight to its staging
 * (`to_stage` on the tiled_load: cp.async, stage_direct below; with
 * --tma also `tma` where the Tensor Memory Accelerator can copy it).
 * These marks are tile-sched's working state: plan.c turns them into each
 * product's MMA plan (libcommon mma_plan.h), the only form scheduled IR
 * carries. Calls only classes.c. */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "mma.h"
#include "opinfo.h"
#include "irutil.h"
#include "knobs.h"
#include "xalloc.h"
#include "target.h"
#include "tma.h"

/* The tiling of an mmaf / mmai: its atom (libcommon/mma.h) for the
 * operand and accumulator types on the module's target. */
int mma_module_sm(const Module *m)
{
	const Target *tg = module_target(m);
	return tg ? tg->sm : 80;
}

static int target_sm(F *f)
{
	return mma_module_sm(f->m);
}

static bool tiling_of(F *f, const Op *op, MmaTiling *t)
{
	return mma_product_tiling(op, f->warps, target_sm(f), t, NULL);
}

void mma_constrain(F *f, Op *op)
{
	unite(f, op->operands[2], op->results[0]);
	if (f->nmmas == f->capmmas) {
		f->capmmas = f->capmmas ? 2 * f->capmmas : 8;
		f->mmas = xrealloc(f->mmas, sizeof *f->mmas * (size_t)f->capmmas);
	}
	f->mmas[f->nmmas++] = op;
}

/* Operands of a staged product (ldmatrix or wgmma) loaded narrower than 16
 * bytes a thread (no alignment promised): each thread keeps a run of its
 * row (rowred's layout, classes.c), as NVIDIA's compiler does: its element
 * addresses are then one row pointer plus immediates, so a K loop keeps a
 * few row offsets live instead of one 64-bit offset per register, and the
 * staging stores become vector stores (issues 15, 17). */
void mma_prefer_rows(F *f)
{
	if (f->plain || knobs()->TILE_SCHED_NO_MMA_ROWS)
		return;
	for (int i = 0; i < f->nmmas; i++) {
		Op *op = f->mmas[i];
		MmaTiling t;
		if (!tiling_of(f, op, &t) || (!t.wg && !mma_ldmatrix_ok(t.atom, tile_elem(op->operands[0]->type), target_sm(f))))
			continue;
		for (int k = 0; k < 2; k++) {
			Value *v = op->operands[k];
			/* through a batched product's slices (tile-lower batched_mma.c) and conversions (tf32) to the load */
			while (v->def && (v->def->info->code == CT_reshape || v->def->info->code == CT_extract || v->def->info->code == CT_ftof))
				v = v->def->operands[0];
			Op *ld = v->def;
			int eb = elem_bytes(tile_elem(v->type));
			if (!ld || ld->info->code != AS_tiled_load || v->type->rank < 2 || eb < 1 ||
			    (op_attr_int(ld, "vector_bytes", 0) >= 16 &&
			     tiled_vector_dim(ld, ld->results[0]->type->rank) == ld->results[0]->type->rank - 1))
				continue;
			f->rowred[find(f, v->id)] |= ROW_MMA;
		}
	}
}

/* Is ld the B operand of a product that stages B K-major because ld reads
 * it down its columns (MmaTiling.bk)? Then its chunks may run down them. */
bool mma_b_down_columns(F *f, const Op *ld)
{
	for (int i = 0; i < f->nmmas; i++) {
		MmaTiling t;
		if (mma_operand_tiled_load(f->mmas[i], 1) == ld && tiling_of(f, f->mmas[i], &t) && t.bk)
			return true;
	}
	return false;
}

void mma_preassign(F *f)
{
	for (int i = 0; i < f->nmmas; i++) {
		MmaTiling t;
		int r = find(f, f->mmas[i]->results[0]->id);
		if (f->assigned[r] || !tiling_of(f, f->mmas[i], &t))
			continue;
		mma_layout_c(&t, &f->lay[r]);
		f->assigned[r] = true;
	}
}

typedef struct Uses {
	const Value *v;
	int n;
} Uses;

static int count_use(Op *op, void *ctx)
{
	Uses *u = ctx;
	for (int i = 0; i < op->noperands; i++)
		u->n += op->operands[i] == u->v;
	return 0;
}

static int uses_of(F *f, const Value *v)
{
	Uses u = { v, 0 };
	op_walk(f->fn, count_use, &u);
	return u.n;
}

/* Operand k of a staged product straight from global memory into its
 * shared staging (cp.async, tile-ptx) instead of through registers: the
 * tiled_load that makes it gets `to_stage` when
 *  - the target has cp.async (sm_80+) and the operand is staged as it is
 *    (libcommon's mma_stage_as_is: 16-byte chunks stay whole);
 *  - it is a plain rank-2 load (weak, not multimem, zero or no padding:
 *    cp.async fills masked chunks with zeros) whose layout moves aligned
 *    16-byte runs (vector_bytes >= 16, no replicated registers);
 *  - the product is its tile's only use and its token is unused;
 *  - it is in the product's block with only pure, region-free ops or other
 *    loads between them, so the copy may land any time before the product
 *    (which waits for it).
 * An f32 load the product takes through an f32 -> tf32 ftof (nearest_even,
 * the load's only use) goes only by TMA: its tf32 map's copy rounds. */
static void stage_direct(F *f, Op *op, const MmaTiling *t, int k)
{
	Value *v = op->operands[k];
	bool tf32;
	Op *ld = mma_staged_load(op, k, &tf32);
	const Type *el = tile_elem(v->type);
	int eb = elem_bytes(el);
	if (target_sm(f) < 80 || !ld || ld->info->code != AS_tiled_load ||
	    ld->parent != op->parent || v->type->rank != 2 || eb < 1 || el->scalar == SC_F4E2M1FN || !v->lay)
		return;
	/* --tma: by TMA where libcommon's tma_load_ok says so (no per-thread
	 * chunks: neither the layout nor the shapes' divisibility matter; a
	 * K-major B too, read through a transposed view: the box lands K-major) */
	TmapNote note;
	bool tma = f->tma && tma_load_ok(ld, f->warps, target_sm(f), &note);
	if ((tf32 && !tma) ||    /* the rounding: a tf32 map's copy does it; cp.async would not */
	    (!tma && (!mma_stage_as_is(t, k, el) || ld->results[0] != v)))
		return;
	const char *pad = op_attr_str(ld, "padding", "zero");
	if (!op_is_weak(ld) || strcmp(pad, "zero") || op_attr(ld, "multimem") ||
	    (!tma && op_attr_int(ld, "vector_bytes", 0) < 16))
		return;
	const Layout *l = v->lay;
	for (int i = l->begin[0]; i < l->begin[1] && !tma; i++)
		if (l->stride[i] == 0 && l->shape[i] > 1)
			return;
	if (!tma && layout_run_width(l, 16 / eb) * eb != 16)
		return;
	if (uses_of(f, v) != 1 || (ld->results[0] != v && uses_of(f, ld->results[0]) != 1) ||
	    (ld->nresults > 1 && uses_of(f, ld->results[1]) != 0))
		return;
	for (Op *x = ld->next; x && x != op; x = x->next)
		if (x->nregions || (!op_has(x->info, OPT_PURE) && x->info->code != AS_tiled_load))
			return;
	op_set_attr(f->m, ld, "to_stage", attr_bool(f->m, true));
	if (tma)
		op_set_attr(f->m, ld, "tma", attr_bool(f->m, true));
}

static int count_mma(Op *op, void *ctx)
{
	*(int *)ctx += mma_is_product(op);
	return 0;
}

static int64_t tile_bytes(const Value *v)
{
	return type_num_elements(v->type) * elem_bytes(tile_elem(v->type));
}

/* the bytes of one stage's operand tiles (A and B) */
static int64_t stage_payload_of(const Op *op)
{
	return tile_bytes(op->operands[0]) + tile_bytes(op->operands[1]);
}

/* the staging bytes of one stage of a staged product, as tile-sched counts
 * them for its budget (A and B, each with 1024 bytes of alignment slack) */
static int64_t stage_bytes_of(const Op *op)
{
	return stage_payload_of(op) + 2 * 1024;
}

/* A stage of product x in loop: its B, and its A unless wgmma reads A
 * from registers (A in its register fragment: attention's P) or from a
 * region of its own made once before the loop (A made before the loop:
 * attention's Q, whose bytes go to *resident; tile-ptx util_ldsm.c
 * mma_wgmma_a_unstaged). Each with its alignment slack. */
static int64_t ring_stage_bytes(F *f, const Op *x, const Op *loop, int64_t *resident)
{
	MmaTiling t;
	Value *a = x->operands[0];
	if (op_attr_flag(x, "via_wgmma") && tiling_of(f, x, &t)) {
		bool in_regs = a->lay && mma_layout_is_a(&t, a->lay);
		if (in_regs || !value_made_inside(loop, a)) {
			if (!in_regs)
				*resident += tile_bytes(a) + 1024;
			return tile_bytes(x->operands[1]) + 1024;
		}
	}
	return stage_bytes_of(x);
}

/* Several products in one loop body (attention: S = Q K^T, then P V) are
 * pipelined together when every one of them sits at the body's top level,
 * is staged (wgmma / ldmatrix), and has all its copied operands by TMA
 * (one elected lane issues them, no per-thread chunk groups to count):
 * each gets 2 stages in a region of its own (tile-ptx util_ldsm.c), its
 * copies of the next step issued where its loads stand, so one product's
 * next tiles land while the others compute. The regions together must fit
 * the staging budget. TILE_SCHED_NO_MULTI_PIPELINE=1: only single-product
 * loops are pipelined. */
static bool multi_pipeline_ok(F *f, Op *loop, int n)
{
	if (knobs()->TILE_SCHED_NO_MULTI_PIPELINE)
		return false;
	int top = 0;
	int64_t total = 0, resident = 0;
	for (Op *x = loop->regions[0].first->first; x; x = x->next) {
		if (!mma_is_product(x))
			continue;
		top++;
		if (!op_attr_flag(x, "via_wgmma") && !op_attr_flag(x, "via_ldmatrix"))
			return false;
		bool copied = false;
		for (int k = 0; k < 2; k++) {
			bool tf32;
			Op *ld = mma_staged_load(x, k, &tf32);
			if (ld && op_attr_flag(ld, "to_stage")) {
				if (!op_attr_flag(ld, "tma"))
					return false;
				copied = true;
			}
		}
		total += (copied ? 2 : 1) * ring_stage_bytes(f, x, loop, &resident);
	}
	return top == n && total + resident <= mma_stage_budget(target_sm(f));
}

/* Opt-in (TILE_SCHED_ASYNC_LAST=1; H200, session 12: +4% causal, +6% head
 * dim 128 with 128 rows, slower where its registers cost CTAs):
 * in a loop of several pipelined wgmma products, the last one (attention's
 * P V) may stay in flight into the next step (`async_depth` 1) when the
 * next step's first product (S = Q K^T, not itself in flight) waits for
 * every group (wgmma.wait_group 0) before anything reads the last one's
 * accumulator or refills its stage:
 *  - op is the body's last product, via_wgmma, its result only the
 *    continue's (the carried accumulator);
 *  - the body's first product is another via_wgmma one without async_depth;
 *  - every use of op's carried block argument, and each of op's prefetch
 *    loads, comes after that first product in the body.
 * Its tensor-core work then overlaps the next step's barrier, copies and
 * the start of S's. */
static bool retired_next_step(F *f, Op *loop, Op *op, Op **lds, int nl)
{
	Block *body = loop->regions[0].first;
	Op *first = NULL, *last = NULL;
	for (Op *x = body->first; x; x = x->next)
		if (mma_is_product(x)) {
			first = first ? first : x;
			last = x;
		}
	Op *cont = body->last;
	if (!first || first == op || last != op || !op_attr_flag(op, "via_wgmma") || !op_attr_flag(first, "via_wgmma") ||
	    op_attr_int(first, "async_depth", 0) || !cont || cont->info->code != CT_continue ||
	    uses_of(f, op->results[0]) != 1)
		return false;
	int at = -1;
	for (int i = 0; i < cont->noperands; i++)
		if (cont->operands[i] == op->results[0])
			at = i;
	if (at < 0 || at + 1 >= body->nargs || at >= loop->nresults)
		return false;
	const Value *arg = body->args[at + 1];      /* args[0] is the induction variable */
	bool past = false;
	for (Op *x = body->first; x; x = x->next) {
		if (!past)
			for (int i = 0; i < x->noperands; i++)
				if (x->operands[i] == arg)
					return false;
		for (int i = 0; i < nl && !past; i++)
			if (x == lds[i])
				return false;
		past |= x == first;
	}
	return true;
}

/* A ring of TMA copies feeding wgmma (sm_90) holds about TMA_RING_BYTES of
 * copies in flight, up to MMA_MAX_STAGES stages: on an H200 (2026-11-27,
 * docs/benchmarks.md "Pipeline depth") the 64x64x32 launch matmuls ran 336 -> 353 TFLOP/s (f16) and 343 -> 360 (bf16)
 * with 8 stages of 8 KiB instead of 4, while the 128x128x32 ones were
 * fastest at 4 stages of 16 KiB (653 against 641 / 639 / 622 at 5 / 6 / 8):
 * what hides the copies' latency is the bytes in flight, not the count.
 * (Attention's two rings stay at 2 stages each: 3 and 4 ran 6% slower at
 * head dim 64, the same at 128.) mma.sync products copied by TMA (sm_100,
 * sm_120) keep at most 4: no GPU of theirs has timed more. */
#define TMA_RING_BYTES (64 * 1024)
static int tma_ring_stages(int64_t stage_bytes)
{
	int64_t n = stage_bytes > 0 ? TMA_RING_BYTES / stage_bytes : 4;
	return n < 4 ? 4 : n > MMA_MAX_STAGES ? MMA_MAX_STAGES : (int)n;
}

/* Stages (docs/lowering.md §10, "pipelined K loop"): a product in the
 * body of a `for` whose copied operands (to_stage loads in the body) depend
 * on the loop only through its induction variable: tile-ptx copies the
 * first n-1 steps' tiles before the loop and, each step, the one n-1 steps
 * ahead into the stage the previous step read, while this step's product
 * runs. The product gets `stages` = n, each such load `prefetch`: n = 4, 3
 * or 2, the most whose staging fits libcommon's mma_stage_budget (40 KiB
 * of the 48 KiB of static shared memory; 160 KiB on sm_90: 128x128x32
 * f16 gets 2 stages elsewhere, 4 there); where every copy is by TMA, up to
 * tma_ring_stages (64x64x32 f16 on sm_90: 8); TILE_SCHED_STAGES=N asks
 * for N (2..MMA_MAX_STAGES) where it fits. A loop's one product, or every
 * product of a loop multi_pipeline_ok accepts (2 stages each). */
static void pipeline(F *f, Op *op)
{
	Block *body = op->parent;
	Op *loop = body && body->parent ? body->parent->parent : NULL;
	if (!loop || loop->info->code != CT_for || body != loop->regions[0].first || body->nargs < 1)
		return;
	int n = 0;
	op_walk(loop, count_mma, &n);
	int64_t bytes = stage_bytes_of(op);
	Op *lds[2];
	int nl = 0;
	for (int k = 0; k < 2; k++) {
		bool tf32;
		Op *ld = mma_staged_load(op, k, &tf32);
		if (!ld || !op_attr_flag(ld, "to_stage"))
			continue;
		for (int j = 0; j < ld->noperands; j++)
			if (ld->operands[j] != body->args[0] && value_made_inside(loop, ld->operands[j]))
				return;
		lds[nl++] = ld;
	}
	int64_t budget = mma_stage_budget(target_sm(f));
	if (nl == 0 || (n != 1 && !multi_pipeline_ok(f, loop, n)) || 2 * bytes > budget + 8 * 1024)
		return;
	if (n != 1) {
		op_set_attr(f->m, op, "stages", attr_int(f->m, 2, NULL));
		for (int i = 0; i < nl; i++)
			op_set_attr(f->m, lds[i], "prefetch", attr_bool(f->m, true));
		if (knobs()->TILE_SCHED_ASYNC_LAST && !mma_tcgen05_target(target_sm(f)) && retired_next_step(f, loop, op, lds, nl))
			op_set_attr(f->m, op, "async_depth", attr_int(f->m, 1, NULL));
		return;
	}
	int stages = 2;
	bool all_tma = op_attr_flag(op, "via_wgmma");     /* measured there only */
	for (int i = 0; i < nl; i++)
		all_tma &= op_attr_flag(lds[i], "tma");
	int want = knobs()->TILE_SCHED_STAGES;
	int cap = want >= 2 && want <= MMA_MAX_STAGES ? want
		  : all_tma ? tma_ring_stages(stage_payload_of(op)) : 4;
	while (stages < cap && (stages + 1) * bytes <= budget)
		stages++;
	op_set_attr(f->m, op, "stages", attr_int(f->m, stages, NULL));
	for (int i = 0; i < nl; i++)
		op_set_attr(f->m, lds[i], "prefetch", attr_bool(f->m, true));
	/* wgmma with 3+ stages: the step's products stay in flight while the
	 * next step starts (wgmma.wait_group 1, `async_depth` = 1) when nothing
	 * but the next step's product and the loop's exit reads the
	 * accumulator: it is the loop-carried value and its only use is the
	 * continue. The copies then run stages - 2 steps ahead (the stage the
	 * previous step's products read may still be in use). */
	Op *last = body->last;
	bool carried = false;
	for (int i = 1; i < body->nargs; i++)
		carried |= op->operands[2] == body->args[i];
	/* tcgen05 (TILE_TCGEN05): the same condition keeps the accumulator in
	 * tensor memory from the loop's start to its exit, at any stage count */
	bool t5 = mma_tcgen05_target(target_sm(f));
	if ((stages >= 3 || t5) && op_attr_flag(op, "via_wgmma") && carried && last && last->info->code == CT_continue &&
	    uses_of(f, op->results[0]) == 1 && !knobs()->TILE_SCHED_NO_ASYNC_MMA) {
		int at = -1;
		for (int i = 0; i < last->noperands; i++)
			if (last->operands[i] == op->results[0])
				at = i;
		if (at >= 0 && at < loop->nresults)
			op_set_attr(f->m, op, "async_depth", attr_int(f->m, 1, NULL));
	}
}

/* The accumulator and the result in the product's C layout. They share a
 * class with whatever else they are united with, which takes the C layout
 * of the first product (mma_preassign); a value feeding two products of
 * different tilings (one zero tile as both an HMMA and an FMA product's
 * accumulator, as in tests/read/allops on sm_100) leaves the other in a
 * layout that is not its own: convert the accumulator into it and the
 * result back out of it. */
static void fix_acc(F *f, Op *op, const MmaTiling *t)
{
	Layout want;
	mma_layout_c(t, &want);
	Value *acc = op->operands[2], *r = op->results[0];
	if (acc->lay && !layout_equal(acc->lay, &want)) {
		Op *cv = op_build(f->m, AS_convert_layout, 1, &acc, 1, &acc->type, op->loc);
		set_layout(f->m, cv->results[0], &want);
		op_insert_before(op, cv);
		op->operands[2] = cv->results[0];
	}
	if (r->lay && !layout_equal(r->lay, &want) && op->next) {
		Layout old = *r->lay;
		Op *cv = op_build(f->m, AS_convert_layout, 1, &r, 1, &r->type, op->loc);
		set_layout(f->m, cv->results[0], &old);
		op_insert_before(op->next, cv);
		replace_uses(f->fn, r, cv->results[0]);
		cv->operands[0] = r;
		set_layout(f->m, r, &want);
	}
}

/* A wgmma product's A made before its loop by a load (attention's Q: a
 * tiled_load, maybe reshaped), the load's only use: the value it loads,
 * else NULL. */
static Value *a_loaded_before_loop(F *f, Op *op, Op **loop_out)
{
	Block *body = op->parent;
	Op *loop = body && body->parent ? body->parent->parent : NULL;
	Value *src = op->operands[0];
	if (!loop || loop->info->code != CT_for || !op_attr_flag(op, "via_wgmma") || value_made_inside(loop, src) ||
	    !src->lay || !src->def || uses_of(f, src) != 1)
		return NULL;
	Value *v = src;
	if (v->def->info->code == CT_reshape) {
		v = v->def->operands[0];
		if (!v->def || uses_of(f, v) != 1)
			return NULL;
	}
	Op *ld = v->def;
	if (ld->info->code != AS_tiled_load || ld->results[0] != v || op_attr_flag(ld, "to_stage"))
		return NULL;
	*loop_out = loop;
	return src;
}

/* CTAs an SM holds by shared memory alone (228 KiB an SM on sm_90; 2 KiB a
 * CTA besides its staging: the 1 KiB the SM reserves a CTA, the barriers) */
static int64_t ctas_by_smem(int64_t bytes)
{
	return 228 * 1024 / (bytes + 2 * 1024);
}

/* Attention's Q on sm_90 (a wgmma product's A loaded before its loop) is
 * staged once, resident in shared memory beside the loop's rings, unless
 * that resident region is what holds the CTAs an SM down: where the loop's
 * staging with it leaves room for at most 2 CTAs and without it for more,
 * Q is loaded straight in wgmma's A register fragment instead (its load's
 * layout; tile-ptx then needs no region for it). H200, 2026-11-27 (docs/
 * benchmarks.md "Q in registers"): head dim 128, 64 rows: 84 -> 67 KiB,
 * 126 -> 155 registers, 2 -> 3 CTAs an SM, 406 -> 446 TFLOP/s; head dim
 * 64 (43 KiB, 5 CTAs either way) lost 2.5% that way, 128 rows (51 KiB)
 * nothing. TILE_SCHED_NO_A_IN_REGS=1 keeps Q resident. */
static void a_in_regs_for_occupancy(F *f, Op *op, const MmaTiling *t)
{
	Op *loop;
	Value *q = a_loaded_before_loop(f, op, &loop);
	/* one warpgroup a CTA: with two, registers already hold an SM to 2 CTAs */
	if (!q || f->warps != 4 || knobs()->TILE_SCHED_NO_A_IN_REGS || mma_tcgen05_target(target_sm(f)))
		return;         /* tcgen05 reads A from shared or tensor memory only */
	if (mma_layout_is_a(t, q->lay))
		return;
	/* the loop's staging as multi_pipeline_ok counts it: its rings, and
	 * apart (resident) Q's region */
	int64_t staging = 0, resident = 0;
	for (Op *x = loop->regions[0].first->first; x; x = x->next)
		if (mma_is_product(x))
			staging += op_attr_int(x, "stages", 1) * ring_stage_bytes(f, x, loop, &resident);
	if (ctas_by_smem(staging + resident) > 2 || ctas_by_smem(staging) <= ctas_by_smem(staging + resident))
		return;
	Layout want;
	mma_layout_a(t, &want);
	set_layout(f->m, q, &want);
	if (q->def->info->code == CT_reshape)
		set_layout(f->m, q->def->operands[0], &want);
}

/* operand k of product op in its fragment layout (A, B; a block-scaled
 * product's scales 3, 4: libcommon mma.h), through a convert_layout */
static void to_layout(F *f, Op *op, int k, const MmaTiling *t)
{
	Layout want;
	if (k == 0)
		mma_layout_a(t, &want);
	else if (k == 1)
		mma_layout_b(t, &want);
	else if (k == 3)
		mma_layout_scale_a(t, &want);
	else
		mma_layout_scale_b(t, &want);
	Value *src = op->operands[k];
	if (src->lay && layout_equal(src->lay, &want))
		return;
	const Type *ty = src->type;
	Op *cv = op_build(f->m, AS_convert_layout, 1, &src, 1, &ty, op->loc);
	set_layout(f->m, cv->results[0], &want);
	op_insert_before(op, cv);
	op->operands[k] = cv->results[0];
}

/* --tma: a product's result stored as a rank-2 tile goes by TMA where
 * libcommon's tma_store_ok holds (tile-ptx stages it in TMA's boxes and one
 * thread stores them) */
static int mark_tma_store(Op *op, void *ctx)
{
	F *f = ctx;
	TmapNote note;
	if (op->info->code == AS_tiled_store && tma_store_ok(op, target_sm(f), &note))
		op_set_attr(f->m, op, "tma", attr_bool(f->m, true));
	return 0;
}

void mma_fix(F *f)
{
	if (f->tma && f->nmmas && !knobs()->TILE_SCHED_NO_TMA_STORE)
		op_walk(f->fn, mark_tma_store, f);
	for (int i = 0; i < f->nmmas; i++) {
		Op *op = f->mmas[i];
		MmaTiling t;
		if (!tiling_of(f, op, &t))
			continue;
		fix_acc(f, op, &t);
		if (op->info->code == CT_mmaf_scaled)
			for (int k = 3; k < 5; k++)
				to_layout(f, op, k, &t);
		bool wg = t.wg, ldsm = !wg && mma_ldmatrix_ok(t.atom, tile_elem(op->operands[0]->type), target_sm(f));
		if (wg || ldsm) {
			op_set_attr(f->m, op, wg ? "via_wgmma" : "via_ldmatrix", attr_bool(f->m, true));
			if (!knobs()->TILE_SCHED_NO_CP_ASYNC)
				for (int k = 0; k < 2; k++)
					stage_direct(f, op, &t, k);
			continue;
		}
		for (int k = 0; k < 2; k++)
			to_layout(f, op, k, &t);
	}
	/* once every product's copies are known (a loop's products are pipelined together) */
	for (int i = 0; i < f->nmmas && !knobs()->TILE_SCHED_NO_CP_ASYNC && !knobs()->TILE_SCHED_NO_PIPELINE; i++)
		if (op_attr_flag(f->mmas[i], "via_wgmma") || op_attr_flag(f->mmas[i], "via_ldmatrix"))
			pipeline(f, f->mmas[i]);
	/* once the rings are known: Q in registers where its region costs CTAs */
	for (int i = 0; i < f->nmmas; i++) {
		MmaTiling t;
		if (op_attr_flag(f->mmas[i], "via_wgmma") && tiling_of(f, f->mmas[i], &t))
			a_in_regs_for_occupancy(f, f->mmas[i], &t);
	}
	free(f->mmas);
}
