/* opinfo.h: the op tables every stage shares, one record per op, generated
 * from the X-macro lists dialect_cuda_tile.def (cuda_tile) and
 * dialect_nv_tile.def (nv_tileaa and nv_tileas). A stage looks ops up by full
 * name ("cuda_tile.addi") or, for the bytecode reader, by opcode, and asks
 * the record, never a list of its own: the predicates below are the only
 * answers to "is this an elementwise op / a shape op / does tile-lower take
 * it / may it appear below cuda_tile". opinfo_check() proves the table is
 * consistent. How to add an op: docs/architecture.md, "Adding an op". */
#ifndef TILE_OPINFO_H
#define TILE_OPINFO_H

#include <stdbool.h>
#include <stddef.h>

enum {
	OPT_TERM = 1 << 0,    /* block terminator */
	OPT_PURE = 1 << 1,    /* no side effects */
	OPT_EW = 1 << 2,      /* elementwise over same-shaped tiles */
	OPT_REG = 1 << 3,     /* has regions */
	OPT_STRUCT = 1 << 4,  /* module/entry/global: top-level structure only */
	OPT_MEM = 1 << 5,     /* touches memory or has an ordering effect */
	OPT_SHAPE = 1 << 6,   /* moves elements between positions (tile-sched's shape pass) */
	OPT_SCHED = 1 << 7,   /* made by tile-sched: only in scheduled IR */
};

typedef enum Dialect { DIALECT_CUDA_TILE, DIALECT_NV_TILEAA, DIALECT_NV_TILEAS, DIALECT_COUNT } Dialect;

/* What tile-lower does with a cuda_tile op in a body (dialect_cuda_tile.def). */
typedef enum LowerKind {
	LOWER_NA,        /* not a cuda_tile op */
	LOWER_KEEP,      /* carried down unchanged */
	LOWER_REWRITE,   /* rewritten into nv_tileaa ops or arithmetic */
	LOWER_NONE,      /* not lowered yet */
	LOWER_TOP,       /* module structure, never in a body below cuda_tile */
} LowerKind;

/* The cuda_tile verifier's type-rule families, one checker each
 * (verify_families.c); the `family` column of dialect_cuda_tile.def. */
enum Family {
	FAM_NONE, FAM_SAME, FAM_CMP, FAM_SELECT, FAM_CONV, FAM_OFFSET, FAM_FPOWI, FAM_PACK,
	FAM_CONSTANT, FAM_IOTA, FAM_BROADCAST, FAM_RESHAPE, FAM_PERMUTE, FAM_CAT, FAM_EXTRACT,
	FAM_INSERT, FAM_BLOCKID, FAM_GET_GLOBAL, FAM_ASSUME, FAM_ASSERT, FAM_PRINT, FAM_TOKENS,
	FAM_MAKE_TV, FAM_MAKE_VIEW, FAM_GET_SHAPE, FAM_LOAD_PTR, FAM_STORE_PTR, FAM_LOAD_VIEW,
	FAM_STORE_VIEW, FAM_ATOMIC, FAM_ATOMIC_RED, FAM_MULTIMEM, FAM_ALLOCA, FAM_MMAF, FAM_MMAI,
	FAM_MMAF_SCALED, FAM_IF, FAM_FOR, FAM_LOOP, FAM_REDUCE, FAM_SCAN, FAM_TERM, FAM_ENTRY,
	FAM_GLOBAL, FAM_MODULE, FAM_COUNT
};

/* dialect_nv_tile.def's check column: the rule of an nv_tileaa / nv_tileas
 * op (one checker each in stagecheck.c) */
enum NvCheck {
	NVC_NONE, NVC_MEMREF, NVC_TILED_LOAD, NVC_TILED_STORE, NVC_LOAD, NVC_STORE, NVC_NEW_TOKEN,
	NVC_JOIN_TOKENS, NVC_ATOMIC_RMW, NVC_ATOMIC_CAS, NVC_CONVERT_LAYOUT, NVC_COUNT
};

/* dialect_nv_tile.def's dialect column: which of the two dialects have a row */
#define NVOP_IN_AA_AA_AS(...) __VA_ARGS__
#define NVOP_IN_AA_AS(...)
#define NVOP_IN_AS_AA_AS(...) __VA_ARGS__
#define NVOP_IN_AS_AS(...) __VA_ARGS__

enum OpCode {
#define OP(name, opcode, since, traits, lower, family, emit, rule, layout) CT_##name,
#include "dialect_cuda_tile.def"
#undef OP
#define NVOP(name, dialects, traits, check, emit) NVOP_IN_AA_##dialects(AA_##name,)
#include "dialect_nv_tile.def"
#undef NVOP
#define NVOP(name, dialects, traits, check, emit) NVOP_IN_AS_##dialects(AS_##name,)
#include "dialect_nv_tile.def"
#undef NVOP
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
	LowerKind lower;      /* cuda_tile ops: what tile-lower does; else LOWER_NA */
	enum Family family;   /* cuda_tile ops: verifier family; else FAM_NONE */
	enum NvCheck nv_check; /* nv_tileaa / nv_tileas ops: their rule; else NVC_NONE */
} OpInfo;

extern const OpInfo op_table[OPCODE_COUNT];
const char *dialect_name(Dialect d);
const OpInfo *opinfo_by_name(const char *full_name);
const OpInfo *opinfo_by_bytecode(int opcode);   /* cuda_tile only; NULL if unassigned */
static inline bool op_has(const OpInfo *i, unsigned t) { return (i->traits & t) != 0; }

/* The derived questions (each answered from the op's record only). */
static inline bool op_is_elementwise(const OpInfo *i) { return op_has(i, OPT_EW); }
/* reduce, scan, permute, cat, extract, insert, pack, unpack */
static inline bool op_is_shape(const OpInfo *i) { return op_has(i, OPT_SHAPE); }
/* Does tile-lower accept this op in a function body? */
static inline bool op_lower_accepts(const OpInfo *i)
{
	return i->dialect == DIALECT_CUDA_TILE && (i->lower == LOWER_KEEP || i->lower == LOWER_REWRITE);
}
/* May this cuda_tile op appear in a body below stage cuda_tile? */
static inline bool op_kept_below(const OpInfo *i)
{
	return i->dialect == DIALECT_CUDA_TILE && (i->lower == LOWER_KEEP || i->lower == LOWER_NONE);
}

/* Checks that the columns of every record agree (opcodes in range, versions
 * known, elementwise and shape ops kept by tile-lower, structure ops marked
 * TOP or NONE, every cuda_tile op with a verifier family, nv_tileaa ops also
 * in nv_tileas). Returns NULL, or a message about the first bad row written
 * to buf. */
const char *opinfo_check(char *buf, size_t n);

#endif
