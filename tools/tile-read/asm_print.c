/* asm_print.c: a cuda_tile module in the dialect's own assembly syntax, as
 * NVIDIA's tileirdisasm 13.5 prints it (asm.h): each top-level op (global,
 * entry) in turn, ops without the cuda_tile. prefix, SSA names as MLIR's
 * AsmPrinter gives them, and each op through its row of asm_ops.def:
 * a declarative format interpreted here with MLIR's spacing rules
 * (OpFormatGen), or a printer of asm_custom.c.
 *
 * SSA names follow MLIR's SSANameState: within a region, block arguments
 * then each op's results in order get a name from the op (asm_ops.def
 * flags, constant and assume names) or the next number; a name already
 * used in this region or an enclosing one gets "_N" from a counter shared
 * by the whole function; entry-block arguments without a name are argN.
 * Nested regions are numbered after their whole parent region, each from
 * the counters as the parent left them. Read-only over the IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "diag.h"
#include "opinfo.h"
#include "verify.h"

/* ------------------------------------------------------------------ the rows */

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

static bool word_at(const char *list, int i, char *w, size_t n, char *kind);

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
		for (; word_at(rows[i].operands, g, w, sizeof w, &k); g++)
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

/* the i-th space-separated word of list, into w; its kind suffix ('?', '*'
 * or 0) in *kind; false past the end */
static bool word_at(const char *list, int i, char *w, size_t n, char *kind)
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

static int word_index(const char *list, const char *name)
{
	char w[64];
	for (int i = 0; word_at(list, i, w, sizeof w, NULL); i++)
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
	while (word_at(list, ngroups, w, sizeof w, &k)) {
		if (!k)
			nsingle++;
		ngroups++;
	}
	if (g >= ngroups)
		return *first = total, 0;
	int at = 0;
	for (int i = 0; i <= g; i++) {
		word_at(list, i, w, sizeof w, &k);
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
	int g = word_index(row->operands, name);
	if (g < 0)
		return *first = 0, 0;
	return asm_group(op, row, g, first);
}

static int result_group(const Op *op, const AsmRow *row, const char *name, int *first)
{
	int g = word_index(row->results, name);
	if (g < 0)
		return *first = 0, 0;
	return group_range(row->results, NULL, op->nresults, g, first);
}

/* ------------------------------------------------------------------ SSA names */

/* The names used in one region: an open-addressing set; lookups walk out
 * through the enclosing regions' sets (MLIR's ScopedHashTable). */
typedef struct Scope {
	const struct Scope *parent;
	const char **slot;
	size_t n, cap;          /* cap a power of two, or 0 */
} Scope;

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static bool scope_has(const Scope *s, const char *name)
{
	size_t h = name_hash(name);
	for (; s; s = s->parent) {
		if (!s->cap)
			continue;
		for (size_t i = h & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
			if (strcmp(s->slot[i], name) == 0)
				return true;
	}
	return false;
}

static void scope_add(Scope *s, const char *name)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		const char **slot = calloc(cap, sizeof *slot);
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i]) {
				size_t j = name_hash(s->slot[i]) & (cap - 1);
				while (slot[j])
					j = (j + 1) & (cap - 1);
				slot[j] = s->slot[i];
			}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	size_t j = name_hash(name) & (s->cap - 1);
	while (s->slot[j])
		j = (j + 1) & (s->cap - 1);
	s->slot[j] = name;
	s->n++;
}

typedef struct Namer {
	Arena *arena;
	const char **spell;      /* by value id: "%name", "%3", "%for#1" */
	const char **head;       /* by value id of a group head: the name printed at the def */
	int *group_size;         /* by value id of a group head */
	int next_value, next_arg, next_conflict;
} Namer;

static const char *unique_name(Namer *nm, Scope *sc, const char *raw)
{
	/* sanitizeIdentifier: keep [A-Za-z0-9$._-], ' ' -> '_', others as hex;
	 * a leading digit gets '_' */
	StrBuf s = {0};
	if (raw[0] >= '0' && raw[0] <= '9')
		sb_putc(&s, '_');
	for (const unsigned char *p = (const unsigned char *)raw; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("$._-", *p))
			sb_putc(&s, (char)*p);
		else if (*p == ' ')
			sb_putc(&s, '_');
		else
			sb_printf(&s, "%X", *p);
	}
	const char *name = arena_strdup(nm->arena, sb_cstr(&s));
	if (scope_has(sc, name)) {
		for (;;) {
			const char *probe = arena_printf(nm->arena, "%s_%d", name, nm->next_conflict++);
			if (!scope_has(sc, probe)) {
				name = probe;
				break;
			}
		}
	}
	sb_free(&s);
	scope_add(sc, name);
	return name;
}

/* What the op itself calls result i (MLIR's getAsmResultNames): NULL when it
 * names none; `interface` tells whether the op has OpAsmOpInterface. */
static const char *result_raw_name(Arena *a, const Op *op, int i, bool *interface)
{
	const AsmRow *row = asm_row(op);
	*interface = row && (row->flags & (ASM_DEFAULT_DIALECT | ASM_NAMED_RESULTS));
	if (!row)
		return NULL;
	switch (op->info->code) {
	case CT_constant: {
		const Attr *v = op_attr(op, "value");
		return i == 0 && v && v->kind == AT_DENSE ? asm_constant_name(a, v) : NULL;
	}
	case CT_assume: {
		if (i != 0)
			return NULL;
		const Value *src = op->noperands ? op->operands[0] : NULL;
		if (src && src->def) {
			bool itf;
			const char *pn = result_raw_name(a, src->def, src->index, &itf);
			if (itf)
				return arena_printf(a, "assume_%s", pn ? pn : "");
		}
		return "assume";
	}
	case CT_broadcast: return i == 0 ? "bcast" : NULL;
	case CT_reshape: return i == 0 ? "reshape" : NULL;
	case CT_make_tensor_view: return i == 0 ? "tview" : NULL;
	case CT_make_partition_view: return i == 0 ? "pview" : NULL;
	case CT_make_strided_view: return i == 0 ? "sview" : NULL;
	case CT_make_gather_scatter_view: return i == 0 ? "gsview" : NULL;
	case CT_for: return i == 0 ? "for" : NULL;
	case CT_reduce: return i == 0 ? "reduce" : NULL;
	default: break;
	}
	if (row->flags & ASM_NAMED_RESULTS) {
		char w[64];
		if (word_at(row->results, i, w, sizeof w, NULL))
			return arena_strdup(a, w);
	}
	return NULL;
}

static void set_numbered(Namer *nm, const Value *v)
{
	nm->head[v->id] = arena_printf(nm->arena, "%d", nm->next_value++);
}

static void number_region(Namer *nm, const Region *r, const Scope *parent);

static void number_op(Namer *nm, Scope *sc, const Op *op)
{
	if (!op->nresults)
		return;
	bool itf;
	bool named[64] = { 0 };
	int n = op->nresults < 64 ? op->nresults : 64;
	for (int i = 0; i < n; i++) {
		const char *raw = result_raw_name(nm->arena, op, i, &itf);
		if (raw && *raw) {
			nm->head[op->results[i]->id] = unique_name(nm, sc, raw);
			named[i] = true;
		} else if (raw) {
			set_numbered(nm, op->results[i]);
			named[i] = true;
		}
	}
	if (!named[0])
		set_numbered(nm, op->results[0]);
	/* result groups: each named result starts one (result 0 always does) */
	int start = 0;
	for (int i = 1; i <= op->nresults; i++) {
		if (i < op->nresults && !(i < 64 && named[i]))
			continue;
		const Value *h = op->results[start];
		nm->group_size[h->id] = i - start;
		for (int k = start; k < i; k++) {
			const Value *v = op->results[k];
			if (op->nresults == 1 || i - start == 1)
				nm->spell[v->id] = arena_printf(nm->arena, "%%%s", nm->head[h->id]);
			else
				nm->spell[v->id] = arena_printf(nm->arena, "%%%s#%d", nm->head[h->id], k - start);
		}
		start = i;
	}
}

static void name_arg(Namer *nm, Scope *sc, const Value *v, const char *raw)
{
	nm->head[v->id] = unique_name(nm, sc, raw);
	nm->spell[v->id] = arena_printf(nm->arena, "%%%s", nm->head[v->id]);
}

static void number_region(Namer *nm, const Region *r, const Scope *parent)
{
	Scope sc = { parent, NULL, 0, 0 };
	const Op *owner = r->parent;
	/* getAsmBlockArgumentNames */
	if (owner && r->first) {
		const Block *b = r->first;
		if (owner->info->code == CT_for && b->nargs) {
			name_arg(nm, &sc, b->args[0], "loopIdx");
			for (int i = 1; i < b->nargs; i++)
				name_arg(nm, &sc, b->args[i], arena_printf(nm->arena, "iterArg%d", i - 1));
		} else if (owner->info->code == CT_reduce) {
			for (int i = 0; i < b->nargs; i++) {
				const char *base = i % 2 == 0 ? "reduce_lhs" : "reduce_rhs";
				name_arg(nm, &sc, b->args[i],
					 b->nargs > 2 ? arena_printf(nm->arena, "%s%d", base, i / 2) : base);
			}
		}
	}
	FOR_EACH_BLOCK(b, r) {
		bool entry = b == r->first;
		for (int i = 0; i < b->nargs; i++) {
			const Value *v = b->args[i];
			if (nm->spell[v->id])
				continue;
			if (entry) {
				name_arg(nm, &sc, v, arena_printf(nm->arena, "arg%d", nm->next_arg++));
			} else {
				set_numbered(nm, v);
				nm->spell[v->id] = arena_printf(nm->arena, "%%%s", nm->head[v->id]);
			}
		}
		FOR_EACH_OP(op, b)
			number_op(nm, &sc, op);
	}
	/* nested regions, each from the counters as this region leaves them */
	int value = nm->next_value, arg = nm->next_arg, conflict = nm->next_conflict;
	FOR_EACH_BLOCK(b, r)
		FOR_EACH_OP(op, b)
			for (int i = 0; i < op->nregions; i++) {
				nm->next_value = value;
				nm->next_arg = arg;
				nm->next_conflict = conflict;
				number_region(nm, &op->regions[i], &sc);
			}
	free(sc.slot);
}

/* ------------------------------------------------------------------ printing */

void asm_value(AsmCtx *c, const Value *v)
{
	const char *s = v->id < c->nvalues ? c->spell[v->id] : NULL;
	sb_puts(c->b, s ? s : "<<UNKNOWN SSA VALUE>>");
}

void asm_values(AsmCtx *c, Value *const *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(c->b, ", ");
		asm_value(c, v[i]);
	}
}

void asm_newline(AsmCtx *c)
{
	sb_putc(c->b, '\n');
	for (int i = 0; i < c->indent; i++)
		sb_puts(c->b, "  ");
}

static void print_op(AsmCtx *c, const Op *op);

static void print_loc(AsmCtx *c, const Op *op)
{
	if (c->locs)
		asm_locs_op(c->b, c->locs, op);
}

void asm_region(AsmCtx *c, const Region *r, bool print_terms)
{
	sb_puts(c->b, "{\n");
	FOR_EACH_BLOCK(b, r) {
		c->indent++;
		FOR_EACH_OP(op, b) {
			if (!op->next && op_has(op->info, OPT_TERM) && !print_terms)
				break;
			for (int i = 0; i < c->indent; i++)
				sb_puts(c->b, "  ");
			print_op(c, op);
			print_loc(c, op);
			sb_putc(c->b, '\n');
		}
		c->indent--;
	}
	for (int i = 0; i < c->indent; i++)
		sb_puts(c->b, "  ");
	sb_putc(c->b, '}');
}

static bool in_list(const char *list, const char *name)
{
	return word_index(list, name) >= 0;
}

/* the attribute at its row default counts as absent */
static bool at_default(const AsmRow *row, const char *name, const Attr *a)
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

void asm_attr_dict(AsmCtx *c, const Op *op, const char *elided, bool with_keyword)
{
	const AsmRow *row = asm_row(op);
	int n = 0;
	for (int i = 0; i < op->nattrs; i++) {
		const NamedAttr *na = &op->attrs[i];
		if (strcmp(na->name, "operand_segment_sizes") == 0 || in_list(elided, na->name) ||
		    (row && at_default(row, na->name, na->attr)))
			continue;
		sb_puts(c->b, n++ ? ", " : with_keyword ? " attributes {" : " {");
		sb_puts(c->b, na->name);
		if (na->attr->kind == AT_BOOL && na->attr->u.i)
			continue;
		sb_puts(c->b, " = ");
		asm_attr(c->b, na->attr, true);
	}
	if (n)
		sb_putc(c->b, '}');
}

/* --------------------------------------------------------- the format interpreter */

enum { E_LIT, E_SPACE, E_VAR, E_TYPE, E_CUSTOM, E_DICT, E_GROUP, E_OILIST };

typedef struct Elem {
	int kind;
	char text[64];            /* literal, variable or directive name */
	int nargs;
	char args[4][64];         /* custom<..>(args): "$x" or "type($x)" */
	bool keyword;             /* attr-dict-with-keyword */
	bool anchor;              /* marked ^ inside its group */
	struct Elem *kids;        /* group / oilist clause elements */
	int nkids;
} Elem;

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

static const Elem *format_of(const Op *op, const AsmRow *row, int *n)
{
	Parsed *p = &parsed[op->info->code];
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
	if (!a || at_default(r->row, name, a))
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
	if (word_index(r->row->operands, name) >= 0)
		return asm_group_named(r->op, r->row, name, &first) > 0;
	if (word_index(r->row->results, name) >= 0)
		return result_group(r->op, r->row, name, &first) > 0;
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
	if (word_index(r->row->operands, name) >= 0) {
		n = asm_group_named(r->op, r->row, name, &first);
		vals = r->op->operands;
	} else {
		n = result_group(r->op, r->row, name, &first);
		vals = r->op->results;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(r->c->b, ", ");
		asm_type(r->c->b, vals[first + i]->type);
	}
}

static bool quoted_string_attr(const char *name)
{
	return strcmp(name, "message") == 0 || strcmp(name, "str") == 0;
}

static void print_var(Run *r, const char *name)
{
	StrBuf *b = r->c->b;
	if (word_index(r->row->operands, name) >= 0) {
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
	if (!a)
		return;
	if (a->kind == AT_STRING) {
		if (quoted_string_attr(name))
			asm_string(b, a->u.s);
		else if (strcmp(name, "name") == 0 || strcmp(name, "sym_name") == 0)
			asm_symbol(b, a->u.s);
		else if (strcmp(name, "overflow") == 0 || strcmp(name, "rounding") == 0)
			sb_printf(b, "<%s>", asm_enum(name, a->u.s));
		else
			sb_puts(b, asm_enum(name, a->u.s));
	} else if (a->kind == AT_DICT && strcmp(name, "optimization_hints") == 0) {
		sb_putc(b, '<');
		for (int i = 0; i < a->u.dict.n; i++) {
			sb_printf(b, "%s%s = ", i ? ", " : "", a->u.dict.v[i].name);
			asm_attr(b, a->u.dict.v[i].attr, false);
		}
		sb_putc(b, '>');
	} else {
		asm_attr(b, a, true);
	}
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

static void print_format(AsmCtx *c, const Op *op, const AsmRow *row)
{
	int n;
	const Elem *v = format_of(op, row, &n);
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

static void print_op(AsmCtx *c, const Op *op)
{
	const AsmRow *row = asm_row(op);
	if (op->nresults) {
		for (int i = 0; i < op->nresults; i++) {
			int id = op->results[i]->id;
			if (i && !c->group_size[id])
				continue;
			if (i)
				sb_puts(c->b, ", ");
			sb_printf(c->b, "%%%s", c->head[id] ? c->head[id] : "?");
			if (c->group_size[id] > 1)
				sb_printf(c->b, ":%d", c->group_size[id]);
		}
		sb_puts(c->b, " = ");
	}
	if (!row) {
		sb_printf(c->b, "\"%s\"() <<no assembly format>>", op->info->name);
		return;
	}
	sb_puts(c->b, row->mnemonic);
	if (row->custom)
		row->custom(c, op);
	else
		print_format(c, op, row);
}

void asm_print_module(StrBuf *b, Module *m, const struct DebugRecords *debug)
{
	asm_check_rows();
	ir_number_values(m);
	AsmLocs *locs = debug ? asm_locs_new(m, debug) : NULL;
	if (!m->body.first)
		sb_putc(b, '\n');       /* NVIDIA's prints an empty module as an empty line */
	FOR_EACH_OP(top, &m->body) {
		Arena *a = arena_new();
		int nv = op_count_values(top) + 1;
		Namer nm = { a, NULL, NULL, NULL, 0, 0, 0 };
		nm.spell = calloc((size_t)nv, sizeof *nm.spell);
		nm.head = calloc((size_t)nv, sizeof *nm.head);
		nm.group_size = calloc((size_t)nv, sizeof *nm.group_size);
		Scope top_scope = { NULL, NULL, 0, 0 };
		for (int i = 0; i < top->nregions; i++) {
			nm.next_value = nm.next_arg = nm.next_conflict = 0;
			number_region(&nm, &top->regions[i], &top_scope);
		}
		AsmCtx c = { b, 0, nm.spell, nm.head, nm.group_size, nv, locs };
		print_op(&c, top);
		print_loc(&c, top);
		sb_putc(b, '\n');
		free(nm.spell);
		free(nm.head);
		free(nm.group_size);
		arena_free(a);
	}
	if (locs)
		asm_locs_print(b, locs);
	asm_locs_free(locs);
}
