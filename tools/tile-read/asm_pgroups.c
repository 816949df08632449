/* asm_pgroups.c: an op being read (POp, asm_parse.h): its attributes, its
 * operand groups by the row's names, the result types given for its
 * result groups, and the comma lists of values and types the formats and
 * custom parsers read them from. */
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "diag.h"
#include "opinfo.h"
#include "xalloc.h"

void pop_set_attr(Parser *P, POp *o, const char *name, const Attr *a)
{
	for (int i = 0; i < o->nattrs; i++)
		if (strcmp(o->attrs[i].name, name) == 0) {
			o->attrs[i].attr = a;
			return;
		}
	if (o->nattrs == (int)(sizeof o->attrs / sizeof o->attrs[0])) {
		ps_fail(P, P->p, "more than %d attributes on one op", o->nattrs);
		return;
	}
	o->attrs[o->nattrs++] = (NamedAttr){ arena_strdup(P->m->arena, name), a };
}

const Attr *pop_attr(const POp *o, const char *name)
{
	for (int i = 0; i < o->nattrs; i++)
		if (strcmp(o->attrs[i].name, name) == 0)
			return o->attrs[i].attr;
	return NULL;
}

int pop_group(const POp *o, const char *name) { return asm_word_index(o->row->operands, name); }

bool pop_set_group(Parser *P, POp *o, int g, Value **v, int n)
{
	if (g < 0 || g >= 8)
		ice("operand group %d of '%s'", g, o->info->name);
	free(o->grp[g]);
	o->grp[g] = v;
	o->ngrp[g] = n;
	o->grp_set[g] = true;
	return true;
}

bool pop_result_types(Parser *P, POp *o, const char *name, const Type *const *t, int n)
{
	int at = 0;
	char w[64], k = 0;
	if (name) {
		int g = asm_word_index(o->row->results, name);
		if (g < 0)
			ice("'%s' has no result '%s'", o->info->name, name);
		asm_word_at(o->row->results, g, w, sizeof w, &k);
		at = g;
	}
	if (!name || k == '*') {
		if (o->nres < 0)
			o->nres = n;
		if (n != o->nres)
			return ps_fail(P, P->p, "'%s' has %d results but %d result types", o->info->name, o->nres, n);
		at = 0;
	} else if (n != 1) {
		return ps_fail(P, P->p, "expected one type for result '%s'", name);
	}
	if (at + n > (int)(sizeof o->rtypes / sizeof o->rtypes[0]))
		return ps_fail(P, P->p, "more than %d results", (int)(sizeof o->rtypes / sizeof o->rtypes[0]));
	for (int i = 0; i < n; i++)
		o->rtypes[at + i] = t[i];
	return true;
}

int ps_value_list(Parser *P, Value ***out, int want)
{
	Value **v = NULL;
	int n = 0, cap = 0;
	*out = NULL;
	if (want < 0 && !ps_at_value(P))
		return 0;
	do {
		if (want >= 0 && n == want)
			break;
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			v = xrealloc(v, sizeof *v * (size_t)cap);
		}
		if (!(v[n++] = ps_value(P))) {
			free(v);
			return -1;
		}
	} while ((want < 0 || n < want) && ps_eat(P, ","));
	if (want >= 0 && n != want) {
		free(v);
		ps_fail(P, P->p, "expected %d operands, found %d", want, n);
		return -1;
	}
	*out = v;
	return n;
}

int ps_type_list(Parser *P, const Type ***out, int want)
{
	const Type **v = NULL;
	int n = 0, cap = 0;
	*out = NULL;
	if (want == 0)
		return 0;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			v = xrealloc(v, sizeof *v * (size_t)cap);
		}
		if (!(v[n++] = ps_type(P))) {
			free(v);
			return -1;
		}
	} while ((want < 0 || n < want) && ps_eat(P, ","));
	if (want >= 0 && n != want) {
		free(v);
		ps_fail(P, P->p, "expected %d types, found %d", want, n);
		return -1;
	}
	*out = v;
	return n;
}

bool pop_check_types(Parser *P, POp *o, int g, const Type *const *t, int n, const char *at)
{
	if (n != o->ngrp[g])
		return ps_fail(P, at, "%d types for %d operands", n, o->ngrp[g]);
	for (int i = 0; i < n; i++)
		if (o->grp[g][i]->type != t[i])
			return ps_fail(P, at, "operand %d of '%s' has type '%s', not '%s'", i, o->info->name,
				       o->grp[g][i]->type->str, t[i]->str);
	return true;
}

