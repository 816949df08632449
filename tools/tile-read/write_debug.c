/* write_debug.c: the debug section from op locations (writer.h; the inverse
 * of debug.c, docs/bytecode.md §3.7). A location (file, line, col, func,
 * caller chain) becomes a DILoc in the subprogram of its function, wrapped
 * in a CallSite per caller; subprograms are one per function name, the
 * entry's own with the entry's name as its linkage name (NVIDIA's verifier
 * asks that of a function's location). A location without a function (a
 * plain file:line:col) has no debug record: it is written as unknown, as
 * NVIDIA's writer does. Records are deduplicated, children first. */
#include <stdlib.h>
#include <string.h>
#include "writer.h"
#include "xalloc.h"
#include "debug_info.h"

typedef struct DebugOut {
	Intern recs;               /* encoded records (tag, payload); reference = id + 1 */
	Intern subs;               /* subprogram keys (linkage name) -> subs_ref[id] */
	uint64_t *subs_ref;
	uint64_t *idx;             /* diIndices */
	size_t nidx, capidx;
	uint32_t *slots;           /* slotStart */
	size_t nslots, capslots;
	size_t start;              /* the current entry's first diIndices entry */
	const char *entry_func;    /* the current entry's location's function name */
	uint64_t entry_sub;        /* and its subprogram */
} DebugOut;

static DebugOut *state(Writer *w)
{
	if (!w->dbg)
		w->dbg = xcalloc(1, sizeof *w->dbg);
	return w->dbg;
}

static uint64_t record(Writer *w, StrBuf *r)
{
	bool added;
	uint32_t id = intern_put(&state(w)->recs, r->s, r->len, &added);
	if (!added)
		sb_free(r);
	return (uint64_t)id + 1;
}

static uint64_t file_rec2(Writer *w, const char *name, const char *dir)
{
	StrBuf r = { 0 };
	bo_varint(&r, DI_FILE);
	bo_varint(&r, wr_string(w, name));
	bo_varint(&r, wr_string(w, dir));
	return record(w, &r);
}

/* the subprogram of records (write.h) named name with this linkage name */
static const DiRecord *known_subprogram(const Writer *w, const char *name, const char *linkage)
{
	const DebugRecords *k = w->records;
	for (uint32_t i = 1; k && i <= k->n; i++) {
		const DiRecord *r = &k->rec[i];
		if (r->tag == DI_SUBPROGRAM && r->str[0] && r->str[1] && strcmp(r->str[0], name) == 0 &&
		    strcmp(r->str[1], linkage) == 0 && r->ref[0] >= 1 && r->ref[0] <= k->n &&
		    k->rec[r->ref[0]].tag == DI_FILE && k->rec[r->ref[0]].str[0] && k->rec[r->ref[0]].str[1])
			return r;
	}
	return NULL;
}

/* a file record for a path: its last component in its directory */
static uint64_t file_rec(Writer *w, const char *path)
{
	const char *slash = strrchr(path, '/');
	/* the string table keeps its key: the directory's copy is the module's */
	const char *dir = slash ? arena_strndup(w->m->arena, path, (size_t)(slash - path)) : "";
	return file_rec2(w, slash ? slash + 1 : path, dir);
}

static uint64_t subprogram(Writer *w, const char *name, const char *linkage, const Loc *l)
{
	DebugOut *d = state(w);
	bool added;
	uint32_t k = intern_put(&d->subs, linkage, strlen(linkage), &added);
	if (!added)
		return d->subs_ref[k];
	const DiRecord *known = known_subprogram(w, name, linkage);
	unsigned line = known ? known->line : l->line, scope_line = known ? known->col : l->line;
	uint64_t file = known ? file_rec2(w, w->records->rec[known->ref[0]].str[0],
					  w->records->rec[known->ref[0]].str[1])
			      : file_rec(w, l->file);
	StrBuf cu = { 0 };
	bo_varint(&cu, DI_COMPILE_UNIT);
	bo_varint(&cu, file);
	uint64_t unit = record(w, &cu);
	StrBuf r = { 0 };
	bo_varint(&r, DI_SUBPROGRAM);
	bo_varint(&r, file);
	bo_varint(&r, line);
	bo_varint(&r, wr_string(w, name));
	bo_varint(&r, wr_string(w, linkage));
	bo_varint(&r, unit);
	bo_varint(&r, scope_line);
	if (w->version >= 1305)
		bo_varint(&r, l->func_flags);
	d->subs_ref = xrealloc(d->subs_ref, sizeof *d->subs_ref * ((size_t)k + 1));
	return d->subs_ref[k] = record(w, &r);
}

static uint64_t location(Writer *w, const Loc *l)
{
	DebugOut *d = state(w);
	if (!l || !l->file || !l->func)
		return 0;
	uint64_t scope = d->entry_func && strcmp(l->func, d->entry_func) == 0
		? d->entry_sub : subprogram(w, l->func, l->func, l);
	StrBuf r = { 0 };
	bo_varint(&r, DI_LOC);
	bo_varint(&r, scope);
	bo_varint(&r, wr_string(w, l->file));
	bo_varint(&r, l->line);
	bo_varint(&r, l->col);
	uint64_t loc = record(w, &r);
	if (!l->caller || !l->caller->file)
		return loc;
	uint64_t caller = location(w, l->caller);
	StrBuf c = { 0 };
	bo_varint(&c, DI_CALL_SITE);
	bo_varint(&c, loc);
	bo_varint(&c, caller);
	return record(w, &c);
}

static void push_idx(DebugOut *d, uint64_t ref)
{
	if (d->nidx == d->capidx) {
		d->capidx = d->capidx ? 2 * d->capidx : 256;
		d->idx = xrealloc(d->idx, sizeof *d->idx * d->capidx);
	}
	d->idx[d->nidx++] = ref;
}

void wr_debug_begin(Writer *w, const Op *fn)
{
	DebugOut *d = state(w);
	const Loc *fl = fn->loc;
	d->start = d->nidx;
	d->entry_func = NULL;
	if (fl && fl->file && fl->func) {
		d->entry_sub = subprogram(w, fl->func, op_attr_str(fn, "sym_name", ""), fl);
		d->entry_func = fl->func;
	}
	push_idx(d, location(w, fl));
}

void wr_debug_op(Writer *w, const Op *op)
{
	push_idx(state(w), location(w, op->loc));
}

uint64_t wr_debug_end(Writer *w)
{
	DebugOut *d = state(w);
	bool any = false;
	for (size_t i = d->start; i < d->nidx; i++)
		any |= d->idx[i] != 0;
	if (!any) {
		d->nidx = d->start;
		return 0;
	}
	if (d->nslots == d->capslots) {
		d->capslots = d->capslots ? 2 * d->capslots : 16;
		d->slots = xrealloc(d->slots, sizeof *d->slots * d->capslots);
	}
	d->slots[d->nslots++] = (uint32_t)d->start;
	return d->nslots;
}

bool wr_debug_section(Writer *w, StrBuf *p)
{
	DebugOut *d = w->dbg;
	if (!d || !d->nslots)
		return false;
	bo_varint(p, d->nslots);
	bo_pad(p, 0, 4);
	for (size_t i = 0; i < d->nslots; i++)
		bo_u32(p, d->slots[i]);
	bo_varint(p, d->nidx);
	bo_pad(p, 0, 8);
	for (size_t i = 0; i < d->nidx; i++)
		bo_u64(p, d->idx[i]);
	bo_varint(p, d->recs.n);
	bo_pad(p, 0, 4);
	uint32_t off = 0;
	for (uint32_t i = 0; i < d->recs.n; i++) {
		bo_u32(p, off);
		off += (uint32_t)d->recs.lens[i];
	}
	for (uint32_t i = 0; i < d->recs.n; i++)
		bo_bytes(p, d->recs.keys[i], d->recs.lens[i]);
	return true;
}

void wr_debug_free(Writer *w)
{
	DebugOut *d = w->dbg;
	if (!d)
		return;
	for (uint32_t i = 0; i < d->recs.n; i++)
		free((void *)d->recs.keys[i]);
	intern_free(&d->recs);
	intern_free(&d->subs);
	free(d->subs_ref);
	free(d->idx);
	free(d->slots);
	free(d);
	w->dbg = NULL;
}
