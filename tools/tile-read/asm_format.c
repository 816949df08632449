/* asm_format.c: MLIR's declarative assembly formats (the FMT rows of
 * asm_ops.def) interpreted with the spacing rules of the printers MLIR's
 * OpFormatGen generates: literals, operands, attributes, regions,
 * type(...), custom<...> directives (asm_custom.c), attr-dict, optional
 * groups with their anchors, oilist. The spacing state moves through a
 * group whether or not it prints, as the generated code's compile-time
 * flags do (hence "ftof %0  : ..."). Parsed formats are cached per op.
 * Read-only over the IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "opinfo.h"

typedef AsmElem Elem;
typedef struct Fmt { const char *p; } Fmt;

static void skip_ws(Fmt *f)
{
	while (*f->p == ' ' || *f->p == '\n' || *f->p == '\t')
		f->p++;
}

static void copy_word(char *dst, size_t n, const char *s, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(dst, s, len);
	dst[len] = 0;
}

static int parse_elems(Fmt *f, Elem **out, const char *stop);

static void parse_one(Fmt *f, Elem *e)
{
	memset(e, 0, sizeof *e);
	const char *p = f->p;
	if (*p == '`') {
		const char *q = strchr(p + 1, '`');
		size_t len = (size_t)(q - p - 1);
		if (len == 0 || (len == 1 && p[1] == ' ')) {
			e->kind = E_SPACE;
			copy_word(e->text, sizeof e->text, p + 1, len);
		} else {
			e->kind = E_LIT;
			copy_word(e->text, sizeof e->text, p + 1, len);
		}
		f->p = q + 1;
	} else if (*p == '$') {
		size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		e->kind = E_VAR;
		copy_word(e->text, sizeof e->text, p + 1, len);
		f->p = p + 1 + len;
	} else if (strncmp(p, "type($", 6) == 0) {
		const char *q = strchr(p, ')');
		e->kind = E_TYPE;
		copy_word(e->text, sizeof e->text, p + 6, (size_t)(q - p - 6));
		f->p = q + 1;
	} else if (strncmp(p, "custom<", 7) == 0) {
		const char *q = strchr(p, '>');
		e->kind = E_CUSTOM;
		copy_word(e->text, sizeof e->text, p + 7, (size_t)(q - p - 7));
		p = q + 2;                 /* past ">(" */
		while (*p != ')') {
			while (*p == ' ' || *p == ',')
				p++;
			const char *a = p;
			if (strncmp(p, "type(", 5) == 0)
				p = strchr(p, ')') + 1;
			else
				while (*p && *p != ',' && *p != ')')
					p++;
			if (e->nargs < 4)
				copy_word(e->args[e->nargs++], sizeof e->args[0], a, (size_t)(p - a));
		}
		f->p = p + 1;
	} else if (strncmp(p, "attr-dict-with-keyword", 22) == 0) {
		e->kind = E_DICT;
		e->keyword = true;
		f->p = p + 22;
	} else if (strncmp(p, "attr-dict", 9) == 0) {
		e->kind = E_DICT;
		f->p = p + 9;
	} else if (strncmp(p, "oilist(", 7) == 0) {
		e->kind = E_OILIST;
		f->p = p + 7;
		for (;;) {
			e->kids = realloc(e->kids, (size_t)(e->nkids + 1) * sizeof *e->kids);
			Elem *cl = &e->kids[e->nkids++];
			memset(cl, 0, sizeof *cl);
			cl->kind = E_GROUP;
			cl->nkids = parse_elems(f, &cl->kids, "|)");
			/* the clause's variable is its anchor */
			for (int i = 0; i < cl->nkids; i++)
				if (cl->kids[i].kind == E_VAR)
					cl->kids[i].anchor = true;
			skip_ws(f);
			if (*f->p++ == ')')
				break;
		}
	} else if (*p == '(') {
		e->kind = E_GROUP;
		f->p = p + 1;
		e->nkids = parse_elems(f, &e->kids, ")");
		f->p++;                    /* ')' */
		if (*f->p == '?')
			f->p++;
	} else {
		e->kind = E_SPACE;         /* unknown: print nothing */
		f->p = p + 1;
	}
	if (*f->p == '^') {
		e->anchor = true;
		f->p++;
	}
}

static int parse_elems(Fmt *f, Elem **out, const char *stop)
{
	int n = 0, cap = 0;
	Elem *v = NULL;
	for (;;) {
		skip_ws(f);
		if (!*f->p || strchr(stop, *f->p))
			break;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			v = realloc(v, (size_t)cap * sizeof *v);
		}
		parse_one(f, &v[n++]);
	}
	*out = v;
	return n;
}

typedef struct Parsed { const char *src; Elem *elems; int n; } Parsed;
static Parsed parsed[OPCODE_COUNT];

const AsmElem *asm_format_elems(int code, const AsmRow *row, int *n)
{
	Parsed *p = &parsed[code];
	if (p->src != row->format) {
		Fmt f = { row->format };
		p->n = parse_elems(&f, &p->elems, "");
		p->src = row->format;
	}
	*n = p->n;
	return p->elems;
}

typedef struct Run {
	AsmCtx *c;
	const Op *op;
	const AsmRow *row;
	bool space, punct;        /* OpFormatGen's shouldEmitSpace, lastWasPunctuation */
	StrBuf used;              /* attributes the format names, space-separated */
} Run;

static const Attr *present_attr(const Run *r, const char *name)
{
	const Attr *a = op_attr(r->op, name);
	if (!a || asm_at_default(r->row, name, a))
		return NULL;
	if (a->kind == AT_BOOL && !a->u.i)
		return NULL;
	return a;
}

static const Region *region_named(const Op *op, const char *name)
{
	int i = strcmp(name, "elseRegion") == 0 ? 1 : 0;
	return i < op->nregions ? &op->regions[i] : NULL;
}

static bool is_region_name(const char *name)
{
	return strcmp(name, "thenRegion") == 0 || strcmp(name, "elseRegion") == 0 || strcmp(name, "body") == 0;
}

/* Is the variable there (operand group non-empty, attribute set, region
 * with a block)? */
static bool var_present(const Run *r, const char *name)
{
	int first;
	if (asm_word_index(r->row->operands, name) >= 0)
		return asm_group_named(r->op, r->row, name, &first) > 0;
	if (asm_word_index(r->row->results, name) >= 0)
		return asm_result_group(r->op, r->row, name, &first) > 0;
	if (is_region_name(name)) {
		const Region *rg = region_named(r->op, name);
		return rg && rg->first;
	}
	return present_attr(r, name) != NULL;
}

static bool elem_present(const Run *r, const Elem *e)
{
	switch (e->kind) {
	case E_VAR:
	case E_TYPE: return var_present(r, e->text);
	case E_CUSTOM:
		for (int i = 0; i < e->nargs; i++) {
			const char *a = e->args[i];
			char v[64];
			if (strncmp(a, "type($", 6) == 0)
				copy_word(v, sizeof v, a + 6, strlen(a) - 7);
			else
				copy_word(v, sizeof v, a + 1, strlen(a) - 1);
			if (var_present(r, v))
				return true;
		}
		return false;
	default: return true;
	}
}

static void print_types_of(Run *r, const char *name)
{
	int first, n;
	Value *const *vals;
	if (asm_word_index(r->row->operands, name) >= 0) {
		n = asm_group_named(r->op, r->row, name, &first);
		vals = r->op->operands;
	} else {
		n = asm_result_group(r->op, r->row, name, &first);
		vals = r->op->results;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(r->c->b, ", ");
		asm_type(r->c->b, vals[first + i]->type);
	}
}

static void print_var(Run *r, const char *name)
{
	if (asm_word_index(r->row->operands, name) >= 0) {
		int first, n = asm_group_named(r->op, r->row, name, &first);
		asm_values(r->c, r->op->operands + first, n);
		return;
	}
	if (is_region_name(name)) {
		const Region *rg = region_named(r->op, name);
		if (rg)
			asm_region(r->c, rg, true);
		return;
	}
	const Attr *a = op_attr(r->op, name);
	if (a)
		asm_format_attr(r->c->b, name, a);
}

/* One element: print it when `on`, and always move the spacing state as the
 * generated printer's compile-time flags move. */
static void run_elems(Run *r, const Elem *v, int n, bool on);

static void run_elem(Run *r, const Elem *e, bool on)
{
	StrBuf *b = r->c->b;
	switch (e->kind) {
	case E_LIT: {
		const char *t = e->text;
		bool before;
		if (strlen(t) != 1 && strcmp(t, "->") != 0)
			before = true;
		else if (r->punct)
			before = !strchr(">)}],", t[0]);
		else
			before = !strchr("<>(){}[],", t[0]);
		if (on) {
			if (r->space && before)
				sb_putc(b, ' ');
			sb_puts(b, t);
		}
		r->space = strlen(t) != 1 || !strchr("<({[", t[0]);
		r->punct = t[0] != '_' && !((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z'));
		return;
	}
	case E_SPACE:
		if (e->text[0]) {
			if (on)
				sb_putc(b, ' ');
			r->punct = false;
		} else {
			r->punct = true;
		}
		r->space = false;
		return;
	case E_DICT:
		if (on)
			asm_attr_dict(r->c, r->op, sb_cstr(&r->used), e->keyword);
		r->punct = false;
		return;
	case E_GROUP: {
		/* the anchor decides; a unit-attribute anchor that is not the first
		 * element is not printed */
		const Elem *anchor = NULL;
		for (int i = 0; i < e->nkids; i++)
			if (e->kids[i].anchor)
				anchor = &e->kids[i];
		bool there = on && (!anchor || elem_present(r, anchor));
		for (int i = 0; i < e->nkids; i++) {
			const Elem *k = &e->kids[i];
			if (k == anchor && k->kind == E_VAR && i > 0) {
				const Attr *a = op_attr(r->op, k->text);
				if (a && a->kind == AT_BOOL)
					continue;
			}
			run_elem(r, k, there);
		}
		return;
	}
	case E_OILIST:
		for (int i = 0; i < e->nkids; i++)
			run_elem(r, &e->kids[i], on);
		return;
	default:
		break;
	}
	if (on && (r->space || !r->punct))
		sb_putc(b, ' ');
	r->punct = false;
	r->space = true;
	if (!on)
		return;
	switch (e->kind) {
	case E_VAR: print_var(r, e->text); return;
	case E_TYPE: print_types_of(r, e->text); return;
	case E_CUSTOM: {
		const char *args[4];
		for (int i = 0; i < e->nargs; i++)
			args[i] = e->args[i];
		if (strcmp(e->text, "CudaTileType") == 0) {
			for (int i = 0; i < e->nargs; i++) {
				char v[64];
				copy_word(v, sizeof v, e->args[i] + 6, strlen(e->args[i]) - 7);
				print_types_of(r, v);
			}
			return;
		}
		asm_directive(r->c, r->op, r->row, e->text, e->nargs, args);
		return;
	}
	default: return;
	}
}

static void run_elems(Run *r, const Elem *v, int n, bool on)
{
	for (int i = 0; i < n; i++)
		run_elem(r, &v[i], on);
}

void asm_print_format(AsmCtx *c, const Op *op, const AsmRow *row)
{
	int n;
	const Elem *v = asm_format_elems((int)op->info->code, row, &n);
	Run r = { c, op, row, true, false, {0} };
	sb_puts(&r.used, "");
	/* attributes named anywhere in the format are not in attr-dict */
	Fmt f = { row->format };
	for (const char *p = f.p; (p = strchr(p, '$')); p++) {
		size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		sb_putc(&r.used, ' ');
		sb_putn(&r.used, p + 1, len);
	}
	run_elems(&r, v, n, true);
	sb_free(&r.used);
}
