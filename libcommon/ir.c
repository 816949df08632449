/* ir.c: modules, attributes, ops, blocks, regions, numbering and walks. */
#include <stdlib.h>
#include <string.h>
#include "ir.h"
#include "opinfo.h"
#include "diag.h"

void type_table_free(TypeTable *tt);

Module *module_new(const char *stage)
{
	Arena *a = arena_new();
	Module *m = arena_alloc(a, sizeof *m);
	m->arena = a;
	m->stage = arena_strdup(a, stage);
	m->name = "kernels";
	m->attrs = attr_dict(m, 0, NULL);
	m->unknown_loc = loc_new(m, NULL, 0, 0, NULL, NULL);
	return m;
}

void module_free(Module *m)
{
	if (!m)
		return;
	type_table_free(m->types);
	arena_free(m->arena);
}

/* ------------------------------------------------------------ attributes */

static Attr *new_attr(Module *m, AttrKind k)
{
	Attr *a = arena_alloc(m->arena, sizeof *a);
	a->kind = k;
	return a;
}

const Attr *attr_int(Module *m, int64_t v, const Type *t)
{
	Attr *a = new_attr(m, AT_INT);
	a->u.i = v;
	a->type = t;
	return a;
}

const Attr *attr_float(Module *m, uint64_t bits, const Type *t)
{
	Attr *a = new_attr(m, AT_FLOAT);
	a->u.bits = bits;
	a->type = t;
	return a;
}

const Attr *attr_bool(Module *m, bool v)
{
	Attr *a = new_attr(m, AT_BOOL);
	a->u.i = v;
	return a;
}

const Attr *attr_string(Module *m, const char *s)
{
	Attr *a = new_attr(m, AT_STRING);
	a->u.s = arena_strdup(m->arena, s);
	return a;
}

const Attr *attr_type(Module *m, const Type *t)
{
	Attr *a = new_attr(m, AT_TYPE);
	a->type = t;
	return a;
}

static const int64_t *dup_i64(Module *m, int n, const int64_t *v)
{
	int64_t *p = arena_alloc(m->arena, sizeof *p * (size_t)(n > 0 ? n : 1));
	if (n > 0)
		memcpy(p, v, sizeof *p * (size_t)n);
	return p;
}

const Attr *attr_ints(Module *m, int n, const int64_t *v)
{
	Attr *a = new_attr(m, AT_INTS);
	a->u.ints.n = n;
	a->u.ints.v = dup_i64(m, n, v);
	return a;
}

const Attr *attr_same_elements(Module *m, int n, const int64_t *v)
{
	Attr *a = new_attr(m, AT_SAME_ELEMENTS);
	a->u.ints.n = n;
	a->u.ints.v = dup_i64(m, n, v);
	return a;
}

const Attr *attr_array(Module *m, int n, const Attr *const *v)
{
	Attr *a = new_attr(m, AT_ARRAY);
	const Attr **p = arena_alloc(m->arena, sizeof *p * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
		p[i] = v[i];
	a->u.array.n = n;
	a->u.array.v = p;
	return a;
}

static int cmp_named(const void *x, const void *y)
{
	return strcmp(((const NamedAttr *)x)->name, ((const NamedAttr *)y)->name);
}

const Attr *attr_dict(Module *m, int n, const NamedAttr *v)
{
	NamedAttr *p = arena_alloc(m->arena, sizeof *p * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++) {
		if (!v[i].name || !v[i].name[0])
			return NULL;
		p[i].name = arena_strdup(m->arena, v[i].name);
		p[i].attr = v[i].attr;
	}
	qsort(p, (size_t)n, sizeof *p, cmp_named);
	for (int i = 1; i < n; i++)
		if (strcmp(p[i - 1].name, p[i].name) == 0)
			return NULL;
	Attr *a = new_attr(m, AT_DICT);
	a->u.dict.n = n;
	a->u.dict.v = p;
	return a;
}

const Attr *dict_get(const Attr *d, const char *key)
{
	if (!d || d->kind != AT_DICT)
		return NULL;
	for (int i = 0; i < d->u.dict.n; i++)
		if (strcmp(d->u.dict.v[i].name, key) == 0)
			return d->u.dict.v[i].attr;
	return NULL;
}

const Attr *attr_dense(Module *m, const Type *tile, size_t n, const uint8_t *bytes, bool splat)
{
	Attr *a = new_attr(m, AT_DENSE);
	uint8_t *p = arena_alloc(m->arena, n ? n : 1);
	if (n)
		memcpy(p, bytes, n);
	a->type = tile;
	a->u.dense.n = n;
	a->u.dense.bytes = p;
	a->u.dense.splat = splat;
	return a;
}

const Attr *attr_div_by(Module *m, int64_t d, bool has_every, int64_t every, int64_t along)
{
	Attr *a = new_attr(m, AT_DIV_BY);
	a->u.div_by.divisor = d;
	a->u.div_by.has_every = has_every;
	a->u.div_by.every = has_every ? every : 0;
	a->u.div_by.along = has_every ? along : 0;
	return a;
}

const Attr *attr_bounded(Module *m, bool has_lb, int64_t lb, bool has_ub, int64_t ub)
{
	Attr *a = new_attr(m, AT_BOUNDED);
	a->u.bounded.has_lb = has_lb;
	a->u.bounded.lb = has_lb ? lb : 0;
	a->u.bounded.has_ub = has_ub;
	a->u.bounded.ub = has_ub ? ub : 0;
	return a;
}

/* Replace or insert key in a sorted NamedAttr array held in the arena. */
static NamedAttr *set_named(Module *m, const NamedAttr *v, int *n, const char *key, const Attr *a)
{
	int i = 0;
	while (i < *n && strcmp(v[i].name, key) < 0)
		i++;
	if (i < *n && strcmp(v[i].name, key) == 0) {
		((NamedAttr *)v)[i].attr = a;
		return (NamedAttr *)v;
	}
	NamedAttr *p = arena_alloc(m->arena, sizeof *p * (size_t)(*n + 1));
	if (i)
		memcpy(p, v, sizeof *p * (size_t)i);
	p[i].name = arena_strdup(m->arena, key);
	p[i].attr = a;
	if (*n - i)
		memcpy(p + i + 1, v + i, sizeof *p * (size_t)(*n - i));
	(*n)++;
	return p;
}

const Attr *module_attr(const Module *m, const char *key)
{
	return dict_get(m->attrs, key);
}

void module_set_attr(Module *m, const char *key, const Attr *a)
{
	Attr *d = new_attr(m, AT_DICT);
	int n = m->attrs->u.dict.n;
	NamedAttr *copy = arena_alloc(m->arena, sizeof *copy * (size_t)(n ? n : 1));
	if (n)
		memcpy(copy, m->attrs->u.dict.v, sizeof *copy * (size_t)n);
	d->u.dict.v = set_named(m, copy, &n, key, a);
	d->u.dict.n = n;
	m->attrs = d;
}

/* ------------------------------------------------------------ ops */

const Loc *loc_new(Module *m, const char *file, unsigned line, unsigned col,
		   const char *func, const Loc *caller)
{
	Loc *l = arena_alloc(m->arena, sizeof *l);
	l->file = file ? arena_strdup(m->arena, file) : NULL;
	l->line = line;
	l->col = col;
	l->func = func ? arena_strdup(m->arena, func) : NULL;
	l->caller = caller;
	return l;
}

const Loc *loc_with_func_flags(Module *m, const Loc *l, unsigned flags)
{
	if (l->func_flags == flags)
		return l;
	Loc *c = arena_alloc(m->arena, sizeof *c);
	*c = *l;
	c->func_flags = flags;
	return c;
}

static Value *new_value(Module *m, const Type *t)
{
	Value *v = arena_alloc(m->arena, sizeof *v);
	v->type = t;
	v->id = -1;
	return v;
}

Op *op_new(Module *m, const OpInfo *info, int noperands, Value *const *operands,
	   int nresults, const Type *const *result_types, int nregions, const Loc *loc)
{
	Op *op = arena_alloc(m->arena, sizeof *op);
	op->info = info;
	op->noperands = noperands;
	op->operands = arena_alloc(m->arena, sizeof(Value *) * (size_t)(noperands + 1));
	for (int i = 0; i < noperands; i++)
		op->operands[i] = operands ? operands[i] : NULL;
	op->nresults = nresults;
	op->results = arena_alloc(m->arena, sizeof(Value *) * (size_t)(nresults + 1));
	for (int i = 0; i < nresults; i++) {
		Value *v = new_value(m, result_types[i]);
		v->def = op;
		v->index = i;
		op->results[i] = v;
	}
	op->nregions = nregions;
	op->regions = arena_alloc(m->arena, sizeof(Region) * (size_t)(nregions + 1));
	for (int i = 0; i < nregions; i++)
		op->regions[i].parent = op;
	op->loc = loc ? loc : m->unknown_loc;
	return op;
}

void op_set_attr(Module *m, Op *op, const char *name, const Attr *a)
{
	op->attrs = set_named(m, op->attrs, &op->nattrs, name, a);
}

void op_remove_attr(Op *op, const char *name)
{
	for (int i = 0; i < op->nattrs; i++)
		if (strcmp(op->attrs[i].name, name) == 0) {
			memmove((NamedAttr *)op->attrs + i, op->attrs + i + 1, sizeof *op->attrs * (size_t)(op->nattrs - i - 1));
			op->nattrs--;
			return;
		}
}

const Attr *op_attr(const Op *op, const char *name)
{
	for (int i = 0; i < op->nattrs; i++)
		if (strcmp(op->attrs[i].name, name) == 0)
			return op->attrs[i].attr;
	return NULL;
}

int64_t op_attr_int(const Op *op, const char *name, int64_t dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_INT ? a->u.i : dflt;
}

int64_t op_attr_int_at(const Op *op, const char *name, int i, int64_t dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_INTS && i >= 0 && i < a->u.ints.n ? a->u.ints.v[i] : dflt;
}

const char *op_attr_str(const Op *op, const char *name, const char *dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_STRING ? a->u.s : dflt;
}

bool op_attr_flag(const Op *op, const char *name)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_BOOL && a->u.i;
}

int op_attr_enum(const Op *op, const char *name, EnumKind k)
{
	const char *s = op_attr_str(op, name, NULL);
	const EnumVal *e = s ? enum_lookup(k, s) : NULL;
	return e ? e->value : -1;
}

Block *region_add_block(Module *m, Region *r, int nargs, const Type *const *argtypes)
{
	Block *b = arena_alloc(m->arena, sizeof *b);
	b->nargs = nargs;
	b->args = arena_alloc(m->arena, sizeof(Value *) * (size_t)(nargs + 1));
	for (int i = 0; i < nargs; i++) {
		Value *v = new_value(m, argtypes[i]);
		v->owner = b;
		v->index = i;
		b->args[i] = v;
	}
	b->parent = r;
	if (r->last)
		r->last->next = b;
	else
		r->first = b;
	r->last = b;
	r->nblocks++;
	return b;
}

void block_append(Block *b, Op *op)
{
	op->parent = b;
	op->next = NULL;
	op->prev = b->last;
	if (b->last)
		b->last->next = op;
	else
		b->first = op;
	b->last = op;
}

void block_insert_before(Block *b, Op *before, Op *op)
{
	if (!before) {
		block_append(b, op);
		return;
	}
	op->parent = b;
	op->next = before;
	op->prev = before->prev;
	if (before->prev)
		before->prev->next = op;
	else
		b->first = op;
	before->prev = op;
}

void op_remove(Op *op)
{
	Block *b = op->parent;
	if (!b)
		return;
	if (op->prev)
		op->prev->next = op->next;
	else
		b->first = op->next;
	if (op->next)
		op->next->prev = op->prev;
	else
		b->last = op->prev;
	op->parent = NULL;
	op->prev = op->next = NULL;
}

/* ------------------------------------------------------------ walks */

int op_walk(Op *op, int (*fn)(Op *, void *), void *ctx)
{
	int r = fn(op, ctx);
	if (r)
		return r;
	for (int i = 0; i < op->nregions; i++)
		FOR_EACH_BLOCK(b, &op->regions[i])
			for (Op *o = b->first, *next; o; o = next) {
				next = o->next;
				if ((r = op_walk(o, fn, ctx)))
					return r;
			}
	return 0;
}

int module_walk(Module *m, int (*fn)(Op *, void *), void *ctx)
{
	for (Op *o = m->body.first, *next; o; o = next) {
		next = o->next;
		int r = op_walk(o, fn, ctx);
		if (r)
			return r;
	}
	return 0;
}

static void number_op(Op *op, int *next)
{
	for (int i = 0; i < op->nresults; i++)
		op->results[i]->id = (*next)++;
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r]) {
			for (int i = 0; i < b->nargs; i++)
				b->args[i]->id = (*next)++;
			FOR_EACH_OP(o, b)
				number_op(o, next);
		}
}

int op_count_values(const Op *op)
{
	int n = op->nresults;
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r]) {
			n += b->nargs;
			FOR_EACH_OP(o, b)
				n += op_count_values(o);
		}
	return n;
}

void ir_number_values(Module *m)
{
	FOR_EACH_OP(op, &m->body) {
		int next = 0;
		number_op(op, &next);
	}
}
