/* util_ldsm.c: MMA operands through shared memory and ldmatrix (utility
 * layer, emit.h; docs/lowering.md "MMA"). Used by op_mma.c for an mmaf
 * that tile-sched planned on the ldmatrix path (libcommon mma_plan.h;
 * mma_ldmatrix_ok: f16 / bf16 on sm_75+, i8 and tf32 on sm_80+).
 *
 * Staging buffer. Each kernel with such an mmaf gets one static shared
 * array, __tile_mma_<kernel>, as large as its largest mmaf needs (the
 * products of a loop pipelined together: their regions one after another,
 * own_regions), then the resident operands' regions: A (M x K)
 * at 0, B after it at a 128-byte boundary (K x N, or N x K transposed; at 0
 * when a wgmma stage holds no A: in registers or resident),
 * swizzled (libcommon's mma_swizzle: 16-byte chunks XORed with the row
 * bits, so the eight rows an ldmatrix phase reads hit eight different
 * chunks of a 128-byte line: no bank conflicts).
 *
 * Writes (mma_stage_store). Every first owner writes its registers of the
 * operand in the operand's own layout: runs of up to 16 bytes of
 * consecutive elements as one vector store (a run stays whole under the
 * swizzle), else element by element; transposed ones element by element.
 *
 * Reads (mma_ldsm). A fragment register (4 bytes: two 16-bit values, four
 * 8-bit, one tf32) of these atoms is row lane/4, bytes 4*(lane%4) of an
 * 8-row x 16-byte matrix, ldmatrix's distribution: A (.row) from the
 * row-major tile; B (.col) with ldmatrix.trans from the row-major K x N
 * tile for 16-bit values (a pair (k = 2q, 2q+1; n = g) is the transpose's
 * row), else without .trans from the transposed (N x K) staging. Row r of
 * a matrix starts at its origin + r * cols, so lane l gives the address of
 * row l % 8 of the instruction's matrix l / 8; four matrices (of the
 * registers asked for) per ldmatrix.x4, the rest .x2 / .x1. The fragment layout is checked to be
 * exactly that (an internal error otherwise).
 *
 * Copies (cp.async). A tiled_load its product's plan copies (cp_async) writes its
 * 16-byte chunks straight into its product's region of the buffer
 * (mma_stage_of_load, mma_stage_addr: the same placement as the register
 * stores, StageGeom), after a barrier (mma_stage_copy_begin); the product
 * then skips that operand's stores and waits (cp.async.wait_all).
 *
 * Pipelined K loop. A product with `stages` = n (2..MMA_MAX_STAGES;
 * module.c refuses others) in a `for` has n stages of the buffer; copies
 * run a = n-1 steps ahead (n-2 when the product's plan has async_depth 1: its
 * wgmma of the previous step may still read its stage):
 * mma_pipeline_prologue (at the for) copies steps
 * 0 .. a-1 into stages 0 .. a-1, mma_prefetch (at each `prefetch` load)
 * step iv + a*step into its stage, re-emitting the load with the induction
 * variable bound to that value; the product reads stage
 * ((iv - lb)/step) mod n (mma_stage_base) after cp.async.wait_group a (or,
 * by TMA, its stage's mbarrier). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "knobs.h"
#include "mma.h"
#include "tma.h"
#include "mma_staging.h"
#include "diag.h"

/* ------------------------------------------------------------ buffer */

/* The buffer's geometry (regions, stages, resident operands) is libcommon's
 * mma_staging.h, from the products' plans: tile-sched sized it the same way
 * when it chose which operands stay resident. */

/* a wgmma product's A in wgmma's register fragment (its plan: attention's P) */
bool mma_wgmma_a_in_regs(const Op *mma)
{
	return mma_path(mma) == MMA_PATH_WGMMA && mma_operand_staging(mma, 0) == MMA_STAGING_FRAGMENT;
}

/* operand k is staged once before its loop (its plan: attention's Q) */
bool mma_resident(const Op *mma, int k)
{
	return mma_operand_staging(mma, k) == MMA_STAGING_RESIDENT;
}

LLVMValueRef mma_stage_buf(E *e, Op *op)
{
	char name[300];
	smem_kernel_name(e, "mma", name, sizeof name);
	LLVMValueRef g = LLVMGetNamedGlobal(e->mod, name);
	if (g)
		return g;
	MmaStagingNeed need;
	mma_staging_need(op_toplevel(op), NULL, 0, &need);
	int64_t max = mma_staging_bytes(&need);
	if (max > mma_stage_limit(e->o->target->sm)) {
		diag_error(op->loc, "'%s' op needs %lld bytes of shared memory; %s gives a block at most %lld",
			   op->info->name, (long long)max, e->o->target->name, (long long)mma_stage_limit(e->o->target->sm));
		e->errors++;
		max = 128;
	}
	return smem_kernel_global(e, "mma", LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), (uint64_t)max),
				  need.align1024 ? 1024 : 128);      /* mma_stage_align */
}

/* base + swizzled(byte offset x, i32), an i8 addrspace(3) pointer */
static LLVMValueRef swz_ptr(E *e, LLVMValueRef base, LLVMValueRef x, int shift)
{
	LLVMValueRef hi = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, x, c_i32(e, shift), ""), c_i32(e, 7), "");
	LLVMValueRef p = LLVMBuildXor(e->b, x, LLVMBuildShl(e->b, hi, c_i32(e, 4), ""), "");
	LLVMValueRef o64 = LLVMBuildZExt(e->b, p, ty_i64(e), "");
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), base, &o64, 1, "");
}

/* ------------------------------------------------------------ writes */

/* registers k .. k+v-1 of l: v consecutive primary elements, v-aligned */
/* registers k..k+v-1 hold v consecutive elements of a row (step 1) or, for
 * a transposed staging, of a column (step = the tile's columns), the first
 * v-aligned along it: one vector store */
static bool run_ok(const Layout *l, int64_t k, int v, int64_t nregs, int64_t step)
{
	if (k % v || k + v > nregs)
		return false;
	int64_t o = layout_eval_mode(l, 0, k);
	if (o / step % v)
		return false;
	for (int i = 0; i < v; i++)
		if (layout_eval_mode(l, 0, k + i) != o + i * step || !layout_reg_is_primary(l, k + i))
			return false;
	return true;
}

/* element offset o of the rows x cols tile where it is staged: o itself,
 * or (c, r) of the cols x rows transpose (offsets of disjoint bits add) */
static int64_t place(int64_t o, int64_t rows, int64_t cols, bool tr)
{
	return tr ? (o % cols) * rows + o / cols : o;
}

static int log2i(int64_t x)
{
	int l = 0;
	while (((int64_t)1 << l) < x)
		l++;
	return l;
}

static LLVMValueRef place_rt(E *e, LLVMValueRef o, int64_t rows, int64_t cols, bool tr)
{
	if (!tr)
		return o;
	LLVMValueRef c = LLVMBuildAnd(e->b, o, c_i32(e, cols - 1), "");
	LLVMValueRef r = LLVMBuildLShr(e->b, o, c_i32(e, log2i(cols)), "");
	return LLVMBuildAdd(e->b, LLVMBuildMul(e->b, c, c_i32(e, rows), ""), r, "");
}

static LLVMValueRef swz_rt(E *e, LLVMValueRef x, int shift)
{
	LLVMValueRef hi = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, x, c_i32(e, shift), ""), c_i32(e, 7), "");
	return LLVMBuildXor(e->b, x, LLVMBuildShl(e->b, hi, c_i32(e, 4), ""), "");
}

/* Where a staged operand's elements go: the ldmatrix staging (row-major,
 * mma_swizzle) or wgmma's (K-major, mma_wgmma_offset; B transposed so
 * that its K runs along the staged rows). Both are bit permutations then
 * XORs of the element offset, so linear over disjoint bits. */
static StageGeom geom(int64_t rows, int64_t cols, bool tr, int wg_w, int eb)
{
	StageGeom g = { rows, cols, tr, wg_w > 0, eb, 0, wg_w, tr ? cols : rows, tr ? rows : cols };
	g.shift = mma_swizzle_shift(g.scols * eb);
	return g;
}

/* the byte (from the buffer's start) of element offset o */
static int64_t stage_byte(const StageGeom *g, int64_t o)
{
	int64_t p = place(o, g->rows, g->cols, g->tr);
	if (g->wg)
		return mma_wgmma_offset(p / g->scols, p % g->scols, g->srows, g->w, g->eb);
	return mma_swizzle(p * g->eb, g->shift);
}

/* the same before the swizzle (wgmma) or the swizzle's input (ldmatrix) */
static int64_t stage_byte_plain(const StageGeom *g, int64_t o)
{
	int64_t p = place(o, g->rows, g->cols, g->tr);
	if (!g->wg)
		return p * g->eb;
	int64_t w = g->w, cb = (p % g->scols) * g->eb;
	return (cb / w) * g->srows * w + (p / g->scols) * w + cb % w;
}

static LLVMValueRef stage_byte_rt(E *e, const StageGeom *g, LLVMValueRef o)
{
	LLVMValueRef p = place_rt(e, o, g->rows, g->cols, g->tr);
	if (!g->wg)
		return swz_rt(e, LLVMBuildMul(e->b, p, c_i32(e, g->eb), ""), g->shift);
	int64_t w = g->w;
	LLVMValueRef cb = LLVMBuildMul(e->b, LLVMBuildAnd(e->b, p, c_i32(e, g->scols - 1), ""), c_i32(e, g->eb), "");
	LLVMValueRef r = LLVMBuildLShr(e->b, p, c_i32(e, log2i(g->scols)), "");
	LLVMValueRef b = LLVMBuildAdd(e->b, LLVMBuildShl(e->b, r, c_i32(e, log2i(w)), ""),
				      LLVMBuildAnd(e->b, cb, c_i32(e, w - 1), ""), "");
	if (g->scols * g->eb > w)
		b = LLVMBuildAdd(e->b, b, LLVMBuildMul(e->b, LLVMBuildLShr(e->b, cb, c_i32(e, log2i(w)), ""),
						       c_i32(e, g->srows * w), ""), "");
	LLVMValueRef hi = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, b, c_i32(e, 7), ""), c_i32(e, w / 16 - 1), "");
	return LLVMBuildXor(e->b, b, LLVMBuildShl(e->b, hi, c_i32(e, 4), ""), "");
}

/* Addresses. When the thread part of s's offsets (lane, warp strides:
 * powers of two) and the register part have disjoint bits, the swizzle,
 * linear over bits, splits: swz(thr | v) = swz(thr) ^ swz(v); the bits of
 * swz(v) that swz(thr) never has are added as an immediate, the others
 * XORed into one of a few base registers. Otherwise each address is
 * computed whole. */
void mma_stage_store(E *e, TV *s, const Type *el, LLVMValueRef base, int64_t rows, int64_t cols, bool transpose,
		     int wg_w)
{
	int eb = elem_bytes(el);
	StageGeom g = geom(rows, cols, transpose, wg_w, eb);
	const Layout *l = &s->lay;
	int64_t tbits = 0, tsw = 0;
	bool lin = true;
	for (int mode = 1; mode < 3; mode++)
		for (int64_t c = 1; c < layout_mode_size(l, mode); c <<= 1) {
			int64_t x = layout_eval_mode(l, mode, c);
			lin &= (x & (x - 1)) == 0 && (tbits & x) == 0;
			tbits |= x;
			tsw |= stage_byte_plain(&g, x) | stage_byte(&g, x);
		}
	for (int64_t k = 0; k < s->n; k++)
		lin &= (layout_eval_mode(l, 0, k) & tbits) == 0;
	/* the longest run the thread part keeps aligned: along a row, or
	 * transposed down a column (a transposed view's column chunks, which
	 * land in consecutive bytes of the transpose); a power-of-two tile */
	int64_t talign = 16 / eb, step = transpose ? cols : 1;
	if (transpose && (cols & (cols - 1)))
		talign = 1;
	for (int mode = 1; mode < 3; mode++)
		for (int64_t c = 1; c < layout_mode_size(l, mode); c <<= 1) {
			int64_t x = layout_eval_mode(l, mode, c);
			while (talign > 1 && (transpose ? (x >= cols ? x / cols : 0) : x) % talign)
				talign /= 2;
		}
	LLVMValueRef prim = owner_pred(e, l);
	LLVMTypeRef et = elem_ty(e, el), mt = mem_ty(e, el), i8 = LLVMInt8TypeInContext(e->ctx);
	LLVMValueRef thr = lin ? stage_byte_rt(e, &g, lw_of(e, l)->off) : NULL;
	int64_t lo_key[64];
	LLVMValueRef lo_base[64];
	int nlo = 0;
	for (int64_t k = 0; k < s->n;) {
		if (!layout_reg_is_primary(l, k)) {
			k++;
			continue;
		}
		int v = (int)talign;
		while (v > 1 && !run_ok(l, k, v, s->n, step))
			v /= 2;
		LLVMValueRef p;
		if (lin) {
			int64_t cst = stage_byte(&g, layout_eval_mode(l, 0, k));
			int64_t lo = cst & tsw, hi = cst & ~tsw;
			int i = 0;
			while (i < nlo && lo_key[i] != lo)
				i++;
			if (i == nlo) {
				if (nlo == 64)
					i = 0, nlo = 0;     /* too many: start over (never with tile shapes) */
				lo_key[i] = lo;
				LLVMValueRef x = lo ? LLVMBuildXor(e->b, thr, c_i32(e, lo), "") : thr;
				LLVMValueRef x64 = LLVMBuildZExt(e->b, x, ty_i64(e), "");
				lo_base[i] = LLVMBuildGEP2(e->b, i8, base, &x64, 1, "");
				nlo = i + 1 > nlo ? i + 1 : nlo;
			}
			LLVMValueRef h = c_i64(e, hi);
			p = LLVMBuildGEP2(e->b, i8, lo_base[i], &h, 1, "");
		} else {
			LLVMValueRef x64 = LLVMBuildZExt(e->b, stage_byte_rt(e, &g, elem_offset(e, l, k)), ty_i64(e), "");
			p = LLVMBuildGEP2(e->b, i8, base, &x64, 1, "");
		}
		LLVMValueRef val;
		if (v == 1) {
			val = mt != et ? LLVMBuildZExt(e->b, s->r[k], mt, "") : s->r[k];
		} else {
			val = LLVMGetUndef(LLVMVectorType(et, (unsigned)v));
			for (int i = 0; i < v; i++)
				val = LLVMBuildInsertElement(e->b, val, s->r[k + i], c_i32(e, i), "");
		}
		guarded_store(e, val, p, (unsigned)(v * eb), prim, &order_weak);
		k += v;
	}
}

/* ------------------------------------------------------------ reads */

/* vpr: values per 32-bit register (4 bytes of a matrix row, ldmatrix's
 * unit); trans: 16-bit .trans, pairs along the rows */
static void check_frag(const Layout *l, int64_t cols, bool trans, int vpr)
{
	int64_t want[5] = { vpr, 2 * vpr, cols, 2 * cols, 4 * cols };
	if (trans) {
		int64_t t[5] = { 2 * cols, 4 * cols, 1, 2, 4 };
		for (int b = 0; b < 5; b++)
			want[b] = t[b];
	}
	bool ok = layout_mode_size(l, 1) == 32 && layout_nregs(l) % vpr == 0;
	for (int b = 0; ok && b < 5; b++)
		ok = layout_eval_mode(l, 1, (int64_t)1 << b) == want[b];
	for (int64_t p = 0; ok && vpr * p < layout_nregs(l); p++)
		for (int i = 1; ok && i < vpr; i++)
			ok = layout_eval_mode(l, 0, vpr * p + i) - layout_eval_mode(l, 0, vpr * p) == (trans ? cols : i);
	if (!ok)
		ice("tile-ptx: an mma operand fragment that is not made of ldmatrix 8x8 matrices");
}

/* W(warp) of l at run time (i32) */
static LLVMValueRef warp_part(E *e, const Layout *l)
{
	LLVMValueRef w = c_i32(e, 0);
	for (int64_t c = 1, b = 0; c < layout_mode_size(l, 2); c <<= 1, b++) {
		int64_t s = layout_eval_mode(l, 2, c);
		if (!s)
			continue;
		LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, e->warp, c_i32(e, b), ""), c_i32(e, 1), "");
		w = LLVMBuildAdd(e->b, w, LLVMBuildMul(e->b, bit, c_i32(e, s), ""), "");
	}
	return w;
}

void mma_ldsm(E *e, LLVMValueRef base, const Layout *frag, const StageGeom *g, const Type *el, bool trans,
	      const int64_t *units, int nunits, LLVMValueRef *out)
{
	int eb = elem_bytes(el);
	int64_t cols = g->scols;
	int shift = mma_swizzle_shift(cols * eb);
	int vpr = 4 / eb;
	check_frag(frag, cols, trans, vpr);
	int64_t npairs = nunits;
	/* this lane's row of its matrix, and which matrix of an instruction it addresses */
	LLVMValueRef row = LLVMBuildMul(e->b, LLVMBuildAnd(e->b, e->lane, c_i32(e, 7), ""), c_i32(e, cols), "");
	LLVMValueRef lane_part = LLVMBuildAdd(e->b, warp_part(e, frag), row, "");
	LLVMValueRef mat = LLVMBuildLShr(e->b, e->lane, c_i32(e, 3), "");
	LLVMTypeRef i32 = ty_i32(e), pair = vpr > 1 ? LLVMVectorType(elem_ty(e, el), (unsigned)vpr) : elem_ty(e, el);
	unsigned conv = LLVMGetEnumAttributeKindForName("convergent", strlen("convergent"));
	for (int64_t p = 0; p < npairs;) {
		int c = npairs - p >= 4 ? 4 : npairs - p >= 2 ? 2 : 1;
		LLVMValueRef sel = c_i32(e, layout_eval_mode(frag, 0, vpr * units[p]));
		for (int i = 1; i < c; i++) {
			LLVMValueRef is = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, mat, c_i32(e, c - 1), ""),
							c_i32(e, i), "");
			sel = LLVMBuildSelect(e->b, is, c_i32(e, layout_eval_mode(frag, 0, vpr * units[p + i])), sel, "");
		}
		LLVMValueRef o = LLVMBuildAdd(e->b, lane_part, sel, "");     /* element offset in the staged tile */
		LLVMValueRef p8;
		if (g->wg) {     /* TMA's box layout (rows of w bytes): g is never transposed then */
			LLVMValueRef x64 = LLVMBuildZExt(e->b, stage_byte_rt(e, g, o), ty_i64(e), "");
			p8 = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), base, &x64, 1, "");
		} else {
			p8 = swz_ptr(e, base, LLVMBuildMul(e->b, o, c_i32(e, eb), ""), shift);
		}
		LLVMValueRef addr = LLVMBuildPtrToInt(e->b, p8, ty_i32(e), "");   /* a shared-window offset */
		char text[160], cons[64];
		int tl = snprintf(text, sizeof text, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {", c, trans ? ".trans" : "");
		int cl = 0;
		for (int i = 0; i < c; i++) {
			tl += snprintf(text + tl, sizeof text - (size_t)tl, "%s$%d", i ? "," : "", i);
			cl += snprintf(cons + cl, sizeof cons - (size_t)cl, "=r,");
		}
		snprintf(text + tl, sizeof text - (size_t)tl, "}, [$%d];", c);
		snprintf(cons + cl, sizeof cons - (size_t)cl, "r,~{memory}");
		LLVMTypeRef rt[4] = { i32, i32, i32, i32 };
		LLVMTypeRef ret = c == 1 ? i32 : LLVMStructTypeInContext(e->ctx, rt, (unsigned)c, 0);
		LLVMTypeRef pt = ty_i32(e);
		LLVMTypeRef ft = LLVMFunctionType(ret, &pt, 1, 0);
		LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 1, 0,
						  LLVMInlineAsmDialectATT, 0);
		LLVMValueRef call = LLVMBuildCall2(e->b, ft, f, &addr, 1, "");
		LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, conv, 0));
		for (int i = 0; i < c; i++) {
			LLVMValueRef r = c == 1 ? call : LLVMBuildExtractValue(e->b, call, (unsigned)i, "");
			LLVMValueRef v = LLVMBuildBitCast(e->b, r, pair, "");
			for (int j = 0; j < vpr; j++)
				out[vpr * units[p + i] + j] = vpr == 1 ? v : LLVMBuildExtractElement(e->b, v, c_i32(e, j), "");
		}
		p += c;
	}
}

/* ------------------------------------------------------------ cp.async */

static LLVMValueRef stage_at(E *e, Op *mma, LLVMValueRef sel);

/* the staged product that uses ld's tile, and which operand it is */
Op *mma_user_of(Op *ld, int *k)
{
	return mma_product_of_load(ld, k);    /* (libcommon tma.c: the same search) */
}

bool mma_stage_of_load(E *e, Op *ld, LLVMValueRef *base, StageGeom *g)
{
	int k;
	Op *mma = mma_user_of(ld, &k);
	if (!mma)
		return false;
	const Type *ea = tile_elem(mma->operands[0]->type);
	MmaTiling t;
	/* cp.async chunks stay whole only in an operand staged as it is; a TMA
	 * box lands a K-major B too (libcommon tma_load_ok) */
	if (!mma_planned_tiling(mma, &t) || (!mma_stage_as_is(&t, k, ea) && !tma_op(e, ld)))
		return false;
	if (t.wg != (mma_path(mma) == MMA_PATH_WGMMA) || (!t.wg && !(mma_path(mma) == MMA_PATH_LDMATRIX)) ||
	    !mma_operand_copied(mma, k))
		return false;
	*base = e->stage_sel ? stage_at(e, mma, e->stage_sel) : mma_stage_base(e, mma);
	if (k == 1) {
		LLVMValueRef boff = c_i64(e, mma_stage_b_offset(mma));
		*base = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), *base, &boff, 1, "");
	}
	*g = mma_operand_geom(e, mma, &t, k);
	return true;
}

StageGeom mma_operand_geom(E *e, Op *mma, const MmaTiling *t, int k)
{
	const Type *ea = tile_elem(mma->operands[0]->type);
	bool tr = k == 1 && !mma_stage_as_is(t, 1, ea);
	int w = t->wg ? mma_wgmma_stage_w(t, k, ea) : mma_operand_tma(e, mma, k) ? tma_box_row_bytes(t, k, ea) : 0;
	return geom(k ? t->k : t->m, k ? t->n : t->k, tr, w, elem_bytes(ea));
}

LLVMValueRef mma_stage_addr(E *e, LLVMValueRef base, const StageGeom *g, LLVMValueRef elem_off)
{
	LLVMValueRef x64 = LLVMBuildZExt(e->b, stage_byte_rt(e, g, elem_off), ty_i64(e), "");
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), base, &x64, 1, "");
}

/* A copy into the staging buffer overwrites what the last product read:
 * a barrier first, unless the op before it (pure ops aside) is another
 * such copy, which had one. A TMA copy (util_tma.c) also orders the
 * buffer's earlier generic writes before its async ones, except in a
 * pipelined loop's steps (in_loop), where only wgmma read the half. */
void mma_stage_copy_begin(E *e, Op *ld, bool in_loop)
{
	for (Op *x = ld->prev; x; x = x->prev) {
		if (x->info->code == AS_tiled_load && mma_load_copied(x))
			return;
		if (x->nregions || !op_has(x->info, OPT_PURE))
			break;
	}
	if (!in_loop)
		tma_fence_before_copy(e, ld);
	barrier(e);
}

/* The product's own writes into the buffer (register stores of the
 * operands not copied): a barrier first, unless a copy of one of its
 * operands, at its load, already had it and nothing read the buffer since. */
void mma_stage_begin(E *e, Op *mma, bool writes)
{
	if (writes && !mma_operand_copied(mma, 0) && !mma_operand_copied(mma, 1))
		barrier(e);
}

/* The product waits for its copied operands: all of them, or, pipelined,
 * all but the newest group (the next step's copies stay in flight). */
void mma_copies_wait(E *e, Op *mma)
{
	bool async[2];
	for (int k = 0; k < 2; k++)
		async[k] = mma_operand_copied(mma, k) && !mma_operand_tma(e, mma, k);
	if (async[0] || async[1]) {
		/* pipelined over n stages: all but the n-1 newest groups (the steps still ahead) */
		char w[40];
		snprintf(w, sizeof w, "cp.async.wait_group %d;", mma_stage_ahead(mma));
		asm_call(e, LLVMVoidTypeInContext(e->ctx), mma_stage_pipelined(mma) ? w : "cp.async.wait_all;", "~{memory}",
			 NULL, 0);
	}
	tma_wait(e, mma, mma_stage_sel(e, mma));
}

void mma_cp_async_commit(E *e)
{
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "cp.async.commit_group;", "~{memory}", NULL, 0);
}

void mma_cp_async16(E *e, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef in_bounds, LLVMValueRef owner)
{
	LLVMValueRef d32 = LLVMBuildPtrToInt(e->b, dst, ty_i32(e), "");
	LLVMValueRef n = in_bounds ? LLVMBuildSelect(e->b, in_bounds, c_i32(e, 16), c_i32(e, 0), "") : c_i32(e, 16);
	LLVMValueRef args[3] = { d32, src, n };
	LLVMBasicBlockRef after = guard_begin(e, owner);
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}",
		 args, 3);
	guard_end(e, after);
}

/* ------------------------------------------------------------ pipelined K loop */

/* the `for` whose body op is at top level */
/* step number k (an integer of the loop's type) as its stage of n, i32 */
static LLVMValueRef stage_mod(E *e, LLVMValueRef k, int n)
{
	k = (n & (n - 1)) == 0 ? LLVMBuildAnd(e->b, k, LLVMConstInt(LLVMTypeOf(k), (unsigned long long)n - 1, 0), "")
			       : LLVMBuildURem(e->b, k, LLVMConstInt(LLVMTypeOf(k), (unsigned long long)n, 0), "");
	return LLVMBuildIntCast2(e->b, k, ty_i32(e), 0, "");
}

/* the stage (of n) step iv + ahead*step uses: ((iv - lb) / step + ahead) mod n */
static LLVMValueRef stage_of_step(E *e, Op *loop, int ahead, int n)
{
	Value *ivv = loop->regions[0].first->args[0];
	LLVMValueRef iv = scalar(e, ivv), lb = scalar(e, loop->operands[0]), step = scalar(e, loop->operands[2]);
	bool uns = op_attr_flag(loop, "unsignedCmp");
	LLVMValueRef k = uns ? LLVMBuildUDiv(e->b, LLVMBuildSub(e->b, iv, lb, ""), step, "")
			     : LLVMBuildSDiv(e->b, LLVMBuildSub(e->b, iv, lb, ""), step, "");
	if (ahead)
		k = LLVMBuildAdd(e->b, k, LLVMConstInt(LLVMTypeOf(k), (unsigned long long)ahead, 0), "");
	return stage_mod(e, k, n);
}

static LLVMValueRef stage_at(E *e, Op *mma, LLVMValueRef sel)
{
	LLVMValueRef buf = mma_stage_buf(e, mma);
	int64_t region = mma_region_offset(mma);
	if (!sel && !region)
		return buf;
	LLVMValueRef off = sel ? LLVMBuildZExt(e->b, LLVMBuildMul(e->b, sel, c_i32(e, mma_stage_stride(mma)), ""), ty_i64(e), "")
			       : c_i64(e, 0);
	if (region)
		off = LLVMBuildAdd(e->b, off, c_i64(e, region), "");
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), buf, &off, 1, "");
}

LLVMValueRef mma_stage_sel(E *e, Op *mma)
{
	if (e->stage_sel)
		return e->stage_sel;
	int n = (int)mma_stages(mma, 1);
	Op *loop = n > 1 ? mma_loop_of(mma) : NULL;
	return loop ? stage_of_step(e, loop, 0, n) : c_i32(e, 0);
}

LLVMValueRef mma_stage_base(E *e, Op *mma)
{
	int n = (int)mma_stages(mma, 1);
	Op *loop = n > 1 ? mma_loop_of(mma) : NULL;
	return stage_at(e, mma, loop ? stage_of_step(e, loop, 0, n) : NULL);
}

LLVMValueRef mma_resident_base(E *e, Op *mma, int k)
{
	MmaStagingNeed need;
	mma_staging_need(op_toplevel(mma), mma, k, &need);
	LLVMValueRef off = c_i64(e, mma_resident_start(&need) + need.at);
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), mma_stage_buf(e, mma), &off, 1, "");
}

void mma_resident_prologue(E *e, Op *loop)
{
	bool first = true, wg = false;
	for (Op *x = loop->regions[0].first->first; x; x = x->next)
		for (int k = 0; k < 2 && mma_is_product(x); k++) {
			if (!mma_resident(x, k))
				continue;
			const Type *ea = tile_elem(x->operands[0]->type);
			MmaTiling t;
			if (!mma_planned_tiling(x, &t))
				ice("tile-ptx: a resident mma operand without a tiling");
			if (first)
				barrier(e);     /* the last reads of the regions (an enclosing loop's previous step) */
			first = false;
			wg |= t.wg;
			/* as op_mma.c / util_wgmma.c stage it: A as it is (wgmma: its W-byte
			 * swizzled rows); B as it is (16-bit, ldmatrix.trans) or transposed */
			mma_stage_store(e, get(e, x->operands[k]), ea, mma_resident_base(e, x, k), k ? t.k : t.m,
					k ? t.n : t.k, k == 1 && !mma_stage_as_is(&t, 1, ea),
					t.wg ? mma_wgmma_stage_w(&t, k, ea) : 0);
		}
	if (wg) {       /* generic writes -> wgmma's async reads, every warp's, once */
		asm_call(e, LLVMVoidTypeInContext(e->ctx), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0);
		barrier(e);
	}
}

LLVMValueRef mma_stage_sel_back(E *e, Op *mma, int back)
{
	int n = (int)mma_stages(mma, 1);
	Op *loop = mma_loop_of(mma);
	return loop && n > 1 ? stage_of_step(e, loop, ((-back) % n + n) % n, n) : c_i32(e, 0);
}

LLVMValueRef mma_first_step(E *e, Op *mma)
{
	Op *loop = mma_loop_of(mma);
	if (!loop)
		return LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
	return LLVMBuildICmp(e->b, LLVMIntEQ, scalar(e, loop->regions[0].first->args[0]), scalar(e, loop->operands[0]), "");
}

LLVMValueRef mma_last_stage(E *e, Op *loop, Op *mma)
{
	int n = (int)mma_stages(mma, 1);
	LLVMValueRef lb = scalar(e, loop->operands[0]), ub = scalar(e, loop->operands[1]), step = scalar(e, loop->operands[2]);
	bool uns = op_attr_flag(loop, "unsignedCmp");
	LLVMValueRef span = LLVMBuildSub(e->b, LLVMBuildSub(e->b, ub, lb, ""), LLVMConstInt(LLVMTypeOf(lb), 1, 0), "");
	return stage_mod(e, uns ? LLVMBuildUDiv(e->b, span, step, "") : LLVMBuildSDiv(e->b, span, step, ""), n);
}

int mma_stage_ahead(const Op *mma)
{
	/* in flight with an earlier product of its loop (tile-sched's
	 * retired_next_step): that one's wait_group 0 retires it before its
	 * stage is refilled, so the copies stay a whole step ahead */
	Op *loop = mma_loop_of(mma);
	if (loop && mma_async_depth(mma))
		for (Op *x = loop->regions[0].first->first; x && x != mma; x = x->next)
			if (mma_is_product(x) && (mma_path(x) == MMA_PATH_WGMMA) && !mma_async_depth(x))
				return (int)mma_stages(mma, 2) - 1;
	return (int)mma_stages(mma, 2) - 1 - (int)mma_async_depth(mma);
}

bool mma_stage_pipelined(const Op *mma)
{
	return mma_stages(mma, 1) > 1 && mma_loop_of(mma);
}

/* emit load ld as the copies of the step whose induction value is `at`,
 * into stage half sel, under `guard` (NULL: always) */
static void copy_for_step(E *e, Op *ld, Value *ivv, LLVMValueRef at, LLVMValueRef sel, LLVMValueRef guard)
{
	LLVMBasicBlockRef after = guard_begin(e, guard);
	TV *saved = e->tv[ivv->id];
	TV *t = tv_new(e, ivv);
	for (int k = 0; k < t->n; k++)
		t->r[k] = at;
	set(e, ivv, t);
	e->stage_sel = sel;
	e->stage_raw = true;
	e->table[ld->info->code](e, ld);
	e->stage_sel = NULL;
	e->stage_raw = false;
	e->tv[ivv->id] = saved;
	guard_end(e, after);
}

void mma_pipeline_prologue(E *e, Op *loop)
{
	Block *body = loop->regions[0].first;
	bool any = false;
	for (Op *x = body->first; x; x = x->next)
		any |= x->info->code == AS_tiled_load && mma_load_prefetch(x);
	if (!any)
		return;
	LLVMValueRef lb = scalar(e, loop->operands[0]), ub = scalar(e, loop->operands[1]);
	bool uns = op_attr_flag(loop, "unsignedCmp");
	LLVMValueRef runs = LLVMBuildICmp(e->b, uns ? LLVMIntULT : LLVMIntSLT, lb, ub, "");
	for (Op *x = body->first; x; x = x->next)
		if (x->info->code == AS_tiled_load && mma_load_prefetch(x)) {
			tma_fence_before_copy(e, x);     /* generic writes before the loop, async ones now */
			break;
		}
	barrier(e);     /* the buffer's last product before the loop */
	/* steps 0 .. ahead-1 into stages 0 .. ahead-1, a commit group each */
	int ahead = 1, which;
	bool cp_async = false;
	for (Op *x = body->first; x; x = x->next)
		if (x->info->code == AS_tiled_load && mma_load_prefetch(x)) {
			Op *mma = mma_user_of(x, &which);
			if (mma)
				ahead = mma_stage_ahead(mma);
			cp_async |= !tma_op(e, x);
		}
	LLVMValueRef step = scalar(e, loop->operands[2]);
	for (int j = 0; j < ahead; j++) {
		LLVMValueRef at = lb, guard = runs;
		if (j) {
			at = LLVMBuildAdd(e->b, lb, LLVMBuildMul(e->b, step, LLVMConstInt(LLVMTypeOf(step), (unsigned long long)j, 0), ""), "");
			guard = LLVMBuildICmp(e->b, uns ? LLVMIntULT : LLVMIntSLT, at, ub, "");
		}
		for (Op *x = body->first; x; x = x->next)
			if (x->info->code == AS_tiled_load && mma_load_prefetch(x))
				copy_for_step(e, x, body->args[0], at, c_i32(e, j), guard);
		if (cp_async)
			mma_cp_async_commit(e);
	}
}

bool mma_prefetch(E *e, Op *ld)
{
	Op *loop = mma_loop_of(ld);
	if (e->stage_raw || !mma_load_prefetch(ld))
		return false;
	int which;
	Op *mma = mma_user_of(ld, &which);
	if (!loop || !mma_load_copied(ld) || !mma || !mma_stage_pipelined(mma)) {
		/* tile-sched never writes this; a hand-edited IR can */
		diag_error(ld->loc, "'%s' op: its product's plan prefetches it, but it is not a copy of a pipelined product in its loop",
			   ld->info->name);
		e->errors++;
		return false;
	}
	Value *ivv = loop->regions[0].first->args[0];
	LLVMValueRef iv = scalar(e, ivv), ub = scalar(e, loop->operands[1]), step = scalar(e, loop->operands[2]);
	bool uns = op_attr_flag(loop, "unsignedCmp");
	/* step iv + ahead*step into its stage: the one the product `ahead - n`
	 * steps back read (the previous step's; with async_depth, the one before) */
	int n = (int)mma_stages(mma, 2), ahead = mma_stage_ahead(mma);
	if (!tma_ring(e, mma))       /* else the producer waits on the stage's empty barrier (util_tma.c) */
		mma_stage_copy_begin(e, ld, true);
	LLVMValueRef next = LLVMBuildAdd(e->b, iv, LLVMBuildMul(e->b, step, LLVMConstInt(LLVMTypeOf(step), (unsigned long long)ahead, 0), ""), "");
	LLVMValueRef more = LLVMBuildICmp(e->b, uns ? LLVMIntULT : LLVMIntSLT, next, ub, "");
	copy_for_step(e, ld, ivv, next, stage_of_step(e, loop, ahead, n), more);
	/* the tile itself is this step's copy, made a step ago: no registers */
	TV *t = tv_new(e, ld->results[0]);
	for (int k = 0; k < t->n; k++)
		t->r[k] = LLVMGetPoison(elem_ty(e, tile_elem(ld->results[0]->type)));
	set(e, ld->results[0], t);
	/* one group per step (empty near the end), so wait_group n-1 is this step's */
	bool last = true, cp_async = false;
	for (Op *x = ld->next; x; x = x->next)
		if (x->info->code == AS_tiled_load && mma_load_prefetch(x))
			last = false;
	for (Op *x = loop->regions[0].first->first; x; x = x->next)
		cp_async |= x->info->code == AS_tiled_load && mma_load_prefetch(x) && !tma_op(e, x);
	if (last && cp_async)
		mma_cp_async_commit(e);
	return true;
}
