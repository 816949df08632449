/* opinfo.c: the op table built from the dialect_*.def lists. */
#include <string.h>
#include "opinfo.h"

#define TERM OPT_TERM
#define PURE OPT_PURE
#define EW OPT_EW
#define REG OPT_REG
#define STRUCT OPT_STRUCT
#define MEM OPT_MEM

const OpInfo op_table[OPCODE_COUNT] = {
#define OP(n, opc, since, traits) \
	{ CT_##n, DIALECT_CUDA_TILE, "cuda_tile." #n, #n, opc, since, traits },
#include "dialect_cuda_tile.def"
#undef OP
#define OP(n, opc, since, traits) \
	{ AA_##n, DIALECT_NV_TILEAA, "nv_tileaa." #n, #n, opc, since, traits },
#include "dialect_nv_tileaa.def"
#undef OP
#define OP(n, opc, since, traits) \
	{ AS_##n, DIALECT_NV_TILEAS, "nv_tileas." #n, #n, opc, since, traits },
#include "dialect_nv_tileas.def"
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
	static const OpInfo *by_opcode[256];
	static int ready;
	if (!ready) {
		for (int i = 0; i < OPCODE_COUNT; i++)
			if (op_table[i].dialect == DIALECT_CUDA_TILE &&
			    op_table[i].bytecode_opcode >= 0 && op_table[i].bytecode_opcode < 256)
				by_opcode[op_table[i].bytecode_opcode] = &op_table[i];
		ready = 1;
	}
	return opcode >= 0 && opcode < 256 ? by_opcode[opcode] : NULL;
}
