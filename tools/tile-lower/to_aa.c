/* to_aa.c: cuda_tile -> nv_tileaa (see lower.h, docs/lowering.md §2).
 *
 * Rewrites in place. Compute and control-flow ops stay cuda_tile ops; what
 * changes is memory: make_tensor_view becomes nv_tileaa.make_memref carrying
 * the divisibility facts of its operands (from cuda_tile.assume), each
 * partition view disappears into the tiled_load / tiled_store that use it
 * (a strided view too, with the traversal strides as the tiles' `step`),
 * pointer loads/stores and tokens get their nv_tileaa names, and shape
 * queries become arithmetic on the memref's sizes. */
#include <string.h>
#include "lower.h"
#include "mma.h"
#include "opinfo.h"
#include "irutil.h"
#include "diag.h"

typedef struct Facts {
	int64_t div_by;     /* known divisor (power of two), 1 if none */
} Facts;

/* Facts about a scalar value: from the assume chain, or a constant. */
static Facts value_facts(Value *v)
{
	Facts f = { 1 };
	for (;;) {
		int64_t k;
		if (value_const_int(v, &k)) {
			int64_t p = pow2_factor(k);
			if (p > f.div_by)
				f.div_by = p;
			return f;
		}
		if (!v->def || v->def->info->code != CT_assume || v->def->noperands != 1)
			return f;
		const Attr *p = op_attr(v->def, "predicate");
		if (p && p->kind == AT_DIV_BY && !p->u.div_by.has_every && p->u.div_by.divisor > f.div_by)
			f.div_by = p->u.div_by.divisor;
		v = v->def->operands[0];
	}
}

static const Attr *ints_attr(Module *m, int n, const int64_t *v)
{
	return attr_ints(m, n, v);
}

/* make_tensor_view -> nv_tileaa.make_memref (same operands and result). */
static void lower_tensor_view(Module *m, Op *op)
{
	const Type *tv = op->results[0]->type;
	const Type *pt = op->operands[0]->type;
	int eb = elem_bytes(tv->elem);
	Facts pf = value_facts(op->operands[0]);
	int64_t align = pf.div_by > (eb ? eb : 1) ? pf.div_by : (eb ? eb : 1);
	int64_t sd[8] = {0}, st[8] = {0};
	int ds = 0, dst = 0;
	int s_start, t_start;
	if (op_group(op, 1, &s_start) < 0) {         /* no segments: infer */
		s_start = 1;
	}
	for (int i = 0; i < tv->rank; i++)
		if (tv->shape[i] == DYN_DIM)
			ds++;
	t_start = s_start + ds;
	int si = 0;
	for (int i = 0; i < tv->rank; i++) {
		if (tv->shape[i] == DYN_DIM)
			sd[i] = value_facts(op->operands[s_start + si++]).div_by;
		else
			sd[i] = pow2_factor(tv->shape[i]);
		if (tv->strides[i] == DYN_DIM)
			st[i] = value_facts(op->operands[t_start + dst++]).div_by;
		else
			st[i] = pow2_factor(tv->strides[i]);
	}
	(void)pt;
	op->info = &op_table[AA_make_memref];
	op_set_attr(m, op, "operand_segment_sizes",
		    ints_attr(m, 3, (int64_t[]){ 1, ds, dst }));
	op_set_attr(m, op, "base_align", attr_int(m, align, NULL));
	op_set_attr(m, op, "shape_div_by", ints_attr(m, tv->rank, sd));
	op_set_attr(m, op, "stride_div_by", ints_attr(m, tv->rank, st));
}

/* The memref value and static facts behind a partition or strided view value. */
typedef struct View {
	Op *pv;            /* the make_partition_view / make_strided_view */
	Value *memref;     /* its tensor_view operand (now a make_memref result) */
	const Type *vt;    /* the partition_view / strided_view type */
} View;

static bool view_of(Value *v, View *out, Op *user)
{
	if (!v->def || (v->def->info->code != CT_make_partition_view &&
			v->def->info->code != CT_make_strided_view)) {
		diag_error(user->loc, "'%s' op: a view that is not made by make_partition_view "
			   "in the same kernel is not supported", user->info->name);
		return false;
	}
	out->pv = v->def;
	out->memref = v->def->operands[0];
	out->vt = v->type;
	if (!out->memref->def || (out->memref->def->info->code != AA_make_memref &&
				  out->memref->def->info->code != CT_make_tensor_view)) {
		diag_error(user->loc, "'%s' op: a tensor view that is not made by make_tensor_view "
			   "in the same kernel is not supported", user->info->name);
		return false;
	}
	return true;
}

static int dim_of(const Type *vt, int i)
{
	return vt->dim_map ? (int)vt->dim_map[i] : i;
}

/* Known divisor of tensor dim d's size (after lower_tensor_view). */
static int64_t shape_div(Value *memref, int d)
{
	const Attr *a = op_attr(memref->def, "shape_div_by");
	return a && a->kind == AT_INTS && d < a->u.ints.n ? a->u.ints.v[d] : 1;
}

static void view_attrs(Module *m, Op *op, const View *v, const Attr *sem, const Attr *scope)
{
	const Type *vt = v->vt, *tv = vt->view;
	int r = vt->rank;
	int64_t ib[8];
	bool strided = vt->kind == TY_STRIDED_VIEW;
	for (int i = 0; i < r; i++) {
		int d = dim_of(vt, i);
		int64_t size = tv->shape[d];
		/* a strided tile i starts at index_i * step_i: it stays inside a size
		 * divisible by the step when it is no longer than the step */
		int64_t step = strided ? vt->strides[i] : vt->shape[i];
		bool in = size != DYN_DIM ? size % step == 0 : shape_div(v->memref, d) % step == 0;
		ib[i] = in && vt->shape[i] <= step;
	}
	op->nattrs = 0;
	op->attrs = NULL;
	op_set_attr(m, op, "tile", ints_attr(m, r, vt->shape));
	if (strided)
		op_set_attr(m, op, "step", ints_attr(m, r, vt->strides));
	op_set_attr(m, op, "in_bounds", ints_attr(m, r, ib));
	if (vt->dim_map)
		op_set_attr(m, op, "dim_map", ints_attr(m, r, vt->dim_map));
	if (vt->padding != PAD_NONE)
		op_set_attr(m, op, "padding", attr_string(m, padding_name(vt->padding)));
	op_set_attr(m, op, "memory_ordering_semantics", sem ? sem : attr_string(m, "weak"));
	if (scope)
		op_set_attr(m, op, "memory_scope", scope);
}

/* load_view_tko %view, %idx..., [%tok] -> nv_tileaa.tiled_load %memref, %idx..., [%tok] */
static bool lower_load_view(Module *m, Op *op)
{
	View v;
	if (!view_of(op->operands[0], &v, op))
		return false;
	int is, ni = op_group(op, 1, &is);
	int ts, nt = op_group(op, 2, &ts);
	if (ni < 0) {          /* no segments: view, indices = the rest but a token */
		is = 1;
		nt = op->operands[op->noperands - 1]->type->kind == TY_TOKEN;
		ni = op->noperands - 1 - nt;
	}
	const Attr *sem = op_attr(op, "memory_ordering_semantics");
	const Attr *scope = op_attr(op, "memory_scope");
	op->operands[0] = v.memref;
	op->info = &op_table[AA_tiled_load];
	view_attrs(m, op, &v, sem, scope);
	op_set_attr(m, op, "operand_segment_sizes", ints_attr(m, 3, (int64_t[]){ 1, ni, nt }));
	return true;
}

/* store_view_tko %tile, %view, %idx..., [%tok] -> tiled_store %memref, %tile, %idx..., [%tok] */
static bool lower_store_view(Module *m, Op *op)
{
	View v;
	if (!view_of(op->operands[1], &v, op))
		return false;
	int is, ni = op_group(op, 2, &is);
	int ts, nt = op_group(op, 3, &ts);
	if (ni < 0) {
		is = 2;
		nt = op->operands[op->noperands - 1]->type->kind == TY_TOKEN;
		ni = op->noperands - 2 - nt;
	}
	const Attr *sem = op_attr(op, "memory_ordering_semantics");
	const Attr *scope = op_attr(op, "memory_scope");
	Value *tile = op->operands[0];
	op->operands[0] = v.memref;
	op->operands[1] = tile;
	op->info = &op_table[AA_tiled_store];
	view_attrs(m, op, &v, sem, scope);
	op_set_attr(m, op, "operand_segment_sizes", ints_attr(m, 4, (int64_t[]){ 1, 1, ni, nt }));
	return true;
}

/* 13.5's multimem ops become the tiled load / store of their view, marked
 * with what tile-ptx emits for each element (attribute `multimem`:
 * ld_reduce -> multimem.ld_reduce, red -> multimem.red, st -> multimem.st)
 * and the `reduction` kept. Operands (view, tile, idx..., tok) of the two
 * stores are put in store_view_tko's order (tile, view, ...) first. */
static bool lower_multimem(Module *m, Op *op)
{
	int code = op->info->code;
	const Attr *red = op_attr(op, "reduction");
	bool ok;
	if (code == CT_multimem_load_reduce_view_tko) {
		ok = lower_load_view(m, op);
	} else {
		Value *t = op->operands[0];
		op->operands[0] = op->operands[1];
		op->operands[1] = t;
		ok = lower_store_view(m, op);
	}
	if (!ok)
		return false;
	op_set_attr(m, op, "multimem", attr_string(m, code == CT_multimem_load_reduce_view_tko ? "ld_reduce"
					      : code == CT_multimem_reduce_view_tko ? "red" : "st"));
	if (red)
		op_set_attr(m, op, "reduction", red);
	return true;
}

/* The size of tensor dim d of a memref as a scalar of type t, built before op. */
static Value *memref_size(Module *m, Value *memref, int d, const Type *t, Op *before)
{
	const Type *tv = memref->type;
	Op *mr = memref->def;
	if (tv->shape[d] != DYN_DIM) {
		Op *c = const_int_op(m, t, tv->shape[d], before->loc);
		op_insert_before(before, c);
		return c->results[0];
	}
	int s, k = 0;
	op_group(mr, 1, &s);
	for (int i = 0; i < d; i++)
		k += tv->shape[i] == DYN_DIM;
	Value *v = mr->operands[s + k];
	if (v->type == t)
		return v;
	int from = scalar_bits(v->type->elem->scalar), to = scalar_bits(t->elem->scalar);
	Op *cv = op_build(m, to > from ? CT_exti : CT_trunci, 1, &v, 1, &t, before->loc);
	if (to > from)
		op_set_attr(m, cv, "signedness", attr_string(m, "signed"));
	else
		op_set_attr(m, cv, "overflow", attr_string(m, "none"));
	op_insert_before(before, cv);
	return cv->results[0];
}

/* get_tensor_shape %tv and get_index_space_shape %view: replaced by sizes
 * (index space: ceil(size / tile) per tile dim). */
static bool lower_shape_query(Module *m, Op *op, Op *fn)
{
	Value *src = op->operands[0];
	bool index_space = op->info->code == CT_get_index_space_shape;
	View v = {0};
	Value *memref = src;
	if (index_space) {
		if (!view_of(src, &v, op))
			return false;
		memref = v.memref;
	} else if (!memref->def || memref->def->info->code != AA_make_memref) {
		diag_error(op->loc, "'%s' op on a tensor view not made by make_tensor_view "
			   "in the same kernel is not supported", op->info->name);
		return false;
	}
	for (int i = 0; i < op->nresults; i++) {
		const Type *t = op->results[i]->type;
		int d = index_space ? dim_of(v.vt, i) : i;
		Value *size = memref_size(m, memref, d, t, op);
		if (index_space) {
			Op *c = const_int_op(m, t, v.vt->shape[i], op->loc);
			op_insert_before(op, c);
			Value *ops[2] = { size, c->results[0] };
			Op *div = op_build(m, CT_divi, 2, ops, 1, &t, op->loc);
			op_set_attr(m, div, "signedness", attr_string(m, "signed"));
			op_set_attr(m, div, "rounding", attr_string(m, "positive_inf"));
			op_insert_before(op, div);
			size = div->results[0];
		}
		replace_uses(fn, op->results[i], size);
	}
	op_remove(op);
	return true;
}

typedef struct L {
	Module *m;
	const Target *target;
	Op *fn;
	int errors;
	Op **views;      /* partition views to delete at the end */
	int nviews, capviews;
} L;

static void lower_block(L *l, Block *b);

static void lower_op(L *l, Op *op)
{
	Module *m = l->m;
	if (!op_lower_accepts(op->info)) {
		diag_error(op->loc, "'%s' op is not supported by this compiler", op->info->name);
		l->errors++;
		return;
	}
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r])
			lower_block(l, b);
	bool ok = true;
	switch (op->info->code) {
	case CT_make_tensor_view:
		lower_tensor_view(m, op);
		break;
	case CT_make_partition_view:
		break;           /* removed once its users are lowered */
	case CT_load_view_tko:
		ok = op->operands[0]->type->kind == TY_GATHER_SCATTER_VIEW ? lower_pointer_view_mem(m, l->fn, op)
									   : lower_load_view(m, op);
		break;
	case CT_store_view_tko:
		ok = op->operands[1]->type->kind == TY_GATHER_SCATTER_VIEW ? lower_pointer_view_mem(m, l->fn, op)
									   : lower_store_view(m, op);
		break;
	case CT_multimem_load_reduce_view_tko: case CT_multimem_reduce_view_tko: case CT_multimem_store_view_tko:
		ok = lower_multimem(m, op);
		break;
	case CT_mmaf: case CT_mmai:
		if (op->operands[2]->type->rank == 3)
			ok = lower_batched_mma(m, l->fn, op, l->target->sm);
		else
			lower_k_chunks(m, l->fn, op, l->target->sm, NULL, 0, NULL);
		break;
	case CT_mmaf_scaled: {   /* kept for the block-scaled mma.sync where the target has it */
		/* first cut along K where its operands would not fit (k_chunks.c), then each part */
		Op *parts[256];
		int n = 0;
		lower_k_chunks(m, l->fn, op, l->target->sm, parts, 256, &n);
		for (int i = 0; i < n; i++)
			if (!mma_block_scaled_ok(parts[i], l->target->sm))
				ok = lower_scaled_mma(m, l->fn, parts[i], l->target->sm) && ok;
		break;
	}
	case CT_atomic_rmw_tko: case CT_atomic_cas_tko: case CT_atomic_red_view_tko:
		ok = lower_atomic(m, l->fn, op);
		break;
	case CT_make_strided_view: case CT_make_gather_scatter_view:
		break;           /* removed once its users are lowered */
	case CT_load_ptr_tko:
		op->info = &op_table[AA_load];
		if (!op_attr(op, "operand_segment_sizes"))
			ok = false;
		break;
	case CT_store_ptr_tko:
		op->info = &op_table[AA_store];
		if (!op_attr(op, "operand_segment_sizes"))
			ok = false;
		break;
	case CT_make_token:
		op->info = &op_table[AA_create_mem_token];
		break;
	case CT_join_tokens:
		op->info = &op_table[AA_join_mem_token];
		break;
	case CT_get_index_space_shape:
	case CT_get_tensor_shape:
		ok = op->info->code == CT_get_index_space_shape && lower_is_pointer_view(op->operands[0])
			? lower_pointer_view_shape(m, l->fn, op) : lower_shape_query(m, op, l->fn);
		break;
	default:
		break;
	}
	if (!ok) {
		if (diag_errors == 0)
			diag_error(op->loc, "'%s' op: malformed operands", op->info->name);
		l->errors++;
	}
}

static void lower_block(L *l, Block *b)
{
	for (Op *op = b->first, *next; op; op = next) {
		next = op->next;
		lower_op(l, op);
	}
}

/* Delete partition views nobody uses any more (all of them, once lowered). */
static int drop_views(Op *op, void *ctx)
{
	L *l = ctx;
	if (op->info->code == CT_make_partition_view || op->info->code == CT_make_strided_view ||
	    op->info->code == CT_make_gather_scatter_view) {
		if (has_uses(l->fn, op->results[0])) {
			diag_error(op->loc, "'%s' op: a partition view used other than by a load, "
				   "store or shape query is not supported", op->info->name);
			l->errors++;
		} else {
			op_remove(op);
		}
	}
	return 0;
}

int lower_to_aa(Module *m, const Target *t)
{
	L l = { .m = m, .target = t };
	FOR_EACH_OP(fn, &m->body) {
		if (fn->info->code == CT_global)
			continue;        /* globals stay as they are (tile-ptx defines them) */
		if (fn->info->code != CT_entry) {
			diag_error(fn->loc, "'%s' op is not supported by this compiler", fn->info->name);
			l.errors++;
			continue;
		}
		l.fn = fn;
		for (int r = 0; r < fn->nregions; r++)
			FOR_EACH_BLOCK(b, &fn->regions[r])
				lower_block(&l, b);
		if (!l.errors)
			op_walk(fn, drop_views, &l);
	}
	m->stage = "nv_tileaa";
	return l.errors;
}
