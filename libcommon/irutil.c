/* irutil.c: IR helpers for the lower stages (see irutil.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "irutil.h"
#include "diag.h"
#include "xalloc.h"

int op_group(const Op *op, int g, int *start)
{
	const Attr *s = op_attr(op, "operand_segment_sizes");
	if (!s || s->kind != AT_INTS || g >= s->u.ints.n)
		return -1;
	int at = 0;
	for (int i = 0; i < g; i++)
		at += (int)s->u.ints.v[i];
	*start = at;
	return (int)s->u.ints.v[g];
}

Value *op_group_value(const Op *op, int g)
{
	int start;
	int n = op_group(op, g, &start);
	return n > 0 && start < op->noperands ? op->operands[start] : NULL;
}

typedef struct RU { Value *from, *to; bool found; } RU;

static int ru_fn(Op *op, void *ctx)
{
	RU *r = ctx;
	for (int i = 0; i < op->noperands; i++)
		if (op->operands[i] == r->from) {
			r->found = true;
			if (r->to)
				op->operands[i] = r->to;
		}
	return 0;
}

void replace_uses(Op *root, Value *from, Value *to)
{
	RU r = { from, to, false };
	op_walk(root, ru_fn, &r);
}

bool has_uses(Op *root, Value *v)
{
	RU r = { v, NULL, false };
	op_walk(root, ru_fn, &r);
	return r.found;
}

Op *op_build(Module *m, enum OpCode code, int nops, Value *const *ops,
	     int nres, const Type *const *types, const Loc *loc)
{
	return op_new(m, &op_table[code], nops, ops, nres, types, 0, loc);
}

/* op_clone's map from op's values to the copy's: open addressing on the
 * pointer, grown at half full */
typedef struct CloneMap {
	const Value **from;
	Value **to;
	size_t cap, n;
} CloneMap;

static size_t clone_slot(const CloneMap *c, const Value *v)
{
	size_t h = ((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull;
	for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1))
		if (!c->from[i] || c->from[i] == v)
			return i;
}

static void clone_put(CloneMap *c, const Value *from, Value *to)
{
	if (2 * (c->n + 1) > c->cap) {
		CloneMap g = { xcalloc(2 * c->cap, sizeof *g.from), xcalloc(2 * c->cap, sizeof *g.to), 2 * c->cap, 0 };
		for (size_t i = 0; i < c->cap; i++)
			if (c->from[i])
				clone_put(&g, c->from[i], c->to[i]);
		free(c->from);
		free(c->to);
		*c = g;
	}
	size_t i = clone_slot(c, from);
	c->n += !c->from[i];
	c->from[i] = from;
	c->to[i] = to;
}

static Value *clone_get(const CloneMap *c, Value *v)
{
	size_t i = clone_slot(c, v);
	return c->from[i] ? c->to[i] : v;
}

static Op *clone_rec(Module *m, const Op *op, CloneMap *c)
{
	Value **ops = xmalloc(sizeof *ops * (size_t)(op->noperands + 1));
	const Type **types = xmalloc(sizeof *types * (size_t)(op->nresults + 1));
	for (int i = 0; i < op->noperands; i++)
		ops[i] = clone_get(c, op->operands[i]);
	for (int i = 0; i < op->nresults; i++)
		types[i] = op->results[i]->type;
	Op *n = op_new(m, op->info, op->noperands, ops, op->nresults, types, op->nregions, op->loc);
	free(ops);
	free(types);
	n->offset = op->offset;
	for (int i = 0; i < op->nattrs; i++)
		op_set_attr(m, n, op->attrs[i].name, op->attrs[i].attr);
	for (int i = 0; i < op->nresults; i++) {
		n->results[i]->layout = op->results[i]->layout;
		n->results[i]->lay = op->results[i]->lay;
		clone_put(c, op->results[i], n->results[i]);
	}
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r]) {
			const Type **at = xmalloc(sizeof *at * (size_t)(b->nargs + 1));
			for (int i = 0; i < b->nargs; i++)
				at[i] = b->args[i]->type;
			Block *nb = region_add_block(m, &n->regions[r], b->nargs, at);
			free(at);
			for (int i = 0; i < b->nargs; i++) {
				nb->args[i]->layout = b->args[i]->layout;
				nb->args[i]->lay = b->args[i]->lay;
				clone_put(c, b->args[i], nb->args[i]);
			}
			FOR_EACH_OP(x, b)
				block_append(nb, clone_rec(m, x, c));
		}
	return n;
}

Op *op_clone(Module *m, const Op *op)
{
	CloneMap c = { xcalloc(64, sizeof *c.from), xcalloc(64, sizeof *c.to), 64, 0 };
	Op *n = clone_rec(m, op, &c);
	free(c.from);
	free(c.to);
	return n;
}

void op_insert_before(Op *before, Op *op)
{
	block_insert_before(before->parent, before, op);
}

Op *op_parent_op(const Op *op)
{
	return op->parent && op->parent->parent ? op->parent->parent->parent : NULL;   /* block -> region -> op */
}

Op *op_enclosing_loop(Op *op)
{
	for (Op *p = op_parent_op(op); p; p = op_parent_op(p)) {
		if (p->info->code == CT_for || p->info->code == CT_loop)
			return p;
		if (p->info->code != CT_if)
			return NULL;
	}
	return NULL;
}

Op *op_toplevel(Op *op)
{
	for (Op *p; (p = op_parent_op(op)); )
		op = p;
	return op;
}

const Target *module_target(const Module *m)
{
	const Attr *t = module_attr(m, "target");
	return t && t->kind == AT_STRING ? target_by_name(t->u.s) : NULL;
}

bool module_tma_maps(const Module *m)
{
	const Attr *t = module_attr(m, "tma_maps");
	return t && t->kind == AT_BOOL && t->u.i;
}

const Attr *entry_hint(const Module *m, const Op *fn, const char *key)
{
	const Attr *h = op_attr(fn, "optimization_hints");
	if (!h || h->kind != AT_DICT)
		return NULL;
	const Attr *t = module_attr(m, "target");
	const Attr *d = t && t->kind == AT_STRING ? dict_get(h, t->u.s) : NULL;
	const Attr *w = d && d->kind == AT_DICT ? dict_get(d, key) : NULL;
	if (!w) {
		d = dict_get(h, "default");
		w = d && d->kind == AT_DICT ? dict_get(d, key) : NULL;
	}
	return w;
}

Op *int_arith_op(Module *m, enum OpCode code, Value *a, Value *b, const Loc *loc)
{
	Value *ops[2] = { a, b };
	Op *o = op_build(m, code, 2, ops, 1, &a->type, loc);
	op_set_attr(m, o, "overflow", attr_string(m, "none"));
	return o;
}

Op *const_int_op(Module *m, const Type *t, int64_t v, const Loc *loc)
{
	Op *c = op_build(m, CT_constant, 0, NULL, 1, &t, loc);
	const Type *e = tile_elem(t);
	int nb = elem_bytes(e);
	uint8_t bytes[8];
	for (int i = 0; i < nb; i++)
		bytes[i] = (uint8_t)((uint64_t)v >> (8 * i));
	op_set_attr(m, c, "value", attr_dense(m, t, (size_t)nb, bytes, true));
	return c;
}

bool value_const_int(const Value *v, int64_t *out)
{
	if (!v->def || v->def->info->code != CT_constant)
		return false;
	const Attr *a = op_attr(v->def, "value");
	if (!a || a->kind != AT_DENSE)
		return false;
	const Type *e = tile_elem(v->type);
	if (!e || e->kind != TY_SCALAR || scalar_is_float(e->scalar))
		return false;
	int nb = elem_bytes(e);
	if (!a->u.dense.splat && type_num_elements(v->type) != 1)
		return false;
	if ((int)a->u.dense.n < nb)
		return false;
	uint64_t x = 0;
	for (int i = 0; i < nb; i++)
		x |= (uint64_t)a->u.dense.bytes[i] << (8 * i);
	int bits = scalar_bits(e->scalar);
	if (bits < 64 && (x >> (bits - 1) & 1) && e->scalar != SC_I1)
		x |= ~0ull << bits;       /* sign-extend */
	*out = (int64_t)x;
	return true;
}

const Type *tile_elem(const Type *t)
{
	return t && t->kind == TY_TILE ? t->elem : NULL;
}

bool type_is_tile(const Type *t)
{
	return t && t->kind == TY_TILE;
}

int elem_bytes(const Type *e)
{
	if (!e)
		return 0;
	if (e->kind == TY_PTR)
		return 8;
	if (e->kind != TY_SCALAR)
		return 0;
	switch (e->scalar) {
	case SC_F4E2M1FN: case SC_I4: return 0;
	case SC_I1: return 1;
	case SC_TF32: return 4;
	default: return scalar_bits(e->scalar) / 8;
	}
}

const char *loc_str(const Loc *l, char *buf, size_t n)
{
	if (!l || !l->file)
		snprintf(buf, n, "unknown location");
	else
		snprintf(buf, n, "%s:%u:%u", l->file, l->line, l->col);
	return buf;
}

int64_t pow2_factor(int64_t x)
{
	if (x == 0)
		return (int64_t)1 << 30;
	if (x < 0)
		x = -x;
	int64_t f = 1;
	while (f < ((int64_t)1 << 30) && x % (f * 2) == 0)
		f *= 2;
	return f;
}

bool value_made_inside(const Op *op, const Value *v)
{
	const Block *b = v->def ? v->def->parent : v->owner;
	while (b && b->parent) {
		const Op *p = b->parent->parent;
		if (p == op)
			return true;
		if (!p)
			break;
		b = p->parent;
	}
	return false;
}

int tiled_vector_dim(const Op *op, int rank)
{
	for (int i = 0; i < rank; i++)
		if (op_attr_int_at(op, "dim_map", i, i) == rank - 1)
			return i;
	return rank - 1;
}

int64_t tile_dim_stride(const Type *t, int d)
{
	int64_t s = 1;
	for (int i = d + 1; i < t->rank; i++)
		s *= t->shape[i];
	return s;
}

bool op_is_weak(const Op *op)
{
	return strcmp(op_attr_str(op, "memory_ordering_semantics", "weak"), "weak") == 0;
}

static int weak_barrier(Op *op, void *ctx)
{
	if (!op_weak_may_pass(op)) {
		*(bool *)ctx = false;
		return 1;
	}
	return 0;
}

bool op_weak_may_pass(const Op *op)
{
	const OpInfo *i = op->info;
	if (op_has(i, OPT_REG)) {
		bool ok = true;
		for (int r = 0; r < op->nregions && ok; r++)
			FOR_EACH_BLOCK(b, &op->regions[r])
				FOR_EACH_OP(o, b)
					if (op_walk(o, weak_barrier, &ok))
						break;
		return ok;
	}
	if (!op_has(i, OPT_MEM))
		return true;
	switch (i->code) {
	case AS_tiled_load: case AS_load: case AS_tiled_store: case AS_store:
		return op_is_weak(op);
	default:
		return false;
	}
}

typedef struct OpsOf { enum OpCode code; Op **ops; int n, cap; } OpsOf;

static int ops_of_fn(Op *op, void *ctx)
{
	OpsOf *o = ctx;
	if (op->info->code != o->code)
		return 0;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->ops = xrealloc(o->ops, sizeof *o->ops * (size_t)o->cap);
	}
	o->ops[o->n++] = op;
	return 0;
}

Op **ops_with_code(Op *root, enum OpCode code, int *n)
{
	OpsOf o = { .code = code };
	op_walk(root, ops_of_fn, &o);
	*n = o.n;
	return o.ops;
}

static int jump_fn(Op *op, void *ctx)
{
	(void)ctx;
	return op->info->code == CT_continue || op->info->code == CT_break;
}

bool block_jumps_before(const Block *b, const Op *end)
{
	for (Op *o = b->first; o && o != end; o = o->next)
		if (op_walk(o, jump_fn, NULL))
			return true;
	return false;
}
