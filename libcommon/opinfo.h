/* opinfo.h: the op tables every stage shares, one per dialect, generated from
 * the dialect_*.def X-macro lists. A stage looks ops up by full name
 * ("cuda_tile.addi") or, for the bytecode reader, by opcode. */
#ifndef TILE_OPINFO_H
#define TILE_OPINFO_H

#include <stdbool.h>

enum {
	OPT_TERM = 1 << 0,    /* block terminator */
	OPT_PURE = 1 << 1,    /* no side effects */
	OPT_EW = 1 << 2,      /* elementwise over same-shaped tiles */
	OPT_REG = 1 << 3,     /* has regions */
	OPT_STRUCT = 1 << 4,  /* module/entry/global: top-level structure only */
	OPT_MEM = 1 << 5,     /* touches memory or has an ordering effect */
};

typedef enum Dialect { DIALECT_CUDA_TILE, DIALECT_NV_TILEAA, DIALECT_NV_TILEAS, DIALECT_COUNT } Dialect;

enum OpCode {
#define OP(name, opcode, since, traits) CT_##name,
#include "dialect_cuda_tile.def"
#undef OP
#define OP(name, opcode, since, traits) AA_##name,
#include "dialect_nv_tileaa.def"
#undef OP
#define OP(name, opcode, since, traits) AS_##name,
#include "dialect_nv_tileas.def"
#undef OP
	OPCODE_COUNT
};

typedef struct OpInfo {
	enum OpCode code;     /* CT_addi, AA_load, ... */
	Dialect dialect;
	const char *name;     /* full name: "cuda_tile.addi" */
	const char *short_name;
	int bytecode_opcode;  /* -1 when none */
	int since;            /* 1301 = 13.1; 0 when not a bytecode op */
	unsigned traits;
} OpInfo;

extern const OpInfo op_table[OPCODE_COUNT];
const char *dialect_name(Dialect d);
const OpInfo *opinfo_by_name(const char *full_name);
const OpInfo *opinfo_by_bytecode(int opcode);   /* cuda_tile only; NULL if unassigned */
static inline bool op_has(const OpInfo *i, unsigned t) { return (i->traits & t) != 0; }

#endif
