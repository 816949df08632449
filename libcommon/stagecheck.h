/* stagecheck.h: the verifier of the lower stages (docs/ir.md §6):
 * nv_tileaa, nv_tileas and scheduled IR.
 *
 * Checks SSA scoping (every operand defined earlier in its block or an
 * enclosing one), which dialects and ops may appear at the stage, the
 * operands, attributes and results of every nv_tileaa / nv_tileas op, and at
 * stage `scheduled` that every tile value has a register layout that holds
 * each element of its tile for the module's num_warps.
 *
 * Each problem is one diag_error() at the op's location. Returns the number
 * of problems. A tool calls it on its input (problems are user errors) and
 * on its output (problems are internal errors: the tool broke the IR). */
#ifndef TILE_STAGECHECK_H
#define TILE_STAGECHECK_H
#include "ir.h"

int stage_check(Module *m);

/* Which cuda_tile ops may appear below stage cuda_tile: op_kept_below()
 * (opinfo.h), from the `lower` column of dialect_cuda_tile.def. */

#endif
