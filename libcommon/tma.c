/* tma.c: the conditions under which a tiled_load feeding a product is one
 * TMA copy per swizzle-row block, and a tiled_store of a product's result
 * one TMA store per box (tma.h; docs/lowering.md §10 "TMA", "TMA store
 * epilogue"). A load:
 *   - sm_90 and later, the product staged for wgmma (a warpgroup tiling) or,
 *     16-bit, for ldmatrix, the operand staged as it is (A; 16-bit B), in
 *     64- or 128-byte swizzled rows (the swizzles whose map words were read
 *     from NVIDIA's callbacks), at most 256 rows (a box dimension's limit),
 *     each block of rows x W bytes 1024-byte aligned in the staging;
 *   - an f16 or bf16 tile, or an f32 one the product takes through an f32 ->
 *     tf32 ftof with rounding nearest_even (its only use; the map is then
 *     tf32: the copy rounds, as NVIDIA's kernels rely on: docs/abi.md
 *     §5.3.1; rank 2 only), of rank 2, or of rank 3..5 with unit leading
 *     dims that the product takes through a reshape dropping them
 *     (attention's [1, 1, 64, 64] tiles of [B, H, S, D] views), tiles at
 *     multiples of the tile (no `step`), weak, zero (or no) padding, not
 *     multimem;
 *   - the operand's columns the view's contiguous dim (staged as it is),
 *     or, for a B staged K-major (MmaTiling.bk, wgmma), its rows (K read
 *     through a transposed view, or a TN product's [N, K] tile transposed
 *     by a permute [1, 0]: the map is of K's own layout and the box lands
 *     K-major, as NVIDIA's attention copies K);
 *   - the view's base, shapes and strides entry parameters (through
 *     assume ops; i32 shapes and strides) or constants, its inner stride 1,
 *     the base 16-byte aligned and the other strides multiples of 16 bytes
 *     (make_memref's base_align / stride_div_by), as cuTensorMapEncodeTiled
 *     requires. The shape needs no divisibility: the copy zero-fills what
 *     lies outside the view.
 * The map's dims (tma_map_order): the view's contiguous dim, the operand's
 * other dim, then the unit dims from the view's outermost on (NVIDIA's
 * order for its attention's [B, H, S, D] maps: D, S, B, H).
 * A store: the same access and view, plus what tma.h's tma_store_ok says. */
#include <string.h>
#include "tma.h"
#include "irutil.h"
#include "mma.h"
#include "opinfo.h"

/* the entry parameter v comes from (through assumes), or -1 */
static int param_of(const Value *v)
{
	while (v->def && v->def->info->code == CT_assume)
		v = v->def->operands[0];
	if (v->def || !v->owner || !v->owner->parent || !v->owner->parent->parent)
		return -1;
	const Op *fn = v->owner->parent->parent;
	return fn->info->code == CT_entry && v->owner == fn->regions[0].first ? v->index : -1;
}

/* view dim d's size (stride) of view type tv made by mr: a constant, or its
 * dynamic operand (group 1: shapes, 2: strides), which must come from an
 * i32 parameter */
static bool dim_of(const Type *tv, const Op *mr, int d, bool stride, TmapVal *out)
{
	const int64_t *v = stride ? tv->strides : tv->shape;
	if (v[d] != DYN_DIM) {
		out->param = -1;
		out->value = (uint64_t)v[d];
		return v[d] > 0 && v[d] <= 0xFFFFFFFFll;
	}
	int at;
	op_group(mr, stride ? 2 : 1, &at);
	for (int i = 0; i < d; i++)
		at += v[i] == DYN_DIM;
	if (at >= mr->noperands)
		return false;
	const Type *t = mr->operands[at]->type;
	if (t->kind != TY_TILE || t->rank != 0 || !t->elem || t->elem->kind != TY_SCALAR || t->elem->scalar != SC_I32)
		return false;
	out->param = param_of(mr->operands[at]);
	return out->param >= 0;
}

int tma_map_order(const Op *acc, int *tile_dim)
{
	const Type *tt = acc->info->code == AS_tiled_store ? acc->operands[1]->type : acc->results[0]->type;
	int r = tt->rank, n = 2, view_of[TMAP_MAX_RANK];
	if (r < 2 || r > TMAP_MAX_RANK)
		return 0;
	for (int i = 0; i < r; i++)
		view_of[i] = (int)op_attr_int_at(acc, "dim_map", i, i);
	/* the operand's two dims: the one on the view's contiguous dim first */
	tile_dim[0] = tiled_vector_dim(acc, r);
	tile_dim[1] = tile_dim[0] == r - 1 ? r - 2 : r - 1;
	if (tile_dim[0] < r - 2 || view_of[tile_dim[0]] != r - 1)
		return 0;
	/* then the rest by their view dims, outermost first */
	for (int v = 0; v < r; v++)
		for (int i = 0; i < r - 2; i++)
			if (view_of[i] == v)
				tile_dim[n++] = i;
	return n == r ? r : 0;
}

int tma_box_row_bytes(const MmaTiling *t, int k, const Type *el)
{
	if (t->wg)
		return mma_wgmma_stage_w(t, k, el);
	return mma_wgmma_row_bytes(k ? t->n : t->k, elem_bytes(el));
}

static bool view_note(const Op *acc, int eb, TmapElem elem, int w, int64_t rows, TmapNote *n);

/* a weak, not multimem access of tile tt at multiples of the tile (no
 * `step`) */
static bool plain_access(const Op *op, const Type *tt)
{
	if (!op_is_weak(op) || op_attr(op, "multimem"))
		return false;
	for (int i = 0; i < tt->rank; i++)
		if (op_attr_int_at(op, "step", i, tt->shape[i]) != tt->shape[i])
			return false;
	return true;
}

static bool identity_map(const Op *op, int rank)
{
	for (int i = 0; i < rank; i++)
		if (op_attr_int_at(op, "dim_map", i, i) != i)
			return false;
	return true;
}

bool tma_load_ok(const Op *ld, int warps, int sm, TmapNote *n)
{
	/* sm_90 and the later targets with TMA (sm_100..sm_121) */
	if (sm < 90 || ld->info->code != AS_tiled_load || ld->nresults < 1)
		return false;
	const Type *tt = ld->results[0]->type;
	const Type *el = tt->elem;
	int r = tt->rank;
	if (tt->kind != TY_TILE || r < 2 || r > TMAP_MAX_RANK || !el || el->kind != TY_SCALAR)
		return false;
	if (strcmp(op_attr_str(ld, "padding", "zero"), "zero") || !plain_access(ld, tt))
		return false;
	for (int i = 0; i < r - 2; i++)
		if (tt->shape[i] != 1)
			return false;
	int k;
	bool tf32;
	const Op *mma = mma_product_of_load(ld, &k);
	if (!mma)
		return false;
	mma_staged_load(mma, k, &tf32);
	/* f16 / bf16 as they are, f32 rounded to tf32 by the copy (rank 2) */
	if (tf32 ? el->scalar != SC_F32 || r != 2 : el->scalar != SC_F16 && el->scalar != SC_BF16)
		return false;
	int eb = tf32 ? 4 : 2;
	const Type *ea = tile_elem(mma->operands[0]->type);
	MmaTiling t;
	if (!mma_product_tiling(mma, warps, sm, &t, NULL) || (!t.wg && (tf32 || !mma_ldmatrix_ok(t.atom, ea, sm))))
		return false;
	/* a wgmma B read down its columns lands K-major by TMA whatever its
	 * chunks: the tiling it has once marked `tma` (mma_b_column_load) */
	if (k == 1 && t.wg && !t.bk && mma_b_column_load(mma) == ld)
		t.bk = true;
	/* staged as it is (the operand's columns along the view's contiguous
	 * dim), or K-major B (wgmma) whose K runs along the view's contiguous
	 * dim: read through a transposed view (the tile's rows along it), or a
	 * [N, K] tile transposed by a permute (its columns along it) */
	int order[TMAP_MAX_RANK];
	bool as_is = mma_stage_as_is(&t, k, ea), perm = mma_operand_transposed(mma, k);
	if (tma_map_order(ld, order) != r || (perm && as_is) ||
	    (as_is ? order[0] != r - 1 : !(k == 1 && t.bk && t.wg && order[0] == (perm ? r - 1 : r - 2))))
		return false;
	int64_t rows = as_is ? (k ? t.k : t.m) : t.n, cols = as_is ? (k ? t.n : t.k) : t.k;
	int w = tma_box_row_bytes(&t, k, ea);
	if ((w != 64 && w != 128) || rows > 256 || rows != tt->shape[order[1]] || cols != tt->shape[order[0]] ||
	    (cols * eb) % w || (rows * w) % 1024)
		return false;
	return view_note(ld, eb, tf32 ? TMAP_TF32 : el->scalar == SC_BF16 ? TMAP_BF16 : TMAP_F16, w, rows, n);
}

/* the map of the view access acc reads or writes for boxes of w bytes x
 * rows (w / eb elements of eb bytes; 1 along the unit dims), its dims in
 * tma_map_order's: the base, shapes and strides entry parameters or
 * constants, inner stride 1, base 16-byte aligned, the other strides
 * multiples of 16 bytes, as cuTensorMapEncodeTiled requires */
static bool view_note(const Op *acc, int eb, TmapElem elem, int w, int64_t rows, TmapNote *n)
{
	const Op *mr = acc->operands[0]->def;
	int order[TMAP_MAX_RANK], r = tma_map_order(acc, order);
	if (!mr || mr->info->code != AS_make_memref || r < 2)
		return false;
	const Type *tv = mr->results[0]->type;
	if (tv->rank != r || tv->strides[r - 1] != 1 || op_attr_int(mr, "base_align", 1) < 16)
		return false;
	for (int d = 0; d < r - 1; d++)
		if ((tv->strides[d] == DYN_DIM ? op_attr_int_at(mr, "stride_div_by", d, 1) * eb : tv->strides[d] * eb) % 16)
			return false;
	memset(n, 0, sizeof *n);
	n->elem = elem;
	n->rank = r;
	n->base = param_of(mr->operands[0]);
	if (n->base < 0)
		return false;
	n->strides[0] = (TmapVal){ -1, 1 };
	for (int j = 0; j < r; j++) {
		int v = (int)op_attr_int_at(acc, "dim_map", order[j], order[j]);
		if (!dim_of(tv, mr, v, false, &n->dims[j]) || (j && !dim_of(tv, mr, v, true, &n->strides[j])))
			return false;
		n->box[j] = 1;
	}
	n->box[0] = (uint32_t)(w / eb);
	n->box[1] = (uint32_t)rows;
	n->swizzle = w;
	return true;
}

/* the product whose result v is: directly, through ftofs, or as the
 * accumulator a `for` carries out (its continue's operand) */
static const Op *product_of_value(const Value *v)
{
	while (v->def && v->def->info->code == CT_ftof)
		v = v->def->operands[0];
	const Op *d = v->def;
	if (d && d->info->code == CT_for && d->nregions && d->regions[0].first) {
		const Op *last = d->regions[0].first->last;
		int i = -1;
		for (int j = 0; j < d->nresults; j++)
			if (d->results[j] == v)
				i = j;
		if (!last || last->info->code != CT_continue || i < 0 || i >= last->noperands)
			return NULL;
		d = last->operands[i]->def;
	}
	return d && mma_is_product(d) ? d : NULL;
}

bool tma_store_ok(const Op *st, int sm, TmapNote *n)
{
	if (sm < 90 || st->info->code != AS_tiled_store || st->noperands < 2)
		return false;
	const Type *tt = st->operands[1]->type;
	const Type *el = tt->elem;
	if (tt->kind != TY_TILE || tt->rank != 2 || !el || el->kind != TY_SCALAR ||
	    (el->scalar != SC_F16 && el->scalar != SC_BF16 && el->scalar != SC_F32) || !product_of_value(st->operands[1]) ||
	    !plain_access(st, tt) || !identity_map(st, 2))
		return false;
	int eb = el->scalar == SC_F32 ? 4 : 2;
	int64_t rows = tt->shape[0], cols = tt->shape[1];
	int w = mma_wgmma_row_bytes(cols, eb);
	int64_t box = tma_store_box_rows(rows);
	/* its staging is the kernel's MMA staging buffer (tile-ptx), which may
	 * grow to the target's budget for it */
	if ((w != 64 && w != 128) || rows % box || (cols * eb) % w || (box * w) % 1024 ||
	    rows * cols * eb > mma_stage_budget(sm))
		return false;
	/* as NVIDIA's 13.5: only where the view's rows are a multiple of 16
	 * bytes long (its launches without shape facts store C thread by thread) */
	const Op *mr = st->operands[0]->def;
	if (!mr || mr->info->code != AS_make_memref || (op_attr_int_at(mr, "shape_div_by", 1, 1) * eb) % 16)
		return false;
	return view_note(st, eb, el->scalar == SC_F32 ? TMAP_F32 : el->scalar == SC_BF16 ? TMAP_BF16 : TMAP_F16, w, box, n);
}
