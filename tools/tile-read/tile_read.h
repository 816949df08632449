/* tile_read.h: the tile-read stage as a function, for in-process drivers.
 *
 * Decodes Tile IR bytecode (versions 13.1 to 13.5; docs/bytecode.md)
 * into a cuda_tile-stage Module (docs/ir.md). Structural checks only: the
 * op-level verifier is separate (verify_cuda_tile, libcommon/verify.h).
 * On bad input: exactly one diagnostic "offset 0xNN: error: MSG" through
 * diag_error_at_offset, and NULL. Never reads outside buf[0..len). */
#ifndef TILE_READ_H
#define TILE_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"

Module *tile_read_bytecode(const uint8_t *buf, size_t len);
/* The stage's run, for its executable (main.c) and libtileiras: decoded
 * and, with `verify`, verified (verify_cuda_tile); NULL after the
 * diagnostics. */
Module *tile_read_run(const uint8_t *buf, size_t len, bool verify);
/* The same, keeping the debug section's records and each location read in
 * *keep (debug_info.h; for --emit=asm-debug); keep->refs is malloc'd. */
struct DebugRecords;
Module *tile_read_bytecode_keep(const uint8_t *buf, size_t len, struct DebugRecords *keep);
Module *tile_read_run_keep(const uint8_t *buf, size_t len, bool verify, struct DebugRecords *keep);

/* The versions we read: libcommon/versions.def (bytecode_version_list() in
 * enums.h gives "13.1, 13.2, 13.3, 13.4, 13.5" for messages). */

#endif
