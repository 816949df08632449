/* opinfo.c: the op table built from dialect_cuda_tile.def and
 * dialect_nv_tile.def (see opinfo.h). Everything here is constant. */
#include <stdio.h>
#include <string.h>
#include "opinfo.h"
#include "enums.h"

#define TERM OPT_TERM
#define PURE OPT_PURE
#define EW OPT_EW
#define REG OPT_REG
#define STRUCT OPT_STRUCT
#define MEM OPT_MEM
#define SHAPE OPT_SHAPE
#define SCHED OPT_SCHED

const OpInfo op_table[OPCODE_COUNT] = {
#define OP(n, opc, since, traits, lower, family, emit, rule, layout) \
	{ CT_##n, DIALECT_CUDA_TILE, "cuda_tile." #n, #n, opc, since, traits, LOWER_##lower, FAM_##family, NVC_NONE },
#include "dialect_cuda_tile.def"
#undef OP
#define NVOP(n, dialects, traits, check, emit) NVOP_IN_AA_##dialects( \
	{ AA_##n, DIALECT_NV_TILEAA, "nv_tileaa." #n, #n, -1, 0, traits, LOWER_NA, FAM_NONE, NVC_##check },)
#include "dialect_nv_tile.def"
#undef NVOP
#define NVOP(n, dialects, traits, check, emit) NVOP_IN_AS_##dialects( \
	{ AS_##n, DIALECT_NV_TILEAS, "nv_tileas." #n, #n, -1, 0, traits, LOWER_NA, FAM_NONE, NVC_##check },)
#include "dialect_nv_tile.def"
#undef NVOP
};

/* cuda_tile ops by bytecode opcode (a repeated opcode does not compile:
 * -Woverride-init is part of -Wextra) */
static const OpInfo *const by_opcode[256] = {
#define OP(n, opc, since, traits, lower, family, emit, rule, layout) [opc] = &op_table[CT_##n],
#include "dialect_cuda_tile.def"
#undef OP
};

const char *dialect_name(Dialect d)
{
	static const char *const names[] = { "cuda_tile", "nv_tileaa", "nv_tileas" };
	return (unsigned)d < DIALECT_COUNT ? names[d] : "?";
}

const OpInfo *opinfo_by_name(const char *full_name)
{
	/* ~120 ops: a linear scan is cheaper than it looks next to JSON parsing */
	for (int i = 0; i < OPCODE_COUNT; i++)
		if (strcmp(op_table[i].name, full_name) == 0)
			return &op_table[i];
	return NULL;
}

const OpInfo *opinfo_by_bytecode(int opcode)
{
	return opcode >= 0 && opcode < 256 ? by_opcode[opcode] : NULL;
}

#define BAD(...) do { snprintf(buf, n, __VA_ARGS__); return buf; } while (0)

const char *opinfo_check(char *buf, size_t n)
{
	for (int i = 0; i < OPCODE_COUNT; i++) {
		const OpInfo *o = &op_table[i];
		if ((int)o->code != i)
			BAD("op_table[%d] holds '%s' (code %d)", i, o->name, (int)o->code);
		if (opinfo_by_name(o->name) != o)
			BAD("'%s' has two rows", o->name);
		if (o->dialect != DIALECT_CUDA_TILE) {
			if (o->bytecode_opcode != -1 || o->since || o->lower != LOWER_NA || o->family != FAM_NONE)
				BAD("'%s': an nv_tile op has no opcode, version, lowering or verifier family", o->name);
			if (o->dialect == DIALECT_NV_TILEAA) {
				char as[96];
				snprintf(as, sizeof as, "nv_tileas.%s", o->short_name);
				if (!opinfo_by_name(as))
					BAD("'%s' has no nv_tileas counterpart", o->name);
			}
			continue;
		}
		if (o->bytecode_opcode < 0 || o->bytecode_opcode > 255 ||
		    opinfo_by_bytecode(o->bytecode_opcode) != o)
			BAD("'%s': opcode 0x%x is not its own", o->name, (unsigned)o->bytecode_opcode);
		if (!bytecode_version_known(o->since))
			BAD("'%s': first version %d is not a bytecode version", o->name, o->since);
		if (o->family == FAM_NONE || o->family >= FAM_COUNT)
			BAD("'%s' has no verifier family", o->name);
		if (o->lower == LOWER_NA)
			BAD("'%s' has no lower column", o->name);
		if ((op_has(o, OPT_EW) || op_has(o, OPT_SHAPE)) && o->lower != LOWER_KEEP)
			BAD("'%s': elementwise and shape ops are kept by tile-lower", o->name);
		if (op_has(o, OPT_EW) && op_has(o, OPT_SHAPE))
			BAD("'%s' is both elementwise and a shape op", o->name);
		if (o->lower == LOWER_TOP && !op_has(o, OPT_STRUCT))
			BAD("'%s': only structure ops are TOP", o->name);
		if (op_has(o, OPT_STRUCT) && o->lower != LOWER_TOP && o->lower != LOWER_NONE)
			BAD("'%s': a structure op is TOP or NONE", o->name);
		if (op_has(o, OPT_SCHED))
			BAD("'%s': only nv_tileas ops are made by tile-sched", o->name);
	}
	return NULL;
}
