/* write.h: the bytecode writer, the inverse of the reader (docs/bytecode.md):
 * a cuda_tile Module (as tile-read builds it from bytecode or text) ->
 * Tile IR bytecode of one version, 13.1 to 13.5.
 *
 * Layout as NVIDIA's cuTile writes it: header, then the function, global,
 * constant, debug, type, producer (13.3+) and string sections, then the end
 * marker; tables in first-use order, deduplicated; ops by the wire layouts
 * (wire_layout.h). Locations are written as debug records rebuilt from each
 * op's `loc` (file, line, column, function, call chain): a file record per
 * directory/name, one subprogram per function name (the entry's own carries
 * the entry's name as its linkage name), a DILoc per location, a CallSite
 * per caller; what the reader reads back from them is the same `loc`.
 *
 * A feature the version lacks (an op, an attribute or enum value, a type, a
 * private or constant global, argument attributes) is a user error naming it
 * and the first version that has it; nothing is written then. */
#ifndef TILE_READ_WRITE_H
#define TILE_READ_WRITE_H
#include <stdbool.h>
#include "ir.h"
#include "strbuf.h"

/* Appends the bytecode of m in `version` (1301..1305) to *out. False after
 * one diagnostic (diag_error); *out is then unspecified. `records`: the
 * debug records m was read from (debug_info.h), or NULL; a subprogram there
 * gives its line, scope line and file to the one written for its function
 * (the `loc` does not have them), so cuTile's files come back byte for byte. */
struct DebugRecords;
bool bc_write_module(const Module *m, int version, const struct DebugRecords *records, StrBuf *out);

#endif
