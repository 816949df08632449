/* knobs.h: the environment switches, one row each in knobs.def (TILE_*,
 * TILEIRAS_*, NVIDIA's MLIR_ENABLE_EVO and PTX_KNOBS_PATH), read into one
 * typed struct; docs/knobs.md is generated from the table.
 *
 * Contract:
 *  - knobs_read() is the only code that reads a switch from the environment
 *    (tests/knobs.bats: getenv only here and in toolkit.c, which finds
 *    programs and directories).
 *  - Each entry reads them once, before any pass runs, and makes them this
 *    thread's with knobs_use(): tool_main() (every stage executable),
 *    tile-pack's --which-ptxas and --query-tensor-maps, libtileiras's
 *    tileiras_compile() (one read a compile, saved and restored like the
 *    diag state) and tileirasGetVersion(), the tileiras launcher (its own
 *    Knobs).
 *  - Passes read knobs(), which never reads the environment: with no
 *    knobs_use() on this thread it gives every row's default.
 * Why a per-thread accessor and not a parameter: the reads sit in leaf
 * helpers of five stages and libcommon that take no context (libcommon's
 * mma_b_column_load under mma_product_tiling, which tile-sched, tile-ptx and
 * tma.c call; tile-lower's k_chunk(op, sm); tile-ptx's LLVM set-up under
 * pthread_once); a parameter would change some fifteen signatures across
 * the stages and change no behaviour. The pointer is _Thread_local, like
 * diag.h's diag_tool, so each of libtileiras's threads compiles with what
 * its own compile read. libc only: the tileiras launcher links it alone. */
#ifndef TILE_KNOBS_H
#define TILE_KNOBS_H
#include <stdbool.h>
#include <stddef.h>

#define KNOB_CTYPE_bool bool
#define KNOB_CTYPE_int int
#define KNOB_CTYPE_string const char *

typedef struct Knobs {
#define KNOB(name, type, def, read_by, doc) KNOB_CTYPE_##type name;
#include "knobs.def"
#undef KNOB
} Knobs;

/* knobs.c */
void knobs_read(Knobs *k);                  /* every row, from the environment, now */
const Knobs *knobs_use(const Knobs *k);     /* this thread's from now (NULL: the defaults); returns the previous */
const Knobs *knobs(void);                   /* this thread's, never NULL */
#endif
