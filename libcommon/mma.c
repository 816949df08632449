/* mma.c: warp-level MMA atoms, tilings and fragment layouts (mma.h). */
#include <stdlib.h>
#include <string.h>
#include "mma.h"
#include "opinfo.h"
#include "irutil.h"
#include "knobs.h"
#include "target.h"

#define UNPAREN(...) __VA_ARGS__
#define FRAG(n, sh, dr, dc, qr, qc, gr, gc) \
	{ n, { UNPAREN sh }, { UNPAREN dr }, { UNPAREN dc }, qr, qc, gr, gc }
const MmaAtom mma_atoms[MMA_NATOMS] = {
#define ATOM(id, m, n, k, A, B, C) [MMA_##id] = { MMA_##id, #id, m, n, k, A, B, C },
#include "mma_atoms.def"
#undef ATOM
};
#undef FRAG

int mma_frag_values(const MmaFrag *f)
{
	int v = 1;
	for (int i = 0; i < f->nleaf; i++)
		v *= f->shape[i];
	return v;
}

static bool scalar(const Type *t, ScalarKind s) { return t && t->kind == TY_SCALAR && t->scalar == s; }

const MmaAtom *mma_atom_for(const Type *a, const Type *c, int sm)
{
	if (scalar(a, SC_F16) && (scalar(c, SC_F32) || scalar(c, SC_F16)))
		return &mma_atoms[sm >= 80 ? MMA_M16N8K16 : MMA_M16N8K8];
	if (scalar(a, SC_F32) && scalar(c, SC_F32))
		return &mma_atoms[MMA_FMA];
	if (sm < 80)
		return NULL;
	if (scalar(a, SC_BF16) && scalar(c, SC_F32))
		return &mma_atoms[MMA_M16N8K16];
	if (scalar(a, SC_TF32) && scalar(c, SC_F32))
		return &mma_atoms[MMA_M16N8K8_TF32];
	if (scalar(a, SC_I8) && scalar(c, SC_I32))
		return &mma_atoms[MMA_M16N8K32];
	if (scalar(a, SC_F64) && scalar(c, SC_F64))
		return &mma_atoms[MMA_M8N8K4];
	/* 8-bit floats: m16n8k32 with the i8 fragments, sm_89 and newer (NVIDIA's
	 * choice on sm_89 and sm_120 too) */
	if (sm >= 89 && (scalar(a, SC_F8E4M3FN) || scalar(a, SC_F8E5M2)) && (scalar(c, SC_F32) || scalar(c, SC_F16)))
		return &mma_atoms[MMA_M16N8K32];
	return NULL;
}

static bool pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

bool mma_below_atom(const MmaAtom *atom, int64_t m, int64_t n, int64_t k)
{
	return atom->id != MMA_FMA && (m < atom->m || n < atom->n || k < atom->k);
}

bool mma_fma_product(const Type *a, const Type *c, int64_t m, int64_t n, int64_t k, int sm)
{
	const MmaAtom *atom = mma_atom_for(a, c, sm);
	return atom && (atom->id == MMA_FMA || mma_below_atom(atom, m, n, k));
}

bool mma_tiling(const MmaAtom *atom, int64_t m, int64_t n, int64_t k, int warps, MmaTiling *t, const char **err)
{
	*t = (MmaTiling){ .atom = atom, .m = m, .n = n, .k = k, .wm = 1, .wn = 1, .wrep = 1 };
	/* FMA takes any M and N: a product narrower than its 8 x 8 atom repeats
	 * rows and columns (frag_layout) */
	bool fma = atom->id == MMA_FMA;
	if (!pow2(m) || !pow2(n) || !pow2(k) || !pow2(warps) || (!fma && (m < atom->m || n < atom->n)) || k < atom->k) {
		if (err)
			*err = "a tile shape that is not a power-of-two multiple of the MMA atom";
		return false;
	}
	for (int w = warps; w > 1; w /= 2) {
		int64_t mw = m / t->wm, nw = n / t->wn;
		bool can_m = mw / atom->m >= 2, can_n = nw / atom->n >= 2;
		if (can_m && (mw >= nw || !can_n))
			t->wm *= 2;
		else if (can_n)
			t->wn *= 2;
		else
			t->wrep *= 2;
	}
	t->mt = m / t->wm >= atom->m ? m / t->wm / atom->m : 1;
	t->nt = n / t->wn >= atom->n ? n / t->wn / atom->n : 1;
	t->kt = k / atom->k;
	return true;
}

/* Append a mode of leaves (size-1 leaves dropped: they carry nothing). */
static void add(Layout *l, int n, const int64_t *shape, const int64_t *stride)
{
	int64_t s[8], d[8];
	int k = 0;
	for (int i = 0; i < n; i++)
		if (shape[i] != 1) {
			s[k] = shape[i];
			d[k++] = stride[i];
		}
	if (k == 0) {
		s[0] = 1;
		d[0] = 0;
		k = 1;
	}
	layout_add_mode(l, k, s, d);
}

/* A leaf of shape n that steps drow rows and dcol columns of a rows x cols
 * row-major tile, as leaves into out (shape, stride): where the leaf runs
 * past the tile (a tile smaller than the atom, which only FMA takes:
 * mma_tiling), its upper part repeats the lower (stride 0), so the
 * registers beyond the tile hold copies of elements inside it. */
static int clip_leaf(int64_t n, int64_t drow, int64_t dcol, int64_t rows, int64_t cols, int64_t *shape, int64_t *stride)
{
	int64_t step = drow ? drow : dcol, extent = drow ? rows : cols;
	int64_t keep = !step ? n : extent <= step ? 1 : extent / step < n ? extent / step : n;
	shape[0] = keep;
	stride[0] = drow * cols + dcol;
	shape[1] = n / keep;
	stride[1] = 0;
	return 2;
}

/* The layout of fragment f repeated by (r1 at s1, r2 at s2) in a rows x
 * cols tile (row length cols), warps at (sm, sn). */
static void frag_layout(const MmaTiling *t, const MmaFrag *f, int64_t rows, int64_t cols, int64_t r1, int64_t s1,
			int64_t r2, int64_t s2, int64_t sm, int64_t sn, Layout *l)
{
	int64_t shape[16], stride[16];
	int n = 0;
	for (int i = 0; i < f->nleaf; i++)
		n += clip_leaf(f->shape[i], f->drow[i], f->dcol[i], rows, cols, shape + n, stride + n);
	shape[n] = r1;
	stride[n++] = s1;
	shape[n] = r2;
	stride[n++] = s2;
	layout_init(l);
	add(l, n, shape, stride);
	n = clip_leaf(4, f->q_drow, f->q_dcol, rows, cols, shape, stride);
	n += clip_leaf(8, f->g_drow, f->g_dcol, rows, cols, shape + n, stride + n);
	add(l, n, shape, stride);
	add(l, 3, (int64_t[]){ t->wm, t->wn, t->wrep }, (int64_t[]){ sm, sn, 0 });
}

/* A warpgroup tiling's layout of fragment f in a tile of row length ld:
 * r1 atoms at stride s1 then the m64 blocks (mt at 64 rows); warps of a
 * group 16 rows apart, groups M/wm rows (wm) and sn columns (wn) apart */
static void wg_layout(const MmaTiling *t, const MmaFrag *fr, int64_t ld, int64_t r1, int64_t s1, int64_t sn, Layout *l)
{
	Layout f;
	frag_layout(t, fr, t->m, ld, r1, s1, t->mt, 64 * ld, 0, 0, &f);
	layout_init(l);
	for (int md = 0; md < 2; md++)
		layout_add_mode(l, f.begin[md + 1] - f.begin[md], f.shape + f.begin[md], f.stride + f.begin[md]);
	add(l, 3, (int64_t[]){ 4, t->wm, t->wn }, (int64_t[]){ 16 * ld, t->m / t->wm * ld, sn });
}

void mma_layout_a(const MmaTiling *t, Layout *l)
{
	const MmaAtom *a = t->atom;
	if (t->wg) {    /* wgmma's A in registers: the warp's 16 rows of each m64 block, mma.sync's A fragment */
		wg_layout(t, &a->a, t->k, t->kt, a->k, 0, l);
		return;
	}
	frag_layout(t, &a->a, t->m, t->k, t->kt, a->k, t->mt, a->m * t->k, t->m / t->wm * t->k, 0, l);
}

bool mma_layout_is_a(const MmaTiling *t, const Layout *have)
{
	Layout ra, h = *have;
	mma_layout_a(t, &ra);
	layout_canonicalize(&ra);
	layout_canonicalize(&h);
	return layout_equal(&ra, &h);
}

void mma_layout_b(const MmaTiling *t, Layout *l)
{
	const MmaAtom *a = t->atom;
	frag_layout(t, &a->b, t->k, t->n, t->kt, a->k * t->n, t->nt, a->n, 0, t->n / t->wn, l);
}

void mma_layout_c(const MmaTiling *t, Layout *l)
{
	const MmaAtom *a = t->atom;
	if (t->wg) {
		wg_layout(t, &a->c, t->n, t->nt, a->n, t->n / t->wn, l);
		return;
	}
	frag_layout(t, &a->c, t->m, t->n, t->nt, a->n, t->mt, a->m * t->n, t->m / t->wm * t->n, t->n / t->wn, l);
}

bool mma_wgmma_tiling(const MmaAtom *atom, int64_t m, int64_t n, int64_t k, int warps, MmaTiling *t)
{
	if (atom->id != MMA_M16N8K16 && atom->id != MMA_M16N8K8_TF32 && atom->id != MMA_M16N8K32)
		return false;
	if (warps % 4 || !pow2(warps) || !pow2(m) || !pow2(n) || !pow2(k) || k < atom->k || m < 64)
		return false;
	int g = warps / 4, gm = 1;
	while (gm < g && m % (64 * 2 * gm) == 0)
		gm *= 2;
	int gn = g / gm;
	if (n % gn || n / gn < 8 || n / gn > 256)
		return false;
	*t = (MmaTiling){ .atom = atom, .m = m, .n = n, .k = k, .wm = gm, .wn = gn, .wrep = 1,
			  .mt = m / gm / 64, .nt = n / gn / 8, .kt = k / atom->k, .wg = true };
	return true;
}

bool mma_tcgen05_target(int sm)
{
	const Target *tg = target_by_sm(sm);
	return knobs()->TILE_TCGEN05 && tg && target_has(tg, TF_TCGEN05);
}

int64_t mma_tcgen05_columns(const MmaTiling *t)
{
	return (int64_t)t->wm * t->wn * t->mt * (t->n / t->wn);
}

bool mma_choose(const Type *a, const Type *c, int64_t m, int64_t n, int64_t k, int warps, int sm, MmaTiling *t,
		const char **err)
{
	const MmaAtom *atom = mma_atom_for(a, c, sm);
	if (!atom) {
		if (err)
			*err = NULL;
		return false;
	}
	if (mma_below_atom(atom, m, n, k))
		atom = &mma_atoms[MMA_FMA];
	if ((sm == 90 || mma_tcgen05_target(sm)) && mma_wgmma_tiling(atom, m, n, k, warps, t) &&
	    (sm == 90 || mma_tcgen05_columns(t) <= 512))
		return true;
	return mma_tiling(atom, m, n, k, warps, t, err);
}

const Op *mma_operand_tiled_load(const Op *op, int k)
{
	const Op *d = op->operands[k]->def;
	if (d && d->info->code == CT_reshape && d->noperands == 1 && d->nresults == 1) {
		const Type *from = d->operands[0]->type, *to = d->results[0]->type;
		int lead = from->rank - to->rank;
		bool drop = from->kind == TY_TILE && to->kind == TY_TILE && lead > 0;
		for (int i = 0; drop && i < from->rank; i++)
			drop = i < lead ? from->shape[i] == 1 : from->shape[i] == to->shape[i - lead];
		d = drop ? d->operands[0]->def : NULL;
	}
	return d && d->info->code == AS_tiled_load ? d : NULL;
}

bool mma_operand_transposed(const Op *op, int k)
{
	const Op *d = op->operands[k]->def;
	return d && d->info->code == CT_permute && d->noperands == 1 && d->operands[0]->type->rank == 2 &&
	       op_attr_int_at(d, "permutation", 0, 0) == 1 && op_attr_int_at(d, "permutation", 1, 1) == 0;
}

/* the load whose rows run along K when B is read down its columns: a load
 * through a transposed view (attention's K^T), or the [N, K] load a
 * permute [1, 0] transposes (a TN matmul's B^T); else NULL, and always with
 * TILE_NO_KMAJOR_B set (no K-major staging) */
const Op *mma_b_column_load(const Op *op)
{
	if (knobs()->TILE_NO_KMAJOR_B)
		return NULL;
	if (mma_operand_transposed(op, 1)) {
		const Op *src = op->operands[1]->def->operands[0]->def;
		return src && src->info->code == AS_tiled_load && tiled_vector_dim(src, 2) == 1 ? src : NULL;
	}
	const Op *ld = mma_operand_tiled_load(op, 1);
	if (!ld)
		return NULL;
	const Type *t = ld->results[0]->type;
	int eb = elem_bytes(tile_elem(t));
	return t->rank >= 2 && eb > 0 && tiled_vector_dim(ld, t->rank) == t->rank - 2 ? ld : NULL;
}

/* B is read down its columns (mma_b_column_load) in 16-byte chunks, or
 * by TMA (tile-sched's `tma` on that load: the box lands K-major): stage
 * it K-major, where those chunks land whole (16-bit B is otherwise staged
 * as it is; 8-bit always K-major) */
static bool b_read_down_columns(const Op *op)
{
	const Op *ld = mma_b_column_load(op);
	/* by TMA: the load's working mark in tile-sched; the product's plan
	 * after it (mma_plan.h; read here as the one string it needs, mma_plan.c
	 * being above this file) */
	const Attr *b = dict_get(op_attr(op, "plan"), "b");
	return ld && (op_attr_int(ld, "vector_bytes", 0) >= 16 || op_attr_flag(ld, "tma") ||
		      (b && b->kind == AT_STRING && strcmp(b->u.s, "tma") == 0));
}

bool mma_product_tiling(const Op *op, int warps, int sm, MmaTiling *t, const char **err)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	if (err)
		*err = NULL;
	if (a->rank != 2 || b->rank != 2)
		return false;
	if (!mma_choose(tile_elem(a), tile_elem(c), a->shape[0], b->shape[1], a->shape[1], warps, sm, t, err))
		return false;
	t->bk = (t->wg || mma_ldmatrix_ok(t->atom, tile_elem(a), sm)) && b_read_down_columns(op);
	return true;
}

int64_t mma_wgmma_offset(int64_t r, int64_t c, int64_t rows, int w, int eb)
{
	int64_t cb = c * eb;
	int64_t b = (cb / w) * rows * w + r * w + cb % w;
	return b ^ (((b >> 7) & (w / 16 - 1)) << 4);
}

int mma_swizzle_shift(int64_t row_bytes)
{
	int s = 0;
	while (((int64_t)1 << s) < row_bytes)
		s++;
	return s < 7 ? 7 : s;
}

bool mma_ldmatrix_ok(const MmaAtom *atom, const Type *a, int sm)
{
	if (sm >= 75 && (atom->id == MMA_M16N8K16 || atom->id == MMA_M16N8K8) && (scalar(a, SC_F16) || scalar(a, SC_BF16)))
		return true;
	return sm >= 80 && (atom->id == MMA_M16N8K32 || atom->id == MMA_M16N8K8_TF32);
}

bool mma_layout_transpose(const Layout *l, int64_t rows, int64_t cols, Layout *out)
{
	*out = *l;
	for (int i = 0; i < layout_nleaves(l); i++) {
		int64_t s = l->stride[i], n = l->shape[i];
		if (s % cols == 0)
			out->stride[i] = s / cols;
		else if (s * n <= cols)
			out->stride[i] = s * rows;
		else
			return false;
	}
	return true;
}

bool mma_stage_as_is(const MmaTiling *t, int k, const Type *el)
{
	if (k == 0)
		return true;
	if (t->bk)
		return false;
	if (!scalar(el, SC_F16) && !scalar(el, SC_BF16))
		return false;
	return !t->wg || t->n / t->wn * 2 >= 32;
}

int mma_wgmma_stage_w(const MmaTiling *t, int k, const Type *el)
{
	int eb = elem_bytes(el);      /* tf32 takes 4 (its 19 bits in an f32) */
	if (k == 1 && mma_stage_as_is(t, 1, el)) {
		int64_t b = t->n / t->wn * eb;
		return b >= 128 ? 128 : (int)b;
	}
	return mma_wgmma_row_bytes(t->k, eb);
}

void mma_wgmma_group_strides(const MmaTiling *t, int w, bool bmn, int eb, int64_t *a, int64_t *b)
{
	int64_t nw = t->n / t->wn;
	*a = t->m / t->wm * w;
	*b = bmn ? nw * eb * t->k : nw * w;
}

void mma_wgmma_step_offsets(const MmaTiling *t, int w, int wb, bool bmn, int64_t kk, int64_t j, int64_t *a, int64_t *b)
{
	int64_t kstep = 32;     /* bytes of K per instruction */
	int64_t kb = kk * kstep / w, ko = kk * kstep % w;
	*a = kb * t->m * w + 64 * j * w + ko;
	/* MN-major: the K step's rows (katom of them, wb bytes each) */
	*b = bmn ? kk * t->atom->k * wb : kb * t->n * w + ko;
}

int64_t mma_stage_budget(int sm)
{
	return sm == 90 || mma_tcgen05_target(sm) ? 160 * 1024 : 40 * 1024;
}

int64_t mma_stage_limit(int sm)
{
	return target_smem_limit(sm);
}

bool mma_is_product(const Op *op)
{
	int c = op->info->code;
	return c == CT_mmaf || c == CT_mmai || c == CT_mmaf_scaled;
}

static bool f8(const Type *t) { return scalar(t, SC_F8E4M3FN) || scalar(t, SC_F8E5M2); }

bool mma_block_scaled_ok(const Op *op, int sm)
{
	if (op->info->code != CT_mmaf_scaled || op->noperands != 5 || (sm != 120 && sm != 121))
		return false;
	const Type *x = op->operands[0]->type, *y = op->operands[1]->type, *c = op->operands[2]->type;
	const Type *xs = op->operands[3]->type, *ys = op->operands[4]->type;
	if (x->kind != TY_TILE || y->kind != TY_TILE || c->kind != TY_TILE || xs->kind != TY_TILE || ys->kind != TY_TILE ||
	    x->rank != 2 || y->rank != 2 || c->rank != 2 || xs->rank != 2 || ys->rank != 2)
		return false;
	if (!f8(x->elem) || !f8(y->elem) || !scalar(c->elem, SC_F32) || !scalar(xs->elem, SC_F8E8M0FNU) ||
	    !scalar(ys->elem, SC_F8E8M0FNU))
		return false;
	int64_t m = x->shape[0], k = x->shape[1], n = y->shape[1];
	const MmaAtom *a = &mma_atoms[MMA_M16N8K32];
	return pow2(m) && pow2(n) && pow2(k) && m >= a->m && n >= a->n && k >= a->k && xs->shape[1] * a->k == k &&
	       ys->shape[0] * a->k == k && xs->shape[0] == m && ys->shape[1] == n;
}

void mma_layout_scale_a(const MmaTiling *t, Layout *l)
{
	int64_t ks = t->kt;
	layout_init(l);
	add(l, 2, (int64_t[]){ t->kt, t->mt }, (int64_t[]){ 1, t->atom->m * ks });
	add(l, 3, (int64_t[]){ 2, 2, 8 }, (int64_t[]){ 8 * ks, 0, ks });
	add(l, 3, (int64_t[]){ t->wm, t->wn, t->wrep }, (int64_t[]){ t->m / t->wm * ks, 0, 0 });
}

void mma_layout_scale_b(const MmaTiling *t, Layout *l)
{
	layout_init(l);
	add(l, 2, (int64_t[]){ t->kt, t->nt }, (int64_t[]){ t->n, t->atom->n });
	add(l, 2, (int64_t[]){ 4, 8 }, (int64_t[]){ 0, 1 });
	add(l, 3, (int64_t[]){ t->wm, t->wn, t->wrep }, (int64_t[]){ 0, t->n / t->wn, 0 });
}

bool mma_tf32_round(const Op *cv)
{
	if (!cv || cv->info->code != CT_ftof || cv->noperands != 1 || cv->nresults != 1)
		return false;
	const Type *from = tile_elem(cv->operands[0]->type), *to = tile_elem(cv->results[0]->type);
	return from && to && from->kind == TY_SCALAR && to->kind == TY_SCALAR && from->scalar == SC_F32 &&
	       to->scalar == SC_TF32 && strcmp(op_attr_str(cv, "rounding_mode", "nearest_even"), "nearest_even") == 0;
}

Op *mma_staged_load(const Op *mma, int k, bool *tf32)
{
	Op *d = mma->operands[k]->def;
	*tf32 = mma_tf32_round(d);
	if (*tf32)
		d = d->operands[0]->def;
	else if (d && d->info->code == CT_reshape)      /* unit leading dims dropped */
		d = (Op *)mma_operand_tiled_load(mma, k);
	else if (mma_operand_transposed(mma, k))        /* a TN product's B^T, transposed */
		d = d->operands[0]->def;
	return d && d->info->code == AS_tiled_load ? d : NULL;
}

Op *mma_product_of_load(const Op *ld, int *k)
{
	for (Op *x = ld->next; x; x = x->next)
		for (int i = 0; i < 2 && i < x->noperands; i++) {
			bool tf32;
			if (mma_is_product(x) && mma_staged_load(x, i, &tf32) == ld) {
				*k = i;
				return x;
			}
		}
	return NULL;
}

Op *mma_loop_of(const Op *op)
{
	Block *b = op->parent;
	Op *l = b && b->parent ? b->parent->parent : NULL;
	return l && l->info->code == CT_for && b == l->regions[0].first ? l : NULL;
}
