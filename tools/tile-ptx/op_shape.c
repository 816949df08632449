/* op_shape.c: shape ops (op family; docs/lowering.md §8): broadcast,
 * reshape, assume, permute, cat, extract, insert, pack and unpack.
 *
 * tile-sched gave each op layouts under which it reads only its own
 * thread's registers (layout_local_gather / layout_gather_map find the
 * register), so most are register copies; except an extract marked
 * via_shared, which moves through shared memory or shuffles (util_xchg.c).
 * cat picks, per result register, the register of the operand its element
 * comes from: statically when the operand bit is a register bit, with a
 * select on the lane or warp bit otherwise. pack / unpack split registers
 * into narrower elements or join narrower ones, little-endian. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "diag.h"
#include "xalloc.h"

/* A shape op whose layouts would move elements between threads: the
 * input's error (tile-sched inserts a convert_layout before such an op; a
 * hand-edited or mutated scheduled IR may not), located at the op. The
 * emission goes on reading register 0 for every element (no output is
 * written: the module has an error). */
static void not_local(E *e, Op *op, int64_t *regs, int64_t n)
{
	diag_error(op->loc, "'%s' op: its operand's and result's layouts move elements between threads; the "
		   "scheduled IR needs a convert_layout before it", op->info->name);
	e->errors++;
	memset(regs, 0, sizeof *regs * (size_t)n);
}

/* T's registers (those of the fuse window) are S's registers REGS; frees
 * REGS and binds T to the op's result */
static void take_regs(E *e, Op *op, TV *t, const TV *s, int64_t *regs)
{
	int lo, hi;
	fuse_window(e, t->n, &lo, &hi);
	for (int k = lo; k < hi; k++)
		t->r[k] = s->r[regs[k]];
	free(regs);
	set(e, op->results[0], t);
}

/* broadcast / reshape: register copies (tile-sched made them local). */
void emit_copy(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_result(e, op->results[0]);
	const Type *d = op->results[0]->type, *st = op->operands[0]->type;
	TileMap tm = { op->info->code == CT_broadcast ? TM_BROADCAST : TM_IDENTITY, d->rank, st->rank,
		       {0}, {0}, {0} };
	for (int i = 0; i < d->rank; i++)
		tm.dst_shape[i] = d->shape[i];
	for (int i = 0; i < st->rank; i++)
		tm.src_shape[i] = st->shape[i];
	int64_t *regs = xmalloc(sizeof *regs * ((size_t)t->n + 1));
	if (!layout_local_gather(&s->lay, &t->lay, &tm, e->warps, regs))
		not_local(e, op, regs, t->n);
	take_regs(e, op, t, s, regs);
}

/* assume: the operand's registers (the predicate is a hint). */
void emit_assume(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	if (t->n != s->n)
		ice("tile-ptx: assume changes the layout");
	memcpy(t->r, s->r, sizeof *t->r * (size_t)t->n);
	set(e, op->results[0], t);
}

static int64_t *gather(E *e, Op *op, const Layout *src, const Layout *dst, const BitMap *m, int64_t add)
{
	int64_t n = layout_nregs(dst);
	int64_t *regs = xmalloc(sizeof *regs * (size_t)(n + 1));
	if (!layout_gather_map(src, dst, m, add, regs))
		not_local(e, op, regs, n);
	return regs;
}

void emit_permute(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	const Type *st = op->operands[0]->type;
	const Attr *p = op_attr(op, "permutation");
	BitMap m;
	if (!p || p->kind != AT_INTS || !bitmap_permute(&m, st->rank, st->shape, p->u.ints.v))
		ice("tile-ptx: bad permute");
	int64_t *regs = gather(e, op, &s->lay, &t->lay, &m, 0);
	take_regs(e, op, t, s, regs);
}

void emit_cat(E *e, Op *op)
{
	TV *a = get(e, op->operands[0]), *b = get(e, op->operands[1]);
	TV *t = tv_new(e, op->results[0]);
	const Type *st = op->operands[0]->type;
	int dim = (int)op_attr_int(op, "dim", 0);
	BitMap m;
	if (!bitmap_cat(&m, st->rank, st->shape, dim, false))
		ice("tile-ptx: bad cat");
	int top = -1;
	for (int i = 0; i < m.nbits; i++)
		if (m.to[i] < 0)
			top = i;
	int64_t *ra = gather(e, op, &a->lay, &t->lay, &m, 0), *rb = gather(e, op, &b->lay, &t->lay, &m, 0);
	/* is the operand bit held by the thread (lanes / warps)? */
	bool thread_bit = false;
	for (int mode = 1; mode < 3; mode++)
		for (int64_t c = 1; c < layout_mode_size(&t->lay, mode); c <<= 1)
			thread_bit |= layout_eval_mode(&t->lay, mode, c) == ((int64_t)1 << top);
	for (int k = 0; k < t->n; k++) {
		if (!thread_bit) {
			bool second = (layout_eval_mode(&t->lay, 0, k) >> top) & 1;
			t->r[k] = second ? b->r[rb[k]] : a->r[ra[k]];
			continue;
		}
		LLVMValueRef off = elem_offset(e, &t->lay, k);
		LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, off, c_i32(e, top), ""), c_i32(e, 1), "");
		LLVMValueRef c = LLVMBuildICmp(e->b, LLVMIntNE, bit, c_i32(e, 0), "");
		t->r[k] = LLVMBuildSelect(e->b, c, b->r[rb[k]], a->r[ra[k]], "");
	}
	free(ra);
	free(rb);
	set(e, op->results[0], t);
}

/* The element offset, in the whole tile, of the block that extract /
 * insert index operands op->operands[first..first+R) select: sum of
 * idx_i * block_i * row stride of the whole; an index past the tile wraps
 * within it (no access outside the buffer). */
static LLVMValueRef block_offset(E *e, Op *op, int first, int R, const int64_t *block, const int64_t *whole)
{
	int64_t stride = 1;
	LLVMValueRef off = c_i32(e, 0);
	for (int i = R - 1; i >= 0; i--) {
		LLVMValueRef x = get(e, op->operands[first + i])->r[0];
		unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(x));
		x = w > 32 ? LLVMBuildTrunc(e->b, x, ty_i32(e), "") : w < 32 ? LLVMBuildZExt(e->b, x, ty_i32(e), "") : x;
		x = LLVMBuildURem(e->b, x, c_i32(e, whole[i] / block[i]), "");
		off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, x, c_i32(e, block[i] * stride), ""), "");
		stride *= whole[i];
	}
	return off;
}

void emit_extract(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	const Type *st = op->operands[0]->type, *rt = op->results[0]->type;
	int R = st->rank;
	BitMap m;
	if (R > 8 || op->noperands != 1 + R || !bitmap_extract(&m, R, rt->shape, st->shape))
		ice("tile-ptx: bad extract");
	int64_t idx[8];
	bool konst = true;
	for (int i = 0; i < R; i++)
		konst &= value_const_int(op->operands[1 + i], &idx[i]);
	int64_t cadd = konst ? extract_offset(R, rt->shape, st->shape, idx) : 0;
	if (op_attr_flag(op, "via_shared")) {
		LLVMValueRef radd = konst ? NULL : block_offset(e, op, 1, R, rt->shape, st->shape);
		xchg_move(e, op, 1, &s, type_num_elements(st), tile_elem(st), t, &m, cadd, radd);
	} else {
		if (!konst)
			ice("tile-ptx: extract with dynamic indices not marked via_shared");
		int64_t *regs = gather(e, op, &s->lay, &t->lay, &m, cadd);
		for (int k = 0; k < t->n; k++)
			t->r[k] = s->r[regs[k]];
		free(regs);
	}
	set(e, op->results[0], t);
}

/* insert: each result register is the destination's, or, where its
 * element lies in the block at the indices, the value's register (a select
 * on the element offset when the block is not fixed per register). */
void emit_insert(E *e, Op *op)
{
	TV *v = get(e, op->operands[0]), *d = get(e, op->operands[1]);
	TV *t = tv_new(e, op->results[0]);
	const Type *vt = op->operands[0]->type, *rt = op->results[0]->type;
	int R = rt->rank;
	BitMap x, m;
	if (R > 8 || op->noperands != 2 + R || !bitmap_extract(&x, R, vt->shape, rt->shape))
		ice("tile-ptx: bad insert");
	if (!layout_equal(&d->lay, &t->lay))
		ice("tile-ptx: insert destination and result layouts differ");
	int nb = ilog2_exact(type_num_elements(rt));
	m.nbits = nb;
	memset(m.to, -1, sizeof m.to);
	int64_t selmask = ((int64_t)1 << nb) - 1;
	for (int i = 0; i < x.nbits; i++) {
		m.to[(int)x.to[i]] = (signed char)i;
		selmask &= ~((int64_t)1 << x.to[i]);
	}
	int64_t *regs = gather(e, op, &v->lay, &t->lay, &m, 0);
	int64_t idx[8];
	bool konst = true;
	for (int i = 0; i < R; i++)
		konst &= value_const_int(op->operands[2 + i], &idx[i]);
	int64_t csel = konst ? extract_offset(R, vt->shape, rt->shape, idx) : 0;
	LLVMValueRef rsel = konst ? NULL : block_offset(e, op, 2, R, vt->shape, rt->shape);
	bool thread_sel = false;
	for (int mode = 1; mode < 3; mode++)
		for (int64_t c = 1; c < layout_mode_size(&t->lay, mode); c <<= 1)
			thread_sel |= (layout_eval_mode(&t->lay, mode, c) & selmask) != 0;
	for (int k = 0; k < t->n; k++) {
		if (konst && !thread_sel) {
			bool in = (layout_eval_mode(&t->lay, 0, k) & selmask) == csel;
			t->r[k] = in ? v->r[regs[k]] : d->r[k];
			continue;
		}
		LLVMValueRef sel = LLVMBuildAnd(e->b, elem_offset(e, &t->lay, k), c_i32(e, selmask), "");
		LLVMValueRef in = LLVMBuildICmp(e->b, LLVMIntEQ, sel, rsel ? rsel : c_i32(e, csel), "");
		t->r[k] = LLVMBuildSelect(e->b, in, v->r[regs[k]], d->r[k], "");
	}
	free(regs);
	set(e, op->results[0], t);
}

/* ------------------------------------------------------------ pack / unpack */

static int bits_of(const Type *tile)
{
	const Type *el = tile_elem(tile);
	return el && el->kind == TY_SCALAR ? scalar_bits(el->scalar) : 64;
}

/* A register as an integer of `bits` bits. */
static LLVMValueRef to_int(E *e, LLVMValueRef v, int bits)
{
	LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)bits);
	LLVMTypeRef t = LLVMTypeOf(v);
	if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind) {
		unsigned w = LLVMGetIntTypeWidth(t);
		return w == (unsigned)bits ? v : w > (unsigned)bits ? LLVMBuildTrunc(e->b, v, it, "") : LLVMBuildZExt(e->b, v, it, "");
	}
	return LLVMBuildBitCast(e->b, v, it, "");
}

/* An integer of `bits` bits as a register of element type el. */
static LLVMValueRef from_int(E *e, LLVMValueRef x, const Type *el)
{
	LLVMTypeRef t = elem_ty(e, el);
	if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind) {
		unsigned w = LLVMGetIntTypeWidth(t), xw = LLVMGetIntTypeWidth(LLVMTypeOf(x));
		return w == xw ? x : w < xw ? LLVMBuildTrunc(e->b, x, t, "") : LLVMBuildZExt(e->b, x, t, "");
	}
	return LLVMBuildBitCast(e->b, x, t, "");
}

void emit_pack(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	const Type *st = op->operands[0]->type, *rt = op->results[0]->type;
	int A = bits_of(st), B = bits_of(rt);
	bool wide = A > B;
	int k = ilog2_exact(wide ? A / B : B / A);
	if (k <= 0) {
		unsupported(e, op, "this element width pair");
		return;
	}
	int nb = ilog2_exact(type_num_elements(rt));
	BitMap m;
	m.nbits = nb;
	memset(m.to, -1, sizeof m.to);
	for (int i = 0; i < nb; i++)
		m.to[i] = wide ? (i >= k ? (signed char)(i - k) : -1) : (signed char)(i + k);
	int64_t part_mask = ((int64_t)1 << k) - 1;
	if (wide) {
		/* each result element is part (offset & mask) of source element offset >> k */
		int64_t *regs = gather(e, op, &s->lay, &t->lay, &m, 0);
		bool thread_part = false;
		for (int mode = 1; mode < 3; mode++)
			for (int64_t c = 1; c < layout_mode_size(&t->lay, mode); c <<= 1)
				thread_part |= (layout_eval_mode(&t->lay, mode, c) & part_mask) != 0;
		LLVMTypeRef at = LLVMIntTypeInContext(e->ctx, (unsigned)A);
		for (int r = 0; r < t->n; r++) {
			LLVMValueRef x = to_int(e, s->r[regs[r]], A), sh;
			if (!thread_part) {
				int64_t part = layout_eval_mode(&t->lay, 0, r) & part_mask;
				sh = LLVMConstInt(at, (unsigned long long)(part * B), 0);
			} else {
				LLVMValueRef part = LLVMBuildAnd(e->b, elem_offset(e, &t->lay, r), c_i32(e, part_mask), "");
				part = LLVMBuildMul(e->b, part, c_i32(e, B), "");
				sh = A > 32 ? LLVMBuildZExt(e->b, part, at, "") : A < 32 ? LLVMBuildTrunc(e->b, part, at, "") : part;
			}
			LLVMValueRef y = LLVMBuildTrunc(e->b, LLVMBuildLShr(e->b, x, sh, ""),
						       LLVMIntTypeInContext(e->ctx, (unsigned)B), "");
			t->r[r] = from_int(e, y, tile_elem(rt));
		}
		free(regs);
	} else {
		/* each result element joins source elements (offset << k) + j, j < 2^k */
		LLVMTypeRef bt = LLVMIntTypeInContext(e->ctx, (unsigned)B);
		LLVMValueRef *acc = xcalloc((size_t)t->n + 1, sizeof *acc);
		for (int64_t j = 0; j <= part_mask; j++) {
			int64_t *regs = gather(e, op, &s->lay, &t->lay, &m, j);
			for (int r = 0; r < t->n; r++) {
				LLVMValueRef x = LLVMBuildZExt(e->b, to_int(e, s->r[regs[r]], A), bt, "");
				if (j)
					x = LLVMBuildShl(e->b, x, LLVMConstInt(bt, (unsigned long long)(j * A), 0), "");
				acc[r] = acc[r] ? LLVMBuildOr(e->b, acc[r], x, "") : x;
			}
			free(regs);
		}
		for (int r = 0; r < t->n; r++)
			t->r[r] = from_int(e, acc[r], tile_elem(rt));
		free(acc);
	}
	set(e, op->results[0], t);
}
