/* ptr_vec.c: how wide a load or store through a tile of pointers (a
 * gather or scatter, nv_tileaa.load / store) may go (lower.h,
 * docs/lowering.md §3). A cuTile gather at (row, arange(N)) builds its
 * pointers as base + row * stride + iota and its mask as iota < size: each
 * thread's run of consecutive elements is one vector access when the
 * pointers are consecutive and aligned and the mask and padding are the
 * same over the run.
 *
 * Facts about a tile along its last dim (as Triton's AxisInfo), each a
 * power of two: `contig`, the elements come in aligned runs of that many
 * consecutive values (pointers: consecutive elements); `div`, the first
 * value of each run is a multiple of it (pointers: bytes); `cons`, the
 * elements come in aligned runs of that many equal values. A rank-0 value
 * is one run of any length. Only the ops a gather's index arithmetic uses
 * are read (constant, assume div_by, iota, exti, reshape, broadcast, addi,
 * muli, offset, cmpi less_than / greater_than_or_equal, andi); anything
 * else is a run of one. The access is then min(contig, div / element
 * bytes, the mask's and padding's cons, 16 bytes) elements wide.
 *
 * Reads the IR only; calls libcommon. */
#include "lower.h"
#include "irutil.h"

#define BIG ((int64_t)1 << 30)

typedef struct AxisFacts {
	int64_t contig, div, cons;
} AxisFacts;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t pow2_floor(int64_t x)
{
	int64_t p = 1;
	while (p * 2 <= x && p < BIG)
		p *= 2;
	return p;
}

static int64_t last_dim(const Type *t)
{
	return t->rank > 0 ? t->shape[t->rank - 1] : 1;
}

static AxisFacts unknown(const Value *v)
{
	return (AxisFacts){ 1, 1, v->type->rank == 0 ? BIG : 1 };
}

/* f as runs of c (c <= f.contig): a run that starts inside one of f's runs
 * starts a multiple of c past that run's first value */
static int64_t div_at(AxisFacts f, int64_t c)
{
	return f.contig > c ? min64(f.div, c) : f.div;
}

/* a + b, elementwise (offset: b counted in units of `scale` bytes) */
static AxisFacts add_facts(AxisFacts a, AxisFacts b, int64_t scale)
{
	AxisFacts r;
	r.contig = max64(min64(a.contig, b.cons), min64(a.cons, b.contig));
	r.div = min64(div_at(a, r.contig), min64(BIG, div_at(b, r.contig) * scale));
	r.cons = min64(a.cons, b.cons);
	return r;
}

static AxisFacts facts(const Value *v, int depth)
{
	const Op *d = v->def;
	if (!d || depth > 32 || !type_is_tile(v->type))
		return unknown(v);
	int64_t k, n = last_dim(v->type);
	if (value_const_int(v, &k))
		return (AxisFacts){ 1, pow2_factor(k), BIG };
	const Value *a = d->noperands > 0 ? d->operands[0] : NULL;
	switch (d->info->code) {
	case CT_assume: {
		AxisFacts f = facts(a, depth + 1);
		const Attr *p = op_attr(d, "predicate");
		if (p && p->kind == AT_DIV_BY && !p->u.div_by.has_every && f.contig == 1)
			f.div = max64(f.div, min64(BIG, p->u.div_by.divisor));
		return f;
	}
	case CT_iota:
		return v->type->rank == 1 ? (AxisFacts){ n, BIG, 1 } : unknown(v);
	case CT_exti: {
		AxisFacts f = facts(a, depth + 1);
		if (op_attr_enum(d, "signedness", EK_SIGNEDNESS) == SIGNEDNESS_unsigned)     /* a run may wrap to zero */
			f.contig = 1;
		return f;
	}
	case CT_reshape:
	case CT_broadcast: {
		if (a->type->rank == 0)
			return (AxisFacts){ 1, facts(a, depth + 1).div, BIG };
		AxisFacts f = facts(a, depth + 1);
		if (d->info->code == CT_broadcast && a->type->rank == v->type->rank && last_dim(a->type) == 1)
			return (AxisFacts){ 1, div_at(f, 1), BIG };
		if (last_dim(a->type) == n && (d->info->code == CT_broadcast || n > 1))
			return f;       /* the same runs in every row */
		return unknown(v);
	}
	case CT_addi:
		return add_facts(facts(a, depth + 1), facts(d->operands[1], depth + 1), 1);
	case CT_offset: {
		int eb = elem_bytes(tile_elem(v->type)->elem);
		return add_facts(facts(a, depth + 1), facts(d->operands[1], depth + 1), eb > 0 ? eb : 1);
	}
	case CT_muli: {
		AxisFacts x = facts(a, depth + 1), y = facts(d->operands[1], depth + 1);
		if (value_const_int(d->operands[1], &k) && k == 1)
			return x;
		if (value_const_int(a, &k) && k == 1)
			return y;
		return (AxisFacts){ 1, min64(BIG, div_at(x, 1) * div_at(y, 1)), min64(x.cons, y.cons) };
	}
	case CT_cmpi: {
		AxisFacts x = facts(a, depth + 1), y = facts(d->operands[1], depth + 1);
		int64_t cons = min64(x.cons, y.cons);
		int p = op_attr_enum(d, "comparison_predicate", EK_CMP_PRED);
		if (p == CMP_PRED_less_than || p == CMP_PRED_greater_than_or_equal) {
			/* an aligned block of g consecutive values against a multiple
			 * of g: all below it or none (signed or not: the block does
			 * not cross a multiple of g, the wrap points included) */
			int64_t g = min64(min64(x.contig, x.div), min64(y.cons, div_at(y, 1)));
			cons = max64(cons, pow2_floor(g));
		}
		return (AxisFacts){ 1, 1, cons };
	}
	case CT_andi: {
		AxisFacts x = facts(a, depth + 1), y = facts(d->operands[1], depth + 1);
		return (AxisFacts){ 1, 1, min64(x.cons, y.cons) };
	}
	default:
		return unknown(v);
	}
}

int64_t lower_ptr_vector_bytes(const Op *op)
{
	bool store = op->info->code == AA_store;
	const Value *ptrs = op->operands[0];
	const Value *val = store ? op->operands[1] : op->results[0];
	int eb = elem_bytes(tile_elem(val->type));
	if (eb <= 0 || val->type->rank == 0)
		return eb > 0 ? eb : 1;
	AxisFacts p = facts(ptrs, 0);
	int64_t w = min64(min64(p.contig, p.div / eb), min64(16 / eb, last_dim(val->type)));
	const Value *mask = op_group_value(op, store ? 2 : 1), *other = store ? NULL : op_group_value(op, 2);
	if (mask)
		w = min64(w, facts(mask, 0).cons);
	if (other)
		w = min64(w, facts(other, 0).cons);
	return eb * pow2_floor(max64(w, 1));
}
