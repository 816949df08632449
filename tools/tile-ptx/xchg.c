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
 * nor the first use in a `for` body that holds an even number of uses
 * (directly, with no continue in a branch) when the use before the loop is
 * in the loop's block: the regions then alternate across iterations too.
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

/* Bytes an op needs in shared memory; 0 for ops that do not use it. */
int64_t xchg_need(Op *op)
{
	switch (op->info->code) {
	case AS_convert_layout: {       /* + room for padding (smem_pad: p >= 4) */
		if (!convert_ok(op))
			return 0;
		const Type *t = op->results[0]->type;
		int eb = elem_bytes(tile_elem(t));
		int64_t n = type_num_elements(t);
		return (n + n / 16 + 1) * (eb ? eb : 1);
	}
	case CT_extract: {
		const Attr *a = op_attr(op, "via_shared");
		if (!a || !a->u.i)
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
	if ((o->info->code == CT_continue || o->info->code == CT_break) && o->parent != u->body)
		u->ok = false;
	return 0;
}

/* The `for` whose body directly holds op when op is the body's first use,
 * every use in the loop is directly in its body, their number is even, and
 * no continue skips part of the body; else NULL. */
static Op *body_loop(Op *op)
{
	Block *b = op->parent;
	Op *loop = b && b->parent ? b->parent->parent : NULL;
	if (!loop || loop->info->code != CT_for || b != loop->regions[0].first)
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
		/* the first use in a for body whose uses alternate evenly: the
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

/* convert_layout through shared memory (swizzled); false when the layouts
 * are not made of power-of-two leaves (emit.c's plain conversion then). */
bool xchg_convert(E *e, Op *op)
{
	if (!convert_ok(op))
		return false;
	TV *s = get(e, op->operands[0]);
	const Type *t = op->results[0]->type;
	int64_t n = type_num_elements(t);
	TV *d = tv_new(e, op->results[0]);
	BitMap id;
	bitmap_identity(&id, ilog2_exact(n));
	xchg_move(e, op, 1, &s, n, tile_elem(t), d, &id, 0, NULL);
	set(e, op->results[0], d);
	return true;
}
