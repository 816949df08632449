/* util_xchg.c: moving tiles between layouts (utility layer, emit.h;
 * docs/lowering.md §8): xchg_move, used by convert_layout and by extracts
 * that are not register subsets.
 *
 * A move that stays inside each warp (util_plan.c's warp_plan) is one
 * shfl.sync.idx per destination register. Otherwise every first owner
 * writes its registers to the exchange buffer (util_smem.c), bar.sync, and
 * every thread reads the registers of the new layout.
 *
 * Bank conflicts. A conversion writes each element at its row-major offset
 * and reads it back at the offset the new layout gives, both through the
 * same address map, chosen so that in every warp-wide access of both
 * phases the 32 lanes hit distinct banks or the same word. First choice, a
 * padding: physical = offset + (offset >> p), one element every 2^p
 * (smem_pad); register constants then fold into the instruction's
 * immediate offset. Otherwise an XOR swizzle: physical = offset ^
 * S(offset), S sending each offset bit above the banks to bank bits
 * (smem_swizzle); a bijection, no extra space, but an XOR per access. */
#include <stdlib.h>
#include "emit.h"
#include "irutil.h"
#include "knobs.h"
#include "diag.h"

/* ------------------------------------------------------------ swizzle */

static int64_t sw_apply(const unsigned *sw, int abits, int blo, int64_t x)
{
	int64_t r = 0;
	for (int p = 0; p < abits; p++)
		if (((x >> p) & 1) && sw[p])
			r ^= (int64_t)sw[p] << blo;
	return r;
}

/* ------------------------------------------------------------ exchange */

/* The thread part of a layout's offsets pushed through m: lane and warp
 * strides only (register mode empty), so lw_of gives m(L(lane) + W(warp)). */
static Layout thread_part(const Layout *l, const BitMap *m)
{
	Layout p, r;
	if (!layout_push(l, m, &p))
		ice("tile-ptx: a layout with leaves that are not powers of two");
	layout_init(&r);
	int64_t one = 1, zero = 0;
	layout_add_mode(&r, 1, &one, &zero);
	for (int mode = 1; mode < 3; mode++)
		layout_add_mode(&r, p.begin[mode + 1] - p.begin[mode], p.shape + p.begin[mode], p.stride + p.begin[mode]);
	layout_canonicalize(&r);
	return r;
}

/* The lane bits of a layout (thread part) as offset bits. */
static void lane_bits(const Layout *l, int *pos)
{
	for (int b = 0; b < 5; b++) {
		int64_t x = layout_eval_mode(l, 1, (int64_t)1 << b);
		pos[b] = x ? ilog2_exact(x) : -1;
	}
}

/* x ^ S(x) for a runtime offset x (i32). */
static LLVMValueRef swz_rt(E *e, LLVMValueRef x, const unsigned *sw, int abits, int blo)
{
	LLVMValueRef acc = x;
	for (int p = 0; p < abits; p++) {
		if (!sw[p])
			continue;
		LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, x, c_i32(e, p), ""), c_i32(e, 1), "");
		acc = LLVMBuildXor(e->b, acc, LLVMBuildMul(e->b, bit, c_i32(e, (int64_t)sw[p] << blo), ""), "");
	}
	return acc;
}

/* x + (x >> p) for a runtime offset x (i32): one element of padding every 2^p. */
static LLVMValueRef pad_rt(E *e, LLVMValueRef x, int p)
{
	return LLVMBuildAdd(e->b, x, LLVMBuildLShr(e->b, x, c_i32(e, p), ""), "");
}

/* Which bits a thread part (after swizzling) can have. */
static int64_t thread_mask(const Layout *t, const unsigned *sw, int abits, int blo)
{
	int64_t m = 0;
	for (int mode = 1; mode < 3; mode++)
		for (int64_t c = 1; c < layout_mode_size(t, mode); c <<= 1) {
			int64_t x = layout_eval_mode(t, mode, c);
			m |= x | sw_apply(sw, abits, blo, x);
		}
	return m;
}

static LLVMValueRef join_off(E *e, LLVMValueRef thr, int64_t thr_mask, int64_t k)
{
	if ((k & thr_mask) == 0)
		return LLVMBuildAdd(e->b, thr, c_i32(e, k), "");
	return LLVMBuildXor(e->b, thr, c_i32(e, k), "");
}

/* warp_plan's move: per destination register, one shfl.sync.idx per value
 * of its receiver-dependent source register bits, then a select. */
static void warp_move(E *e, const WarpPlan *p, TV *s, TV *dst, int64_t cadd)
{
	/* the part of the source lane that the thread's own lane/warp bits give */
	LLVMValueRef lane_dyn = c_i32(e, 0);
	for (int b = 0; b < p->sbits; b++) {
		int a = p->from[b];
		if (p->os[b].mode != 1 || a < 0 || p->od[a].mode <= 0)
			continue;
		LLVMValueRef x = p->od[a].mode == 1 ? e->lane : e->warp;
		LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, x, c_i32(e, p->od[a].bit), ""), c_i32(e, 1), "");
		lane_dyn = LLVMBuildOr(e->b, lane_dyn, LLVMBuildShl(e->b, bit, c_i32(e, p->os[b].bit), ""), "");
	}
	LLVMValueRef cond[WARP_MAX_DYN];
	for (int i = 0; i < p->nd; i++) {
		BitOwner t = p->od[(int)p->from[(int)p->dsrc[i]]];
		LLVMValueRef x = t.mode == 1 ? e->lane : e->warp;
		cond[i] = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, x, c_i32(e, (int64_t)1 << t.bit), ""), c_i32(e, 0), "");
	}
	for (int r = 0; r < dst->n; r++) {
		/* the bits fixed by r and cadd: source register and lane parts */
		int64_t reg = 0, lane = 0;
		for (int b = 0; b < p->sbits; b++) {
			int a = p->from[b], v;
			if (a < 0)
				v = (int)((cadd >> b) & 1);
			else if (p->od[a].mode == 0)
				v = (int)((r >> p->od[a].bit) & 1);
			else
				continue;
			if (v && p->os[b].mode == 0)
				reg |= (int64_t)1 << p->os[b].bit;
			else if (v && p->os[b].mode == 1)
				lane |= (int64_t)1 << p->os[b].bit;
		}
		LLVMValueRef srcl = lane ? LLVMBuildOr(e->b, lane_dyn, c_i32(e, lane), "") : lane_dyn;
		LLVMValueRef v[1 << WARP_MAX_DYN];
		for (int c = 0; c < 1 << p->nd; c++) {
			int64_t k = reg;
			for (int i = 0; i < p->nd; i++)
				if ((c >> i) & 1)
					k |= (int64_t)1 << p->os[(int)p->dsrc[i]].bit;
			if (k >= s->n)
				ice("tile-ptx: warp gather reads register %lld of %d", (long long)k, s->n);
			v[c] = warp_shfl(e, "idx", s->r[k], srcl);
		}
		for (int i = p->nd - 1; i >= 0; i--)
			for (int c = 0; c < 1 << i; c++)
				v[c] = LLVMBuildSelect(e->b, cond[i], v[c | 1 << i], v[c], "");
		dst->r[r] = v[0];
	}
}

/* Move nsrc tiles (each of src_elems elements, in their own layouts) into
 * dst's layout through shared memory: source j's element at offset o is
 * written at element address j*src_elems + o; dst register r reads address
 * m(dst offset) + cadd (+ radd when not NULL: a runtime i32 element offset,
 * with no bit in common with m's image). Only first owners write. */
void xchg_move(E *e, Op *op, int nsrc, TV **srcs, int64_t src_elems, const Type *el, TV *dst,
		   const BitMap *m, int64_t cadd, LLVMValueRef radd)
{
	int eb = elem_bytes(el) ? elem_bytes(el) : 1;
	int abits = ilog2_exact(src_elems * nsrc);
	if (abits < 0)
		ice("tile-ptx: exchange of a tile whose size is not a power of two");
	WarpPlan wp;
	if (nsrc == 1 && !radd && warp_plan(&srcs[0]->lay, &dst->lay, m, abits, &wp)) {
		warp_move(e, &wp, srcs[0], dst, cadd);    /* xchg_need said 0 bytes: op_in_warps */
		return;
	}
	Layout rth = thread_part(&dst->lay, m);
	/* padding, else a swizzle, from the lane patterns of both phases */
	unsigned sw[64] = {0};
	int blo, nbank, lanes;
	smem_banks(eb, &blo, &nbank, &lanes);
	int phases[9][5], np = 0;
	for (int j = 0; j < nsrc && np < 8; j++)
		lane_bits(&srcs[j]->lay, phases[np++]);
	lane_bits(&rth, phases[np++]);
	int pad = smem_pad(eb, np, phases, abits);
	/* testing knob (tests/reduce.bats): the XOR swizzle even where a padding fits */
	if (knobs()->TILE_PTX_FORCE_SWIZZLE && pad >= 0)
		pad = -2;
	if (pad == -2 && !radd)
		smem_swizzle(eb, np, phases, sw, abits);
	LLVMValueRef base = xchg_begin(e, op);
	/* writes */
	for (int j = 0; j < nsrc; j++) {
		TV *s = srcs[j];
		LWCache *pc = lw_of(e, &s->lay);
		LLVMValueRef prim = pc->primary;
		if (LLVMIsAConstantInt(prim) && LLVMConstIntGetZExtValue(prim) == 1)
			prim = NULL;
		LLVMValueRef thr = pad >= 0 ? pad_rt(e, pc->off, pad) : swz_rt(e, pc->off, sw, abits, blo);
		int64_t tm = pad >= 0 ? 0 : thread_mask(&s->lay, sw, abits, blo);
		for (int k = 0; k < s->n; k++) {
			if (!layout_reg_is_primary(&s->lay, k))
				continue;
			int64_t a = j * src_elems + layout_eval_mode(&s->lay, 0, k);
			int64_t kk = pad >= 0 ? a + (a >> pad) : a ^ sw_apply(sw, abits, blo, a);
			LLVMValueRef off = join_off(e, thr, tm, kk);
			off = LLVMBuildMul(e->b, off, c_i32(e, eb), "");
			xchg_store(e, base, off, s->r[k], el, prim);
		}
	}
	barrier(e);
	/* reads */
	LWCache *rc = lw_of(e, &rth);
	LLVMValueRef toff = rc->off;
	if (radd)
		toff = LLVMBuildAdd(e->b, toff, radd, "");
	LLVMValueRef thr = pad >= 0 ? pad_rt(e, toff, pad) : swz_rt(e, toff, sw, abits, blo);
	int64_t tm = pad >= 0 ? 0 : thread_mask(&rth, sw, abits, blo);
	for (int k = 0; k < dst->n; k++) {
		int64_t a = bitmap_apply(m, layout_eval_mode(&dst->lay, 0, k)) + cadd;
		int64_t kk = pad >= 0 ? a + (a >> pad) : a ^ sw_apply(sw, abits, blo, a);
		LLVMValueRef off = join_off(e, thr, tm, kk);
		off = LLVMBuildMul(e->b, off, c_i32(e, eb), "");
		dst->r[k] = xchg_load(e, base, off, el);
	}
}
