/* asm_names.c: SSA value names as MLIR's AsmPrinter gives them
 * (SSANameState), for the assembly syntax (asm.h): within a region, block
 * arguments then each op's results in order get a name from the op
 * (asm_ops.def flags; constant, assume, view names) or the next number; a
 * name already used in this region or an enclosing one gets "_N" from a
 * counter shared by the whole function; entry-block arguments without a
 * name are argN. Nested regions are numbered after their whole parent
 * region, each from the counters as the parent left them. Results that
 * share a name form a group: "%for:2" where defined, "%for#1" where used.
 * Read-only over the IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "opinfo.h"

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

struct Namer {
	Arena *arena;
	const char **spell;      /* by value id: "%name", "%3", "%for#1" */
	const char **head;       /* by value id of a group head: the name printed at the def */
	int *group_size;         /* by value id of a group head */
	int next_value, next_arg, next_conflict;
};

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
		if (asm_word_at(row->results, i, w, sizeof w, NULL))
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


Namer *asm_names_new(const Op *top, int nvalues)
{
	Namer *nm = calloc(1, sizeof *nm);
	nm->arena = arena_new();
	nm->spell = calloc((size_t)nvalues, sizeof *nm->spell);
	nm->head = calloc((size_t)nvalues, sizeof *nm->head);
	nm->group_size = calloc((size_t)nvalues, sizeof *nm->group_size);
	Scope top_scope = { NULL, NULL, 0, 0 };
	for (int i = 0; i < top->nregions; i++) {
		nm->next_value = nm->next_arg = nm->next_conflict = 0;
		number_region(nm, &top->regions[i], &top_scope);
	}
	return nm;
}

const char **asm_names_spell(const Namer *nm) { return nm->spell; }
const char **asm_names_head(const Namer *nm) { return nm->head; }
const int *asm_names_group_size(const Namer *nm) { return nm->group_size; }

void asm_names_free(Namer *nm)
{
	free(nm->spell);
	free(nm->head);
	free(nm->group_size);
	arena_free(nm->arena);
	free(nm);
}
