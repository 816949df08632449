/* asm_pformat.c: an op read by its row's declarative format (the FMT rows
 * of asm_ops.def, as asm_format.c prints them; asm_parse.h): literals,
 * $operands, attributes (read as their layout field or print style says),
 * regions, type(...) lists, the custom<...> directives of asm_custom.c
 * read back, attr-dict, optional groups (there when their first element
 * is, or, for a type group, when its operands were), oilist. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "diag.h"
#include "opinfo.h"
#include "wire_layout.h"
#include "xalloc.h"

static bool run(Parser *P, POp *o, const AsmElem *v, int n);

static const Field *field_of(const POp *o, const char *name)
{
	const Field *f = ops_layout((int)o->info->code);
	for (; f && f->kind != F_END; f++)
		if (f->name && strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

static bool is_region(const char *name)
{
	return strcmp(name, "thenRegion") == 0 || strcmp(name, "elseRegion") == 0 || strcmp(name, "body") == 0;
}

static int region_index(const char *name) { return strcmp(name, "elseRegion") == 0; }

/* "type($x)" -> "x" */
static void arg_name(const char *arg, char *v, size_t n)
{
	const char *s = arg[0] == '$' ? arg + 1 : arg + 6;
	size_t len = strcspn(s, ")");
	if (len >= n)
		len = n - 1;
	memcpy(v, s, len);
	v[len] = 0;
}

static bool literal(Parser *P, const char *t, bool eat)
{
	if (isalpha((unsigned char)t[0]) || t[0] == '_')
		return eat ? ps_expect_kw(P, t) : ps_at_kw(P, t);
	return eat ? ps_expect(P, t) : ps_at(P, t);
}

/* identities: integers printed without their i64 are i64 */
static const Attr *typed_elements(Parser *P, const Attr *a)
{
	int n = a->kind == AT_INTS ? a->u.ints.n : a->u.array.n;
	const Attr **v = xmalloc(sizeof *v * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const Attr *e = a->kind == AT_INTS ? attr_int(P->m, a->u.ints.v[i], NULL) : a->u.array.v[i];
		v[i] = e->kind == AT_INT && !e->type ? attr_int(P->m, e->u.i, type_scalar(P->m, SC_I64)) : e;
	}
	const Attr *r = attr_array(P->m, n, v);
	free(v);
	return r;
}

static bool attr_var(Parser *P, POp *o, const char *name)
{
	const Attr *a = NULL;
	const Field *f = field_of(o, name);
	ps_ws(P);
	const char *at = P->p;
	if (strcmp(name, "message") == 0 || strcmp(name, "str") == 0) {
		const char *s;
		if (ps_string(P, &s))
			a = attr_string(P->m, s);
	} else if (strcmp(name, "name") == 0 || strcmp(name, "sym_name") == 0) {
		if (!ps_expect(P, "@"))
			return false;
		const char *s;
		if (ps_at(P, "\"") ? ps_string(P, &s) : (s = ps_ident(P, "a symbol name")) != NULL)
			a = attr_string(P->m, s);
	} else if (strcmp(name, "optimization_hints") == 0) {
		a = ps_hints(P);
	} else if (f && f->kind == F_ENUM) {
		bool angled = strcmp(name, "overflow") == 0 || strcmp(name, "rounding") == 0;
		if (angled && !ps_expect(P, "<"))
			return false;
		a = ps_enum(P, f->en, name);
		if (angled && a && !ps_expect(P, ">"))
			return false;
	} else if ((f && f->kind == F_INT) || (!f && strcmp(name, "alignment") == 0)) {
		int64_t v;
		if (ps_int(P, &v))
			a = attr_int(P->m, v, NULL);
	} else if (f && f->kind == F_PRED) {
		a = ps_assumption(P);
	} else {
		a = ps_attr(P, 0);
		if (a && f) {
			bool good = f->kind == F_INT ? a->kind == AT_INT && !a->type
				  : f->kind == F_BOOL ? a->kind == AT_BOOL
				  : f->kind == F_I32ARR ? a->kind == AT_INTS || (a->kind == AT_ARRAY && a->u.array.n == 0)
				  : f->kind == F_TARRAY ? a->kind == AT_ARRAY || a->kind == AT_INTS
				  : f->kind == F_BOOLARR ? a->kind == AT_ARRAY
				  : true;
			if (!good)
				return ps_fail(P, at, "the value of '%s' of '%s' has the wrong kind", name, o->info->name);
			if (f->kind == F_I32ARR && a->kind == AT_ARRAY)
				a = attr_ints(P->m, 0, NULL);
			if (f->kind == F_TARRAY)
				a = typed_elements(P, a);
		}
	}
	if (!a)
		return false;
	pop_set_attr(P, o, name, a);
	return true;
}

static bool var(Parser *P, POp *o, const char *name)
{
	int g = pop_group(o, name);
	if (g >= 0) {
		char w[64], k;
		asm_word_at(o->row->operands, g, w, sizeof w, &k);
		Value **v;
		int n = ps_value_list(P, &v, k == '*' ? -1 : k == '?' ? (ps_at_value(P) ? 1 : 0) : 1);
		return n >= 0 && pop_set_group(P, o, g, v, n);
	}
	if (is_region(name)) {
		Region *r = ps_region(P, 0, NULL, NULL, NULL, NULL, -1);
		o->regions[region_index(name)] = r;
		return r != NULL;
	}
	return attr_var(P, o, name);
}

/* type($x) for each arg: an operand group's types (checked) or a result group's */
static bool types(Parser *P, POp *o, const char *name)
{
	ps_ws(P);
	const char *at = P->p;
	int g = pop_group(o, name);
	const Type **t;
	if (g >= 0) {
		int n = ps_type_list(P, &t, o->ngrp[g]);
		bool ok = n >= 0 && pop_check_types(P, o, g, t, n, at);
		free(t);
		return ok;
	}
	char w[64], k = 0;
	int r = asm_word_index(o->row->results, name);
	if (r < 0)
		ice("'%s' has no operand or result '%s'", o->info->name, name);
	asm_word_at(o->row->results, r, w, sizeof w, &k);
	int n = ps_type_list(P, &t, k == '*' ? (o->nres >= 0 ? o->nres : -1) : 1);
	bool ok = n >= 0 && pop_result_types(P, o, name, t, n);
	free(t);
	return ok;
}

static bool directive(Parser *P, POp *o, const AsmElem *e)
{
	const char *d = e->text;
	char a0[64] = "";
	if (e->nargs)
		arg_name(e->args[0], a0, sizeof a0);
	if (strcmp(d, "CudaTileType") == 0) {
		for (int i = 0; i < e->nargs; i++) {
			char v[64];
			arg_name(e->args[i], v, sizeof v);
			if (!types(P, o, v))
				return false;
		}
		return true;
	}
	const char *dflt = asm_rounding_default(d);
	if (dflt) {
		const Field *f = field_of(o, a0);
		if (!ps_eat_kw(P, "rounding")) {
			pop_set_attr(P, o, a0, attr_string(P->m, dflt));
			return true;
		}
		const Attr *a = ps_expect(P, "<") ? ps_enum(P, f ? f->en : EK_ROUNDING, a0) : NULL;
		if (!a || !ps_expect(P, ">"))
			return false;
		pop_set_attr(P, o, a0, a);
		return true;
	}
	if (strcmp(d, "Signedness") == 0 || strcmp(d, "ComparisonPredicate") == 0 ||
	    strcmp(d, "ComparisonOrdering") == 0)
		return attr_var(P, o, a0);
	if (strcmp(d, "SymbolVisibility") == 0) {
		if (ps_at_kw(P, "private") || ps_at_kw(P, "public")) {
			const Attr *a = ps_enum(P, EK_VISIBILITY, a0);
			if (!a)
				return false;
			if (P->version >= 1303 || strcmp(a->u.s, "public") != 0)
				pop_set_attr(P, o, a0, a);
		}
		return true;
	}
	if (strcmp(d, "AssumePredicate") == 0) {
		const Attr *a = ps_assumption(P);
		if (a)
			pop_set_attr(P, o, a0, a);
		return a != NULL;
	}
	if (strcmp(d, "DenseTypedElementsAttr") == 0 || strcmp(d, "DenseTypedElementsAttrNoResult") == 0) {
		const Type *t;
		const Attr *a = ps_dense(P, &t);
		if (!a)
			return false;
		pop_set_attr(P, o, a0, a);
		return e->nargs < 2 || pop_result_types(P, o, NULL, &t, 1);
	}
	if (strcmp(d, "IfOpRegion") == 0) {
		Region *r = ps_region(P, 0, NULL, NULL, NULL, NULL, CT_yield);
		o->regions[region_index(a0)] = r;
		return r != NULL;
	}
	if (strcmp(d, "ArgumentRegion") == 0) {
		int nargs;
		Region *r = ps_arg_region(P, o, NULL, &nargs);
		o->regions[0] = r;
		return r != NULL;
	}
	ice("no parser for custom<%s>", d);
}

/* is an optional group there? */
static bool group_there(Parser *P, POp *o, const AsmElem *e)
{
	const AsmElem *anchor = NULL;
	for (int i = 0; i < e->nkids; i++)
		if (e->kids[i].anchor)
			anchor = &e->kids[i];
	if (anchor && (anchor->kind == E_TYPE || (anchor->kind == E_CUSTOM && strcmp(anchor->text, "CudaTileType") == 0))) {
		char v[64];
		if (anchor->kind == E_TYPE)
			snprintf(v, sizeof v, "%s", anchor->text);
		else
			arg_name(anchor->args[0], v, sizeof v);
		int g = pop_group(o, v);
		if (g >= 0)
			return o->ngrp[g] > 0;
	}
	const AsmElem *first = &e->kids[0];
	if (first->kind == E_LIT)
		return literal(P, first->text, false);
	if (first->kind == E_VAR) {
		if (pop_group(o, first->text) >= 0)
			return ps_at_value(P);
		const Field *f = field_of(o, first->text);
		if (f && f->kind == F_ENUM)
			return ps_at_enum(P, f->en);
	}
	return false;
}

static bool unit_anchor(const POp *o, const AsmElem *k, int i)
{
	if (!k->anchor || k->kind != E_VAR || i == 0)
		return false;
	const Field *f = field_of(o, k->text);
	return (f && f->kind == F_UNIT) || (!f && strcmp(k->text, "constant") == 0);
}

static bool group(Parser *P, POp *o, const AsmElem *e)
{
	if (!group_there(P, o, e)) {
		for (int i = 0; i < e->nkids; i++) {
			int g = e->kids[i].kind == E_VAR ? pop_group(o, e->kids[i].text) : -1;
			if (g >= 0 && !pop_set_group(P, o, g, NULL, 0))
				return false;
		}
		return true;
	}
	for (int i = 0; i < e->nkids && !P->failed; i++) {
		const AsmElem *k = &e->kids[i];
		if (unit_anchor(o, k, i))
			pop_set_attr(P, o, k->text, attr_bool(P->m, true));
		else if (!run(P, o, k, 1))
			return false;
	}
	return !P->failed;
}

static bool opt_attr_dict(Parser *P, POp *o, bool keyword)
{
	if (keyword ? !ps_eat_kw(P, "attributes") : !ps_at(P, "{"))
		return true;
	ps_ws(P);
	const char *at = P->p;
	const Attr *d = ps_dict(P, 0);
	if (!d)
		return false;
	for (int i = 0; i < d->u.dict.n; i++) {
		if (pop_attr(o, d->u.dict.v[i].name))
			return ps_fail(P, at, "attribute '%s' given twice", d->u.dict.v[i].name);
		pop_set_attr(P, o, d->u.dict.v[i].name, d->u.dict.v[i].attr);
	}
	return true;
}

static bool run(Parser *P, POp *o, const AsmElem *v, int n)
{
	for (int i = 0; i < n && !P->failed; i++) {
		const AsmElem *e = &v[i];
		switch (e->kind) {
		case E_LIT:
			if (!literal(P, e->text, true))
				return false;
			break;
		case E_SPACE: break;
		case E_VAR:
			if (!var(P, o, e->text))
				return false;
			break;
		case E_TYPE:
			if (!types(P, o, e->text))
				return false;
			break;
		case E_CUSTOM:
			if (!directive(P, o, e))
				return false;
			break;
		case E_DICT:
			if (!opt_attr_dict(P, o, e->keyword))
				return false;
			break;
		case E_GROUP:
			if (!group(P, o, e))
				return false;
			break;
		case E_OILIST:
			for (bool more = true; more && !P->failed;) {
				more = false;
				for (int c = 0; c < e->nkids; c++)
					if (e->kids[c].nkids && literal(P, e->kids[c].kids[0].text, false)) {
						if (!group(P, o, &e->kids[c]))
							return false;
						more = true;
					}
			}
			break;
		}
	}
	return !P->failed;
}

/* "(`,` $mask^)? (`,` $paddingValue^)?" prints a padding value without a
 * mask as if it were the mask: a "mask" that is not a tile of i1 is the
 * padding value */
static void mask_or_padding(POp *o)
{
	int m = pop_group(o, "mask"), p = pop_group(o, "paddingValue");
	if (m < 0 || p < 0 || o->ngrp[m] != 1 || o->ngrp[p] != 0)
		return;
	const Type *t = o->grp[m][0]->type;
	if (t->kind == TY_TILE && t->elem->kind == TY_SCALAR && t->elem->scalar == SC_I1)
		return;
	o->grp[p] = o->grp[m];
	o->ngrp[p] = 1;
	o->grp[m] = NULL;
	o->ngrp[m] = 0;
}

bool pformat_op(Parser *P, POp *o)
{
	int n;
	const AsmElem *v = asm_format_elems((int)o->info->code, o->row, &n);
	bool ok = run(P, o, v, n);
	mask_or_padding(o);
	return ok;
}
