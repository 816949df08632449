/* mma_staging.h: the geometry of a kernel's MMA staging buffer, a pure
 * function of its products' plans (mma_plan.h), so that tile-sched, which
 * decides the plans (which loop-invariant operands stay resident: only
 * where the buffer then stays within mma_stage_budget), and tile-ptx, which
 * lays the buffer out and addresses it, agree byte for byte.
 *
 * The buffer (one static shared array a kernel, tile-ptx's
 * __tile_mma_<kernel>): each staged product's stages from offset 0 (the
 * products of a loop pipelined together one after another, each region
 * 1024-aligned: mma_region_offset), a stage holding A then B (B at
 * mma_stage_b_offset; at 0 when the stage holds no A: wgmma's A resident or
 * in registers); a TMA store's staging also from 0; then, after the largest
 * of these and 1024-aligned, the resident operands' regions, one after
 * another in walk order (mma_staging_need). Regions start at 128 bytes'
 * alignment, 1024 for wgmma and TMA boxes (a whole swizzle pattern). */
#ifndef TILE_MMA_STAGING_H
#define TILE_MMA_STAGING_H
#include <stdbool.h>
#include <stdint.h>
#include "ir.h"

/* Does operand k of product mma come by a copy into its stage (cp.async or
 * TMA; an f32 -> tf32 one only by TMA, whose tf32 map rounds)? */
bool mma_operand_copied(const Op *mma, int k);
/* A wgmma product whose stage holds no A (resident or in registers) */
bool mma_wgmma_a_unstaged(const Op *mma);
int64_t mma_stage_align(const Op *op);       /* 128, or 1024 (wgmma, TMA) */
int64_t mma_stage_bytes(const Op *op);       /* one stage (0: op stages nothing) */
int64_t mma_stage_b_offset(const Op *op);    /* B's offset in a stage */
int64_t mma_stage_stride(const Op *op);      /* from one stage to the next */
int64_t mma_stage_total(const Op *op);       /* all its stages */
int64_t mma_region_offset(const Op *op);     /* where its stages start in the buffer */
/* The resident region of operand k of product mma (MMA_STAGING_RESIDENT):
 * its bytes, 128-aligned (1024 for wgmma) */
int64_t mma_resident_bytes(const Op *mma, int k);

typedef struct MmaStagingNeed {
	int64_t max;            /* the largest staging (products, TMA stores) */
	bool align1024;         /* some region needs 1024-byte alignment */
	int64_t resident;       /* the resident regions' bytes */
	int64_t at;             /* mma_staging_need's `want`: its resident region's offset from resident_start */
} MmaStagingNeed;
/* The buffer of entry `top`: *n; with want, also where operand wk of product
 * want's resident region sits */
void mma_staging_need(const Op *top, const Op *want, int wk, MmaStagingNeed *n);
/* where the resident regions start: after the largest staging, 1024-aligned */
static inline int64_t mma_resident_start(const MmaStagingNeed *n) { return (n->max + 1023) & ~(int64_t)1023; }
/* the buffer's bytes */
static inline int64_t mma_staging_bytes(const MmaStagingNeed *n)
{
	return n->resident ? mma_resident_start(n) + n->resident : n->max;
}
#endif
