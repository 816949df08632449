/* lower_ops.c: cuda_tile -> nv_tileaa for atomics and the views that are
 * not partition or strided views (docs/lowering.md §9; to_aa.c makes
 * strided-view loads and stores tiled ones stepping by the traversal strides).
 *
 *   atomic_rmw_tko, atomic_cas_tko   nv_tileaa.atomic_rmw / atomic_cas on the
 *                                    same pointer tile, mask and token
 *   atomic_red_view_tko              pointers and an in-bounds mask computed
 *                                    from the view (element coordinates times
 *                                    strides), then nv_tileaa.atomic_rmw whose
 *                                    old values nobody reads (so: red)
 *   load/store_view_tko on a         the same pointer arithmetic, then
 *   strided_view or a                nv_tileaa.load / store with the mask
 *   gather_scatter_view              (and the padding value as a tile)
 *
 * The pointer arithmetic is ordinary cuda_tile IR (iota, reshape, broadcast,
 * exti, muli, addi, cmpi, andi, offset), so tile-sched and tile-ptx need
 * nothing new for it. Element coordinates:
 *   partition_view  tile dim i, tensor dim d = dim_map[i]: index_i * tile_i + c_i
 *   strided_view    index_i * traversal_stride_i + c_i
 *   gather_scatter  sparse dim: the index tile's element c_sd; others
 *                   index_i + c_i (an element offset, cuTile's Slice.start)
 * An element is in bounds when every coordinate is below its tensor size
 * (unsigned compare, so negative gather indices are out); a dim whose
 * `inbounds` flag is set (13.4) or that provably never overhangs gets no
 * check. */
#include <string.h>
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"
#include "diag.h"

typedef struct B {         /* an insertion point for new ops */
	Module *m;
	Op *at;
	const Loc *loc;
} B;

static const Type *tile_of(Module *m, ScalarKind k, int rank, const int64_t *shape)
{
	return type_tile(m, type_scalar(m, k), rank, shape);
}

static Op *emit(B *b, enum OpCode code, int n, Value **ops, const Type *t)
{
	Op *o = op_build(b->m, code, n, ops, t ? 1 : 0, t ? &t : NULL, b->loc);
	op_insert_before(b->at, o);
	return o;
}

static Value *v2(B *b, enum OpCode code, Value *x, Value *y, const Type *t)
{
	Value *ops[2] = { x, y };
	Op *o = emit(b, code, 2, ops, t);
	if (code == CT_addi || code == CT_muli)
		op_set_attr(b->m, o, "overflow", attr_string(b->m, "none"));
	return o->results[0];
}

static Value *cst(B *b, const Type *t, int64_t v)
{
	Op *c = const_int_op(b->m, t, v, b->loc);
	op_insert_before(b->at, c);
	return c->results[0];
}

/* A scalar (rank 0) or tile integer value as i64 of the same shape. */
static Value *to_i64(B *b, Value *v)
{
	const Type *t = v->type;
	if (t->elem->scalar == SC_I64)
		return v;
	const Type *rt = tile_of(b->m, SC_I64, t->rank, t->shape);
	Op *o = emit(b, CT_exti, 1, &v, rt);
	op_set_attr(b->m, o, "signedness", attr_string(b->m, "signed"));
	return o->results[0];
}

/* Reshape + broadcast a tile (rank 0, or rank 1 placed at dim `dim`) to `shape`. */
static Value *spread(B *b, Value *v, int rank, const int64_t *shape, int dim)
{
	const Type *et = v->type->elem;
	int64_t ones[8];
	for (int i = 0; i < rank; i++)
		ones[i] = 1;
	if (v->type->rank == 1)
		ones[dim] = v->type->shape[0];
	const Type *rt = type_tile(b->m, et, rank, ones);
	if (rt != v->type)
		v = emit(b, CT_reshape, 1, &v, rt)->results[0];
	const Type *ft = type_tile(b->m, et, rank, shape);
	if (ft != v->type)
		v = emit(b, CT_broadcast, 1, &v, ft)->results[0];
	return v;
}

/* The tensor size / stride d of a memref (make_memref) as scalar i64. */
static Value *memref_dim(B *b, Value *memref, int d, bool stride)
{
	const Type *tv = memref->type;
	const Type *i64 = tile_of(b->m, SC_I64, 0, NULL);
	int64_t s = stride ? tv->strides[d] : tv->shape[d];
	if (s != DYN_DIM)
		return cst(b, i64, s);
	Op *mr = memref->def;
	int start, k = 0;
	op_group(mr, stride ? 2 : 1, &start);
	for (int i = 0; i < d; i++)
		k += (stride ? tv->strides[i] : tv->shape[i]) == DYN_DIM;
	return to_i64(b, mr->operands[start + k]);
}

static bool flag_at(const Attr *a, int i)
{
	if (!a)
		return false;
	if (a->kind == AT_INTS)
		return i < a->u.ints.n && a->u.ints.v[i] != 0;
	if (a->kind == AT_ARRAY)
		return i < a->u.array.n && a->u.array.v[i]->kind == AT_BOOL && a->u.array.v[i]->u.i;
	return false;
}

/* Pointers and in-bounds mask of the elements of a view tile.
 * idx: the view's index operands (n = view rank). */
typedef struct Addr { Value *ptrs, *mask; } Addr;

static bool view_addresses(B *b, Op *user, Value *view, Value **idx, const Attr *inbounds, Addr *out)
{
	Module *m = b->m;
	Op *mv = view->def;
	const Type *vt = view->type;
	if (!mv || (mv->info->code != CT_make_partition_view && mv->info->code != CT_make_strided_view &&
		    mv->info->code != CT_make_gather_scatter_view)) {
		diag_error(user->loc, "'%s' op: a view that is not made in the same kernel is not supported",
			   user->info->name);
		return false;
	}
	Value *memref = mv->operands[0];
	if (!memref->def || memref->def->info->code != AA_make_memref) {
		diag_error(user->loc, "'%s' op: a tensor view that is not made by make_tensor_view "
			   "in the same kernel is not supported", user->info->name);
		return false;
	}
	const Type *tv = vt->view;
	int r = vt->rank;
	const int64_t *T = vt->shape;
	const Type *i64s = tile_of(m, SC_I64, r, T);
	const Type *i1s = tile_of(m, SC_I1, r, T);
	Value *off = NULL, *mask = NULL;
	for (int i = 0; i < r; i++) {
		int d = vt->dim_map ? (int)vt->dim_map[i] : i;
		Value *coord;
		bool in = flag_at(inbounds, i);
		if (vt->kind == TY_GATHER_SCATTER_VIEW && i == vt->sparse_dim) {
			coord = spread(b, to_i64(b, idx[i]), r, T, i);
		} else {
			/* a gather/scatter view's dense index is an element offset (cuTile's
			 * Slice.start; NVIDIA's index space there is the tensor size) */
			int64_t step = vt->kind == TY_STRIDED_VIEW ? vt->strides[i]
				: vt->kind == TY_GATHER_SCATTER_VIEW ? 1 : T[i];
			Value *base = step == 1 ? to_i64(b, idx[i])
				: v2(b, CT_muli, to_i64(b, idx[i]), cst(b, tile_of(m, SC_I64, 0, NULL), step),
				     tile_of(m, SC_I64, 0, NULL));
			const Type *it = tile_of(m, SC_I64, 1, &T[i]);
			Value *io = emit(b, CT_iota, 0, NULL, it)->results[0];
			coord = v2(b, CT_addi, spread(b, base, r, T, i), spread(b, io, r, T, i), i64s);
			/* a partition never overhangs a dim whose static size is a multiple of the tile */
			if (vt->kind == TY_PARTITION_VIEW && tv->shape[d] != DYN_DIM && tv->shape[d] % T[i] == 0)
				in = true;
		}
		if (!in) {
			Value *size = spread(b, memref_dim(b, memref, d, false), r, T, i);
			Op *c = emit(b, CT_cmpi, 2, (Value *[]){ coord, size }, i1s);
			op_set_attr(m, c, "comparison_predicate", attr_string(m, "less_than"));
			op_set_attr(m, c, "signedness", attr_string(m, "unsigned"));
			mask = mask ? v2(b, CT_andi, mask, c->results[0], i1s) : c->results[0];
		}
		Value *stride = memref_dim(b, memref, d, true);
		Value *term = tv->strides[d] == 1 ? coord
			: v2(b, CT_muli, coord, spread(b, stride, r, T, i), i64s);
		off = off ? v2(b, CT_addi, off, term, i64s) : term;
	}
	Value *base = memref->def->operands[0];          /* tile<ptr<E>> */
	Value *pb = spread(b, base, r, T, 0);
	out->ptrs = v2(b, CT_offset, pb, off, pb->type);
	out->mask = mask;
	return true;
}

static const Attr *segs(Module *m, int n, const int64_t *v)
{
	return attr_ints(m, n, v);
}

static void copy_attr(Module *m, Op *to, const Op *from, const char *name)
{
	const Attr *a = op_attr(from, name);
	if (a)
		op_set_attr(m, to, name, a);
}

/* A splat constant of tile type t holding padding value p (float bits or 0). */
static Value *padding_tile(B *b, const Type *t, PaddingValue p)
{
	const Type *e = t->elem;
	int nb = elem_bytes(e);
	uint64_t bits = 0;
	if (scalar_is_float(e->scalar) && p != PAD_ZERO) {
		int w = scalar_bits(e->scalar);
		uint64_t sign = (uint64_t)1 << (w - 1);
		int mant = e->scalar == SC_F16 ? 10 : e->scalar == SC_BF16 ? 7 : e->scalar == SC_F32 ? 23 :
			   e->scalar == SC_F64 ? 52 : e->scalar == SC_F8E4M3FN ? 3 : 2;
		uint64_t expmask = (sign - 1) & ~(((uint64_t)1 << mant) - 1);
		switch (p) {
		case PAD_NEG_ZERO: bits = sign; break;
		case PAD_NAN: bits = expmask | ((uint64_t)1 << (mant - 1)); break;
		case PAD_POS_INF: bits = expmask; break;
		case PAD_NEG_INF: bits = expmask | sign; break;
		default: break;
		}
		if (e->scalar == SC_F8E4M3FN)          /* no infinities: NaN is S.1111.111 */
			bits = p == PAD_NEG_ZERO ? 0x80 : p == PAD_NEG_INF ? 0xff : 0x7f;
	}
	uint8_t bytes[8];
	for (int i = 0; i < nb && i < 8; i++)
		bytes[i] = (uint8_t)(bits >> (8 * i));
	Op *c = op_build(b->m, CT_constant, 0, NULL, 1, &t, b->loc);
	op_set_attr(b->m, c, "value", attr_dense(b->m, t, (size_t)nb, bytes, true));
	op_insert_before(b->at, c);
	return c->results[0];
}

bool lower_is_pointer_view(Value *v)
{
	return v->type->kind == TY_STRIDED_VIEW || v->type->kind == TY_GATHER_SCATTER_VIEW;
}

/* load_view_tko / store_view_tko on a gather/scatter view (a strided one
 * works too, element by element; to_aa.c sends those to tiled_load). */
bool lower_pointer_view_mem(Module *m, Op *fn, Op *op)
{
	bool store = op->info->code == CT_store_view_tko;
	int vi = store ? 1 : 0;
	Value *view = op->operands[vi];
	int is, ni = op_group(op, store ? 2 : 1, &is);
	Value *tok = op_group_value(op, store ? 3 : 2);
	if (ni != view->type->rank)
		return false;
	B b = { m, op, op->loc };
	Addr a;
	if (!view_addresses(&b, op, view, op->operands + is, op_attr(op, "inbounds"), &a))
		return false;
	Value *ops[4];
	int n = 0;
	ops[n++] = a.ptrs;
	if (store)
		ops[n++] = op->operands[0];
	if (a.mask)
		ops[n++] = a.mask;
	Value *pad = NULL;
	if (!store && view->type->padding != PAD_NONE && a.mask)
		ops[n++] = pad = padding_tile(&b, op->results[0]->type, view->type->padding);
	if (tok)
		ops[n++] = tok;
	const Type *rt[2];
	int nr = 0;
	if (!store)
		rt[nr++] = op->results[0]->type;
	rt[nr++] = type_token(m);
	Op *o = op_build(m, store ? AA_store : AA_load, n, ops, nr, rt, op->loc);
	int64_t sg[4] = { 1, store ? 1 : a.mask != NULL, store ? a.mask != NULL : pad != NULL, tok != NULL };
	op_set_attr(m, o, "operand_segment_sizes", segs(m, 4, sg));
	copy_attr(m, o, op, "memory_scope");
	const Attr *sem = op_attr(op, "memory_ordering_semantics");
	op_set_attr(m, o, "memory_ordering_semantics", sem ? sem : attr_string(m, "weak"));
	op_insert_before(op, o);
	for (int i = 0; i < op->nresults; i++)
		replace_uses(fn, op->results[i], o->results[i]);
	op_remove(op);
	return true;
}

/* atomic_red_view_tko %view[%idx...], %value, token -> atomic_rmw on pointers. */
static bool lower_red_view(Module *m, Op *fn, Op *op)
{
	int is, ni = op_group(op, 1, &is);
	int vs, nv = op_group(op, 2, &vs);
	Value *tok = op_group_value(op, 3);
	Value *view = op->operands[0];
	if (ni != view->type->rank || nv != 1)
		return false;
	B b = { m, op, op->loc };
	Addr a;
	if (!view_addresses(&b, op, view, op->operands + is, op_attr(op, "inbounds"), &a))
		return false;
	Value *val = op->operands[vs];
	Value *ops[4] = { a.ptrs, val };
	int n = 2;
	if (a.mask)
		ops[n++] = a.mask;
	if (tok)
		ops[n++] = tok;
	const Type *rt[2] = { val->type, type_token(m) };
	Op *o = op_build(m, AA_atomic_rmw, n, ops, 2, rt, op->loc);
	op_set_attr(m, o, "operand_segment_sizes", segs(m, 4, (int64_t[]){ 1, 1, a.mask != NULL, tok != NULL }));
	copy_attr(m, o, op, "mode");
	copy_attr(m, o, op, "memory_ordering_semantics");
	copy_attr(m, o, op, "memory_scope");
	op_insert_before(op, o);
	replace_uses(fn, op->results[0], o->results[1]);
	op_remove(op);
	return true;
}

/* The atomics: rename, keeping operands (and their segments) and attributes. */
bool lower_atomic(Module *m, Op *fn, Op *op)
{
	switch (op->info->code) {
	case CT_atomic_rmw_tko:
		op->info = &op_table[AA_atomic_rmw];
		return op_attr(op, "operand_segment_sizes") != NULL;
	case CT_atomic_cas_tko:
		op->info = &op_table[AA_atomic_cas];
		return op_attr(op, "operand_segment_sizes") != NULL;
	case CT_atomic_red_view_tko:
		return lower_red_view(m, fn, op);
	default:
		return false;
	}
}

/* get_index_space_shape of a strided view: ceil(size / traversal stride) per
 * tile dim, as NVIDIA's tileiras computes it (the tile size does not enter).
 * A gather/scatter view is indexed by element in every dim (the sparse dim's
 * index tile holds element coordinates, a dense dim's index is an element
 * offset), so its index space is the tensor's shape, as NVIDIA's is. */
bool lower_pointer_view_shape(Module *m, Op *fn, Op *op)
{
	Value *view = op->operands[0];
	const Type *vt = view->type;
	Op *mv = view->def;
	if ((vt->kind != TY_STRIDED_VIEW && vt->kind != TY_GATHER_SCATTER_VIEW) || !mv ||
	    (mv->info->code != CT_make_strided_view && mv->info->code != CT_make_gather_scatter_view) ||
	    !mv->operands[0]->def || mv->operands[0]->def->info->code != AA_make_memref) {
		diag_error(op->loc, "'%s' op on this view is not supported", op->info->name);
		return false;
	}
	B b = { m, op, op->loc };
	Value *memref = mv->operands[0];
	for (int i = 0; i < op->nresults && i < vt->rank; i++) {
		const Type *t = op->results[i]->type;
		int d = vt->dim_map ? (int)vt->dim_map[i] : i;
		Value *size = memref_dim(&b, memref, d, false);          /* i64 */
		Value *q = size;
		if (vt->kind == TY_STRIDED_VIEW && vt->strides[i] != 1) {
			q = v2(&b, CT_divi, size, cst(&b, size->type, vt->strides[i]), size->type);
			op_set_attr(m, q->def, "signedness", attr_string(m, "signed"));
			op_set_attr(m, q->def, "rounding", attr_string(m, "positive_inf"));
		}
		if (t->elem->scalar != SC_I64) {
			Op *tr = emit(&b, CT_trunci, 1, &q, t);
			op_set_attr(m, tr, "overflow", attr_string(m, "none"));
			q = tr->results[0];
		}
		replace_uses(fn, op->results[i], q);
	}
	op_remove(op);
	return true;
}
