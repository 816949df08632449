/* asm_ploc.c: locations in the dialect's text (asm_parse.h): loc(unknown),
 * loc("file":line:col), loc(#alias), loc(callsite(A at B)), and the alias
 * definitions tileirdisasm -g prints after the module (#loc3 = loc(...),
 * #loc10 = #cuda_tile.di_loc<#loc1 in #di_subprogram>, the subprograms
 * and lexical blocks that name a location's function). They become the
 * module's Locs as the bytecode reader's debug.c makes them: file, line,
 * column, the enclosing subprogram's name, the call chain. */
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "xalloc.h"

enum { AK_OTHER, AK_LOC, AK_SCOPE };

typedef struct Alias {
	const char *name;
	size_t len;
	int kind;
	const Loc *loc;          /* AK_LOC */
	const char *func;        /* AK_SCOPE: the subprogram's name */
	unsigned flags;
} Alias;

struct PAliases { Alias *v; int n, cap; };

void ps_aliases_free(PAliases *a)
{
	if (a) {
		free(a->v);
		free(a);
	}
}

static const Alias *find(Parser *P, const char *s, size_t n)
{
	for (int i = 0; P->aliases && i < P->aliases->n; i++)
		if (P->aliases->v[i].len == n && memcmp(P->aliases->v[i].name, s, n) == 0)
			return &P->aliases->v[i];
	return NULL;
}

/* "#name": the alias, NULL after an error */
static const Alias *alias_ref(Parser *P, int kind)
{
	ps_ws(P);
	const char *at = P->p;
	if (!ps_expect(P, "#"))
		return NULL;
	size_t n = ps_ident_len(P);
	const Alias *a = n ? find(P, P->p, n) : NULL;
	if (!a) {
		ps_fail(P, at, "unknown alias '#%.*s'", (int)(n > 60 ? 60 : n), P->p);
		return NULL;
	}
	P->p += n;
	if (a->kind != kind) {
		ps_fail(P, at, "'#%.*s' is not a %s", (int)n, a->name, kind == AK_LOC ? "location" : "scope");
		return NULL;
	}
	return a;
}

/* l with `caller` at the end of its call chain */
static const Loc *append_caller(Parser *P, const Loc *l, const Loc *caller, int depth)
{
	if (depth > LOC_MAX_CALLERS) {
		ps_fail(P, P->p, "call-site locations nested more than %d deep", LOC_MAX_CALLERS);
		return NULL;
	}
	const Loc *rest = l->caller && l->caller->file ? append_caller(P, l->caller, caller, depth + 1) : caller;
	if (P->failed)
		return NULL;
	return loc_with_func_flags(P->m, loc_new(P->m, l->file, l->line, l->col, l->func, rest), l->func_flags);
}

static const Loc *inner(Parser *P, int depth)
{
	if (depth > LOC_MAX_CALLERS)
		return ps_fail(P, P->p, "locations nested more than %d deep", LOC_MAX_CALLERS), NULL;
	if (ps_eat_kw(P, "unknown"))
		return P->m->unknown_loc;
	if (ps_at(P, "#")) {
		const Alias *a = alias_ref(P, AK_LOC);
		return a ? a->loc : NULL;
	}
	if (ps_eat_kw(P, "callsite")) {
		if (!ps_expect(P, "("))
			return NULL;
		const Loc *callee = inner(P, depth + 1);
		const Loc *caller = callee && ps_expect_kw(P, "at") ? inner(P, depth + 1) : NULL;
		if (!caller || !ps_expect(P, ")"))
			return NULL;
		if (!callee->file)
			return callee;
		return append_caller(P, callee, caller->file ? caller : NULL, 0);
	}
	if (ps_eat_kw(P, "loc")) {
		const Loc *l = ps_expect(P, "(") ? inner(P, depth + 1) : NULL;
		return l && ps_expect(P, ")") ? l : NULL;
	}
	const char *file;
	int64_t line, col;
	if (!ps_string(P, &file))
		return NULL;
	if (ps_at(P, "(")) {          /* a named location: "name"(loc) */
		P->p++;
		const Loc *l = inner(P, depth + 1);
		return l && ps_expect(P, ")") ? l : NULL;
	}
	if (!ps_expect(P, ":") || !ps_int(P, &line) || !ps_expect(P, ":") || !ps_int(P, &col))
		return NULL;
	if (line < 0 || col < 0 || line > UINT32_MAX || col > UINT32_MAX)
		return ps_fail(P, P->p, "line or column out of range"), NULL;
	return loc_new(P->m, file, (unsigned)line, (unsigned)col, NULL, NULL);
}

bool ps_at_loc(Parser *P) { return ps_at_kw(P, "loc"); }

const Loc *ps_loc(Parser *P)
{
	if (!ps_expect_kw(P, "loc") || !ps_expect(P, "("))
		return NULL;
	const Loc *l = inner(P, 0);
	return l && ps_expect(P, ")") ? l : NULL;
}

/* key = value pairs up to '>': the string of `key_str`, the scope alias of `key_scope` */
static bool fields(Parser *P, const char *key_str, const char **str, const char *key_scope, const char **func)
{
	int guard = 0;
	do {
		if (++guard > 64)
			return ps_fail(P, P->p, "more than 64 fields in a location attribute");
		const char *k = ps_ident(P, "a field name");
		if (!k || !ps_expect(P, "="))
			return false;
		if (ps_at(P, "\"")) {
			const char *s;
			if (!ps_string(P, &s))
				return false;
			if (key_str && strcmp(k, key_str) == 0)
				*str = s;
		} else if (ps_at(P, "#")) {
			if (key_scope && strcmp(k, key_scope) == 0) {
				const Alias *a = alias_ref(P, AK_SCOPE);
				if (!a)
					return false;
				*func = a->func;
			} else {
				P->p++;
				P->p += ps_ident_len(P);
			}
		} else if (ps_ident_len(P)) {
			P->p += ps_ident_len(P);
		} else {
			int64_t v;
			if (!ps_int(P, &v))
				return false;
		}
	} while (ps_eat(P, ","));
	return ps_expect(P, ">");
}

static bool definition(Parser *P, Alias *a)
{
	if (ps_at_kw(P, "loc")) {
		a->kind = AK_LOC;
		return (a->loc = ps_loc(P)) != NULL;
	}
	if (ps_eat(P, "#cuda_tile.di_loc<")) {
		const Alias *l = alias_ref(P, AK_LOC);
		const Alias *s = l && ps_expect_kw(P, "in") ? alias_ref(P, AK_SCOPE) : NULL;
		if (!s || !ps_expect(P, ">"))
			return false;
		a->kind = AK_LOC;
		a->loc = l->loc->file ? loc_new(P->m, l->loc->file, l->loc->line, l->loc->col, s->func, NULL) : l->loc;
		return true;
	}
	if (ps_eat(P, "#cuda_tile.di_subprogram<")) {
		a->kind = AK_SCOPE;
		return fields(P, "name", &a->func, NULL, NULL);
	}
	if (ps_eat(P, "#cuda_tile.di_lexical_block<")) {
		a->kind = AK_SCOPE;
		return fields(P, NULL, NULL, "scope", &a->func);
	}
	a->kind = AK_OTHER;
	while (P->p < P->end && *P->p != '\n')
		P->p++;
	return true;
}

void ps_aliases_scan(Parser *P)
{
	P->aliases = xcalloc(1, sizeof *P->aliases);
	const char *save = P->p;
	for (const char *q = P->src; q < P->end && !P->failed; q++) {
		if (*q != '#' || (q > P->src && q[-1] != '\n'))
			continue;
		P->p = q + 1;
		size_t n = ps_ident_len(P);
		P->p += n;
		if (!n || !ps_eat(P, "="))
			continue;
		PAliases *t = P->aliases;
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 32;
			t->v = xrealloc(t->v, sizeof *t->v * (size_t)t->cap);
		}
		Alias a = { q + 1, n, AK_OTHER, NULL, NULL, 0 };
		if (!definition(P, &a))
			break;
		t->v[t->n++] = a;
		q = P->p > q ? P->p - 1 : q;
	}
	P->p = save;
}

void ps_skip_alias_def(Parser *P)
{
	while (P->p < P->end && *P->p != '\n')
		P->p++;
}
