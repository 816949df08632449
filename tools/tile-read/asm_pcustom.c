/* asm_pcustom.c: the ops whose syntax is C (asm_custom.c's printers), read
 * back (asm_parse.h): entry, for, loop, the view loads and stores,
 * make_tensor_view, make_*_view, the shape queries, 13.5's multimem ops.
 * Each fills the op's operand groups, attributes, result types and
 * regions as the printer laid them out. */
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "opinfo.h"
#include "wire_layout.h"
#include "xalloc.h"

static bool one(Parser *P, POp *o, const char *group)
{
	Value *v = ps_value(P);
	if (!v)
		return false;
	Value **a = xmalloc(sizeof *a);
	a[0] = v;
	return pop_set_group(P, o, pop_group(o, group), a, 1);
}

static bool none(Parser *P, POp *o, const char *group)
{
	int g = pop_group(o, group);
	return g < 0 || o->grp_set[g] || pop_set_group(P, o, g, NULL, 0);
}

static bool result_type(Parser *P, POp *o, const char *name)
{
	const Type *t = ps_type(P);
	return t && pop_result_types(P, o, name, &t, 1);
}

static bool dict_into(Parser *P, POp *o)
{
	const Attr *d = ps_dict(P, 0);
	for (int i = 0; d && i < d->u.dict.n; i++)
		pop_set_attr(P, o, d->u.dict.v[i].name, d->u.dict.v[i].attr);
	return d != NULL;
}

/* " attributes {...}" (several, as the multimem printers may write) */
static bool keyword_dicts(Parser *P, POp *o)
{
	while (ps_eat_kw(P, "attributes"))
		if (!dict_into(P, o))
			return false;
	return !P->failed;
}

static const char *symbol(Parser *P)
{
	const char *s = NULL;
	if (!ps_expect(P, "@"))
		return NULL;
	if (ps_at(P, "\""))
		return ps_string(P, &s) ? s : NULL;
	return ps_ident(P, "a symbol name");
}

/* ------------------------------------------------------------ entry */

bool pcustom_entry(Parser *P, POp *o)
{
	const char *name = symbol(P);
	if (!name)
		return false;
	pop_set_attr(P, o, "sym_name", attr_string(P->m, name));
	const Attr *arg_attrs = NULL;
	int nargs = 0;
	Region *r = ps_arg_region(P, o, &arg_attrs, &nargs);
	if (!r)
		return false;
	o->regions[0] = r;
	const Type *ins[256];
	Block *b = r->first;
	for (int i = 0; b && i < b->nargs && i < 256; i++)
		ins[i] = b->args[i]->type;
	pop_set_attr(P, o, "function_type", attr_type(P->m, type_func(P->m, b ? b->nargs : 0, ins, 0, NULL)));
	if (arg_attrs)
		pop_set_attr(P, o, "arg_attrs", arg_attrs);
	if (ps_at(P, "{") && !dict_into(P, o))
		return false;
	return true;
}

/* ------------------------------------------------------------ for, loop */

typedef struct Iters {
	const char *names[256], *ats[256];
	size_t lens[256];
	Value *init[256];
	int n;
} Iters;

/* the block argument's name at the cursor: "%iv" (kept as a pointer) */
static bool arg_name(Parser *P, const char **s, size_t *n, const char **at)
{
	ps_ws(P);
	*at = P->p;
	if (!ps_eat(P, "%"))
		return ps_fail(P, P->p, "expected a block argument, found %s", ps_token_text(P));
	*s = P->p;
	while (P->p < P->end && (strchr("_$.-", *P->p) || (*P->p >= '0' && *P->p <= '9') ||
				 ((*P->p | 32) >= 'a' && (*P->p | 32) <= 'z')))
		P->p++;
	*n = (size_t)(P->p - *s);
	return *n ? true : ps_fail(P, *at, "expected a block argument name");
}

/* "iter_values(%a = %x, ...)" from slot `first` of it */
static bool iter_values(Parser *P, Iters *it)
{
	if (!ps_expect_kw(P, "iter_values") || !ps_expect(P, "("))
		return false;
	if (!ps_at(P, ")"))
		do {
			if (it->n == 255)
				return ps_fail(P, P->p, "more than 255 iter_values");
			int i = it->n;
			if (!arg_name(P, &it->names[i], &it->lens[i], &it->ats[i]) || !ps_expect(P, "=") ||
			    !(it->init[i] = ps_value(P)))
				return false;
			it->n++;
		} while (ps_eat(P, ","));
	return ps_expect(P, ")");
}

static bool iter_group(Parser *P, POp *o, const Iters *it, const char *group)
{
	Value **v = xmalloc(sizeof *v * (size_t)(it->n + 1));
	memcpy(v, it->init + (it->n ? 0 : 0), sizeof *v * (size_t)it->n);
	return pop_set_group(P, o, pop_group(o, group), v, it->n);
}

bool pcustom_for(Parser *P, POp *o)
{
	Iters it = { .n = 1 };           /* slot 0: the induction variable */
	if (ps_eat_kw(P, "unsigned"))
		pop_set_attr(P, o, "unsignedCmp", attr_bool(P->m, true));
	if (!arg_name(P, &it.names[0], &it.lens[0], &it.ats[0]) || !ps_expect_kw(P, "in") || !ps_expect(P, "(") ||
	    !one(P, o, "lowerBound") || !ps_expect_kw(P, "to") || !one(P, o, "upperBound") || !ps_expect(P, ",") ||
	    !ps_expect_kw(P, "step") || !one(P, o, "step") || !ps_expect(P, ")") || !ps_expect(P, ":"))
		return false;
	const Type *types[256];
	if (!(types[0] = ps_type(P)))
		return false;
	if (ps_at_kw(P, "iter_values")) {
		if (!iter_values(P, &it) || !ps_expect(P, "->") || !ps_expect(P, "("))
			return false;
		const Type **t;
		int n = ps_type_list(P, &t, it.n - 1);
		if (n < 0)
			return false;
		memcpy(types + 1, t, sizeof *t * (size_t)n);
		free(t);
		if (!ps_expect(P, ")"))
			return false;
	}
	Iters init = { .n = it.n - 1 };
	memcpy(init.init, it.init + 1, sizeof *it.init * (size_t)init.n);
	if (!iter_group(P, o, &init, "initValues") || !pop_result_types(P, o, NULL, types + 1, it.n - 1))
		return false;
	o->regions[0] = ps_region(P, it.n, types, it.names, it.lens, it.ats, CT_continue);
	if (o->regions[0] && ps_at(P, "{") && !dict_into(P, o))
		return false;
	return o->regions[0] != NULL;
}

bool pcustom_loop(Parser *P, POp *o)
{
	Iters it = { .n = 0 };
	const Type **t = NULL, **r = NULL;
	int nt = 0, nr = 0;
	if (ps_at_kw(P, "iter_values") && !iter_values(P, &it))
		return false;
	if (ps_eat(P, ":")) {
		if (it.n && (nt = ps_type_list(P, &t, it.n)) < 0)
			return false;
		if ((!it.n || ps_eat(P, "->")) && (nr = ps_type_list(P, &r, -1)) < 0) {
			free(t);
			return false;
		}
	} else if (it.n) {
		return ps_expect(P, ":");
	}
	bool ok = iter_group(P, o, &it, "initValues") && pop_result_types(P, o, NULL, r, nr);
	if (ok)
		o->regions[0] = ps_region(P, it.n, t, it.names, it.lens, it.ats, CT_continue);
	free(t);
	free(r);
	if (o->regions[0] && ps_at(P, "{") && !dict_into(P, o))
		return false;
	return ok && o->regions[0];
}

/* ------------------------------------------------------------ views */

bool pcustom_memory(Parser *P, POp *o)
{
	const Field *f = ops_layout((int)o->info->code);
	EnumKind sem = EK_ORDERING, scope = EK_SCOPE;
	for (; f && f->kind != F_END; f++) {
		if (f->name && strcmp(f->name, "memory_ordering_semantics") == 0)
			sem = f->en;
		if (f->name && strcmp(f->name, "memory_scope") == 0)
			scope = f->en;
	}
	const Attr *a = ps_enum(P, sem, "memory_ordering_semantics");
	if (!a)
		return false;
	pop_set_attr(P, o, "memory_ordering_semantics", a);
	if (ps_at_enum(P, scope)) {
		if (!(a = ps_enum(P, scope, "memory_scope")))
			return false;
		pop_set_attr(P, o, "memory_scope", a);
	}
	return true;
}

/* "%view[%i, %j]" into groups view_group and index */
static bool view_index(Parser *P, POp *o, const char *view_group)
{
	Value **v;
	if (!one(P, o, view_group) || !ps_expect(P, "["))
		return false;
	int n = ps_value_list(P, &v, -1);
	return n >= 0 && pop_set_group(P, o, pop_group(o, "index"), v, n) && ps_expect(P, "]");
}

/* " token = %t", " optimization_hints = <..>", " inbounds = [..]", in any order */
static bool view_optionals(Parser *P, POp *o)
{
	for (;;) {
		if (ps_eat_kw(P, "token")) {
			if (!ps_expect(P, "=") || !one(P, o, "token"))
				return false;
		} else if (ps_eat_kw(P, "optimization_hints")) {
			const Attr *h = ps_expect(P, "=") ? ps_hints(P) : NULL;
			if (!h)
				return false;
			pop_set_attr(P, o, "optimization_hints", h);
		} else if (ps_eat_kw(P, "inbounds")) {
			const Attr *a = ps_expect(P, "=") ? ps_attr(P, 0) : NULL;
			if (!a)
				return false;
			if (a->kind != AT_ARRAY)
				return ps_fail(P, P->p, "inbounds must be an array of booleans");
			pop_set_attr(P, o, "inbounds", a);
		} else {
			break;
		}
	}
	return none(P, o, "token") && keyword_dicts(P, o);
}

/* ", T" per index (or once for all when they agree); and ", T" for the
 * token when given (the multimem ops) */
static bool index_types(Parser *P, POp *o, bool token_type)
{
	int g = pop_group(o, "index"), tg = pop_group(o, "token");
	int n = o->ngrp[g], k = 0;
	const char *at = P->p;
	while (ps_eat(P, ",")) {
		if (!ps_type(P))
			return false;
		k++;
	}
	int want = token_type && tg >= 0 && o->ngrp[tg] ? 1 : 0;
	if (k - want != n && !(n > 1 && k - want == 1))
		return ps_fail(P, at, "%d types for %d indices", k - want, n);
	return true;
}

static bool skip_type(Parser *P) { return ps_type(P) != NULL; }

bool pcustom_load_view_tko(Parser *P, POp *o)
{
	if (!pcustom_memory(P, o) || !view_index(P, o, "view") || !view_optionals(P, o) || !ps_expect(P, ":") ||
	    !skip_type(P) || !index_types(P, o, false) || !ps_expect(P, "->"))
		return false;
	return result_type(P, o, "tile") && ps_expect(P, ",") && result_type(P, o, "result_token");
}

bool pcustom_store_view_tko(Parser *P, POp *o)
{
	if (!pcustom_memory(P, o) || !one(P, o, "tile") || !ps_expect(P, ",") || !view_index(P, o, "view") ||
	    !view_optionals(P, o) || !ps_expect(P, ":") || !skip_type(P) || !ps_expect(P, ",") || !skip_type(P) ||
	    !index_types(P, o, false) || !ps_expect(P, "->"))
		return false;
	return result_type(P, o, "result_token");
}

bool pcustom_atomic_red_view_tko(Parser *P, POp *o)
{
	if (!pcustom_memory(P, o) || !view_index(P, o, "view") || !ps_expect(P, ","))
		return false;
	const Field *f = ops_layout((int)o->info->code);
	for (; f && f->kind != F_END; f++)
		if (f->name && strcmp(f->name, "mode") == 0)
			break;
	const Attr *m = ps_enum(P, f && f->kind != F_END ? f->en : EK_RMW_MODE, "mode");
	if (!m || !ps_expect(P, ","))
		return false;
	pop_set_attr(P, o, "mode", m);
	if (!one(P, o, "value") || !view_optionals(P, o) || !ps_expect(P, ":") || !skip_type(P) ||
	    !ps_expect(P, ",") || !skip_type(P) || !index_types(P, o, false) || !ps_expect(P, "->"))
		return false;
	return result_type(P, o, "result_token");
}

static bool multimem_tail(Parser *P, POp *o)
{
	return view_optionals(P, o) && ps_expect(P, ":");
}

bool pcustom_multimem_load_reduce(Parser *P, POp *o)
{
	if (!pcustom_memory(P, o) || !view_index(P, o, "view") || !multimem_tail(P, o) || !skip_type(P) ||
	    !index_types(P, o, true) || !ps_expect(P, "->"))
		return false;
	return result_type(P, o, "reduced_values") && ps_expect(P, ",") && result_type(P, o, "result_token");
}

static bool multimem_write(Parser *P, POp *o)
{
	if (!pcustom_memory(P, o) || !one(P, o, "view") || !ps_expect(P, ",") || !view_index(P, o, "tile") ||
	    !multimem_tail(P, o) || !skip_type(P) || !ps_expect(P, ",") || !skip_type(P) || !index_types(P, o, true) ||
	    !ps_expect(P, "->"))
		return false;
	return result_type(P, o, "result_token");
}

bool pcustom_multimem_reduce(Parser *P, POp *o) { return multimem_write(P, o); }
bool pcustom_multimem_store(Parser *P, POp *o) { return multimem_write(P, o); }

bool pcustom_make_tensor_view(Parser *P, POp *o)
{
	if (!one(P, o, "base"))
		return false;
	static const char *const parts[2] = { "shape", "strides" };
	for (int part = 0; part < 2; part++) {
		Value **v = NULL;
		int n = 0;
		if (!ps_expect(P, ",") || !ps_expect_kw(P, parts[part]) || !ps_expect(P, "=") || !ps_expect(P, "["))
			return false;
		if (!ps_at(P, "]"))
			do {
				if (ps_at_value(P)) {
					Value *x = ps_value(P);
					if (!x) {
						free(v);
						return false;
					}
					v = xrealloc(v, sizeof *v * (size_t)(n + 1));
					v[n++] = x;
				} else {
					int64_t d;
					if (!ps_int(P, &d)) {
						free(v);
						return false;
					}
				}
			} while (ps_eat(P, ","));
		if (!pop_set_group(P, o, part + 1, v, n) || !ps_expect(P, "]"))
			return false;
	}
	if (ps_at(P, "{") && !dict_into(P, o))
		return false;
	if (!ps_expect(P, ":"))
		return false;
	const Type *last = NULL;
	do {
		if (!(last = ps_type(P)))
			return false;
	} while (ps_eat(P, ",") || ps_eat(P, "->"));
	return pop_result_types(P, o, "result", &last, 1);
}

bool pcustom_make_view(Parser *P, POp *o)
{
	if (!one(P, o, "tensor_view"))
		return false;
	if (ps_at(P, "{") && !dict_into(P, o))
		return false;
	return ps_expect(P, ":") && result_type(P, o, "result");
}

bool pcustom_get_shape(Parser *P, POp *o)
{
	if (!one(P, o, "src") || !ps_expect(P, ":") || !skip_type(P) || !ps_expect(P, "->"))
		return false;
	const Type *t = ps_type(P);
	if (!t)
		return false;
	if (o->nres < 0)
		o->nres = 1;
	for (int i = 0; i < o->nres && i < 256; i++)
		o->rtypes[i] = t;
	return true;
}
