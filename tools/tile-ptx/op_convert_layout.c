/* op_convert_layout.c: nv_tileas.convert_layout, the layout exchange tile-sched
 * inserts where two demands on a value's layout disagree (op family;
 * docs/lowering.md §8). Cheapest first:
 *   in each thread    every thread already holds the elements its new
 *                     registers need: a select tree per register on the
 *                     lane / warp bits that pick the old register
 *                     (util_plan.c's convert_local)
 *   in each warp /    util_xchg.c's xchg_move: shuffles, else the exchange
 *   shared memory     buffer, padded or swizzled against bank conflicts
 *   plain             layouts not made of power-of-two leaves: through the
 *                     scratch buffer at row-major offsets, a barrier before
 *                     and after */
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "diag.h"

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
		LLVMValueRef bit = LLVMBuildAnd(e->b, x, c_i32(e, (int64_t)1 << od[j].bit), "");
		cond[ndyn] = LLVMBuildICmp(e->b, LLVMIntNE, bit, c_i32(e, 0), "");
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

/* In each thread where it can be (convert_local), else through shared
 * memory (swizzled) or shuffles; false when the layouts are not made of
 * power-of-two leaves. */
static bool convert_pow2(E *e, Op *op)
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

/* Any other conversion: every thread writes its registers to the scratch
 * buffer at their offsets, then reads the registers of the new layout. */
static void convert_plain(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	const Type *el = op->results[0]->type->elem;
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	int64_t n = type_num_elements(op->results[0]->type);
	int eb = elem_bytes(el) ? elem_bytes(el) : 1;
	LLVMValueRef smem = smem_scratch(e, n * eb);
	barrier(e);      /* the buffer may still be read by an earlier conversion */
	/* one copy of each element: only its first-owner thread writes it */
	LLVMValueRef primary = owner_pred(e, &s->lay);
	for (int k = 0; k < s->n; k++) {
		if (!layout_reg_is_primary(&s->lay, k))
			continue;
		LLVMValueRef off = LLVMBuildZExt(e->b, elem_offset(e, &s->lay, k), ty_i64(e), "");
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, smem, &off, 1, "");
		LLVMValueRef v = mt != et ? LLVMBuildZExt(e->b, s->r[k], mt, "") : s->r[k];
		guarded_store(e, v, p, (unsigned)eb, primary, &order_weak);
	}
	barrier(e);
	for (int k = 0; k < t->n; k++) {
		LLVMValueRef off = LLVMBuildZExt(e->b, elem_offset(e, &t->lay, k), ty_i64(e), "");
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, smem, &off, 1, "");
		LLVMValueRef x = LLVMBuildLoad2(e->b, mt, p, "");
		LLVMSetAlignment(x, (unsigned)eb);
		t->r[k] = mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
	}
	set(e, op->results[0], t);
}

void emit_convert_layout(E *e, Op *op)
{
	if (!convert_pow2(e, op))
		convert_plain(e, op);
}
