/* asm_rows.c: the rows of asm_ops.def as a table (asm_row), their check
 * against the verifier's operand groups (asm_check_rows), and what a row
 * says about one op: which operands and results form each named group,
 * and which attributes sit at their defaults (asm.h). Constant data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "diag.h"
#include "opinfo.h"
#include "verify.h"

#define FMT(s) s, NULL
#define CUSTOM(fn) NULL, asm_custom_##fn
static const AsmRow rows[] = {
#define ASM(op, mn, opnds, res, dflt, flags, how) [CT_##op] = { mn, opnds, res, dflt, how, flags },
#include "asm_ops.def"
#undef ASM
};
#undef FMT
#undef CUSTOM

const AsmRow *asm_row(const Op *op)
{
	unsigned c = op->info->code;
	if (op->info->dialect != DIALECT_CUDA_TILE || c >= sizeof rows / sizeof rows[0] || !rows[c].mnemonic)
		return NULL;
	return &rows[c];
}

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


void asm_check_rows(void)
{
	for (int i = 0; i < OPCODE_COUNT; i++) {
		const OpInfo *o = &op_table[i];
		if (o->dialect != DIALECT_CUDA_TILE)
			continue;
		if (i >= (int)(sizeof rows / sizeof rows[0]) || !rows[i].mnemonic)
			ice("asm_ops.def: no row for '%s'", o->name);
		const char *groups = verify_rule_operands(i);
		char w[64], k;
		int g = 0;
		for (; asm_word_at(rows[i].operands, g, w, sizeof w, &k); g++)
			if (!groups || !groups[g] || groups[g] != (k ? k : '1'))
				ice("asm_ops.def: '%s': operand group '%s' is not the verifier's '%c'", o->name, w,
				    groups && groups[g] ? groups[g] : '-');
		if (groups && groups[g])
			ice("asm_ops.def: '%s': %zu operand groups in its rule, %d in its row", o->name,
			    strlen(groups), g);
		if (!rows[i].format == !rows[i].custom)
			ice("asm_ops.def: '%s': a format or a printer, not both", o->name);
	}
}
