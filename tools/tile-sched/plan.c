/* plan.c: the last step of scheduling an entry: what mma.c decided for each
 * tile product (its tiling, whether it is staged through ldmatrix or wgmma,
 * how each operand reaches its staging, the ring's stages, the groups left
 * in flight), kept meanwhile as working marks on the product (`via_wgmma`,
 * `via_ldmatrix`, `stages`, `async_depth`) and on its operands' loads
 * (`to_stage`, `tma`, `prefetch`), becomes the product's one typed plan
 * (libcommon mma_plan.h, mma_plan.def), the record tile-ptx reads; the
 * marks are removed. A product with no tiling gets no plan (tile-ptx
 * reports it unsupported). Runs after every pass that reads the marks
 * (sink.c). Calls only mma.c.
 *
 * Two choices are made here, once the entry's layouts and copies are known:
 *  - a wgmma product's A not copied whose layout is already wgmma's A
 *    register fragment (attention's P, the C layout of a product of its
 *    shape) is read from registers: `fragment`;
 *  - a loop-invariant operand of a product in a `for` (made before the loop:
 *    attention's Q) not copied is staged once, before the loop, in a region
 *    of its own after the buffer's stages (`resident`; tile-ptx
 *    mma_resident_prologue) instead of from registers every step (its
 *    registers then die before the loop): a wgmma product's A, an
 *    unpipelined ldmatrix product's A or B. An economy, not a need: only
 *    where the buffer with every such region stays within the target's
 *    staging budget (libcommon mma_stage_budget, sized by mma_staging.h as
 *    tile-ptx lays it out: 40 KiB where static shared memory ends at 48,
 *    leaving the rest to the kernel's other shared arrays; attention with a
 *    head dim of 128 on sm_80 went 1 KiB over 48 with its Q resident). All
 *    or none in an entry. TILE_PTX_NO_RESIDENT=1 turns it off. */
#include <stdlib.h>
#include "sched_int.h"
#include "mma_plan.h"
#include "mma_staging.h"
#include "irutil.h"
#include "xalloc.h"
#include "diag.h"
#include "knobs.h"

static const char *const product_marks[] = { "via_wgmma", "via_ldmatrix", "stages", "async_depth" };
static const char *const load_marks[] = { "to_stage", "tma", "prefetch" };

typedef struct Plans {
	Module *m;
	int warps, sm;
	Op **cand;              /* resident candidates: product, operand (k in cand_k) */
	int *cand_k, ncand, cap;
} Plans;

static int write_plan(Op *op, void *ctx)
{
	Plans *w = ctx;
	MmaTiling t;
	if (!mma_is_product(op) || !mma_product_tiling(op, w->warps, w->sm, &t, NULL))
		return 0;
	MmaPlan p;
	mma_plan_init(&p, &t, op_attr_flag(op, "via_wgmma") ? MMA_PATH_WGMMA
			      : op_attr_flag(op, "via_ldmatrix") ? MMA_PATH_LDMATRIX : MMA_PATH_REGISTERS);
	p.stages = op_attr_int(op, "stages", 1);
	p.async_depth = op_attr_int(op, "async_depth", 0);
	for (int k = 0; k < 2; k++) {
		bool tf32;
		int at;
		Op *ld = mma_staged_load(op, k, &tf32);
		if (!ld || mma_product_of_load(ld, &at) != op || at != k)
			continue;
		*(k ? &p.b : &p.a) = mma_load_staging(ld);
		*(k ? &p.b_prefetch : &p.a_prefetch) = op_attr_flag(ld, "prefetch");
		for (size_t i = 0; i < sizeof load_marks / sizeof *load_marks; i++)
			op_remove_attr(ld, load_marks[i]);
	}
	const Value *a = op->operands[0];
	if (p.path == MMA_PATH_WGMMA && p.a == MMA_STAGING_REGISTERS && a->lay && mma_layout_is_a(&t, a->lay) &&
	    !mma_tcgen05_target(w->sm))     /* tcgen05 reads A from shared or tensor memory only */
		p.a = MMA_STAGING_FRAGMENT;
	for (size_t i = 0; i < sizeof product_marks / sizeof *product_marks; i++)
		op_remove_attr(op, product_marks[i]);
	mma_plan_set(w->m, op, &p);
	return 0;
}

/* operand k of planned product op may stay resident (above) */
static bool resident_candidate(const Op *op, const MmaPlan *p, int k)
{
	if ((k ? p->b : p->a) != MMA_STAGING_REGISTERS)
		return false;
	if (p->path == MMA_PATH_WGMMA ? k != 0 || !op->operands[0]->lay : p->path != MMA_PATH_LDMATRIX || p->stages > 1)
		return false;
	const Op *loop = mma_loop_of(op);
	return loop && !value_made_inside(loop, op->operands[k]);
}

static void set_staging(Module *m, Op *op, int k, MmaStaging s)
{
	MmaPlan p;
	if (!mma_plan_of(op, &p, NULL))
		ice("tile-sched: a product lost its plan");
	*(k ? &p.b : &p.a) = s;
	mma_plan_set(m, op, &p);
}

static int find_candidates(Op *op, void *ctx)
{
	Plans *w = ctx;
	MmaPlan p;
	for (int k = 0; k < 2 && mma_is_product(op) && mma_plan_of(op, &p, NULL); k++)
		if (resident_candidate(op, &p, k)) {
			if (w->ncand == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 8;
				w->cand = xrealloc(w->cand, sizeof *w->cand * (size_t)w->cap);
				w->cand_k = xrealloc(w->cand_k, sizeof *w->cand_k * (size_t)w->cap);
			}
			w->cand[w->ncand] = op;
			w->cand_k[w->ncand++] = k;
		}
	return 0;
}

void mma_write_plans(Module *m, Op *fn, int warps)
{
	Plans w = { m, warps, mma_module_sm(m), NULL, NULL, 0, 0 };
	op_walk(fn, write_plan, &w);
	if (knobs()->TILE_PTX_NO_RESIDENT)
		return;
	op_walk(fn, find_candidates, &w);
	for (int i = 0; i < w.ncand; i++)
		set_staging(m, w.cand[i], w.cand_k[i], MMA_STAGING_RESIDENT);
	MmaStagingNeed need;
	mma_staging_need(fn, NULL, 0, &need);
	if (w.ncand && mma_resident_start(&need) + need.resident > mma_stage_budget(w.sm))
		for (int i = 0; i < w.ncand; i++)
			set_staging(m, w.cand[i], w.cand_k[i], MMA_STAGING_REGISTERS);
	free(w.cand);
	free(w.cand_k);
}
