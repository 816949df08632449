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

/* Can st (an nv_tileas.tiled_store of a product's result: directly,
 * through ftofs, or as a `for`'s carried accumulator) go to global memory
 * by TMA (sm_90 and later): a rank-2 f16 / bf16 / f32 tile staged in TMA's
 * swizzled boxes (rows of min(128, row bytes), 64 or 128 bytes), its view
 * as tma_load_ok's and its row length a known multiple of 16 bytes
 * (shape_div_by: where NVIDIA's does it)? Then n holds its map's note. TMA
 * writes only what lies inside the view, so partial tiles need no masks. */
bool tma_store_ok(const Op *st, int sm, TmapNote *n);
/* a TMA store's boxes are at most 64 rows (NVIDIA's choice for its
 * epilogue's maps: 64 x 128 bytes), its staging the tile's: box i of column
 * block j at j * rows * W + i * 64 * W */
static inline int64_t tma_store_box_rows(int64_t rows) { return rows < 64 ? rows : 64; }

/* The map of a TMA access acc (a tiled_load / tiled_store of rank r):
 * tile_dim[j] is the tile dim whose view dim is the map's dim j (0 the
 * view's contiguous dim, then the operand's other dim, then the unit dims
 * from the view's outermost on). r, or 0 when the access's dim_map does not
 * put one of its last two tile dims on the view's contiguous dim. */
int tma_map_order(const Op *acc, int *tile_dim);


/* The row bytes W of operand k's staging when it comes by TMA: TMA's
 * swizzled box (rows of W bytes, W the swizzle span; the tile's columns
 * beyond W in further row blocks: mma_wgmma_offset) is the staging, for
 * ldmatrix products too: wgmma's W (mma_wgmma_stage_w) for a wgmma tiling,
 * else min(128, the staged row's bytes). */
int tma_box_row_bytes(const MmaTiling *t, int k, const Type *el);

#endif
