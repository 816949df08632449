/* tests/verify/unit.c: verifier checks the JSON form cannot express, on
 * modules built through the IR API (as tile-read builds them):
 *   empty   an optimization_hints dictionary with an empty key
 *   dup     a dictionary with a duplicated key
 *   offset  an op without a location but with a bytecode offset
 * Built by make as $(BUILD)/tests/unit-verify, run by tests/verify.bats.
 * usage: unit CASE  -> prints nothing; the verifier's messages go to stderr;
 * exit status = the number of errors verify_cuda_tile() returned. */
#include <stdio.h>
#include <string.h>
#include "ir.h"
#include "opinfo.h"
#include "diag.h"
#include "verify.h"

/* a dictionary attribute with keys exactly as given (attr_dict refuses
 * empty and duplicated keys, a bytecode reader might not) */
static const Attr *raw_dict(Module *m, int n, const char *const *keys, const Attr *val)
{
	NamedAttr *v = arena_alloc(m->arena, sizeof *v * (size_t)n);
	for (int i = 0; i < n; i++) {
		v[i].name = keys[i];
		v[i].attr = val;
	}
	Attr *a = arena_alloc(m->arena, sizeof *a);
	a->kind = AT_DICT;
	a->u.dict.n = n;
	a->u.dict.v = v;
	return a;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "";
	diag_tool = "unit";
	diag_input = which;
	Module *m = module_new("cuda_tile");
	const Type *fn = type_func(m, 0, NULL, 0, NULL);
	Op *entry = op_new(m, opinfo_by_name("cuda_tile.entry"), 0, NULL, 0, NULL, 1, m->unknown_loc);
	op_set_attr(m, entry, "sym_name", attr_string(m, "k"));
	op_set_attr(m, entry, "function_type", attr_type(m, fn));
	Block *b = region_add_block(m, &entry->regions[0], 0, NULL);
	block_append(&m->body, entry);
	if (strcmp(which, "empty") == 0 || strcmp(which, "dup") == 0) {
		static const char *const empty[] = { "" }, *const dup[] = { "sm_90", "sm_90" };
		const Attr *inner = attr_dict(m, 0, NULL);
		bool e = which[0] == 'e';
		op_set_attr(m, entry, "optimization_hints", raw_dict(m, e ? 1 : 2, e ? empty : dup, inner));
	}
	if (strcmp(which, "offset") == 0) {
		const Type *i32 = type_tile(m, type_scalar(m, SC_I32), 0, NULL);
		Op *c = op_new(m, opinfo_by_name("cuda_tile.make_token"), 0, NULL, 1, &i32, 0, m->unknown_loc);
		c->offset = 0x1c4;
		block_append(b, c);
	}
	block_append(b, op_new(m, opinfo_by_name("cuda_tile.return"), 0, NULL, 0, NULL, 0, m->unknown_loc));
	int n = verify_cuda_tile(m);
	module_free(m);
	return n;
}
