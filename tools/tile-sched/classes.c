/* classes.c: tile-sched's value classes, the layer sched.c and shape.c
 * both build on (docs/lowering.md §4): tile values that must share one
 * layout form a class (union-find over value ids); a class remembers the
 * largest per-thread chunk its memory accesses allow (vmax), whether it
 * holds f4 memory tiles
 * (pairs) and whether it is reduced along its rows (rowred); a class gets
 * its layout here, blocked (assign_blocked), or from shape.c's rules; and
 * a value gets a layout as the IR's attribute and its parsed form
 * (set_layout). */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "irutil.h"
#include "knobs.h"
#include "layout_map.h"
#include "diag.h"

int find(F *f, int x)
{
	while (f->parent[x] != x) {
		f->parent[x] = f->parent[f->parent[x]];
		x = f->parent[x];
	}
	return x;
}

/* Class r's anchors take one of `elems` elements a chunk at tile-linear
 * stride s: the smallest chunk, and one element when two anchors' chunks
 * (of more than one element) run along different dims. */
static void merge_anchor(F *f, int r, int64_t elems, int64_t s)
{
	if (elems < 1)
		return;
	if (elems == 1)
		s = 1;
	if (f->vmax[r] > 1 && elems > 1 && f->vstride[r] != s) {
		f->vmax[r] = 1;
		f->vstride[r] = 1;
	} else if (f->vmax[r] == 0 || elems < f->vmax[r]) {
		f->vmax[r] = (int)elems;
		f->vstride[r] = s;
	}
}

void unite(F *f, Value *a, Value *b)
{
	if (!type_is_tile(a->type) || !type_is_tile(b->type))
		return;
	int x = find(f, a->id), y = find(f, b->id);
	if (x == y)
		return;
	f->parent[y] = x;
	merge_anchor(f, x, f->vmax[y], f->vstride[y]);
	f->pairs[x] |= f->pairs[y];
	if (f->rowred)
		f->rowred[x] |= f->rowred[y];
}

void anchor(F *f, Value *v, int64_t elems)
{
	anchor_dim(f, v, elems, v->type->rank - 1);
}

void anchor_dim(F *f, Value *v, int64_t elems, int d)
{
	int r = find(f, v->id);
	int64_t s = v->type->rank > 0 && d >= 0 && d < v->type->rank ? tile_dim_stride(v->type, d) : 1;
	merge_anchor(f, r, elems < 1 ? 1 : elems, s);
	if (v->type->elem->kind == TY_SCALAR && v->type->elem->scalar == SC_F4E2M1FN)
		f->pairs[r] = true;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static bool pow2(int64_t x) { return ilog2_exact(x) >= 0; }

/* The register layout of an n-element tile with rows of `row` elements in
 * which each thread holds `hold` elements of one row as hold/vec runs of
 * `vec` consecutive elements; the row's lanes (row/hold of them, across
 * warps if more than 32) take consecutive runs, so run k of every thread
 * of a row lies in one stretch of vec*row/hold elements: NVIDIA's softmax
 * layout (a warp a 256-wide f32 row, lane-interleaved, eight 4-byte
 * accesses of 128 contiguous bytes). Other lanes and warps take the next
 * rows, then registers repeat over rows. False (the caller falls back to
 * contiguous runs) unless everything is a power of two and fits. */
static bool row_interleaved(int64_t n, int64_t row, int64_t hold, int64_t vec, int warps, Layout *out)
{
	int64_t threads = 32 * (int64_t)warps;
	if (!pow2(n) || !pow2(row) || !pow2(hold) || !pow2(vec) || !pow2(warps) || n < threads ||
	    n % row || row % hold || hold % vec || hold == vec)
		return false;
	int64_t per = n / threads, lanes_row = row / hold;   /* threads a row spans */
	if (lanes_row > threads || per % hold)
		return false;
	int64_t groups = threads / lanes_row;                /* rows the threads cover at once */
	int64_t vs[3] = { vec, hold / vec, per / hold }, vd[3] = { 1, vec * lanes_row, groups * row };
	int64_t ls[2], ld[2], ws[2], wd[2];
	int nl, nw;
	if (lanes_row >= 32) {
		ls[0] = 32; ld[0] = vec; nl = 1;
		ws[0] = lanes_row / 32; wd[0] = 32 * vec;
		ws[1] = threads / lanes_row; wd[1] = row; nw = 2;
	} else {
		ls[0] = lanes_row; ld[0] = vec;
		ls[1] = 32 / lanes_row; ld[1] = row; nl = 2;
		ws[0] = warps; wd[0] = row * (32 / lanes_row); nw = 1;
	}
	layout_init(out);
	layout_add_mode(out, 3, vs, vd);
	layout_add_mode(out, nl, ls, ld);
	layout_add_mode(out, nw, ws, wd);
	layout_canonicalize(out);
	const char *err;     /* n slots covering n elements: one to one */
	return layout_check_tile(out, n, warps, &err);
}

/* The blocked layout of tile type t whose chunks of vec run down tile dim
 * d: the blocked layout of the tile with d moved innermost, pushed back
 * through that permutation (libcommon layout_map), so consecutive lanes
 * take consecutive chunks of a column. False if not powers of two. */
static bool column_blocked(const Type *t, int d, int64_t vec, int warps, Layout *out)
{
	int64_t perm[8];
	int k = 0;
	if (t->rank > 8)
		return false;
	for (int i = 0; i < t->rank; i++)
		if (i != d)
			perm[k++] = i;
	perm[k] = d;
	BitMap m;       /* offsets of the permuted tile -> offsets of t */
	Layout moved;
	const char *err;
	return bitmap_permute(&m, t->rank, t->shape, perm) &&
	       layout_blocked(type_num_elements(t), vec, warps, &moved) && layout_push(&moved, &m, out) &&
	       layout_check_tile(out, type_num_elements(t), warps, &err);
}

void assign_blocked(F *f, int root, Value *v)
{
	int64_t n = type_num_elements(v->type);
	int64_t threads = 32 * (int64_t)f->warps;
	int64_t per = n / threads > 0 ? n / threads : 1;
	int64_t vec;
	if (n == 1) {
		layout_replicated(f->warps, &f->lay[root]);
		f->assigned[root] = true;
		return;
	}
	if (f->vmax[root]) {
		vec = min64(f->vmax[root], per);
		if (f->pairs[root] && vec < 2 && n % 2 == 0)
			vec = 2;        /* a thread holds whole bytes of f4, replicated if need be */
		/* chunks down a column (a transposed view's memory order) */
		int64_t s = f->vstride[root];
		for (int d = 0; s > 1 && vec > 1 && d < v->type->rank; d++)
			if (tile_dim_stride(v->type, d) == s && v->type->shape[d] >= vec &&
			    column_blocked(v->type, d, vec, f->warps, &f->lay[root])) {
				f->assigned[root] = true;
				return;
			}
		if (s > 1)
			vec = 1;        /* no such layout: element by element */
	} else {
		int eb = elem_bytes(v->type->elem);
		vec = min64(per, eb ? 16 / eb : 1);
	}
	/* A tile reduced along its rows keeps as much of each row in one thread
	 * as it has elements per thread (NVIDIA's choice too): the reduction is
	 * then mostly in registers and a row spans fewer lanes, never more warps
	 * than it must. Its elements in a thread are runs of the access width,
	 * interleaved with the other lanes of the row (row_interleaved), so a
	 * warp's access covers whole runs of each row; an unaligned MMA operand
	 * (ROW_MMA, mma.c) keeps one contiguous run, loaded in several accesses. */
	if (f->rowred[root] && v->type->rank > 0 && !f->plain) {
		int64_t row = v->type->shape[v->type->rank - 1];
		int64_t want = min64(per, row);
		if (f->rowred[root] == ROW_REDUCED && !knobs()->TILE_SCHED_CONTIGUOUS_ROWS &&
		    row_interleaved(n, row, want, min64(vec, want), f->warps, &f->lay[root])) {
			f->assigned[root] = true;
			return;
		}
		if (vec < want)
			vec = want;
	}
	int64_t p = 1;
	while (p * 2 <= vec)
		p *= 2;
	if (!layout_blocked(n, p, f->warps, &f->lay[root]))
		ice("tile-sched: no blocked layout for %s", v->type->str);
	f->assigned[root] = true;
}

void set_layout(Module *m, Value *v, const Layout *l)
{
	char buf[512];
	v->layout = attr_string(m, layout_str(l, buf, sizeof buf));
	Layout *p = arena_alloc(m->arena, sizeof *p);
	if (!layout_parse(v->layout->u.s, p, NULL))      /* what a reader of the output gets */
		ice("tile-sched: layout '%s' does not parse back", v->layout->u.s);
	v->lay = p;
}
