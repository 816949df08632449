/* asm_pnames.c: the SSA names of the text in scopes (asm_parse.h). A name
 * is defined once while it is visible; a region's names go when it closes
 * (so sibling regions may reuse them, as MLIR's printer does). A hash
 * table whose entries are also a stack: popping to a mark removes the
 * newest first, which are always at the heads of their chains. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "xalloc.h"

typedef struct Entry {
	const char *name;
	size_t len;
	Value **v;
	int n;
	struct Entry *next;        /* in its bucket */
	unsigned bucket;
} Entry;

struct PNames {
	Entry **bucket;
	unsigned nbuckets;
	Entry **stack;             /* in definition order */
	size_t n, cap;
};

PNames *ps_names_new(void)
{
	PNames *t = xcalloc(1, sizeof *t);
	t->nbuckets = 1u << 14;
	t->bucket = xcalloc(t->nbuckets, sizeof *t->bucket);
	return t;
}

void ps_names_free(PNames *t)
{
	if (!t)
		return;
	ps_names_pop(t, 0);
	free(t->bucket);
	free(t->stack);
	free(t);
}

size_t ps_names_mark(PNames *t) { return t->n; }

void ps_names_pop(PNames *t, size_t mark)
{
	while (t->n > mark) {
		Entry *e = t->stack[--t->n];
		t->bucket[e->bucket] = e->next;
		free(e->v);
		free(e);
	}
}

static unsigned hash(const char *s, size_t n, unsigned nb)
{
	unsigned h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h & (nb - 1);
}

static Entry *find(PNames *t, const char *s, size_t n)
{
	for (Entry *e = t->bucket[hash(s, n, t->nbuckets)]; e; e = e->next)
		if (e->len == n && memcmp(e->name, s, n) == 0)
			return e;
	return NULL;
}

bool ps_define(Parser *P, const char *at, const char *name, size_t len, Value **v, int n)
{
	PNames *t = P->names;
	if (find(t, name, len))
		return ps_fail(P, at, "redefinition of SSA value '%%%.*s'", (int)len, name);
	Entry *e = xcalloc(1, sizeof *e);
	e->name = name;
	e->len = len;
	e->n = n;
	e->v = xmalloc(sizeof *e->v * (size_t)(n ? n : 1));
	memcpy(e->v, v, sizeof *v * (size_t)n);
	e->bucket = hash(name, len, t->nbuckets);
	e->next = t->bucket[e->bucket];
	t->bucket[e->bucket] = e;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->stack = xrealloc(t->stack, sizeof *t->stack * t->cap);
	}
	t->stack[t->n++] = e;
	return true;
}

static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' || c == '-'; }

bool ps_at_value(Parser *P) { return ps_at(P, "%"); }

Value *ps_value(Parser *P)
{
	if (P->failed)
		return NULL;
	ps_ws(P);
	const char *at = P->p;
	if (!ps_eat(P, "%")) {
		ps_fail(P, at, "expected an SSA value, found %s", ps_token_text(P));
		return NULL;
	}
	const char *s = P->p;
	while (P->p < P->end && name_char(*P->p))
		P->p++;
	size_t len = (size_t)(P->p - s);
	if (!len) {
		ps_fail(P, at, "expected an SSA value name after '%%'");
		return NULL;
	}
	long idx = -1;
	if (P->p < P->end && *P->p == '#') {
		const char *d = ++P->p;
		idx = 0;
		while (P->p < P->end && isdigit((unsigned char)*P->p) && idx < 100000000)
			idx = idx * 10 + (*P->p++ - '0');
		if (P->p == d) {
			ps_fail(P, d, "expected a result number after '#'");
			return NULL;
		}
	}
	Entry *e = find(P->names, s, len);
	if (!e) {
		ps_fail(P, at, "use of undefined value '%%%.*s'", (int)len, s);
		return NULL;
	}
	if (idx < 0 && e->n != 1) {
		ps_fail(P, at, "'%%%.*s' names %d values: use '%%%.*s#0' ...", (int)len, s, e->n, (int)len, s);
		return NULL;
	}
	if (idx >= e->n) {
		ps_fail(P, at, "'%%%.*s' has %d value%s, no #%ld", (int)len, s, e->n, e->n == 1 ? "" : "s", idx);
		return NULL;
	}
	return e->v[idx < 0 ? 0 : idx];
}
