/* write.c: bc_write_module (write.h): the container (header, sections,
 * end marker; docs/bytecode.md §2-3), globals, functions and the producer.
 * Sections go out in cuTile's order: function, global, constant, debug,
 * type, producer, string. */
#include <stdlib.h>
#include <string.h>
#include "write.h"
#include "writer.h"
#include "opinfo.h"
#include "diag.h"

enum { SEC_STRING = 1, SEC_FUNC, SEC_DEBUG, SEC_CONSTANT, SEC_TYPE, SEC_GLOBAL, SEC_PRODUCER };
enum { FN_KERNEL = 2, FN_HINTS = 4 };

static const uint8_t magic[8] = { 0x7f, 'T', 'i', 'l', 'e', 'I', 'R', 0 };

/* id byte, length, [alignment, padding from the file's start], payload */
static void section(StrBuf *out, unsigned id, unsigned align, const StrBuf *p)
{
	bo_u8(out, id | (align > 1 ? 0x80 : 0));
	bo_varint(out, p->len);
	if (align > 1) {
		bo_varint(out, align);
		bo_pad(out, 0, align);
	}
	bo_bytes(out, p->s, p->len);
}

static bool write_globals(Writer *w, StrBuf *p)
{
	uint64_t n = 0;
	FOR_EACH_OP(op, &w->m->body)
		n += op->info->code == CT_global;
	if (!n)
		return false;
	bo_varint(p, n);
	FOR_EACH_OP(op, &w->m->body) {
		if (op->info->code != CT_global)
			continue;
		const char *name = op_attr_str(op, "sym_name", "");
		const Attr *value = op_attr(op, "value");
		const char *vis = op_attr_str(op, "symbol_visibility", "public");
		bool constant = op_attr_flag(op, "constant");
		if (!value || value->kind != AT_DENSE)
			return wr_fail(w, "global '%s' has no dense value", name);
		if (strcmp(vis, "public") != 0)
			wr_need(w, 1303, "global '%s' (%s)", name, vis);
		if (constant)
			wr_need(w, 1303, "global '%s' (constant)", name);
		bo_varint(p, wr_string(w, name));
		bo_varint(p, wr_type(w, value->type));
		bo_varint(p, wr_const(w, value));
		bo_varint(p, (uint64_t)op_attr_int(op, "alignment", 0));
		if (w->version >= 1303) {
			bo_varint(p, strcmp(vis, "private") == 0);
			bo_varint(p, constant);
		}
	}
	return true;
}

static bool write_function(Writer *w, const Op *fn, StrBuf *p)
{
	const char *name = op_attr_str(fn, "sym_name", "");
	const Attr *sig = op_attr(fn, "function_type");
	const Attr *hints = op_attr(fn, "optimization_hints");
	const Attr *args = op_attr(fn, "arg_attrs");
	if (!sig || sig->kind != AT_TYPE || sig->type->kind != TY_FUNC)
		return wr_fail(w, "entry '%s' has no function type", name);
	if (args && !wr_need(w, 1305, "argument attributes of entry '%s'", name))
		return false;
	/* in cuTile's order of first use: the entry's location, its name, type
	 * and hints, then each op's location as it is written */
	wr_debug_begin(w, fn);
	StrBuf head = { 0 }, body = { 0 };
	uint32_t name_idx = wr_string(w, name), sig_idx = wr_type(w, sig->type);
	bool v135 = w->version >= 1305;
	if (hints || v135) {
		bo_varint(&head, 11);
		if (hints)
			wr_dict_body(w, &head, hints);
		else
			bo_varint(&head, 0);
	}
	if (v135) {
		if (args)
			wr_tagged(w, &head, args, false);
		else
			bo_varint(&head, 6), bo_varint(&head, 0);   /* an empty array attribute */
	}
	bool ok = wr_function_body(w, fn, &body);
	bo_varint(p, name_idx);
	bo_varint(p, sig_idx);
	bo_u8(p, FN_KERNEL | (hints && !v135 ? FN_HINTS : 0));
	bo_varint(p, wr_debug_end(w));
	bo_bytes(p, head.s, head.len);
	bo_varint(p, body.len);
	bo_bytes(p, body.s, body.len);
	sb_free(&head);
	sb_free(&body);
	return ok && !w->failed;
}

bool bc_write_module(const Module *m, int version, const struct DebugRecords *records, StrBuf *out)
{
	if (!bytecode_version_known(version))
		ice("bc_write_module: version %d", version);
	Writer w = { .m = m, .version = version, .records = records };
	StrBuf funcs = { 0 }, globals = { 0 }, consts = { 0 }, debug = { 0 }, types = { 0 },
	       producer = { 0 }, strings = { 0 };
	/* cuTile's type table starts with these two */
	wr_type(&w, type_scalar((Module *)m, SC_I1));
	wr_type(&w, type_scalar((Module *)m, SC_I32));
	uint64_t n = 0;
	FOR_EACH_OP(op, &m->body) {
		if (op->info->code == CT_entry)
			n++;
		else if (op->info->code != CT_global)
			wr_fail(&w, "%s cannot be at the top of a module", op->info->name);
	}
	bo_varint(&funcs, n);
	FOR_EACH_OP(op, &m->body)
		if (!w.failed && op->info->code == CT_entry)
			write_function(&w, op, &funcs);
	bool have_globals = !w.failed && write_globals(&w, &globals);
	const Attr *prod = module_attr(m, "producer");
	bool have_producer = version >= 1303 && prod && prod->kind == AT_STRING;
	if (have_producer)
		bo_varint(&producer, wr_string(&w, prod->u.s));
	bool ok = !w.failed;
	if (ok) {
		wr_const_section(&w, &consts);
		bool have_debug = wr_debug_section(&w, &debug);
		wr_type_section(&w, &types);
		wr_string_section(&w, &strings);
		bo_bytes(out, magic, sizeof magic);
		bo_u8(out, (unsigned)version / 100);
		bo_u8(out, (unsigned)version % 100);
		bo_u8(out, 0);
		bo_u8(out, 0);
		section(out, SEC_FUNC, 8, &funcs);
		if (have_globals)
			section(out, SEC_GLOBAL, 1, &globals);
		section(out, SEC_CONSTANT, 8, &consts);
		if (have_debug)
			section(out, SEC_DEBUG, 8, &debug);
		section(out, SEC_TYPE, 4, &types);
		if (have_producer)
			section(out, SEC_PRODUCER, 1, &producer);
		section(out, SEC_STRING, 4, &strings);
		bo_u8(out, 0);
	}
	StrBuf *bufs[] = { &funcs, &globals, &consts, &debug, &types, &producer, &strings };
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		sb_free(bufs[i]);
	wr_tables_free(&w);
	wr_debug_free(&w);
	return ok;
}
