/* asm_debug.c: locations as NVIDIA's tileirdisasm -g prints them (MLIR's
 * location aliases): each op ends in loc(#locN), and after the module come
 * the alias definitions,
 *
 *   #di_file = #cuda_tile.di_file<"k.py" in "src">
 *   #loc1 = loc("src/k.py":3:5)
 *   #loc7 = #cuda_tile.di_loc<#loc1 in #di_subprogram>
 *   #loc9 = loc(callsite(#loc7 at #loc8))
 *
 * from the debug records tile-read kept (debug_info.h). MLIR's rules:
 * attributes are unique by value; each gets an alias named after its kind
 * when first met (ops in print order, an op's location before its regions,
 * an attribute before the attributes inside it); aliases sort by depth
 * (0 for one with no aliased parts, else one more than its deepest part),
 * then by name, then by when they were met; the first of a name is bare,
 * the next ones numbered from 1. Read-only over the IR and the records. */
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "debug_info.h"
#include "diag.h"
#include "opinfo.h"

enum { N_UNKNOWN, N_FLC, N_FILE, N_CU, N_SP, N_LB, N_DILOC, N_CALL };

static const char *const kind_alias[] = {
	[N_UNKNOWN] = "loc", [N_FLC] = "loc", [N_FILE] = "di_file", [N_CU] = "di_compile_unit",
	[N_SP] = "di_subprogram", [N_LB] = "di_lexical_block", [N_DILOC] = "loc", [N_CALL] = "loc",
};

typedef struct Node {
	int kind;
	int kid[2];              /* node ids, -1 none */
	const char *str[2];
	unsigned a, b, flags;
	int depth, met;          /* met: order first visited, -1 not yet */
	int suffix;
} Node;

/* a string -> int map (open addressing) */
typedef struct Map { char **key; int *val; size_t cap, n; } Map;

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static int *map_slot(Map *m, const char *key, bool *fresh)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		char **k = calloc(cap, sizeof *k);
		int *v = calloc(cap, sizeof *v);
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t j = hash_str(m->key[i]) & (cap - 1);
				while (k[j])
					j = (j + 1) & (cap - 1);
				k[j] = m->key[i];
				v[j] = m->val[i];
			}
		free(m->key);
		free(m->val);
		m->key = k;
		m->val = v;
		m->cap = cap;
	}
	size_t j = hash_str(key) & (m->cap - 1);
	while (m->key[j]) {
		if (strcmp(m->key[j], key) == 0) {
			*fresh = false;
			return &m->val[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	size_t len = strlen(key) + 1;
	m->key[j] = malloc(len);
	if (!m->key[j])
		ice("out of memory");
	memcpy(m->key[j], key, len);
	m->n++;
	*fresh = true;
	return &m->val[j];
}

static void map_free(Map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->key[i]);
	free(m->key);
	free(m->val);
}

/* an op pointer -> node id map */
typedef struct OpMap { const Op **key; int *val; size_t cap, n; } OpMap;

static void opmap_put(OpMap *m, const Op *op, int v)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		const Op **k = calloc(cap, sizeof *k);
		int *vv = calloc(cap, sizeof *vv);
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t j = ((uintptr_t)m->key[i] >> 4) & (cap - 1);
				while (k[j])
					j = (j + 1) & (cap - 1);
				k[j] = m->key[i];
				vv[j] = m->val[i];
			}
		free(m->key);
		free(m->val);
		m->key = k;
		m->val = vv;
		m->cap = cap;
	}
	size_t j = ((uintptr_t)op >> 4) & (m->cap - 1);
	while (m->key[j] && m->key[j] != op)
		j = (j + 1) & (m->cap - 1);
	if (!m->key[j])
		m->n++;
	m->key[j] = op;
	m->val[j] = v;
}

static int opmap_get(const OpMap *m, const Op *op)
{
	if (!m->cap)
		return -1;
	size_t j = ((uintptr_t)op >> 4) & (m->cap - 1);
	while (m->key[j]) {
		if (m->key[j] == op)
			return m->val[j];
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

struct AsmLocs {
	const DebugRecords *d;
	Node *node;
	int n, cap;
	Map by_value;
	int *by_ref;             /* record k -> node id, -1 not yet */
	OpMap of_op;
	int met;
};

static int add_node(AsmLocs *l, Node nd)
{
	StrBuf key = {0};
	sb_printf(&key, "%d\x01%d\x01%d\x01%u\x01%u\x01%u\x01%s\x01%s", nd.kind, nd.kid[0], nd.kid[1],
		  nd.a, nd.b, nd.flags, nd.str[0] ? nd.str[0] : "", nd.str[1] ? nd.str[1] : "");
	bool fresh;
	int *slot = map_slot(&l->by_value, sb_cstr(&key), &fresh);
	sb_free(&key);
	if (!fresh)
		return *slot;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->node = realloc(l->node, (size_t)l->cap * sizeof *l->node);
		if (!l->node)
			ice("out of memory");
	}
	nd.met = -1;
	l->node[l->n] = nd;
	return *slot = l->n++;
}

static Node node_of(int kind)
{
	return (Node){ kind, { -1, -1 }, { NULL, NULL }, 0, 0, 0, 0, -1, 0 };
}

/* the node of debug reference ref (0 or undecoded: unknown) */
static int node_ref(AsmLocs *l, uint64_t ref, int depth)
{
	const DebugRecords *d = l->d;
	if (!d || ref == 0 || ref > d->n || depth > 4 * LOC_MAX_CALLERS || d->rec[ref].tag < 0)
		return add_node(l, node_of(N_UNKNOWN));
	if (l->by_ref[ref] >= 0)
		return l->by_ref[ref];
	const DiRecord *r = &d->rec[ref];
	Node nd = node_of(N_UNKNOWN);
	switch (r->tag) {
	case DI_FILE:
		nd = node_of(N_FILE);
		nd.str[0] = r->str[0];
		nd.str[1] = r->str[1];
		break;
	case DI_COMPILE_UNIT:
		nd = node_of(N_CU);
		nd.kid[0] = node_ref(l, r->ref[0], depth + 1);
		break;
	case DI_SUBPROGRAM:
		nd = node_of(N_SP);
		nd.kid[0] = node_ref(l, r->ref[0], depth + 1);
		nd.kid[1] = node_ref(l, r->ref[1], depth + 1);
		nd.str[0] = r->str[0];
		nd.str[1] = r->str[1];
		nd.a = r->line;
		nd.b = r->col;
		nd.flags = r->flags;
		break;
	case DI_LEXICAL_BLOCK:
		nd = node_of(N_LB);
		nd.kid[0] = node_ref(l, r->ref[0], depth + 1);
		nd.kid[1] = node_ref(l, r->ref[1], depth + 1);
		nd.a = r->line;
		nd.b = r->col;
		break;
	case DI_LOC: {
		Node flc = node_of(N_FLC);
		flc.str[0] = r->str[0];
		flc.a = r->line;
		flc.b = r->col;
		nd = node_of(N_DILOC);
		nd.kid[0] = add_node(l, flc);
		nd.kid[1] = node_ref(l, r->ref[0], depth + 1);
		break;
	}
	case DI_CALL_SITE:
		nd = node_of(N_CALL);
		nd.kid[0] = node_ref(l, r->ref[0], depth + 1);
		nd.kid[1] = node_ref(l, r->ref[1], depth + 1);
		break;
	default:
		break;
	}
	return l->by_ref[ref] = add_node(l, nd);
}

/* first meeting: pre-order, depth from the parts */
static int visit(AsmLocs *l, int id)
{
	if (l->node[id].met >= 0)
		return l->node[id].depth;
	l->node[id].met = l->met++;
	int depth = 0;
	for (int i = 0; i < 2; i++) {
		int k = l->node[id].kid[i];
		if (k >= 0) {
			int dk = visit(l, k) + 1;
			if (dk > depth)
				depth = dk;
		}
	}
	l->node[id].depth = depth;
	return depth;
}

typedef struct Walk { AsmLocs *l; size_t next; } Walk;

static void walk_op(Walk *w, const Op *op, bool has_ref)
{
	AsmLocs *l = w->l;
	uint64_t ref = 0;
	if (has_ref && l->d && w->next < l->d->nrefs)
		ref = l->d->refs[w->next++];
	int id = node_ref(l, ref, 0);
	opmap_put(&l->of_op, op, id);
	visit(l, id);
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r])
			FOR_EACH_OP(inner, b)
				walk_op(w, inner, has_ref);
}

static int by_order(const void *pa, const void *pb, void *ctx)
{
	const Node *v = ctx;
	const Node *a = &v[*(const int *)pa], *b = &v[*(const int *)pb];
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	int c = strcmp(kind_alias[a->kind], kind_alias[b->kind]);
	if (c)
		return c;
	return a->met < b->met ? -1 : a->met > b->met;
}

static int *sorted(const AsmLocs *l, int *count)
{
	int *ids = malloc(sizeof *ids * (size_t)(l->n ? l->n : 1)), n = 0;
	for (int i = 0; i < l->n; i++)
		if (l->node[i].met >= 0)
			ids[n++] = i;
	/* insertion sort is fine for the few hundred aliases a module has;
	 * qsort_r is not C11 */
	for (int i = 1; i < n; i++) {
		int x = ids[i], j = i;
		while (j > 0 && by_order(&x, &ids[j - 1], l->node) < 0) {
			ids[j] = ids[j - 1];
			j--;
		}
		ids[j] = x;
	}
	*count = n;
	return ids;
}

AsmLocs *asm_locs_new(Module *m, const DebugRecords *d)
{
	AsmLocs *l = calloc(1, sizeof *l);
	l->d = d;
	l->by_ref = malloc(sizeof *l->by_ref * ((size_t)(d ? d->n : 0) + 1));
	for (size_t i = 0; i <= (d ? d->n : 0); i++)
		l->by_ref[i] = -1;
	Walk w = { l, 0 };
	FOR_EACH_OP(top, &m->body)
		walk_op(&w, top, top->info->code != CT_global);
	/* the module's own location is met after its ops: its first
	 * function's (met already), or unknown when it has none */
	bool any_entry = false;
	FOR_EACH_OP(top, &m->body)
		any_entry |= top->info->code == CT_entry;
	if (!any_entry)
		visit(l, add_node(l, node_of(N_UNKNOWN)));
	int n;
	int *ids = sorted(l, &n);
	Map count = {0};
	for (int i = 0; i < n; i++) {
		bool fresh;
		int *c = map_slot(&count, kind_alias[l->node[ids[i]].kind], &fresh);
		if (fresh)
			*c = 0;
		l->node[ids[i]].suffix = (*c)++;
	}
	map_free(&count);
	free(ids);
	return l;
}

static void put_alias(StrBuf *b, const AsmLocs *l, int id)
{
	sb_printf(b, "#%s", kind_alias[l->node[id].kind]);
	if (l->node[id].suffix)
		sb_printf(b, "%d", l->node[id].suffix);
}

void asm_locs_op(StrBuf *b, const AsmLocs *l, const Op *op)
{
	int id = opmap_get(&l->of_op, op);
	if (id < 0)
		return;
	sb_puts(b, " loc(");
	put_alias(b, l, id);
	sb_putc(b, ')');
}

void asm_locs_print(StrBuf *b, const AsmLocs *l)
{
	int n;
	int *ids = sorted(l, &n);
	for (int i = 0; i < n; i++) {
		const Node *nd = &l->node[ids[i]];
		put_alias(b, l, ids[i]);
		sb_puts(b, " = ");
		switch (nd->kind) {
		case N_UNKNOWN: sb_puts(b, "loc(unknown)"); break;
		case N_FLC:
			sb_puts(b, "loc(");
			asm_string(b, nd->str[0] ? nd->str[0] : "");
			sb_printf(b, ":%u:%u)", nd->a, nd->b);
			break;
		case N_FILE:
			sb_puts(b, "#cuda_tile.di_file<");
			asm_string(b, nd->str[0] ? nd->str[0] : "");
			sb_puts(b, " in ");
			asm_string(b, nd->str[1] ? nd->str[1] : "");
			sb_putc(b, '>');
			break;
		case N_CU:
			sb_puts(b, "#cuda_tile.di_compile_unit<file = ");
			put_alias(b, l, nd->kid[0]);
			sb_putc(b, '>');
			break;
		case N_SP:
			sb_puts(b, "#cuda_tile.di_subprogram<file = ");
			put_alias(b, l, nd->kid[0]);
			sb_printf(b, ", line = %u, name = ", nd->a);
			asm_string(b, nd->str[0] ? nd->str[0] : "");
			sb_puts(b, ", linkageName = ");
			asm_string(b, nd->str[1] ? nd->str[1] : "");
			sb_puts(b, ", compileUnit = ");
			put_alias(b, l, nd->kid[1]);
			sb_printf(b, ", scopeLine = %u", nd->b);
			if (nd->flags & 1)
				sb_puts(b, ", flags = declaration");
			sb_putc(b, '>');
			break;
		case N_LB:
			sb_puts(b, "#cuda_tile.di_lexical_block<scope = ");
			put_alias(b, l, nd->kid[0]);
			sb_puts(b, ", file = ");
			put_alias(b, l, nd->kid[1]);
			sb_printf(b, ", line = %u, column = %u>", nd->a, nd->b);
			break;
		case N_DILOC:
			sb_puts(b, "#cuda_tile.di_loc<");
			put_alias(b, l, nd->kid[0]);
			sb_puts(b, " in ");
			put_alias(b, l, nd->kid[1]);
			sb_putc(b, '>');
			break;
		case N_CALL:
			sb_puts(b, "loc(callsite(");
			put_alias(b, l, nd->kid[0]);
			sb_puts(b, " at ");
			put_alias(b, l, nd->kid[1]);
			sb_puts(b, "))");
			break;
		}
		sb_putc(b, '\n');
	}
	free(ids);
}

void asm_locs_free(AsmLocs *l)
{
	if (!l)
		return;
	map_free(&l->by_value);
	free(l->of_op.key);
	free(l->of_op.val);
	free(l->by_ref);
	free(l->node);
	free(l);
}
