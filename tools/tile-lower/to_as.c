/* to_as.c: nv_tileaa -> nv_tileas (see lower.h, docs/lowering.md §3).
 *
 * Every nv_tileaa op becomes its nv_tileas counterpart. Memory ops choose
 * their copy: for now always "vec_ldst" (per-thread vectorized ld.global /
 * st.global), with vector_bytes = the widest access (<= 16 bytes) that the
 * alignment facts prove legal for every thread's chunk: base alignment,
 * stride and tile-offset divisibility, a unit innermost stride, and (when
 * the tile can overhang the innermost dim) a size divisible by the chunk so
 * a chunk is wholly in or out of bounds. tile-sched sizes per-thread chunks
 * to it. Also checks per-target element types (f8 needs TF_FP8, ...). */
#include <stdlib.h>
#include <string.h>
#include "lower.h"
#include "opinfo.h"
#include "irutil.h"
#include "knobs.h"
#include "diag.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Widest legal access in bytes for a tiled load/store (see the file comment).
 * f4E2M1FN is packed two to a byte, element 2i in the low nibble: sizes
 * and strides count bytes as half the elements; 0 when a static odd
 * stride or tile width would split a byte between rows or tiles (a
 * dynamic stride is taken to be even, as a packed f4 tensor's must be). */
static int64_t tiled_vector_bytes(const Op *op)
{
	const Type *tv = op->operands[0]->type;
	const Op *mr = op->operands[0]->def;
	bool f4 = tv->elem->kind == TY_SCALAR && tv->elem->scalar == SC_F4E2M1FN;
	int eb = f4 ? 1 : elem_bytes(tv->elem);
	int per = f4 ? 2 : 1;               /* elements per byte-granular unit of eb bytes */
	int r = tv->rank;
	if (eb == 0 || r == 0)
		return eb ? eb : 1;
	/* the tile dim that walks the view's innermost dim: the last for the
	 * identity map; a transposed view's (K read through K^T) vectors run
	 * down a column of the tile (tile-sched lays them out so) */
	int vd = tiled_vector_dim(op, r);
	if (f4 && (tv->strides[r - 1] != 1 || vd != r - 1))
		return 0;
	if (tv->strides[r - 1] != 1)
		return eb;                      /* innermost stride not known to be 1 */
	if (vd != r - 1 && knobs()->TILE_LOWER_NO_COLUMN_VECTORS)
		return eb;
	const Attr *ta = op_attr(op, "tile");
	int64_t tile_last = ta->u.ints.v[vd];
	int64_t step_last = op_attr_int_at(op, "step", vd, tile_last);    /* where tiles start */
	int64_t vb = 16;
	const Attr *ba = op_attr(mr, "base_align");
	vb = min64(vb, ba ? ba->u.i : eb);
	for (int d = 0; d < r - 1; d++) {
		int64_t s = tv->strides[d] != DYN_DIM ? pow2_factor(tv->strides[d])
						      : per * op_attr_int_at(mr, "stride_div_by", d, 1);
		vb = min64(vb, s / per * eb);
	}
	vb = min64(vb, pow2_factor(step_last) / per * eb);   /* offset of the tile along the row */
	vb = min64(vb, tile_last / per * eb);                /* a chunk stays in one row */
	if (!op_attr_int_at(op, "in_bounds", vd, 0)) {
		int64_t sz = tv->shape[r - 1] != DYN_DIM ? pow2_factor(tv->shape[r - 1])
							 : per * op_attr_int_at(mr, "shape_div_by", r - 1, 1);
		vb = min64(vb, sz / per * eb);
	}
	if (f4)
		return vb < 1 ? 0 : vb;
	return vb < eb ? eb : vb;
}

static bool elem_ok(const Type *t, const Target *tg, const Op *op)
{
	const Type *e = t && t->kind == TY_TILE ? t->elem : NULL;
	if (!e || e->kind != TY_SCALAR)
		return true;
	bool ok = true;
	switch (e->scalar) {
	case SC_F8E4M3FN: case SC_F8E5M2: ok = target_has(tg, TF_FP8); break;
	case SC_F8E8M0FNU: case SC_F4E2M1FN: ok = target_has(tg, TF_FP4); break;
	case SC_BF16: ok = tg->sm >= 80; break;
	case SC_TF32: ok = target_has(tg, TF_TF32); break;
	case SC_F8E5M3FNU: ok = false; break;        /* sm_107 only, which LLVM 22 and ptxas 13.0 lack */
	default: break;
	}
	if (!ok)
		diag_error(op->loc, "'%s' op: %s%s not supported on %s", op->info->name,
			   e->scalar == SC_F8E4M3FN || e->scalar == SC_F8E5M2 ? "8-bit floats" : e->str,
			   e->scalar == SC_F8E4M3FN || e->scalar == SC_F8E5M2 ? " are" : " is", tg->name);
	return ok;
}

typedef struct S { Module *m; const Target *t; int errors; } S;

static int to_as(Op *op, void *ctx)
{
	S *s = ctx;
	Module *m = s->m;
	for (int i = 0; i < op->nresults; i++)
		if (!elem_ok(op->results[i]->type, s->t, op)) {
			s->errors++;
			break;
		}
	if (op->info->dialect != DIALECT_NV_TILEAA)
		return 0;
	if (op->info->code != AA_make_memref && op->info->code != AA_create_mem_token &&
	    op->info->code != AA_join_mem_token) {
		const Value *v = op->info->code == AA_tiled_load || op->info->code == AA_load
			? op->results[0] : op->operands[1];
		bool tiled_f4 = (op->info->code == AA_tiled_load || op->info->code == AA_tiled_store) &&
				v->type->elem->kind == TY_SCALAR && v->type->elem->scalar == SC_F4E2M1FN;
		if (elem_bytes(v->type->elem) == 0 && !tiled_f4) {
			diag_error(op->loc, "'%s' op: memory access to %s elements is not supported%s",
				   op->info->name, v->type->elem->str,
				   v->type->elem->scalar == SC_F4E2M1FN ? " (only through a partition view)" : "");
			s->errors++;
			return 0;
		}
	}
	switch (op->info->code) {
	case AA_make_memref:
		/* NVIDIA's rule and message (13.5): multicast memory only on these */
		if (op->results[0]->type->ptr_attr == PTR_ATTR_MULTICAST && s->t->sm != 100 && s->t->sm != 103 &&
		    s->t->sm != 107) {
			diag_error(op->loc, "Incompatibility with architecture '%s': multicast pointers require "
				   "sm_100 or sm_103 or sm_107", s->t->name);
			s->errors++;
			return 0;
		}
		op->info = &op_table[AS_make_memref];
		break;
	case AA_create_mem_token: op->info = &op_table[AS_create_mem_token]; break;
	case AA_join_mem_token: op->info = &op_table[AS_join_mem_token]; break;
	case AA_tiled_load:
	case AA_tiled_store: {
		int64_t vb = tiled_vector_bytes(op);
		if (vb == 0) {
			diag_error(op->loc, "'%s' op: f4E2M1FN elements are packed two to a byte: the view needs a "
				   "unit innermost stride, even outer strides and an even tile width, in the "
				   "tensor's own dimension order", op->info->name);
			s->errors++;
			return 0;
		}
		if (op_attr(op, "multimem"))       /* multimem.* one element at a time */
			vb = elem_bytes((op->info->code == AA_tiled_load ? op->results[0] : op->operands[1])->type->elem);
		op_set_attr(m, op, "copy", attr_string(m, "vec_ldst"));
		op_set_attr(m, op, "vector_bytes", attr_int(m, vb, NULL));
		op->info = &op_table[op->info->code == AA_tiled_load ? AS_tiled_load : AS_tiled_store];
		break;
	}
	case AA_load:
	case AA_store: {
		op_set_attr(m, op, "copy", attr_string(m, "vec_ldst"));
		op_set_attr(m, op, "vector_bytes", attr_int(m, lower_ptr_vector_bytes(op), NULL));
		op->info = &op_table[op->info->code == AA_load ? AS_load : AS_store];
		break;
	}
	case AA_atomic_rmw: op->info = &op_table[AS_atomic_rmw]; break;   /* per element, tile-ptx */
	case AA_atomic_cas: op->info = &op_table[AS_atomic_cas]; break;
	default:
		ice("tile-lower: no nv_tileas form for '%s'", op->info->name);
	}
	return 0;
}

int lower_to_as(Module *m, const Target *t)
{
	S s = { m, t, 0 };
	module_walk(m, to_as, &s);
	m->stage = "nv_tileas";
	return s.errors;
}
