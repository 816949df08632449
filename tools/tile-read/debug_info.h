/* debug_info.h: tile-read's debug section as records, kept for
 * --emit=asm-debug (NVIDIA's tileirdisasm -g prints them as MLIR location
 * aliases; asm_debug.c). The JSON IR keeps only what its `loc` says; this
 * keeps each record as the bytecode has it (docs/bytecode.md, debug
 * section). Filled by debug.c while it reads; read-only after. */
#ifndef TILE_READ_DEBUG_INFO_H
#define TILE_READ_DEBUG_INFO_H
#include <stddef.h>
#include <stdint.h>

enum { DI_UNKNOWN, DI_COMPILE_UNIT, DI_FILE, DI_LEXICAL_BLOCK, DI_LOC, DI_SUBPROGRAM,
       DI_CALL_SITE, DI_COUNT };

/* One debug attribute. Children are references k (attribute k-1; 0 none). */
typedef struct DiRecord {
	int tag;                 /* DI_*, -1 when not decoded */
	uint64_t ref[2];         /* compile unit: file; lexical block: scope, file;
				  * loc: scope; subprogram: file, unit; call site: callee, caller */
	const char *str[2];      /* file: name, directory; loc: file; subprogram: name, linkage */
	unsigned line, col;      /* lexical block, loc: line, column; subprogram: line, scope line */
	unsigned flags;          /* subprogram (13.5): 1 = declaration */
} DiRecord;

typedef struct DebugRecords {
	uint32_t n;
	DiRecord *rec;           /* rec[k] for reference k, 1..n */
	uint64_t *refs;          /* each location read, in order: per function its own, then
				  * its ops' in pre-order (0 = unknown) */
	size_t nrefs, cap;
} DebugRecords;

#endif
