/* plan.c: the last step of scheduling an entry: what mma.c decided for each
 * tile product (its tiling, whether it is staged through ldmatrix or wgmma,
 * how each operand reaches its staging, the ring's stages, the groups left
 * in flight), kept meanwhile as working marks on the product (`via_wgmma`,
 * `via_ldmatrix`, `stages`, `async_depth`) and on its operands' loads
 * (`to_stage`, `tma`, `prefetch`), becomes the product's one typed plan
 * (libcommon mma_plan.h, mma_plan.def), the record tile-ptx reads; the
 * marks are removed. A product with no tiling gets no plan (tile-ptx
 * reports it unsupported). Runs after every pass that reads the marks
 * (sink.c). Calls only mma.c. */
#include "sched_int.h"
#include "mma_plan.h"
#include "irutil.h"

static const char *const product_marks[] = { "via_wgmma", "via_ldmatrix", "stages", "async_depth" };
static const char *const load_marks[] = { "to_stage", "tma", "prefetch" };

typedef struct Plans {
	Module *m;
	int warps, sm;
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
	for (size_t i = 0; i < sizeof product_marks / sizeof *product_marks; i++)
		op_remove_attr(op, product_marks[i]);
	mma_plan_set(w->m, op, &p);
	return 0;
}

void mma_write_plans(Module *m, Op *fn, int warps)
{
	Plans w = { m, warps, mma_module_sm(m) };
	op_walk(fn, write_plan, &w);
}
