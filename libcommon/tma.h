/* tma.h: which tiled loads the Tensor Memory Accelerator can copy (no LLVM;
 * tile-sched decides with it, tile-ptx checks its input with it). */
#ifndef LIBCOMMON_TMA_H
#define LIBCOMMON_TMA_H
#include <stdbool.h>
#include "ir.h"
#include "tmap.h"
#include "mma.h"

/* Can ld (an nv_tileas.tiled_load) go by TMA into the staging of the
 * product that uses it (on sm, with warps warps): a wgmma product on
 * sm_90, or one fed by ldmatrix on sm_90 and the later targets with TMA
 * (sm_100..sm_121, where NVIDIA's cubins copy by TMA and multiply with
 * mma.sync too)? Then n holds its map's note (all but the entry name and
 * the hidden parameter's index). What it takes: docs/lowering.md §10 "TMA". */
bool tma_load_ok(const Op *ld, int warps, int sm, TmapNote *n);

/* the product (mma_is_product) after ld in its block that takes ld's tile
 * as operand 0 or 1 (*k), as it is or through an ftof tma_tf32_round holds for */
Op *tma_product_of(const Op *ld, int *k);

/* Is cv an f32 -> tf32 ftof with rounding nearest_even (what a tf32 map's
 * copy does itself)? */
bool tma_tf32_round(const Op *cv);

/* the tiled_load that makes operand k of mma: its definition, or (*tf32)
 * that of the ftof tma_tf32_round holds for that makes it; else NULL */
Op *tma_operand_load(const Op *mma, int k, bool *tf32);

/* The row bytes W of operand k's staging when it comes by TMA: TMA's
 * swizzled box (rows of W bytes, W the swizzle span; the tile's columns
 * beyond W in further row blocks: mma_wgmma_offset) is the staging, for
 * ldmatrix products too: wgmma's W (mma_wgmma_stage_w) for a wgmma tiling,
 * else min(128, the staged row's bytes). */
int tma_box_row_bytes(const MmaTiling *t, int k, const Type *el);

#endif
