/* asm_groups.c: what a row of asm_ops.def says about one op: the words of
 * its lists, which operands and results form each named group, which
 * attributes sit at their defaults (asm.h). Below asm_rows.c (the table)
 * and asm_custom.c, which both use it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "diag.h"
#include "opinfo.h"

/* the i-th space-separated word of list, into w; its kind suffix ('?', '*'
 * or 0) in *kind; false past the end */
bool asm_word_at(const char *list, int i, char *w, size_t n, char *kind)
{
	const char *p = list;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return false;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		if (i-- == 0) {
			size_t len = (size_t)(e - p);
			char k = 0;
			if (len && (e[-1] == '?' || e[-1] == '*')) {
				k = e[-1];
				len--;
			}
			if (len >= n)
				len = n - 1;
			memcpy(w, p, len);
			w[len] = 0;
			if (kind)
				*kind = k;
			return true;
		}
		p = e;
	}
}

int asm_word_index(const char *list, const char *name)
{
	char w[64];
	for (int i = 0; asm_word_at(list, i, w, sizeof w, NULL); i++)
		if (strcmp(w, name) == 0)
			return i;
	return -1;
}

/* groups of n values named by list, sized by seg (operand_segment_sizes) or
 * by giving the one variadic group what the single ones leave */
static int group_range(const char *list, const Attr *seg, int total, int g, int *first)
{
	char w[64], k;
	int ngroups = 0, nsingle = 0;
	while (asm_word_at(list, ngroups, w, sizeof w, &k)) {
		if (!k)
			nsingle++;
		ngroups++;
	}
	if (g >= ngroups)
		return *first = total, 0;
	int at = 0;
	for (int i = 0; i <= g; i++) {
		asm_word_at(list, i, w, sizeof w, &k);
		int n;
		if (seg && seg->kind == AT_INTS && i < seg->u.ints.n)
			n = (int)seg->u.ints.v[i];
		else
			n = k ? total - nsingle : 1;
		if (n < 0)
			n = 0;
		if (at + n > total)
			n = total - at;
		if (i == g) {
			*first = at;
			return n;
		}
		at += n;
	}
	return 0;
}

int asm_group(const Op *op, const AsmRow *row, int g, int *first)
{
	return group_range(row->operands, op_attr(op, "operand_segment_sizes"), op->noperands, g, first);
}

int asm_group_named(const Op *op, const AsmRow *row, const char *name, int *first)
{
	int g = asm_word_index(row->operands, name);
	if (g < 0)
		return *first = 0, 0;
	return asm_group(op, row, g, first);
}

int asm_result_group(const Op *op, const AsmRow *row, const char *name, int *first)
{
	int g = asm_word_index(row->results, name);
	if (g < 0)
		return *first = 0, 0;
	return group_range(row->results, NULL, op->nresults, g, first);
}

bool asm_in_list(const char *list, const char *name)
{
	return asm_word_index(list, name) >= 0;
}

/* the attribute at its row default counts as absent */
bool asm_at_default(const AsmRow *row, const char *name, const Attr *a)
{
	size_t n = strlen(name);
	for (const char *p = row->defaults; (p = strstr(p, name)); p += n) {
		if ((p != row->defaults && p[-1] != ' ') || p[n] != '=')
			continue;
		const char *v = p + n + 1;
		size_t vl = strcspn(v, " ");
		if (a->kind == AT_STRING && strlen(a->u.s) == vl && strncmp(a->u.s, v, vl) == 0)
			return true;
		if (a->kind == AT_INT && (size_t)snprintf(NULL, 0, "%lld", (long long)a->u.i) == vl &&
		    strtoll(v, NULL, 10) == a->u.i)
			return true;
	}
	return false;
}


