/* xchg.c: shared memory for layout conversions, cross-warp reductions and
 * scans, and extracts that are not register subsets (docs/lowering.md §8).
 *
 * Buffer. Each kernel that needs one gets a static shared array of two
 * equal regions (one when it has a single use, or two would pass 48 KiB),
 * each as large as the largest single use in the kernel.
 * A use writes its region, waits at bar.sync, reads. Uses alternate between
 * the regions, so a use needs no barrier before its writes when the use
 * before it (in emission order) is in the same block: that use's own
 * barrier came after every thread finished reading the region now being
 * written. The first use of the kernel at its top level needs none either,
 * nor the first use in a `for` or `loop` body that holds an even number of
 * uses (directly, with no continue in a branch) when the use before the
 * loop is in the loop's block: the regions then alternate across
 * iterations too. A `break` anywhere is fine: it leaves the loop, and the
 * use after the loop is in another block than the loop's last use, so it
 * waits at a barrier first.
 * Elsewhere (first use inside a branch, ...) a barrier comes first.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "layout_map.h"
#include "diag.h"

static LLVMTypeRef t_i32(E *e) { return LLVMInt32TypeInContext(e->ctx); }
static LLVMValueRef k32(E *e, int64_t v) { return LLVMConstInt(t_i32(e), (unsigned long long)v, 1); }

/* ------------------------------------------------------------ buffer */

static struct {
	LLVMValueRef fn;        /* the kernel the state below belongs to */
	LLVMValueRef buf;       /* [regions * region_bytes x i8] addrspace(3) */
	int64_t region_bytes;
	int regions;
	Op *last;               /* the last use emitted, and its region */
	int last_region;
} S;

static int need_walk(Op *op, void *ctx)
{
	int64_t *acc = ctx;            /* largest use, number of uses */
	int64_t b = xchg_need(op);
	if (b > acc[0])
		acc[0] = b;
	acc[1] += b > 0;
	return 0;
}

/* Does xchg_convert handle this conversion (power-of-two leaves)? */
static bool convert_ok(const Op *op)
{
	BitOwner own[BITMAP_MAX];
	Layout s, d;
	const Value *a = op->operands[0], *b = op->results[0];
	return ilog2_exact(type_num_elements(b->type)) >= 0 && a->layout && b->layout &&
	       layout_parse(a->layout->u.s, &s, NULL) && layout_parse(b->layout->u.s, &d, NULL) &&
	       layout_bit_owners(&s, BITMAP_MAX, own) && layout_bit_owners(&d, BITMAP_MAX, own);
}

/* A conversion where every thread already holds the elements its new
 * registers need, only at a register that may depend on its lane or warp
 * (e.g. every thread holds all 8 row results in registers and the new
 * layout gives lane l row l/4): for each offset bit, a register bit of the
 * new layout must be a register bit of the old, and a lane (warp) bit of
 * the new layout the same lane (warp) bit of the old or a register bit of
 * it (a dynamic register index). Then each new register is a select
 * tree over the old registers on those lane and warp bits (LOCAL_MAX_SEL
 * selects at most in all) instead of a shared-memory round.
 * own_s, own_d: the bit owners of both layouts (over nbits). */
#define LOCAL_MAX_DYN 3
#define LOCAL_MAX_SEL 64
static bool convert_local(const Op *op, int *nbits, BitOwner *own_s, BitOwner *own_d)
{
	Layout s, d;
	const Value *a = op->operands[0], *b = op->results[0];
	int nb = ilog2_exact(type_num_elements(b->type));
	if (nb < 0 || nb > BITMAP_MAX || !a->layout || !b->layout || !layout_parse(a->layout->u.s, &s, NULL) ||
	    !layout_parse(b->layout->u.s, &d, NULL) || !layout_bit_owners(&s, nb, own_s) ||
	    !layout_bit_owners(&d, nb, own_d))
		return false;
	int dyn = 0;
	for (int j = 0; j < nb; j++) {
		if (own_s[j].mode < 0 || own_d[j].mode < 0)
			return false;
		if (own_d[j].mode == 0 && own_s[j].mode != 0)
			return false;
		if (own_d[j].mode > 0 && own_s[j].mode != 0 &&
		    (own_s[j].mode != own_d[j].mode || own_s[j].bit != own_d[j].bit))
			return false;
		dyn += own_d[j].mode > 0 && own_s[j].mode == 0;
	}
	*nbits = nb;
	return dyn <= LOCAL_MAX_DYN && layout_nregs(&d) * ((1 << dyn) - 1) <= LOCAL_MAX_SEL;
}

/* A move (xchg_move's: dst register r reads source offset m(dst offset) +
 * cadd) that stays inside each warp: every source bit held by a warp bit
 * comes from the same warp bit of the destination, so each element a thread
 * needs lives in its own warp, and one shfl.sync.idx per destination
 * register fetches it (the source lane computed from the thread's own bits).
 * A source register bit that comes from a destination lane or warp bit
 * differs between the receivers of one shuffle: each of its values gets a
 * shuffle of its own and the receiver selects (WARP_MAX_DYN such bits). No
 * shared memory, no barrier. */
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

static bool warp_plan(const Layout *s, const Layout *d, const BitMap *m, int sbits, WarpPlan *p)
{
	if (sbits < 0 || sbits > BITMAP_MAX || m->nbits > BITMAP_MAX || !layout_bit_owners(s, sbits, p->os) ||
	    !layout_bit_owners(d, m->nbits, p->od))
		return false;
	p->sbits = sbits;
	p->nd = 0;
	memset(p->from, -1, sizeof p->from);
	for (int a = 0; a < m->nbits; a++)
		if (m->to[a] >= 0 && m->to[a] < sbits)
			p->from[(int)m->to[a]] = (signed char)a;
	bool lanes = false;
	for (int b = 0; b < sbits; b++) {
		int a = p->from[b];
		BitOwner o = p->os[b], t = a >= 0 ? p->od[a] : (BitOwner){ -1, -1 };
		if (o.mode < 0 || (a >= 0 && t.mode < 0))
			return false;
		if (o.mode == 2 && (t.mode != 2 || t.bit != o.bit))
			return false;
		lanes |= o.mode == 1;
		if (o.mode == 0 && t.mode > 0) {
			if (p->nd == WARP_MAX_DYN)
				return false;
			p->dsrc[p->nd++] = (signed char)b;
		}
	}
	return lanes && layout_nregs(d) << p->nd <= WARP_MAX_SHFL;
}

/* The move an op makes (convert_layout, or an extract marked via_shared
 * with constant indices) as layouts, map and constant offset; false for
 * other ops and dynamic extracts. */
static bool op_move(const Op *op, Layout *s, Layout *d, BitMap *m, int64_t *cadd, int *sbits)
{
	const Value *a = op->operands[0], *b = op->results[0];
	if (!a->layout || !b->layout || !layout_parse(a->layout->u.s, s, NULL) || !layout_parse(b->layout->u.s, d, NULL))
		return false;
	const Type *st = a->type, *rt = b->type;
	*sbits = ilog2_exact(type_num_elements(st));
	*cadd = 0;
	if (op->info->code == AS_convert_layout)
		return bitmap_identity(m, *sbits);
	if (op->info->code != CT_extract || st->rank > 8 || op->noperands != 1 + st->rank)
		return false;
	int64_t idx[8];
	for (int i = 0; i < st->rank; i++)
		if (!value_const_int(op->operands[1 + i], &idx[i]))
			return false;
	if (!bitmap_extract(m, st->rank, rt->shape, st->shape))
		return false;
	*cadd = extract_offset(st->rank, rt->shape, st->shape, idx);
	return true;
}

static bool op_in_warps(const Op *op)
{
	Layout s, d;
	BitMap m;
	int64_t cadd;
	int sbits;
	WarpPlan p;
	return op_move(op, &s, &d, &m, &cadd, &sbits) && warp_plan(&s, &d, &m, sbits, &p);
}

/* Bytes an op needs in shared memory; 0 for ops that do not use it. */
int64_t xchg_need(Op *op)
{
	BitOwner os[BITMAP_MAX], od[BITMAP_MAX];
	int nb;
	switch (op->info->code) {
	case AS_convert_layout: {       /* + room for padding (smem_pad: p >= 4) */
		if (!convert_ok(op) || convert_local(op, &nb, os, od) || op_in_warps(op))
			return 0;
		const Type *t = op->results[0]->type;
		int eb = elem_bytes(tile_elem(t));
		int64_t n = type_num_elements(t);
		return (n + n / 16 + 1) * (eb ? eb : 1);
	}
	case CT_extract: {
		const Attr *a = op_attr(op, "via_shared");
		if (!a || !a->u.i || op_in_warps(op))
			return 0;
		const Type *t = op->operands[0]->type;
		int eb = elem_bytes(tile_elem(t));
		int64_t n = type_num_elements(t);
		return (n + n / 16 + 1) * (eb ? eb : 1);
	}
	case CT_reduce:
		return reduce_smem_bytes(op);
	case CT_scan:
		return scan_smem_bytes(op);
	default:
		return 0;
	}
}

typedef struct LoopUses { Block *body; int n; bool ok; } LoopUses;

static int loop_walk(Op *o, void *ctx)
{
	LoopUses *u = ctx;
	if (xchg_need(o) > 0) {
		u->n++;
		u->ok &= o->parent == u->body;
	}
	if (o->info->code == CT_continue && o->parent != u->body)
		u->ok = false;
	return 0;
}

/* The `for` or `loop` whose body directly holds op when op is the body's
 * first use, every use in the loop is directly in its body, their number is
 * even, and no continue skips part of the body (a continue in a nested
 * loop counts too: conservative); else NULL. */
static Op *body_loop(Op *op)
{
	Block *b = op->parent;
	Op *loop = b && b->parent ? b->parent->parent : NULL;
	if (!loop || (loop->info->code != CT_for && loop->info->code != CT_loop) || b != loop->regions[0].first)
		return NULL;
	LoopUses u = { b, 0, true };
	op_walk(loop, loop_walk, &u);
	if (!u.ok || u.n < 2 || u.n % 2)
		return NULL;
	for (Op *o = b->first; o && o != op; o = o->next)
		if (xchg_need(o) > 0)
			return NULL;
	return loop;
}

/* Start a use: the region's base (i8 addrspace(3) pointer), after a
 * barrier unless none is needed. */
LLVMValueRef xchg_begin(E *e, Op *op)
{
	if (S.fn != e->fn) {
		memset(&S, 0, sizeof S);
		S.fn = e->fn;
		Op *top = op_toplevel(op);
		int64_t acc[2] = { 0, 0 };
		op_walk(top, need_walk, acc);
		int64_t max = (acc[0] + 15) & ~(int64_t)15;
		if (max < 16)
			max = 16;
		S.region_bytes = max;
		S.regions = acc[1] > 1 && 2 * max <= 48 * 1024 ? 2 : 1;
		if (max > 48 * 1024) {
			diag_error(op->loc, "'%s' op needs %lld bytes of shared memory; more than 48 KiB "
				   "(static shared memory) is not supported yet", op->info->name, (long long)max);
			e->errors++;
			S.regions = 1;
			S.region_bytes = 16;
		}
		size_t n;
		const char *fname = LLVMGetValueName2(e->fn, &n);
		char name[300];
		snprintf(name, sizeof name, "__tile_xchg_%.*s", (int)(n > 250 ? 250 : n), fname);
		LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), (uint64_t)(S.regions * S.region_bytes));
		S.buf = LLVMAddGlobalInAddressSpace(e->mod, at, name, 3);
		LLVMSetInitializer(S.buf, LLVMGetUndef(at));
		LLVMSetLinkage(S.buf, LLVMInternalLinkage);
		LLVMSetAlignment(S.buf, 16);
	}
	int region = 0;
	bool need_bar = true;
	Op *top = op_toplevel(op);
	Op *loop = NULL;
	if (!S.last && op->parent == top->regions[0].first) {
		need_bar = false;
	} else if (S.last && S.regions == 2 && S.last->parent == op->parent) {
		need_bar = false;
		region = 1 - S.last_region;
	} else if (S.regions == 2 && (loop = body_loop(op)) != NULL &&
		   ((!S.last && loop->parent == top->regions[0].first) ||
		    (S.last && S.last->parent == loop->parent))) {
		/* the first use in a loop body whose uses alternate evenly: the
		 * previous iteration's last use (or the use before the loop, in the
		 * other region) had its barrier after this region's last reads */
		need_bar = false;
		region = S.last ? 1 - S.last_region : 0;
	}
	if (need_bar)
		barrier(e);
	S.last = op;
	S.last_region = region;
	LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(e->ctx), (unsigned long long)(region * S.region_bytes), 0);
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), S.buf, &off, 1, "xchg");
}

/* Pointer to element type t at byte offset off (i32) from base. */
static LLVMValueRef xchg_ptr(E *e, LLVMValueRef base, LLVMValueRef off)
{
	LLVMValueRef o64 = LLVMBuildZExt(e->b, off, LLVMInt64TypeInContext(e->ctx), "");
	return LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), base, &o64, 1, "");
}

void xchg_store(E *e, LLVMValueRef base, LLVMValueRef byte_off, LLVMValueRef v, const Type *el,
		LLVMValueRef pred)
{
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	if (mt != et)
		v = LLVMBuildZExt(e->b, v, mt, "");
	LLVMValueRef p = xchg_ptr(e, base, byte_off);
	if (!pred) {
		LLVMValueRef st = LLVMBuildStore(e->b, v, p);
		int eb = elem_bytes(el);
		LLVMSetAlignment(st, (unsigned)(eb ? eb : 1));
		return;
	}
	LLVMBasicBlockRef stbb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "xst");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "xst.join");
	LLVMBuildCondBr(e->b, pred, stbb, join);
	LLVMPositionBuilderAtEnd(e->b, stbb);
	LLVMValueRef st = LLVMBuildStore(e->b, v, p);
	int eb = elem_bytes(el);
	LLVMSetAlignment(st, (unsigned)(eb ? eb : 1));
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
}

LLVMValueRef xchg_load(E *e, LLVMValueRef base, LLVMValueRef byte_off, const Type *el)
{
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	LLVMValueRef x = LLVMBuildLoad2(e->b, mt, xchg_ptr(e, base, byte_off), "");
	int eb = elem_bytes(el);
	LLVMSetAlignment(x, (unsigned)(eb ? eb : 1));
	return mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
}

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
		LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, x, k32(e, p), ""), k32(e, 1), "");
		acc = LLVMBuildXor(e->b, acc, LLVMBuildMul(e->b, bit, k32(e, (int64_t)sw[p] << blo), ""), "");
	}
	return acc;
}

/* x + (x >> p) for a runtime offset x (i32): one element of padding every 2^p. */
static LLVMValueRef pad_rt(E *e, LLVMValueRef x, int p)
{
	return LLVMBuildAdd(e->b, x, LLVMBuildLShr(e->b, x, k32(e, p), ""), "");
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
		return LLVMBuildAdd(e->b, thr, k32(e, k), "");
	return LLVMBuildXor(e->b, thr, k32(e, k), "");
}

/* warp_plan's move: per destination register, one shfl.sync.idx per value
 * of its receiver-dependent source register bits, then a select. */
static void warp_move(E *e, const WarpPlan *p, TV *s, TV *dst, int64_t cadd)
{
	/* the part of the source lane that the thread's own lane/warp bits give */
	LLVMValueRef lane_dyn = k32(e, 0);
	for (int b = 0; b < p->sbits; b++) {
		int a = p->from[b];
		if (p->os[b].mode != 1 || a < 0 || p->od[a].mode <= 0)
			continue;
		LLVMValueRef x = p->od[a].mode == 1 ? e->lane : e->warp;
		LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, x, k32(e, p->od[a].bit), ""), k32(e, 1), "");
		lane_dyn = LLVMBuildOr(e->b, lane_dyn, LLVMBuildShl(e->b, bit, k32(e, p->os[b].bit), ""), "");
	}
	LLVMValueRef cond[WARP_MAX_DYN];
	for (int i = 0; i < p->nd; i++) {
		BitOwner t = p->od[(int)p->from[(int)p->dsrc[i]]];
		LLVMValueRef x = t.mode == 1 ? e->lane : e->warp;
		cond[i] = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, x, k32(e, (int64_t)1 << t.bit), ""), k32(e, 0), "");
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
		LLVMValueRef srcl = lane ? LLVMBuildOr(e->b, lane_dyn, k32(e, lane), "") : lane_dyn;
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
	const char *force = getenv("TILE_PTX_FORCE_SWIZZLE");
	if (force && *force && *force != '0' && pad >= 0)
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
			off = LLVMBuildMul(e->b, off, k32(e, eb), "");
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
		off = LLVMBuildMul(e->b, off, k32(e, eb), "");
		dst->r[k] = xchg_load(e, base, off, el);
	}
}

/* convert_local's conversion: each new register a select tree over the
 * old registers it may come from, on the lane and warp bits that pick it. */
static void convert_in_thread(E *e, TV *s, TV *d, int nb, const BitOwner *os, const BitOwner *od)
{
	int dynbit[LOCAL_MAX_DYN];      /* source register bits picked by a lane/warp bit */
	LLVMValueRef cond[LOCAL_MAX_DYN];
	int ndyn = 0;
	for (int j = 0; j < nb; j++) {
		if (od[j].mode <= 0 || os[j].mode != 0)
			continue;
		LLVMValueRef x = od[j].mode == 1 ? e->lane : e->warp;
		LLVMValueRef bit = LLVMBuildAnd(e->b, x, k32(e, (int64_t)1 << od[j].bit), "");
		cond[ndyn] = LLVMBuildICmp(e->b, LLVMIntNE, bit, k32(e, 0), "");
		dynbit[ndyn++] = os[j].bit;
	}
	for (int r = 0; r < d->n; r++) {
		int64_t base = 0;       /* the source register bits fixed by r */
		for (int j = 0; j < nb; j++)
			if (od[j].mode == 0 && ((r >> od[j].bit) & 1))
				base |= (int64_t)1 << os[j].bit;
		LLVMValueRef v[1 << LOCAL_MAX_DYN];
		for (int c = 0; c < 1 << ndyn; c++) {
			int64_t k = base;
			for (int i = 0; i < ndyn; i++)
				if ((c >> i) & 1)
					k |= (int64_t)1 << dynbit[i];
			if (k >= s->n)
				ice("tile-ptx: in-thread conversion reads register %lld of %d", (long long)k, s->n);
			v[c] = s->r[k];
		}
		for (int i = ndyn - 1; i >= 0; i--)
			for (int c = 0; c < 1 << i; c++)
				v[c] = v[c] == v[c | 1 << i] ? v[c] : LLVMBuildSelect(e->b, cond[i], v[c | 1 << i], v[c], "");
		d->r[r] = v[0];
	}
}

/* convert_layout: in each thread where it can be (convert_local), else
 * through shared memory (swizzled); false when the layouts are not made of
 * power-of-two leaves (emit.c's plain conversion then). */
bool xchg_convert(E *e, Op *op)
{
	if (!convert_ok(op))
		return false;
	TV *s = get(e, op->operands[0]);
	const Type *t = op->results[0]->type;
	int64_t n = type_num_elements(t);
	TV *d = tv_new(e, op->results[0]);
	BitOwner os[BITMAP_MAX], od[BITMAP_MAX];
	int nb;
	if (convert_local(op, &nb, os, od)) {
		convert_in_thread(e, s, d, nb, os, od);
		set(e, op->results[0], d);
		return true;
	}
	BitMap id;
	bitmap_identity(&id, ilog2_exact(n));
	xchg_move(e, op, 1, &s, n, tile_elem(t), d, &id, 0, NULL);
	set(e, op->results[0], d);
	return true;
}
