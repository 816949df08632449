/* debug.c: the debug section -> op locations (`loc`: file, line, col, func,
 * caller chain).
 *
 *   varint nslots; pad4; u32 slot_start[nslots]      one slot per function
 *   varint nidx;   pad8; u64 di_index[nidx]          0 = unknown, k = attr k-1
 *   varint nattr;  pad4; u32 attr_start[nattr]; data  attr := varint tag, payload
 *
 * A function's loc_index k > 0 selects slot k-1: its first di_index is the
 * function's own location, then one per op in pre-order. Attributes are
 * resolved lazily, with a cycle check; scopes resolve to the enclosing
 * subprogram, whose name becomes `func`. */
#include <stdlib.h>
#include "reader.h"
#include "diag.h"


static const char *const di_names[DI_COUNT] = {
	"unknown location", "DICompileUnit", "DIFile", "DILexicalBlock", "DILoc",
	"DISubprogram", "CallSite",
};

/* Call-site chains as deep as cuTile writes them: its helper functions may
 * recurse up to MAX_RECURSION_DEPTH = 1000 calls (cuda/tile/_passes/hir2ir.py;
 * cutile-python's test_accept_reasonable_recursion calls 109 deep), one
 * CallSite a call (LOC_MAX_CALLERS, ir.h: the JSON readers take as deep). Deeper nesting is refused as such, not as a cycle; the
 * locations joining chains makes are bounded in all (MAX_CALL_LOCS: cuTile's
 * modules make about one a call-site attribute), so a crafted file cannot
 * make the reader build chains without end. */
#define MAX_CALL_DEPTH LOC_MAX_CALLERS
#define MAX_CALL_LOCS(rd) (65536 + 8 * (long)(rd)->dbg_attrs.n)
#define MAX_SCOPE_DEPTH 64

bool debug_init(Reader *rd)
{
	if (!rd->sec[SEC_DEBUG].present)
		return true;
	Cur c = cur_span(rd, rd->sec[SEC_DEBUG].start, rd->sec[SEC_DEBUG].len);
	rd->dbg_nslots = cur_count(&c, 4, "debug function slot");
	if (cur_left(&c))
		cur_pad(&c, 4);
	rd->dbg_slots = c.pos;
	cur_skip(&c, (size_t)rd->dbg_nslots * 4);
	rd->dbg_nidx = cur_count(&c, 8, "debug location index");
	if (cur_left(&c))
		cur_pad(&c, 8);
	rd->dbg_idx = c.pos;
	cur_skip(&c, (size_t)rd->dbg_nidx * 8);
	if (rd->failed)
		return false;
	uint32_t prev = 0;
	for (uint32_t i = 0; i < rd->dbg_nslots; i++) {
		uint32_t s = le32(rd->buf + rd->dbg_slots + (size_t)i * 4);
		if (s < prev || s > rd->dbg_nidx)
			return rd_fail(rd, rd->dbg_slots + (size_t)i * 4, "debug slot %u starts at %u, "
				       "outside [%u, %u]", i, s, prev, rd->dbg_nidx);
		prev = s;
	}
	if (!table_parse(&c, 4, &rd->dbg_attrs, "debug attribute table", true))
		return false;
	uint32_t n = rd->dbg_attrs.n;
	rd->dbg_loc_cache = arena_alloc(rd->m->arena, sizeof *rd->dbg_loc_cache * ((size_t)n + 1));
	rd->dbg_state = arena_alloc(rd->m->arena, (size_t)n + 1);
	return true;
}

/* The entry of debug attribute reference `ref` (k > 0 names attr k-1),
 * positioned after its tag. *tag = -1 for ref 0. */
static Cur entry(Reader *rd, uint64_t ref, size_t at, int *tag)
{
	Cur c = { rd, 0, 0, 0 };
	*tag = -1;
	if (rd->failed || ref == 0)
		return c;
	if (ref > rd->dbg_attrs.n) {
		rd_fail(rd, at, "debug attribute %llu out of range (%u attributes)",
			(unsigned long long)ref, rd->dbg_attrs.n);
		return c;
	}
	c = table_entry(rd, &rd->dbg_attrs, (uint32_t)(ref - 1));
	size_t tat = c.pos;
	uint64_t t = cur_varint(&c);
	if (rd->failed)
		return c;
	if (t >= DI_COUNT) {
		rd_fail(rd, tat, "unknown debug attribute tag %llu", (unsigned long long)t);
		return c;
	}
	*tag = (int)t;
	return c;
}

static bool expect_kind(Reader *rd, uint64_t ref, size_t at, int want, int want2, const char *role)
{
	int tag;
	entry(rd, ref, at, &tag);
	if (rd->failed)
		return false;
	if (tag != want && tag != want2)
		return rd_fail(rd, at, "%s is %s, expected %s%s%s", role,
			       tag < 0 ? "missing" : di_names[tag], di_names[want],
			       want2 != want ? " or " : "", want2 != want ? di_names[want2] : "");
	return true;
}

static unsigned u32_field(Cur *c, const char *what)
{
	size_t at = c->pos;
	uint64_t v = cur_varint(c);
	if (v > UINT32_MAX)
		rd_fail(c->rd, at, "%s %llu does not fit in 32 bits", what, (unsigned long long)v);
	return (unsigned)v;
}

/* The subprogram enclosing scope `ref` (a DISubprogram or DILexicalBlock):
 * its name. Lexical blocks chain to their parents; the chain is bounded. */
static const char *scope_function(Reader *rd, uint64_t ref, size_t at, unsigned *flags)
{
	for (int depth = 0; depth < MAX_SCOPE_DEPTH; depth++) {
		if (!expect_kind(rd, ref, at, DI_SUBPROGRAM, DI_LEXICAL_BLOCK, "a location's scope"))
			return NULL;
		int tag;
		Cur c = entry(rd, ref, at, &tag);
		if (tag == DI_LEXICAL_BLOCK) {
			size_t sat = c.pos;
			uint64_t parent = cur_varint(&c);
			size_t fat = c.pos;
			uint64_t file = cur_varint(&c);
			u32_field(&c, "lexical block line");
			u32_field(&c, "lexical block column");
			if (!cur_done(&c, "DILexicalBlock") ||
			    !expect_kind(rd, file, fat, DI_FILE, DI_FILE, "a lexical block's file"))
				return NULL;
			ref = parent;
			at = sat;
			continue;
		}
		size_t fat = c.pos;
		uint64_t file = cur_varint(&c);
		u32_field(&c, "subprogram line");
		size_t nat = c.pos;
		uint64_t name = cur_varint(&c);
		size_t lat = c.pos;
		uint64_t linkage = cur_varint(&c);
		size_t cat = c.pos;
		uint64_t unit = cur_varint(&c);
		u32_field(&c, "subprogram scope line");
		size_t flat = c.pos;
		*flags = rd->version >= 1305 ? u32_field(&c, "subprogram flags") : 0;   /* 13.5 */
		if (*flags & ~1u) {     /* bit 0 `declaration` is the only one NVIDIA's reader knows */
			rd_fail(rd, flat, "DISubprogram has unknown flag bits 0x%x", *flags & ~1u);
			return NULL;
		}
		if (!cur_done(&c, "DISubprogram") ||
		    !expect_kind(rd, file, fat, DI_FILE, DI_FILE, "a subprogram's file") ||
		    !expect_kind(rd, unit, cat, DI_COMPILE_UNIT, DI_COMPILE_UNIT,
				 "a subprogram's compile unit") ||
		    !string_get(rd, linkage, lat))
			return NULL;
		return string_get(rd, name, nat);
	}
	rd_fail(rd, at, "lexical block scopes nested more than %d deep", MAX_SCOPE_DEPTH);
	return NULL;
}

static const Loc *resolve(Reader *rd, uint64_t ref, size_t at, int depth);

/* callee's location with `caller` appended to the end of its call chain */
static const Loc *append_caller(Reader *rd, const Loc *l, const Loc *caller, size_t at, int depth)
{
	if (depth > MAX_CALL_DEPTH) {
		rd_fail(rd, at, "call-site locations nested more than %d deep", MAX_CALL_DEPTH);
		return NULL;
	}
	if (++rd->dbg_call_locs > MAX_CALL_LOCS(rd)) {
		rd_fail(rd, at, "call-site locations make more than %ld locations", MAX_CALL_LOCS(rd));
		return NULL;
	}
	const Loc *rest = l->caller && l->caller->file
		? append_caller(rd, l->caller, caller, at, depth + 1) : caller;
	if (rd->failed)
		return NULL;
	return loc_with_func_flags(rd->m, loc_new(rd->m, l->file, l->line, l->col, l->func, rest), l->func_flags);
}

static const Loc *resolve_entry(Reader *rd, uint64_t ref, size_t at, int depth)
{
	int tag;
	Cur c = entry(rd, ref, at, &tag);
	if (rd->failed)
		return NULL;
	if (tag == DI_UNKNOWN) {
		return cur_done(&c, "unknown location") ? rd->m->unknown_loc : NULL;
	}
	if (tag == DI_LOC) {
		size_t sat = c.pos;
		uint64_t scope = cur_varint(&c);
		size_t nat = c.pos;
		uint64_t file = cur_varint(&c);
		unsigned line = u32_field(&c, "line");
		unsigned col = u32_field(&c, "column");
		if (!cur_done(&c, "DILoc"))
			return NULL;
		const char *fname = string_get(rd, file, nat);
		unsigned flags = 0;
		const char *func = fname ? scope_function(rd, scope, sat, &flags) : NULL;
		return func ? loc_with_func_flags(rd->m, loc_new(rd->m, fname, line, col, func, NULL), flags) : NULL;
	}
	if (tag == DI_CALL_SITE) {
		size_t eat = c.pos;
		uint64_t callee = cur_varint(&c);
		size_t rat = c.pos;
		uint64_t caller = cur_varint(&c);
		if (!cur_done(&c, "CallSite"))
			return NULL;
		const Loc *le = resolve(rd, callee, eat, depth + 1);
		const Loc *lr = le ? resolve(rd, caller, rat, depth + 1) : NULL;
		if (!lr)
			return NULL;
		if (!le->file)
			return le;
		return append_caller(rd, le, lr->file ? lr : NULL, at, 0);
	}
	rd_fail(rd, at, "debug attribute %llu is a %s, not a location", (unsigned long long)ref,
		di_names[tag]);
	return NULL;
}

static const Loc *resolve(Reader *rd, uint64_t ref, size_t at, int depth)
{
	if (rd->failed)
		return NULL;
	if (ref == 0)
		return rd->m->unknown_loc;
	if (ref > rd->dbg_attrs.n) {
		rd_fail(rd, at, "debug attribute %llu out of range (%u attributes)",
			(unsigned long long)ref, rd->dbg_attrs.n);
		return NULL;
	}
	uint32_t i = (uint32_t)(ref - 1);
	if (rd->dbg_state[i] == 2)
		return rd->dbg_loc_cache[i];
	if (rd->dbg_state[i] == 1) {
		rd_fail(rd, at, "debug attribute %llu refers to itself", (unsigned long long)ref);
		return NULL;
	}
	if (depth > MAX_CALL_DEPTH) {
		rd_fail(rd, at, "call-site locations nested more than %d deep", MAX_CALL_DEPTH);
		return NULL;
	}
	rd->dbg_state[i] = 1;
	const Loc *l = resolve_entry(rd, ref, at, depth);
	if (!l)
		return NULL;
	rd->dbg_state[i] = 2;
	return rd->dbg_loc_cache[i] = l;
}

/* --emit=asm-debug: note each location reference read, in order */
static void keep_ref(Reader *rd, uint64_t ref)
{
	DebugRecords *k = rd->keep;
	if (!k)
		return;
	if (k->nrefs == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->refs = realloc(k->refs, k->cap * sizeof *k->refs);
		if (!k->refs)
			ice("out of memory");
	}
	k->refs[k->nrefs++] = ref;
}

bool debug_function(Reader *rd, uint64_t loc_index, size_t at, DebugCursor *dc, const Loc **floc)
{
	*dc = (DebugCursor){ 0 };
	*floc = rd->m->unknown_loc;
	if (loc_index == 0) {
		keep_ref(rd, 0);
		return true;
	}
	if (loc_index > rd->dbg_nslots)
		return rd_fail(rd, at, "function debug slot %llu out of range (%u slots)",
			       (unsigned long long)loc_index, rd->dbg_nslots);
	uint32_t k = (uint32_t)(loc_index - 1);
	dc->active = true;
	dc->start = dc->next = le32(rd->buf + rd->dbg_slots + (size_t)k * 4);
	dc->end = k + 1 < rd->dbg_nslots ? le32(rd->buf + rd->dbg_slots + (size_t)(k + 1) * 4)
					 : rd->dbg_nidx;
	*floc = debug_next(rd, dc, at);
	return !rd->failed;
}

const Loc *debug_next(Reader *rd, DebugCursor *dc, size_t at)
{
	if (rd->failed)
		return NULL;
	if (!dc->active) {
		keep_ref(rd, 0);
		return rd->m->unknown_loc;
	}
	if (dc->next >= dc->end) {
		rd_fail(rd, at, "no debug location left for this op (the function's debug slot "
			"has %llu entries)", (unsigned long long)(dc->end - dc->start));
		return NULL;
	}
	size_t iat = rd->dbg_idx + (size_t)dc->next * 8;
	uint64_t ref = le64(rd->buf + iat);
	dc->next++;
	keep_ref(rd, ref);
	return resolve(rd, ref, iat, 0);
}

bool debug_finish(Reader *rd, const DebugCursor *dc, size_t at, const char *fname)
{
	if (rd->failed)
		return false;
	if (dc->active && dc->next != dc->end)
		return rd_fail(rd, at, "function '%s' has %llu debug locations left over after its ops",
			       fname, (unsigned long long)(dc->end - dc->next));
	return true;
}

bool debug_keep_records(Reader *rd)
{
	DebugRecords *k = rd->keep;
	uint32_t n = rd->sec[SEC_DEBUG].present ? rd->dbg_attrs.n : 0;
	k->n = n;
	k->rec = arena_alloc(rd->m->arena, sizeof *k->rec * ((size_t)n + 1));
	k->rec[0].tag = -1;
	for (uint32_t i = 1; i <= n && !rd->failed; i++) {
		DiRecord *r = &k->rec[i];
		int tag;
		Cur c = entry(rd, i, 0, &tag);
		r->tag = tag;
		size_t at = c.pos;
		switch (tag) {
		case DI_COMPILE_UNIT:
			r->ref[0] = cur_varint(&c);
			break;
		case DI_FILE:
			r->str[0] = string_get(rd, cur_varint(&c), at);
			r->str[1] = string_get(rd, cur_varint(&c), at);
			break;
		case DI_LEXICAL_BLOCK:
			r->ref[0] = cur_varint(&c);
			r->ref[1] = cur_varint(&c);
			r->line = u32_field(&c, "lexical block line");
			r->col = u32_field(&c, "lexical block column");
			break;
		case DI_LOC:
			r->ref[0] = cur_varint(&c);
			r->str[0] = string_get(rd, cur_varint(&c), at);
			r->line = u32_field(&c, "line");
			r->col = u32_field(&c, "column");
			break;
		case DI_SUBPROGRAM:
			r->ref[0] = cur_varint(&c);
			r->line = u32_field(&c, "subprogram line");
			r->str[0] = string_get(rd, cur_varint(&c), at);
			r->str[1] = string_get(rd, cur_varint(&c), at);
			r->ref[1] = cur_varint(&c);
			r->col = u32_field(&c, "subprogram scope line");
			r->flags = rd->version >= 1305 ? u32_field(&c, "subprogram flags") : 0;
			break;
		case DI_CALL_SITE:
			r->ref[0] = cur_varint(&c);
			r->ref[1] = cur_varint(&c);
			break;
		default:
			break;
		}
	}
	return !rd->failed;
}
