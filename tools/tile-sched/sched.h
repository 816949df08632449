/* sched.h: tile-sched's layout assignment (docs/lowering.md §4).
 * Gives every tile value a register layout (docs/ir.md §4.3), anchored at
 * memory ops and propagated through elementwise ops, reshapes and
 * loop-carried values; broadcast sources get the layout their result
 * implies; nv_tileas.convert_layout is inserted only where two demands
 * disagree. No pipelining yet: no buffers, stages or barriers are made. */
#ifndef TILE_SCHED_H
#define TILE_SCHED_H
#include "ir.h"

/* Returns nonzero (a located user error printed) for an entry whose tile
 * no chunking can hold (chunk.c check_tile_sizes).
 * fixed: every entry gets num_warps; else an entry whose tiles all have one
 * element gets 1 (its own num_warps attribute) */
int sched_module(Module *m, int num_warps, bool fixed, bool tma);

/* hints.c: the warps an entry's optimization_hints ask for
 * (num_worker_warps_per_cta for the module's target, else its default), or 0 */
int entry_hint_warps(const Module *m, const Op *fn);
/* a warning for each entry whose hint is ignored (not a power of two) or
 * clamped (above 32); 0 (hints are never an error, as with NVIDIA's) */
int check_hints(const Module *m);

/* remarks.c: memory-access and layout-conversion remarks of scheduled IR
 * (libcommon/remark.h), appended to b */
struct StrBuf;
void sched_remarks(Module *m, struct StrBuf *b, bool yaml, unsigned kinds);   /* kinds: REMARK_* bits, 0 = all */
struct RemarkOut;
void sched_live_remarks(Module *m, struct RemarkOut *o);   /* remarks_live.c: the longest-live tile values */

#endif
