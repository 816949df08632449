/* op_memory.c: memory ops (op family; docs/lowering.md §5, §9):
 * make_memref, tiled_load / tiled_store (a tile of a memref at tile
 * indices), load / store through a tile of pointers (gather / scatter),
 * create_mem_token and join_mem_token.
 *
 * A tiled access moves runs of consecutive registers with one vector
 * access (at most vector_bytes, where the layout gives each thread aligned
 * runs), predicated on the bounds of every dim not marked in_bounds, with
 * the padding value where out of bounds. Only an element's first owner
 * stores it. An ordered access (relaxed / acquire / release) is atomic,
 * one element at a time; an ordered load of a replicated tile is done by
 * each element's first owner and broadcast (every copy must agree). Every
 * access first waits for the accesses its token orders after
 * (util_sync.c). f4E2M1FN moves whole bytes: each chunk is an even run of
 * elements at an even offset (tile-sched gives f4 tiles such layouts,
 * tile-lower checked the view packs rows on byte boundaries). A tiled
 * access marked `multimem` (13.5's multimem ops, tile-lower) is one
 * multimem.* instruction per element (util_multimem.c). A load marked
 * copied into its product's staging (the product's plan: cp_async or tma)
 * feeds a staged MMA product: its chunks go by
 * cp.async straight into the product's shared staging (util_ldsm.c), which
 * waits for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "tma.h"
#include "knobs.h"
#include "diag.h"
#include "xalloc.h"

void emit_join_tokens(E *e, Op *op)
{
	Tok *r = &e->tok[op->results[0]->id];
	*r = (Tok){ false, 0, {0} };
	for (int i = 0; i < op->noperands; i++) {
		const Value *v = op->operands[i];
		if (v->id < 0 || v->id >= e->nvals) {
			r->dirty = true;
			r->nprod = -1;
			continue;
		}
		const Tok *t = &e->tok[v->id];
		if (!t->dirty)
			continue;
		r->dirty = true;
		if (r->nprod < 0 || t->nprod < 0) {
			r->nprod = -1;
			continue;
		}
		for (int k = 0; k < t->nprod && r->nprod >= 0; k++) {
			bool have = false;
			for (int j = 0; j < r->nprod; j++)
				have |= r->prod[j] == t->prod[k];
			if (have)
				continue;
			if (r->nprod == 4)
				r->nprod = -1;
			else
				r->prod[r->nprod++] = t->prod[k];
		}
	}
}

void emit_memref(E *e, Op *op)
{
	const Type *tv = op->results[0]->type;
	MR *mr = xcalloc(1, sizeof *mr);
	mr->base = scalar(e, op->operands[0]);
	mr->rank = tv->rank;
	int s1, s2;
	op_group(op, 1, &s1);
	op_group(op, 2, &s2);
	for (int d = 0; d < tv->rank; d++) {
		mr->shape[d] = tv->shape[d] == DYN_DIM ? extent_i64(e, op->operands[s1++]) : c_i64(e, tv->shape[d]);
		mr->stride[d] = tv->strides[d] == DYN_DIM ? extent_i64(e, op->operands[s2++]) : c_i64(e, tv->strides[d]);
	}
	e->mr[op->results[0]->id] = mr;
}

/* The padding attribute (docs/ir.md §6.1) as a PaddingValue: PAD_NONE when
 * absent (zero is used); a spelling not in the list reads as pos_inf, as it
 * always has (the stage checker does not check the attribute). */
static PaddingValue padding_of(const Op *op)
{
	const char *s = op_attr_str(op, "padding", NULL);
	if (!s)
		return PAD_NONE;
	for (PaddingValue p = PAD_ZERO; p <= PAD_NEG_INF; p++)
		if (strcmp(s, padding_name(p)) == 0)
			return p;
	return PAD_POS_INF;
}

static LLVMValueRef pad_value(E *e, const Type *el, PaddingValue pad)
{
	LLVMTypeRef t = elem_ty(e, el);
	if (!is_llvm_float(el))
		return LLVMConstNull(t);
	switch (pad) {
	case PAD_NEG_ZERO: return LLVMConstReal(t, -0.0);
	case PAD_NAN: return LLVMConstReal(t, __builtin_nan(""));
	case PAD_POS_INF: return LLVMConstReal(t, __builtin_inf());
	case PAD_NEG_INF: return LLVMConstReal(t, -__builtin_inf());
	case PAD_NONE: case PAD_ZERO: break;
	}
	return LLVMConstNull(t);
}

static Order order_of(E *e, const Op *op, bool store)
{
	Order o = { LLVMAtomicOrderingNotAtomic, false, 0 };
	int sem = op_enum_attr(op, "memory_ordering_semantics", EK_ORDERING, ORDERING_weak);
	if (sem == ORDERING_weak)
		return o;
	if (sem == ORDERING_relaxed)
		o.ord = LLVMAtomicOrderingMonotonic;
	else if (sem == (store ? ORDERING_release : ORDERING_acquire))
		o.ord = store ? LLVMAtomicOrderingRelease : LLVMAtomicOrderingAcquire;
	else {
		char what[96];
		snprintf(what, sizeof what, "memory ordering '%s'", op_attr_str(op, "memory_ordering_semantics", "weak"));
		unsupported(e, (Op *)op, what);
		return o;
	}
	int scope = op_enum_attr(op, "memory_scope", EK_SCOPE, SCOPE_sys);
	const char *llvm_scope = scope == SCOPE_tl_blk ? "block" : scope == SCOPE_device ? "device" : NULL;
	if (llvm_scope) {
		o.scoped = true;
		o.scope = LLVMGetSyncScopeID(e->ctx, llvm_scope, strlen(llvm_scope));
	}
	return o;
}

/* f4E2M1FN chunks: byte k holds elements 2k (low nibble) and 2k+1 */
static LLVMValueRef f4_pack(E *e, LLVMValueRef *r, int nbytes)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
	LLVMValueRef v = nbytes > 1 ? LLVMGetUndef(LLVMVectorType(i8, (unsigned)nbytes)) : NULL;
	for (int k = 0; k < nbytes; k++) {
		LLVMValueRef lo = LLVMBuildAnd(e->b, r[2 * k], LLVMConstInt(i8, 0xf, 0), "");
		LLVMValueRef hi = LLVMBuildShl(e->b, r[2 * k + 1], LLVMConstInt(i8, 4, 0), "");
		LLVMValueRef byte = LLVMBuildOr(e->b, lo, hi, "");
		if (nbytes == 1)
			return byte;
		v = LLVMBuildInsertElement(e->b, v, byte, c_i32(e, k), "");
	}
	return v;
}

/* The bits a thread's part of an element offset (lane and warp modes of the
 * layout, lw_of) can set, or -1 where a leaf's shape or stride is not a power
 * of two or two leaves share bits. A register's constant part with none of
 * these bits adds to the thread part without carries, so each dim's
 * coordinate splits into a thread
 * part computed once per access and a constant: every element's address is
 * then one base plus a constant times the stride (as NVIDIA's), not one
 * 64-bit multiply per element whose index stays live across the row.
 * Issue 17: swiglu_fwd 182 -> 110 registers on sm_90. */
static int64_t thread_bits(const Layout *l)
{
	int64_t mask = 0;
	for (int m = 1; m <= 2 && m < l->nmodes; m++)
		for (int i = l->begin[m]; i < l->begin[m + 1]; i++) {
			int64_t s = l->shape[i], d = l->stride[i];
			if (s <= 1 || d == 0)
				continue;
			if ((s & (s - 1)) || d < 0 || (d & (d - 1)))
				return -1;
			if (mask & (s - 1) * d)   /* two leaves share bits: sums carry */
				return -1;
			mask |= (s - 1) * d;
		}
	return mask;
}

static void f4_unpack(E *e, LLVMValueRef x, int nbytes, LLVMValueRef *r)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
	for (int k = 0; k < nbytes; k++) {
		LLVMValueRef byte = nbytes > 1 ? LLVMBuildExtractElement(e->b, x, c_i32(e, k), "") : x;
		r[2 * k] = LLVMBuildAnd(e->b, byte, LLVMConstInt(i8, 0xf, 0), "");
		r[2 * k + 1] = LLVMBuildLShr(e->b, byte, LLVMConstInt(i8, 4, 0), "");
	}
}

/* A TMA load (util_tma.c): nothing of its own unless it is its product's
 * last TMA load, which issues the copies of them all (one elected lane,
 * one expect_tx), each from its own tile origin and into its own staging. */
static void tma_issue(E *e, Op *ld, LLVMValueRef sbase, const StageGeom *sg, const LLVMValueRef *org)
{
	int which;
	Op *mma = mma_user_of(ld, &which);
	Op *lds[2];
	int n = mma ? tma_product_loads(e, mma, lds) : 0;
	if (n == 0 || lds[n - 1] != ld)
		return;
	LLVMValueRef bases[2], orgs[2][TMAP_MAX_RANK];
	StageGeom geoms[2];
	for (int l = 0; l < n; l++) {
		const Type *lt = lds[l]->results[0]->type;
		if (lds[l] == ld) {
			bases[l] = sbase;
			geoms[l] = *sg;
			for (int i = 0; i < lt->rank; i++)
				orgs[l][i] = org[i];
			continue;
		}
		if (!mma_stage_of_load(e, lds[l], &bases[l], &geoms[l]))
			ice("tile-ptx: a TMA load without its staging");
		int is;
		op_group(lds[l], 1, &is);
		for (int i = 0; i < lt->rank; i++)
			orgs[l][i] = LLVMBuildMul(e->b, as_i64(e, scalar(e, lds[l]->operands[is + i])),
						  c_i64(e, op_attr_int_at(lds[l], "step", i, lt->shape[i])), "");
	}
	tma_copy(e, mma, n, lds, bases, geoms, (const LLVMValueRef (*)[TMAP_MAX_RANK])orgs, mma_stage_sel(e, mma));
}

/* A tiled_store marked tma (libcommon tma_store_ok): the tile staged in
 * TMA's boxes in the kernel's MMA staging buffer, stored by one thread
 * (cp.async.bulk.tensor global <- shared), waited for; origin org. */
static void tma_store(E *e, Op *st, TV *t, const LLVMValueRef *org)
{
	const Type *tt = st->operands[1]->type, *el = tt->elem;
	int eb = elem_bytes(el);
	int64_t rows = tt->shape[0], cols = tt->shape[1];
	int w = mma_wgmma_row_bytes(cols, eb);
	/* the kernel's MMA staging buffer (util_ldsm.c sizes it for its TMA stores
	 * too): free once the products before the store are done, so C costs no
	 * shared memory of its own */
	LLVMValueRef buf = mma_stage_buf(e, st);
	barrier(e);     /* the products' last reads and the last store's copy (its thread waited) done */
	mma_stage_store(e, t, el, buf, rows, cols, false, w);
	/* the threads' writes, seen by the async proxy before the copy reads them */
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0);
	barrier(e);
	LLVMBasicBlockRef after = guard_begin(e, LLVMBuildAnd(e->b,
		LLVMBuildICmp(e->b, LLVMIntEQ, e->warp, c_i32(e, 0), ""),
		LLVMBuildICmp(e->b, LLVMIntEQ, e->lane, c_i32(e, 0), ""), ""));
	LLVMValueRef map = tma_map_param(e, st);
	LLVMValueRef c0 = LLVMBuildTrunc(e->b, org[1], ty_i32(e), ""), c1 = LLVMBuildTrunc(e->b, org[0], ty_i32(e), "");
	int64_t box = tma_store_box_rows(rows);
	for (int64_t j = 0; j < cols * eb / w; j++)
		for (int64_t i = 0; i < rows / box; i++) {
			LLVMValueRef off = c_i64(e, j * rows * w + i * box * w);
			LLVMValueRef src = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), buf, &off, 1, "");
			LLVMValueRef a[4] = { map, LLVMBuildAdd(e->b, c0, c_i32(e, j * w / eb), ""),
					      LLVMBuildAdd(e->b, c1, c_i32(e, i * box), ""),
					      LLVMBuildPtrToInt(e->b, src, ty_i32(e), "") };
			asm_call(e, LLVMVoidTypeInContext(e->ctx),
				 "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$0, {$1, $2}], [$3];",
				 "l,r,r,r,~{memory}", a, 4);
		}
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "cp.async.bulk.commit_group;", "~{memory}", NULL, 0);
	/* done writing global memory before anything after the store (and the kernel's end) */
	asm_call(e, LLVMVoidTypeInContext(e->ctx), "cp.async.bulk.wait_group 0;", "~{memory}", NULL, 0);
	guard_end(e, after);
}

/* tiled_load / tiled_store */
void emit_tiled(E *e, Op *op)
{
	bool store = op->info->code == AS_tiled_store;
	if (!store && mma_prefetch(e, op))    /* a pipelined K loop's copy of the next step */
		return;
	MR *mr = e->mr[op->operands[0]->id];
	if (!mr)
		ice("tile-ptx: memref without a definition");
	const Value *val = store ? op->operands[1] : op->results[0];
	const Type *tt = val->type, *el = tt->elem;
	int R = tt->rank;
	int is;
	op_group(op, store ? 2 : 1, &is);
	order_after(e, op_group_value(op, store ? 3 : 2), op);
	Order ord = order_of(e, op, store);
	TV *t = store ? get(e, val) : tv_result(e, val);
	int eb = elem_bytes(el);
	bool f4 = el->kind == TY_SCALAR && el->scalar == SC_F4E2M1FN;
	const Attr *vba = op_attr(op, "vector_bytes");
	int cap = eb && vba && vba->kind == AT_INT ? (int)(vba->u.i / eb) : 1;
	if (f4)
		cap = vba && vba->kind == AT_INT ? (int)(2 * vba->u.i) : 2;
	if (cap < 1)
		cap = 1;
	bool dup_regs = false;
	for (int i = t->lay.begin[0]; i < t->lay.begin[1]; i++)
		dup_regs |= t->lay.stride[i] == 0 && t->lay.shape[i] > 1;
	const char *multimem = op_attr_str(op, "multimem", NULL);
	/* chunks run along the tile dim the view's innermost dim maps to (down
	 * a column for a transposed view: tile-sched's column_blocked) */
	int vd = tiled_vector_dim(op, R);
	int vec = dup_regs || multimem || ord.ord != LLVMAtomicOrderingNotAtomic ? 1
		  : layout_tile_run_width(&t->lay, cap, R, tt->shape, vd);
	if (f4 && vec < 2) {
		unsupported(e, op, ord.ord != LLVMAtomicOrderingNotAtomic ? "an ordered f4E2M1FN access"
			    : "an f4E2M1FN access whose layout splits a byte between threads");
		if (!store) {
			for (int k = 0; k < t->n; k++)
				t->r[k] = LLVMGetPoison(elem_ty(e, el));
			set(e, val, t);
		}
		return;
	}
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	int units = f4 ? vec / 2 : vec;     /* memory elements per chunk */
	LLVMTypeRef vt = units > 1 ? LLVMVectorType(mt, (unsigned)units) : mt;
	unsigned align = (unsigned)(f4 ? units : eb ? eb * vec : 1);
	/* tile origin along each tensor dim */
	LLVMValueRef org[8];
	int shift[8];
	for (int i = 0, sh = 0; i < R; i++) {
		int s = 0;
		for (int j = i + 1; j < R; j++) {
			int64_t x = tt->shape[j];
			while (x > 1) { s++; x >>= 1; }
		}
		shift[i] = s;
		(void)sh;
		/* a strided view's tiles start every step elements, a partition's every tile */
		org[i] = LLVMBuildMul(e->b, tile_index_i64(e, op->operands[is + i]),
				      c_i64(e, op_attr_int_at(op, "step", i, tt->shape[i])), "");
	}
	if (store && tma_op(e, op)) {     /* by TMA (tma_store above) */
		tma_store(e, op, t, org);
		mark_token(e, op->results[0], true, op);
		return;
	}
	PaddingValue pad = padding_of(op);
	LLVMValueRef primary = store ? owner_pred(e, &t->lay) : NULL;
	/* copied (its product's plan): straight into the product's staging buffer by
	 * cp.async, 16 bytes a chunk, zeros where out of bounds; no registers */
	LLVMValueRef sbase = NULL, sown = NULL;
	StageGeom sg;
	bool to_stage = !store && mma_load_copied(op);
	if (to_stage) {
		/* a TMA copy (util_tma.c) has no per-thread chunks: any layout, any alignment of the rows */
		bool tma = tma_op(e, op);
		if (!eb || (!tma && op_attr_int(op, "vector_bytes", 0) < 16) || !mma_stage_of_load(e, op, &sbase, &sg) ||
		    (!tma && (layout_tile_run_width(&t->lay, 16 / eb, R, tt->shape, vd) != 16 / eb || dup_regs)) ||
		    f4 || multimem || ord.ord != LLVMAtomicOrderingNotAtomic) {
			diag_error(op->loc, "'%s' op: its product's plan copies it into staging, which this load cannot be",
				   op->info->name);
			e->errors++;
			to_stage = false;
		} else {
			vec = 16 / eb;
			if (!e->stage_raw)
				mma_stage_copy_begin(e, op, false);
			sown = owner_pred(e, &t->lay);
			/* by TMA (util_tma.c): one lane copies the whole tile; the
			 * product's last TMA load issues the copies of all of them */
			if (tma_op(e, op)) {
				tma_issue(e, op, sbase, &sg, org);
				for (int k = 0; k < t->n; k++)
					t->r[k] = LLVMGetPoison(et);
				set(e, val, t);
				mark_token(e, op->results[1], true, op);
				return;
			}
		}
	}
	int64_t tbits = thread_bits(&t->lay);
	/* Versioning on the whole tile being in bounds (issue 17), opt-in
	 * (TILE_PTX_VERSIONING=1): where some dim is masked, one test of the
	 * tile's far corner picks a copy of the accesses without per-element
	 * predicates or the masked one; loads merge by phis. It paid while each
	 * element's predicate was its own live coordinate; since a predicate is
	 * one value per thread and dim compared with an immediate (below) it
	 * costs registers instead: a versioned store needs every stored value
	 * computed before its branch, where the masked stores let each one be
	 * computed just before it is stored (swiglu_fwd 80 -> 128 registers on
	 * sm_90; rms_norm_fwd 80 -> 91, transpose 32 -> 48), and the two copies
	 * lengthen the SASS. Never inside loops: the doubled K-loop code pushed
	 * attention into spills. */
	bool masked_dim = false;
	for (int i = 0; i < R; i++)
		masked_dim |= !op_attr_int_at(op, "in_bounds", i, 0);
	bool version = !e->fusing && masked_dim && !to_stage && !multimem && !f4 && ord.ord == LLVMAtomicOrderingNotAtomic &&
		       t->n / vec >= 4 && !e->loop && knobs()->TILE_PTX_VERSIONING;
	LLVMBasicBlockRef fast_end = NULL, slow_bb = NULL, merge_bb = NULL;
	LLVMValueRef *fast_vals = NULL;
	if (version) {
		LLVMValueRef full = NULL;
		for (int i = 0; i < R; i++) {
			if (op_attr_int_at(op, "in_bounds", i, 0))
				continue;
			int d = (int)op_attr_int_at(op, "dim_map", i, i);
			LLVMValueRef end = LLVMBuildAdd(e->b, org[i], c_i64(e, tt->shape[i]), "");
			full = and_pred(e, full, LLVMBuildICmp(e->b, LLVMIntSLE, end, mr->shape[d], ""));
		}
		LLVMBasicBlockRef fast_bb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "tile.full");
		slow_bb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "tile.edge");
		merge_bb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "tile.join");
		LLVMBuildCondBr(e->b, full, fast_bb, slow_bb);
		LLVMPositionBuilderAtEnd(e->b, fast_bb);
		fast_vals = store ? NULL : xcalloc((size_t)t->n, sizeof *fast_vals);
	}
	for (int pass = version ? 0 : 1; pass < 2; pass++) {
	if (version && pass == 1) {
		if (!store)
			memcpy(fast_vals, t->r, sizeof *fast_vals * (size_t)t->n);
		fast_end = LLVMGetInsertBlock(e->b);
		LLVMBuildBr(e->b, merge_bb);
		LLVMPositionBuilderAtEnd(e->b, slow_bb);
	}
	bool masked = pass == 1;
	/* weak 16-bit elements one a register: loaded in pairs (util_access.c);
	 * not in loops, where the pairs feed MMA staging stores and cost
	 * registers (fmha_bf16 on sm_80 182 -> 194, matmul 122 -> 126) */
	bool pair16 = !e->loop && !store && !to_stage && !multimem && vec == 1 && eb == 2 && mt == et && !dup_regs &&
		      (t->n & 1) == 0 && ord.ord == LLVMAtomicOrderingNotAtomic;
	LLVMValueRef pair = NULL;
	int r_lo, r_hi;      /* a fused group's window (util_fuse.c: vec 1 there) */
	fuse_window(e, t->n, &r_lo, &r_hi);
	/* Tile guard (issue 17): a masked access of two to four chunks a
	 * thread sits behind a uniform test that some of its tile is inside
	 * the view (each element's coordinate is the tile origin plus a
	 * non-negative offset, so a tile whose origin is past the size has
	 * nothing in bounds); a skipped load yields the padding. ptxas cannot
	 * if-convert across the uniform branch, so each access's addresses
	 * and predicates are computed in its block and die there instead of
	 * every access's being live from the entry; the loads of different
	 * accesses stay in flight together. Inside the guard the tile's
	 * remaining extent (size - origin) is uniform: with two chunks a
	 * thread each one compares the thread's 32-bit coordinate with that
	 * extent less its constant, a uniform limit, instead of keeping a
	 * 64-bit per-thread extent live (below). saxpy on sm_100 20 -> 16 and
	 * 22 -> 18 registers. One chunk a thread gains nothing (cast,
	 * vector_add +1); at eight or more (attention's Q tile and epilogue)
	 * the access is a small part of a large kernel and the block boundary
	 * only disturbs ptxas (fmha_f16_aligned_128 on sm_90 168 -> 178; its
	 * 8-chunk Q tile guarded alone, on sm_80 16 -> 42 spilled
	 * instructions); loops and fused windows keep their form: there LICM
	 * and the window decide what is live. TILE_PTX_NO_TILE_GUARD=1: off. */
	LLVMBasicBlockRef guard_from = NULL, guard_join = NULL;
	int chunks = t->n / vec;
	if (masked && masked_dim && chunks >= 2 && chunks <= 4 && !to_stage && !multimem && !f4 && !e->loop &&
	    !e->fusing && ord.ord == LLVMAtomicOrderingNotAtomic && !knobs()->TILE_PTX_NO_TILE_GUARD) {
		LLVMValueRef any = NULL;
		for (int i = 0; i < R; i++) {
			if (op_attr_int_at(op, "in_bounds", i, 0))
				continue;
			int d = (int)op_attr_int_at(op, "dim_map", i, i);
			any = and_pred(e, any, LLVMBuildICmp(e->b, LLVMIntSLT, org[i], mr->shape[d], ""));
		}
		guard_from = LLVMGetInsertBlock(e->b);
		LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "tile.any");
		guard_join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "tile.after");
		LLVMBuildCondBr(e->b, any, body, guard_join);
		LLVMPositionBuilderAtEnd(e->b, body);
	}
	for (int r = r_lo; r < r_hi; r += vec) {
		if (store && !layout_reg_is_primary(&t->lay, r))
			continue;
		int64_t kr = layout_eval_mode(&t->lay, 0, r);
		/* not in a loop: there LICM hoists each register's constant times the
		 * stride out of the loop, one 64-bit register each across it */
		/* the coordinate splits into the thread's part gl and the register's
		 * constant kc; the address uses the split only outside loops (in
		 * one LICM hoists each kc times the stride into its own 64-bit
		 * register), the bounds test everywhere: gl + kc < size as
		 * size - gl > kc, one value per thread and dim that each register
		 * compares with an immediate (else LLVM keeps every element's
		 * coordinate live from the entry block, or across the loop) */
		bool splits = !f4 && tbits >= 0 && (kr & tbits) == 0, split = splits && !e->loop;
		LLVMValueRef eo = elem_offset(e, &t->lay, r), lo = splits ? lw_of(e, &t->lay)->off : NULL;
		LLVMValueRef off = c_i64(e, 0), koff = c_i64(e, 0), pred = NULL;
		for (int i = 0; i < R; i++) {
			LLVMValueRef c = LLVMBuildLShr(e->b, eo, c_i32(e, shift[i]), "");
			c = LLVMBuildAnd(e->b, c, c_i32(e, tt->shape[i] - 1), "");
			LLVMValueRef g = LLVMBuildAdd(e->b, org[i], LLVMBuildZExt(e->b, c, ty_i64(e), ""), "");
			int d = (int)op_attr_int_at(op, "dim_map", i, i);
			bool check = masked && !op_attr_int_at(op, "in_bounds", i, 0);
			LLVMValueRef gl = NULL, cl = NULL;   /* cl: the thread's coordinate in the tile (i64) */
			int64_t kc = 0;
			if (splits) {
				cl = LLVMBuildLShr(e->b, lo, c_i32(e, shift[i]), "");
				cl = LLVMBuildAnd(e->b, cl, c_i32(e, tt->shape[i] - 1), "");
				cl = LLVMBuildZExt(e->b, cl, ty_i64(e), "");
				gl = LLVMBuildAdd(e->b, org[i], cl, "");
				kc = (kr >> shift[i]) & (tt->shape[i] - 1);
			}
			if (split) {
				off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, gl, mr->stride[d], ""), "");
				koff = LLVMBuildAdd(e->b, koff, LLVMBuildMul(e->b, c_i64(e, kc), mr->stride[d], ""), "");
			} else {
				off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, g, mr->stride[d], ""), "");
			}
			if (check && splits && guard_join && chunks <= 2) {
				/* the thread's 32-bit coordinate in the tile against the
				 * tile's uniform remaining extent less the register's part */
				LLVMValueRef lim = LLVMBuildSub(e->b, LLVMBuildSub(e->b, mr->shape[d], org[i], ""),
								c_i64(e, kc), "");
				pred = and_pred(e, pred, LLVMBuildICmp(e->b, LLVMIntSLT, cl, lim, ""));
			} else if (check && splits) {
				LLVMValueRef left = LLVMBuildSub(e->b, mr->shape[d], gl, "");
				pred = and_pred(e, pred, LLVMBuildICmp(e->b, LLVMIntSGT, left, c_i64(e, kc), ""));
			} else if (check) {
				pred = and_pred(e, pred, LLVMBuildICmp(e->b, LLVMIntSLT, g, mr->shape[d], ""));
			}
		}
		if (f4)
			off = LLVMBuildAShr(e->b, off, c_i64(e, 1), "");   /* the byte */
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, mr->base, &off, 1, "");
		if (split)
			p = LLVMBuildGEP2(e->b, mt, p, &koff, 1, "");
		if (multimem) {
			if (store)
				multimem_access(e, op, multimem, el, p, t->r[r], and_pred(e, pred, primary), NULL);
			else
				t->r[r] = multimem_access(e, op, multimem, el, p, NULL, pred, pad_value(e, el, pad));
			continue;
		}
		if (store) {
			LLVMValueRef v;
			if (f4) {
				v = f4_pack(e, t->r + r, units);
			} else if (vec > 1) {
				v = LLVMGetUndef(vt);
				for (int k = 0; k < vec; k++) {
					LLVMValueRef x = t->r[r + k];
					if (mt != et)
						x = LLVMBuildZExt(e->b, x, mt, "");
					v = LLVMBuildInsertElement(e->b, v, x, c_i32(e, k), "");
				}
			} else {
				v = mt != et ? LLVMBuildZExt(e->b, t->r[r], mt, "") : t->r[r];
			}
			guarded_store(e, v, p, align, and_pred(e, pred, primary), &ord);
		} else if (to_stage) {
			mma_cp_async16(e, mma_stage_addr(e, sbase, &sg, eo), p, pred, sown);
			for (int k = 0; k < vec; k++)
				t->r[r + k] = LLVMGetPoison(et);
		} else {
			LLVMValueRef padv = pad_value(e, el, pad);
			if (mt != et)
				padv = to_mem_const(e, padv, mt);
			if (f4)            /* the padding in both nibbles */
				padv = LLVMBuildOr(e->b, padv, LLVMBuildShl(e->b, padv, LLVMConstInt(mt, 4, 0), ""), "");
			LLVMValueRef other = padv;
			if (units > 1) {
				other = LLVMGetUndef(vt);
				for (int k = 0; k < units; k++)
					other = LLVMBuildInsertElement(e->b, other, padv, c_i32(e, k), "");
			}
			if (pair16) {      /* registers r & ~1 and r | 1 in one i32 */
				pair = guarded_load_half(e, (r & 1) ? pair : pair16_splat(e, padv), r & 1, vt, p, align,
							 pred);
				if (r & 1) {
					t->r[r - 1] = pair16_half(e, pair, 0, et);
					t->r[r] = pair16_half(e, pair, 1, et);
				}
				continue;
			}
			LLVMValueRef x = guarded_load(e, vt, p, align, pred, other, &ord);
			if (f4) {
				f4_unpack(e, x, units, t->r + r);
				continue;
			}
			for (int k = 0; k < vec; k++) {
				LLVMValueRef y = vec > 1 ? LLVMBuildExtractElement(e->b, x, c_i32(e, k), "") : x;
				if (mt != et)
					y = LLVMBuildTrunc(e->b, y, et, "");
				t->r[r + k] = y;
			}
		}
	}
	if (guard_join) {
		LLVMBasicBlockRef body_end = LLVMGetInsertBlock(e->b);
		LLVMBuildBr(e->b, guard_join);
		LLVMPositionBuilderAtEnd(e->b, guard_join);
		LLVMValueRef padv = pad_value(e, el, pad);
		for (int k = r_lo; !store && k < r_hi; k++)
			t->r[k] = phi2(e, t->r[k], body_end, padv, guard_from);
	}
	}     /* pass */
	if (version) {
		LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(e->b);
		LLVMBuildBr(e->b, merge_bb);
		LLVMPositionBuilderAtEnd(e->b, merge_bb);
		for (int k = 0; !store && k < t->n; k++)
			t->r[k] = phi2(e, fast_vals[k], fast_end, t->r[k], slow_end);
		free(fast_vals);
	}
	if (to_stage && !e->stage_raw)
		mma_cp_async_commit(e);
	if (!store)
		set(e, val, t);
	mark_token(e, op->results[store ? 0 : 1], true, op);
}

/* Registers a gather / scatter moves in one vector access: runs of
 * consecutive elements up to its vector_bytes (tile-lower proved the
 * pointers of such a run consecutive and aligned, its mask and padding
 * alike), weak accesses of a layout without register copies; else 1. */
static int ptr_run_width(const Op *op, const Layout *l, const Type *el, bool ordered)
{
	int eb = elem_bytes(el);
	int cap = eb > 0 ? (int)(op_attr_int(op, "vector_bytes", eb) / eb) : 1;
	if (cap < 2 || ordered || lay_has_copies(l))
		return 1;
	for (int i = l->begin[0]; i < l->begin[1]; i++)
		if (l->stride[i] == 0 && l->shape[i] > 1)
			return 1;
	return layout_run_width(l, cap);
}

/* the vector form: one access of vec elements at each run's first pointer,
 * under its first mask bit, the padding from the run's own registers */
static void ptr_mem_runs(E *e, const Type *el, TV *t, TV *ptrs, TV *mask, TV *other, bool store,
			 LLVMValueRef primary, int vec, int lo, int hi)
{
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el), vt = LLVMVectorType(mt, (unsigned)vec);
	unsigned align = (unsigned)(elem_bytes(el) * vec);
	for (int r = lo; r < hi; r += vec) {
		LLVMValueRef pred = mask ? mask->r[r] : NULL;
		LLVMValueRef x = LLVMGetUndef(vt);
		if (store && !layout_reg_is_primary(&t->lay, r))
			continue;
		for (int k = 0; k < vec && (store || other); k++) {
			LLVMValueRef y = store ? t->r[r + k] : other->r[r + k];
			x = LLVMBuildInsertElement(e->b, x, mt != et ? LLVMBuildZExt(e->b, y, mt, "") : y, c_i32(e, k), "");
		}
		if (store) {
			guarded_store(e, x, ptrs->r[r], align, and_pred(e, pred, primary), &order_weak);
			continue;
		}
		if (!other)
			x = LLVMConstNull(vt);
		x = guarded_load(e, vt, ptrs->r[r], align, pred, x, &order_weak);
		for (int k = 0; k < vec; k++) {
			LLVMValueRef y = LLVMBuildExtractElement(e->b, x, c_i32(e, k), "");
			t->r[r + k] = mt != et ? LLVMBuildTrunc(e->b, y, et, "") : y;
		}
	}
}

/* load / store through a tile of pointers (gather / scatter) */
void emit_ptr_mem(E *e, Op *op)
{
	bool store = op->info->code == AS_store;
	order_after(e, op_group_value(op, 3), op);
	Order ord = order_of(e, op, store);
	TV *ptrs = get(e, op->operands[0]);
	Value *maskv = op_group_value(op, store ? 2 : 1);
	Value *otherv = store ? NULL : op_group_value(op, 2);
	TV *mask = maskv ? get(e, maskv) : NULL, *other = otherv ? get(e, otherv) : NULL;
	const Value *val = store ? op->operands[1] : op->results[0];
	const Type *el = val->type->elem;
	TV *t = store ? get(e, val) : tv_result(e, val);
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	unsigned align = (unsigned)(elem_bytes(el) ? elem_bytes(el) : 1);
	int lo, hi;     /* a fused group's window (util_fuse.c: whole runs) */
	fuse_window(e, t->n, &lo, &hi);
	/* an ordered load of a replicated tile (a scalar flag, say) is done once,
	 * by each element's first owner, and broadcast: every copy must agree */
	bool bcast = !store && ord.ord != LLVMAtomicOrderingNotAtomic && lay_has_copies(&t->lay);
	LLVMValueRef primary = store || bcast ? owner_pred(e, &t->lay) : NULL;
	int vec = ptr_run_width(op, &t->lay, el, ord.ord != LLVMAtomicOrderingNotAtomic);
	if (vec > 1) {
		ptr_mem_runs(e, el, t, ptrs, mask, other, store, primary, vec, lo, hi);
		if (!store)
			set(e, val, t);
		mark_token(e, op->results[store ? 0 : 1], true, op);
		return;
	}
	for (int k = lo; k < hi; k++) {
		LLVMValueRef pred = mask ? mask->r[k] : NULL;
		if (store) {
			if (!layout_reg_is_primary(&t->lay, k))
				continue;
			LLVMValueRef v = mt != et ? LLVMBuildZExt(e->b, t->r[k], mt, "") : t->r[k];
			guarded_store(e, v, ptrs->r[k], align, and_pred(e, pred, primary), &ord);
		} else {
			if (bcast && !layout_reg_is_primary(&t->lay, k)) {
				t->r[k] = LLVMGetPoison(et);
				continue;
			}
			LLVMValueRef o = other ? other->r[k] : LLVMConstNull(et);
			if (mt != et)
				o = LLVMBuildZExt(e->b, o, mt, "");
			LLVMValueRef x = guarded_load(e, mt, ptrs->r[k], align, bcast ? and_pred(e, pred, primary) : pred,
						      o, &ord);
			t->r[k] = mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
		}
	}
	if (bcast)
		smem_broadcast(e, t, el);
	if (!store)
		set(e, val, t);
	mark_token(e, op->results[store ? 0 : 1], true, op);
}


void emit_create_token(E *e, Op *op)
{
	mark_token(e, op->results[0], false, NULL);
}
