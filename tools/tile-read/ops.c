/* ops.c: function bodies. One generic decoder driven by the layout table
 * (the `layout` column of libcommon/dialect_cuda_tile.def), plus values,
 * blocks and regions.
 *
 * Values are numbered per function: the arguments, then each op's serialized
 * results, appended after the op and its regions. A nested block appends its
 * arguments while it is open and drops everything it defined when it closes.
 * Every nested block is non-empty and ends with a terminator; so does the
 * body. Each op takes the next debug location in pre-order.
 * requires: types, strings, constants and the debug tables read. */
#include <stdlib.h>
#include <string.h>
#include "reader.h"
#include "opinfo.h"
#include "verify.h"
#include "diag.h"
#include "xalloc.h"
#include "wire_layout.h"


static const Field *const layouts[OPCODE_COUNT] = {
#define OP(name, opcode, since, traits, lower, family, emit, rule, layout) [CT_##name] = layout,
#include "dialect_cuda_tile.def"
#undef OP
};

const Field *ops_layout(int code)
{
	return code >= 0 && code < OPCODE_COUNT ? layouts[code] : NULL;
}

void ops_check_layouts(void)
{
	for (int i = 0; i < OPCODE_COUNT; i++) {
		const OpInfo *o = &op_table[i];
		if (o->dialect != DIALECT_CUDA_TILE || op_has(o, OPT_STRUCT)) {
			if (layouts[i])
				ice("dialect_cuda_tile.def: '%s' cannot be in a function body but has a layout", o->name);
			continue;
		}
		if (!layouts[i])
			ice("dialect_cuda_tile.def: no layout for '%s'", o->name);
		/* the layout decodes exactly the attributes the verifier's rule takes */
		int nattrs = 0, nfields = 0;
		while (verify_rule_attr(i, nattrs))
			nattrs++;
		for (const Field *f = layouts[i]; f->kind != F_END; f++) {
			if (f->name) {
				bool in_rule = false;
				for (int j = 0; !in_rule && j < nattrs; j++)
					in_rule = strcmp(verify_rule_attr(i, j), f->name) == 0;
				if (!in_rule)
					ice("dialect_cuda_tile.def: '%s': layout attribute '%s' is not in its rule",
					    o->name, f->name);
				nfields++;
			}
			if (f->since && (!bytecode_version_known(f->since) || f->since < o->since))
				ice("dialect_cuda_tile.def: '%s': layout field version %d is not a bytecode version from %s on",
				    o->name, f->since, bytecode_version_name(o->since));
			if (f->kind == F_ENUM && (f->en >= EK_COUNT ||
						  (f->since && !enum_spelling(f->en, (uint64_t)f->dflt, o->since))))
				ice("dialect_cuda_tile.def: '%s': bad enum layout field '%s'", o->name, f->name);
		}
		if (nfields != nattrs)
			ice("dialect_cuda_tile.def: '%s': its rule takes an attribute its layout lacks", o->name);
	}
}

/* ------------------------------------------------------------ values */

typedef struct Values { Value **v; size_t n, cap; } Values;

static bool push_value(Reader *rd, Values *vs, Value *v, size_t at)
{
	if (vs->n >= MAX_VALUES)
		return rd_fail(rd, at, "more than %d values in one function", MAX_VALUES);
	if (vs->n == vs->cap) {
		vs->cap = vs->cap ? vs->cap * 2 : 256;
		vs->v = xrealloc(vs->v, sizeof *vs->v * vs->cap);
	}
	vs->v[vs->n++] = v;
	return true;
}

/* A growable array for one op's operands, result types or attributes. */
#define GROW(arr, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? (cap) * 2 : 8; \
		(arr) = xrealloc((arr), sizeof *(arr) * (cap)); \
	} } while (0)

/* Arrays one op is assembled in; shared by all ops of a function (an op is
 * built before its regions are read, so nested ops can reuse them). */
typedef struct Scratch {
	const Type **res; size_t capres;
	Value **opnds; size_t capopnds;
	NamedAttr *attrs; size_t capattrs;
} Scratch;

typedef struct OpState {
	const OpInfo *info;
	size_t at;                      /* offset of the opcode */
	Scratch *sc;
	size_t nres;
	size_t nser;                    /* results that take a value number */
	size_t nopnds;
	int64_t seg[8]; int nseg;
	bool segmented;
	size_t nattrs;
	uint64_t flags;
	int nregions;
	const Field *boolarr;           /* the BOOLARR field read, if any */
	uint32_t boolarr_n;             /* its number of entries */
	size_t boolarr_at;
} OpState;

static void add_attr(OpState *s, const char *name, const Attr *a)
{
	GROW(s->sc->attrs, s->nattrs, s->sc->capattrs);
	s->sc->attrs[s->nattrs++] = (NamedAttr){ name, a };
}

static bool add_result(Reader *rd, Cur *c, OpState *s)
{
	size_t at = c->pos;
	const Type *t = cur_type(c);
	if (!t)
		return false;
	if (!type_is_value(t))
		return rd_fail(rd, at, "%s result %zu has type '%s', which is not a value type",
			       s->info->name, s->nres, t->str);
	GROW(s->sc->res, s->nres, s->sc->capres);
	s->sc->res[s->nres++] = t;
	s->nser++;
	return true;
}

static bool add_operand(Reader *rd, Cur *c, OpState *s, const Values *vs)
{
	size_t at = c->pos;
	uint64_t idx = cur_varint(c);
	if (rd->failed)
		return false;
	if (idx >= vs->n)
		return rd_fail(rd, at, "%s operand %zu: value index %llu out of range (%zu values "
			       "defined here)", s->info->name, s->nopnds, (unsigned long long)idx, vs->n);
	GROW(s->sc->opnds, s->nopnds, s->sc->capopnds);
	s->sc->opnds[s->nopnds++] = vs->v[idx];
	return true;
}

static void add_segment(OpState *s, int64_t n, bool group)
{
	s->segmented |= group;
	if (s->nseg < (int)(sizeof s->seg / sizeof s->seg[0]))
		s->seg[s->nseg++] = n;
	else
		ice("too many operand segments in a layout");
}

/* ------------------------------------------------------------ fields */

static unsigned layout_mask(const Field *f)
{
	unsigned m = 0;
	for (; f->kind != F_END; f++)
		m |= f->mask;
	return m;
}

static bool read_tarray(Reader *rd, Cur *c, OpState *s, const char *name)
{
	uint32_t n = cur_count(c, 1, name);
	if (rd->failed)
		return false;
	const Attr **v = xmalloc(sizeof *v * ((size_t)n + 1));
	for (uint32_t i = 0; i < n; i++) {
		size_t at = c->pos;
		v[i] = attr_tagged(c, 0);
		if (v[i] && !(v[i]->kind == AT_FLOAT || (v[i]->kind == AT_INT && v[i]->type)))
			rd_fail(rd, at, "%s element %u of %s must be a typed integer or float",
				name, i, s->info->name);
		if (rd->failed) {
			free(v);
			return false;
		}
	}
	add_attr(s, name, attr_array(rd->m, (int)n, v));
	free(v);
	return true;
}

static bool read_boolarr(Reader *rd, Cur *c, OpState *s, const Field *f)
{
	const char *name = f->name;
	s->boolarr = f;
	s->boolarr_at = c->pos;
	uint32_t n = cur_count(c, 1, name);
	if (rd->failed)
		return false;
	s->boolarr_n = n;
	bool any = false;
	size_t at = c->pos;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t b = cur_u8(c);
		if (b > 1)
			return rd_fail(rd, c->pos - 1, "%s element %u is %u, expected 0 or 1", name, i, b);
		any |= b;
	}
	if (!any)
		return !rd->failed;   /* all false: the default, not represented */
	const Attr **v = xmalloc(sizeof *v * ((size_t)n + 1));
	for (uint32_t i = 0; i < n; i++)
		v[i] = attr_bool(rd->m, rd->buf[at + i]);
	add_attr(s, name, attr_array(rd->m, (int)n, v));
	free(v);
	return true;
}

static bool read_string_attr(Reader *rd, Cur *c, OpState *s, const char *name, bool symref)
{
	size_t at = c->pos;
	uint64_t idx = cur_varint(c);
	const char *str = rd->failed ? NULL : string_get(rd, idx, at);
	if (!str)
		return false;
	if (symref && !str[0])
		return rd_fail(rd, at, "%s: empty symbol reference '%s'", s->info->name, name);
	add_attr(s, name, attr_string(rd->m, str));
	return true;
}

/* One field of a layout row. Returns false after an error. */
static bool read_field(Reader *rd, Cur *c, OpState *s, const Field *f, const Field *row,
		       const Values *vs)
{
	size_t at = c->pos;
	bool on = !f->mask || (s->flags & f->mask);
	switch (f->kind) {
	case F_RES:
		for (int i = 0; i < f->n; i++)
			if (!add_result(rd, c, s))
				return false;
		return true;
	case F_NRES: {
		uint32_t n = cur_count(c, 1, "result");
		if (rd->failed)
			return false;
		if (f->n >= 0 && n != (uint32_t)f->n)
			return rd_fail(rd, at, "%s has %u results, expected %d", s->info->name, n, f->n);
		for (uint32_t i = 0; i < n; i++)
			if (!add_result(rd, c, s))
				return false;
		return true;
	}
	case F_NRES_TOKEN: {
		uint32_t want = rd->version >= f->since ? 1 : 0;
		uint32_t n = cur_count(c, 1, "result");
		if (rd->failed)
			return false;
		if (n != want)
			return rd_fail(rd, at, "%s has %u results, expected %u in bytecode %s",
				       s->info->name, n, want, bytecode_version_name(rd->version));
		if (n)
			return add_result(rd, c, s);
		/* older files: the token result is implicit and takes no value number */
		GROW(s->sc->res, s->nres, s->sc->capres);
		s->sc->res[s->nres++] = type_token(rd->m);
		return true;
	}
	case F_FLAGS:
		if (rd->version < f->since)
			return true;
		s->flags = cur_varint(c);
		if (!rd->failed && (s->flags & ~(uint64_t)layout_mask(row)))
			return rd_fail(rd, at, "%s has unknown flag bits 0x%llx", s->info->name,
				       (unsigned long long)(s->flags & ~(uint64_t)layout_mask(row)));
		return !rd->failed;
	case F_UNIT:
		if (s->flags & f->mask)
			add_attr(s, f->name, attr_bool(rd->m, true));
		return true;
	case F_ENUM:
		if (rd->version < f->since) {
			add_attr(s, f->name, attr_string(rd->m, enum_spelling(f->en, (uint64_t)f->dflt, 0)));
			return true;
		}
		if (on) {
			const Attr *a = attr_enum(c, f->en, f->name);
			if (!a)
				return false;
			add_attr(s, f->name, a);
		}
		return true;
	case F_INT: {
		uint64_t v = cur_varint(c);
		if (rd->failed)
			return false;
		if (v > INT64_MAX)
			return rd_fail(rd, at, "%s: '%s' = %llu does not fit in i64", s->info->name,
				       f->name, (unsigned long long)v);
		add_attr(s, f->name, attr_int(rd->m, (int64_t)v, NULL));
		return true;
	}
	case F_BOOL: {
		uint8_t b = cur_u8(c);
		if (!rd->failed && b > 1)
			return rd_fail(rd, at, "%s: '%s' byte is %u, expected 0 or 1", s->info->name,
				       f->name, b);
		if (rd->failed)
			return false;
		add_attr(s, f->name, attr_bool(rd->m, b));
		return true;
	}
	case F_STR:
	case F_SYMREF:
		return read_string_attr(rd, c, s, f->name, f->kind == F_SYMREF);
	case F_I32ARR: {
		const Attr *a = attr_i32_array(c);
		if (!a)
			return false;
		add_attr(s, f->name, a);
		return true;
	}
	case F_CONST: {
		uint64_t idx = cur_varint(c);
		if (rd->failed)
			return false;
		if (!s->nres)
			ice("layout of %s: CONST before its result", s->info->name);
		const Attr *a = attr_dense_const(rd, idx, s->sc->res[0], at);
		if (!a)
			return false;
		add_attr(s, f->name, a);
		return true;
	}
	case F_PRED: {
		const Attr *a = attr_predicate(c);
		if (!a)
			return false;
		add_attr(s, f->name, a);
		return true;
	}
	case F_TARRAY:
		return read_tarray(rd, c, s, f->name);
	case F_HINTS:
		if (on) {
			const Attr *a = attr_dict_body(c, 0, true);
			if (!a)
				return false;
			add_attr(s, f->name, a);
		}
		return true;
	case F_BOOLARR:
		return rd->version < f->since || read_boolarr(rd, c, s, f);
	case F_OPND:
		for (int i = 0; i < f->n; i++) {
			if (!add_operand(rd, c, s, vs))
				return false;
			add_segment(s, 1, false);
		}
		return true;
	case F_OPT:
		if (on && !add_operand(rd, c, s, vs))
			return false;
		add_segment(s, on, true);
		return true;
	case F_VAR: {
		uint32_t n = cur_count(c, 1, "operand");
		if (rd->failed)
			return false;
		for (uint32_t i = 0; i < n; i++)
			if (!add_operand(rd, c, s, vs))
				return false;
		add_segment(s, n, true);
		return true;
	}
	case F_ALL: {
		uint32_t n = cur_count(c, 1, "operand");
		if (rd->failed)
			return false;
		if (n < (uint32_t)f->n && f->max < 0)
			return rd_fail(rd, at, "%s has %u operands, expected at least %d",
				       s->info->name, n, f->n);
		if (n < (uint32_t)f->n || (f->max >= 0 && n > (uint32_t)f->max))
			return rd_fail(rd, at, "%s has %u operands, expected %d to %d",
				       s->info->name, n, f->n, f->max);
		for (uint32_t i = 0; i < n; i++)
			if (!add_operand(rd, c, s, vs))
				return false;
		return true;
	}
	case F_REGIONS: {
		uint64_t n = cur_varint(c);
		if (rd->failed)
			return false;
		if (n != (uint64_t)f->n)
			return rd_fail(rd, at, "%s has %llu regions, expected %d", s->info->name,
				       (unsigned long long)n, f->n);
		s->nregions = f->n;
		return true;
	}
	case F_END:
		break;
	}
	ice("bad layout field %d", f->kind);
}

/* ------------------------------------------------------------ ops, blocks */

typedef struct Body {
	Reader *rd;
	Cur *c;
	Values vals;
	DebugCursor *dc;
	Scratch sc;
} Body;

static Op *read_op(Body *bd, Block *b, int depth);

static bool read_block(Body *bd, Region *r, int depth)
{
	Reader *rd = bd->rd;
	Cur *c = bd->c;
	size_t at = c->pos;
	uint32_t nargs = cur_count(c, 1, "block argument");
	if (rd->failed)
		return false;
	const Type **types = xmalloc(sizeof *types * ((size_t)nargs + 1));
	for (uint32_t i = 0; i < nargs; i++) {
		size_t tat = c->pos;
		types[i] = cur_type(c);
		if (types[i] && !type_is_value(types[i]))
			rd_fail(rd, tat, "block argument %u has type '%s', which is not a value type",
				i, types[i]->str);
		if (rd->failed) {
			free(types);
			return false;
		}
	}
	Block *blk = region_add_block(rd->m, r, (int)nargs, types);
	free(types);
	size_t mark = bd->vals.n;
	for (uint32_t i = 0; i < nargs; i++)
		if (!push_value(rd, &bd->vals, blk->args[i], at))
			return false;
	size_t nat = c->pos;
	uint32_t nops = cur_count(c, 1, "op");
	if (rd->failed)
		return false;
	if (nops == 0)
		return rd_fail(rd, nat, "empty block in a region of %s", r->parent->info->name);
	for (uint32_t i = 0; i < nops; i++)
		if (!read_op(bd, blk, depth + 1))
			return false;
	if (!op_has(blk->last->info, OPT_TERM))
		return rd_fail(rd, blk->last->offset, "a block in a region of %s ends with %s, "
			       "not a terminator", r->parent->info->name, blk->last->info->name);
	bd->vals.n = mark;
	return true;
}

static bool read_regions(Body *bd, Op *op, int depth)
{
	Reader *rd = bd->rd;
	for (int r = 0; r < op->nregions; r++) {
		size_t at = bd->c->pos;
		uint64_t nblocks = cur_varint(bd->c);
		if (rd->failed)
			return false;
		bool may_be_empty = op->info->code == CT_if && r == 1;
		if (nblocks != 1 && !(nblocks == 0 && may_be_empty))
			return rd_fail(rd, at, "region %d of %s has %llu blocks, expected 1%s", r,
				       op->info->name, (unsigned long long)nblocks,
				       may_be_empty ? " or 0" : "");
		if (nblocks && !read_block(bd, &op->regions[r], depth))
			return false;
	}
	return true;
}

static Op *read_op(Body *bd, Block *b, int depth)
{
	Reader *rd = bd->rd;
	Cur *c = bd->c;
	size_t at = c->pos;
	uint64_t opcode;
	if (!cur_nested_varint(c, depth, MAX_REGION_DEPTH, "regions", &opcode))
		return NULL;
	const OpInfo *info = opcode < 256 ? opinfo_by_bytecode((int)opcode) : NULL;
	if (!info) {
		rd_fail(rd, at, "unknown opcode 0x%llx", (unsigned long long)opcode);
		return NULL;
	}
	if (info->since > rd->version) {
		rd_fail(rd, at, "opcode 0x%02llx (%s) requires bytecode version %s+, file version is %s",
			(unsigned long long)opcode, info->name, bytecode_version_name(info->since),
			bytecode_version_name(rd->version));
		return NULL;
	}
	const Field *row = layouts[info->code];
	if (!row) {
		rd_fail(rd, at, "%s cannot appear in a function body", info->name);
		return NULL;
	}
	const Loc *loc = debug_next(rd, bd->dc, at);
	OpState s = { .info = info, .at = at, .sc = &bd->sc };
	bool ok = loc != NULL;
	for (const Field *f = row; ok && f->kind != F_END; f++)
		ok = read_field(rd, c, &s, f, row, &bd->vals);
	/* a bool array has one entry per operand of operand group f->n */
	if (ok && s.boolarr && s.boolarr->n < s.nseg && s.boolarr_n != s.seg[s.boolarr->n])
		ok = rd_fail(rd, s.boolarr_at, "%s: '%s' has %u entries for %lld indices", info->name,
			     s.boolarr->name, s.boolarr_n, (long long)s.seg[s.boolarr->n]);
	Op *op = NULL;
	if (ok) {
		op = op_new(rd->m, info, (int)s.nopnds, bd->sc.opnds, (int)s.nres, bd->sc.res,
			    s.nregions, loc);
		op->offset = at;
		for (size_t i = 0; i < s.nattrs; i++)
			op_set_attr(rd->m, op, bd->sc.attrs[i].name, bd->sc.attrs[i].attr);
		if (s.segmented)
			op_set_attr(rd->m, op, "operand_segment_sizes", attr_ints(rd->m, s.nseg, s.seg));
		block_append(b, op);
		ok = read_regions(bd, op, depth);
		for (size_t i = 0; ok && i < s.nser; i++)
			ok = push_value(rd, &bd->vals, op->results[i], at);
	}
	return ok ? op : NULL;
}

/* A function body: ops until the body's bytes are used up; the entry block
 * `b` already holds the arguments. */
bool ops_read_function(Reader *rd, Cur *body, Block *b, DebugCursor *dc)
{
	Body bd = { rd, body, { 0 }, dc, { 0 } };
	bool ok = true;
	for (int i = 0; ok && i < b->nargs; i++)
		ok = push_value(rd, &bd.vals, b->args[i], body->pos);
	while (ok && cur_left(body))
		ok = read_op(&bd, b, 0) != NULL;
	free(bd.vals.v);
	free(bd.sc.res);
	free(bd.sc.opnds);
	free(bd.sc.attrs);
	if (!ok)
		return false;
	if (!b->last)
		return rd_fail(rd, body->pos, "empty function body");
	if (!op_has(b->last->info, OPT_TERM))
		return rd_fail(rd, b->last->offset, "function body ends with %s, not a terminator",
			       b->last->info->name);
	return true;
}
