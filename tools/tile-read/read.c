/* read.c: tile_read_bytecode, the stage as a function, and tile_read_run,
 * the stage's run (the decoder, then the verifier).
 * Decodes in dependency order: sections -> strings -> producer -> types ->
 * constants -> debug tables -> globals -> functions. Every section payload
 * must be used up exactly (the function section may end in up to 7 bytes of
 * padding to a multiple of 8, as the reference writer pads it). */
#include <stdlib.h>
#include "tile_read.h"
#include "reader.h"
#include "opinfo.h"
#include "diag.h"
#include "verify.h"

enum { FN_PRIVATE = 1, FN_KERNEL = 2, FN_HINTS = 4 };

static const char *need_string(Cur *c, const char *what)
{
	size_t at = c->pos;
	uint64_t idx = cur_varint(c);
	const char *s = c->rd->failed ? NULL : string_get(c->rd, idx, at);
	if (s && !s[0]) {
		rd_fail(c->rd, at, "empty %s", what);
		return NULL;
	}
	return s;
}

static bool read_producer(Reader *rd)
{
	if (!rd->sec[SEC_PRODUCER].present)
		return true;
	Cur c = cur_span(rd, rd->sec[SEC_PRODUCER].start, rd->sec[SEC_PRODUCER].len);
	size_t at = c.pos;
	uint64_t idx = cur_varint(&c);
	const char *s = rd->failed ? NULL : string_get(rd, idx, at);
	if (!s || !cur_done(&c, "producer section"))
		return false;
	module_set_attr(rd->m, "producer", attr_string(rd->m, s));
	return true;
}

static bool read_globals(Reader *rd)
{
	if (!rd->sec[SEC_GLOBAL].present)
		return true;
	Module *m = rd->m;
	Cur c = cur_span(rd, rd->sec[SEC_GLOBAL].start, rd->sec[SEC_GLOBAL].len);
	bool v133 = rd->version >= 1303;
	uint32_t n = cur_count(&c, v133 ? 6 : 4, "global");
	for (uint32_t i = 0; i < n && !rd->failed; i++) {
		size_t at = c.pos;
		const char *name = need_string(&c, "global name");
		size_t tat = c.pos;
		const Type *t = name ? cur_type(&c) : NULL;
		size_t vat = c.pos;
		uint64_t value = cur_varint(&c);
		size_t aat = c.pos;
		uint64_t align = cur_varint(&c);
		uint64_t vis = 0, constant = 0;
		size_t visat = c.pos;
		if (v133) {
			vis = cur_varint(&c);
			constant = cur_varint(&c);
		}
		if (!t || rd->failed)
			return false;
		if (t->kind != TY_TILE)
			return rd_fail(rd, tat, "global '%s' has type '%s', expected a tile", name, t->str);
		const Attr *dense = attr_dense_const(rd, value, t, vat);
		if (!dense)
			return false;
		if (align > INT64_MAX)
			return rd_fail(rd, aat, "global '%s' alignment %llu is too large", name,
				       (unsigned long long)align);
		const char *visname = enum_spelling(EK_VISIBILITY, vis, rd->version);
		if (!visname)
			return rd_fail(rd, visat, "global '%s' has invalid symbol visibility %llu", name,
				       (unsigned long long)vis);
		if (constant > 1)
			return rd_fail(rd, visat, "global '%s' constant flag is %llu, expected 0 or 1",
				       name, (unsigned long long)constant);
		Op *op = op_new(m, &op_table[CT_global], 0, NULL, 0, NULL, 0, NULL);
		op->offset = at;
		op_set_attr(m, op, "sym_name", attr_string(m, name));
		op_set_attr(m, op, "value", dense);
		op_set_attr(m, op, "alignment", attr_int(m, (int64_t)align, NULL));
		if (v133) {
			op_set_attr(m, op, "symbol_visibility", attr_string(m, visname));
			if (constant)
				op_set_attr(m, op, "constant", attr_bool(m, true));
		}
		block_append(&m->body, op);
	}
	return cur_done(&c, "global section");
}

static bool read_function(Reader *rd, Cur *c, uint32_t index)
{
	Module *m = rd->m;
	/* fields in wire order; the name string is resolved after the hints,
	 * so errors come in the reference reader's order */
	size_t at = c->pos;
	uint64_t name_idx = cur_varint(c);
	size_t sat = c->pos;
	const Type *sig = cur_type(c);
	size_t fat = c->pos;
	uint8_t flags = cur_u8(c);
	size_t lat = c->pos;
	uint64_t loc_index = cur_varint(c);
	if (rd->failed)
		return false;
	/* 13.5: no hints bit; an entry always has its hints (maybe empty) */
	bool v135 = rd->version >= 1305;
	if (flags & ~(FN_PRIVATE | FN_KERNEL | (v135 ? 0 : FN_HINTS)))
		return rd_fail(rd, fat, "function %u has unknown flags 0x%02x", index, flags);
	if (!(flags & FN_KERNEL))
		return rd_fail(rd, fat, "function %u is not a kernel entry; only entry functions "
			       "are supported", index);
	const Attr *hints = NULL, *arg_attrs = NULL;
	if ((flags & FN_HINTS) || v135) {
		size_t hat = c->pos;
		uint64_t tag = cur_varint(c);
		if (rd->failed)
			return false;
		if (tag != 11)
			return rd_fail(rd, hat, "function %u: optimization hints must be attribute tag 11, "
				       "got %llu", index, (unsigned long long)tag);
		if (!(hints = attr_dict_body(c, 1, true)))
			return false;
		if (v135 && hints->u.dict.n == 0)
			hints = NULL;   /* 13.5 writes empty hints; 13.4 writes none */
	}
	if (v135) {
		/* 13.5: the argument attributes, a tagged array (one entry per
		 * argument, or empty); kept on the entry when not empty */
		size_t aat = c->pos;
		if (!(arg_attrs = attr_tagged(c, 1)))
			return false;
		if (arg_attrs->kind != AT_ARRAY)
			return rd_fail(rd, aat, "function %u: argument attributes must be an array "
				       "attribute", index);
		if (arg_attrs->u.array.n == 0)
			arg_attrs = NULL;
	}
	const char *name = string_get(rd, name_idx, at);
	if (name && !name[0])
		rd_fail(rd, at, "empty function name");
	if (rd->failed)
		return false;
	if (sig->kind != TY_FUNC)
		return rd_fail(rd, sat, "function '%s' has type '%s', expected a function type",
			       name, sig->str);
	size_t bat = c->pos;
	uint64_t len = cur_varint(c);
	if (rd->failed)
		return false;
	if (len > cur_left(c))
		return rd_fail(rd, bat, "function '%s' body length %llu runs past the end of the "
			       "function section (%zu bytes left)", name, (unsigned long long)len,
			       cur_left(c));
	DebugCursor dc;
	const Loc *floc;
	if (!debug_function(rd, loc_index, lat, &dc, &floc))
		return false;
	Op *op = op_new(m, &op_table[CT_entry], 0, NULL, 0, NULL, 1, floc);
	op->offset = at;
	op_set_attr(m, op, "sym_name", attr_string(m, name));
	op_set_attr(m, op, "function_type", attr_type(m, sig));
	if (hints)
		op_set_attr(m, op, "optimization_hints", hints);
	if (arg_attrs) {
		if (arg_attrs->u.array.n != sig->nin)
			return rd_fail(rd, at, "function '%s' has %d argument attributes for %d "
				       "arguments", name, arg_attrs->u.array.n, sig->nin);
		op_set_attr(m, op, "arg_attrs", arg_attrs);
	}
	Block *b = region_add_block(m, &op->regions[0], sig->nin, sig->ins);
	block_append(&m->body, op);
	Cur body = cur_span(rd, c->pos, (size_t)len);
	body.origin = c->origin;
	if (!ops_read_function(rd, &body, b, &dc) || !debug_finish(rd, &dc, at, name))
		return false;
	c->pos += (size_t)len;
	return true;
}

static bool read_functions(Reader *rd)
{
	Cur c = cur_span(rd, rd->sec[SEC_FUNC].start, rd->sec[SEC_FUNC].len);
	uint32_t n = cur_count(&c, 1, "function");
	for (uint32_t i = 0; i < n && !rd->failed; i++)
		read_function(rd, &c, i);
	if (rd->failed)
		return false;
	/* the reference writer pads the section to a multiple of 8 bytes */
	size_t left = cur_left(&c);
	if (left && left < 8 && (c.end - c.origin) % 8 == 0)
		return true;
	return cur_done(&c, "function section");
}

Module *tile_read_bytecode(const uint8_t *buf, size_t len)
{
	return tile_read_bytecode_keep(buf, len, NULL);
}

Module *tile_read_bytecode_keep(const uint8_t *buf, size_t len, DebugRecords *keep)
{
	ops_check_layouts();
	Reader rd = { .buf = buf, .len = len, .keep = keep };
	rd.m = module_new("cuda_tile");
	Module *m = rd.m;
	bool ok = sections_scan(&rd) && table_read(&rd, SEC_STRING, 4, &rd.strings, "string table", false);
	if (ok) {
		rd.str_cache = arena_alloc(m->arena, sizeof *rd.str_cache * ((size_t)rd.strings.n + 1));
		module_set_attr(m, "bytecode_version", attr_string(m, bytecode_version_name(rd.version)));
		ok = read_producer(&rd) && table_read(&rd, SEC_TYPE, 4, &rd.types, "type table", true);
	}
	if (ok) {
		rd.type_cache = arena_alloc(m->arena, sizeof *rd.type_cache * ((size_t)rd.types.n + 1));
		rd.type_state = arena_alloc(m->arena, (size_t)rd.types.n + 1);
		/* every type entry must decode, used or not */
		for (uint32_t i = 0; ok && i < rd.types.n; i++)
			ok = type_get(&rd, i, rd.types.index + (size_t)i * 4, 0) != NULL;
		ok = ok && table_read(&rd, SEC_CONSTANT, 8, &rd.consts, "constant table", true) &&
		     debug_init(&rd) && read_globals(&rd) && read_functions(&rd) &&
		     (!keep || debug_keep_records(&rd));
	}
	if (!ok || rd.failed) {
		if (!rd.failed)
			ice("tile-read failed without a diagnostic");
		module_free(m);
		return NULL;
	}
	return m;
}

Module *tile_read_run(const uint8_t *buf, size_t len, bool verify)
{
	return tile_read_run_keep(buf, len, verify, NULL);
}

Module *tile_read_run_keep(const uint8_t *buf, size_t len, bool verify, DebugRecords *keep)
{
	Module *m = tile_read_bytecode_keep(buf, len, keep);
	if (!m)
		return NULL;
	/* then the cuda_tile verifier (libcommon/verify.h), one line per problem */
	if (verify && verify_cuda_tile(m) > 0) {
		module_free(m);
		return NULL;
	}
	return m;
}
