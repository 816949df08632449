/* mma_staging.c: the MMA staging buffer's geometry from the products'
 * plans (mma_staging.h). */
#include "mma_staging.h"
#include "mma_plan.h"
#include "mma.h"
#include "irutil.h"

bool mma_operand_copied(const Op *mma, int k)
{
	bool tf32;
	const Op *d = mma_staged_load(mma, k, &tf32);
	return d && mma_load_copied(d) && (!tf32 || mma_load_staging(d) == MMA_STAGING_TMA);
}

bool mma_wgmma_a_unstaged(const Op *mma)
{
	MmaStaging a = mma_operand_staging(mma, 0);
	return mma_path(mma) == MMA_PATH_WGMMA && !mma_operand_copied(mma, 0) &&
	       (a == MMA_STAGING_FRAGMENT || a == MMA_STAGING_RESIDENT);
}

/* operand k of product op comes by TMA */
static bool by_tma(const Op *op, int k)
{
	bool tf32;
	const Op *d = mma_is_product(op) ? mma_staged_load(op, k, &tf32) : NULL;
	return d && mma_load_staging(d) == MMA_STAGING_TMA;
}

int64_t mma_stage_align(const Op *op)
{
	return mma_path(op) == MMA_PATH_WGMMA || by_tma(op, 0) || by_tma(op, 1) ? 1024 : 128;
}

int64_t mma_stage_b_offset(const Op *op)
{
	if (mma_wgmma_a_unstaged(op))       /* no A region: B at the stage's start */
		return 0;
	int eb = elem_bytes(tile_elem(op->operands[0]->type));
	int64_t align = mma_stage_align(op);
	return (type_num_elements(op->operands[0]->type) * eb + align - 1) & ~(align - 1);
}

int64_t mma_stage_bytes(const Op *op)
{
	if (!mma_is_product(op) || !mma_staged(op))
		return 0;
	int eb = elem_bytes(tile_elem(op->operands[0]->type));
	return mma_stage_b_offset(op) + type_num_elements(op->operands[1]->type) * eb;
}

int64_t mma_stage_stride(const Op *op)
{
	int64_t align = mma_stage_align(op);
	return (mma_stage_bytes(op) + align - 1) & ~(align - 1);
}

int64_t mma_stage_total(const Op *op)
{
	int64_t n = mma_stages(op, 1);
	return n > 1 ? n * mma_stage_stride(op) : mma_stage_bytes(op);
}

/* A loop whose body holds a pipelined product beside other staged products
 * (attention: S = Q K^T and P V, each pipelined) gives each of them a region
 * of its own, in body order, 1024-aligned: one product's copies of the next
 * step are in flight while the others run. Elsewhere every product's region
 * starts at 0 (they use the buffer one after another). */
static bool own_regions(const Op *loop)
{
	int n = 0;
	bool piped = false;
	for (Op *x = loop->regions[0].first->first; x; x = x->next)
		if (mma_stage_bytes(x) > 0) {
			n++;
			piped |= mma_stages(x, 1) > 1;
		}
	return n > 1 && piped;
}

int64_t mma_region_offset(const Op *op)
{
	const Op *loop = mma_loop_of(op);
	if (!loop || !own_regions(loop))
		return 0;
	int64_t at = 0;
	for (Op *x = loop->regions[0].first->first; x && x != op; x = x->next)
		if (mma_stage_bytes(x) > 0)
			at += (mma_stage_total(x) + 1023) & ~(int64_t)1023;
	return at;
}

int64_t mma_resident_bytes(const Op *mma, int k)
{
	int eb = elem_bytes(tile_elem(mma->operands[0]->type));
	int64_t a = mma_path(mma) == MMA_PATH_WGMMA ? 1024 : 128;
	return (type_num_elements(mma->operands[k]->type) * eb + a - 1) & ~(a - 1);
}

typedef struct Walk {
	MmaStagingNeed *n;
	const Op *want;
	int wk;
} Walk;

static int need_walk(Op *op, void *ctx)
{
	Walk *w = ctx;
	MmaStagingNeed *n = w->n;
	int64_t b = mma_stage_total(op);
	if (b > 0)
		b += mma_region_offset(op);
	if (op->info->code == AS_tiled_store && op_attr_flag(op, "tma")) {
		/* a TMA store stages its tile here too, after the products (tile-ptx
		 * op_memory.c), in TMA's swizzled boxes: 1024-byte aligned */
		const Type *tt = op->operands[1]->type;
		b = type_num_elements(tt) * elem_bytes(tt->elem);
		n->align1024 = true;
	} else {
		n->align1024 |= b > 0 && mma_stage_align(op) == 1024;
	}
	if (b > n->max)
		n->max = b;
	for (int k = 0; k < 2 && mma_is_product(op); k++)
		if (mma_operand_staging(op, k) == MMA_STAGING_RESIDENT) {
			if (op == w->want && k == w->wk)
				n->at = n->resident;
			n->resident += mma_resident_bytes(op, k);
		}
	return 0;
}

void mma_staging_need(const Op *top, const Op *want, int wk, MmaStagingNeed *n)
{
	*n = (MmaStagingNeed){ 0 };
	Walk w = { n, want, wk };
	op_walk((Op *)top, need_walk, &w);
}
