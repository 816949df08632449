/* mma_plan.h: the MMA plan of a tile product, the contract between
 * tile-sched (which decides it and writes it, mma_plan_set) and tile-ptx
 * (which reads it, mma_plan_of, and decides nothing of it again). Its
 * fields are declared once, in mma_plan.def; scheduled IR carries it as the
 * product's `plan` dictionary attribute (docs/ir.md §6.3); stagecheck
 * verifies every product of scheduled IR has a well-formed plan that fits
 * the product (mma_plan_check). How an operand reaches its staging is the
 * product's to say: its tiled_load carries no mark of it in scheduled IR
 * (mma_load_staging asks the product). */
#ifndef TILE_MMA_PLAN_H
#define TILE_MMA_PLAN_H
#include <stdbool.h>
#include <stdint.h>
#include "ir.h"
#include "mma.h"

typedef enum MmaPath { MMA_PATH_REGISTERS, MMA_PATH_LDMATRIX, MMA_PATH_WGMMA, MMA_NPATHS } MmaPath;
/* How an operand reaches the product: registers (the product stores them
 * into its stage each time; on the registers path, converted into the
 * atom's fragments), cp_async / tma (its tiled_load copies it into the
 * stage), resident (a loop-invariant operand of a product in a `for`, stored
 * once before the loop into a region of its own: mma_staging.h), fragment
 * (a wgmma A already in wgmma's register fragment, read from registers). */
typedef enum MmaStaging {
	MMA_STAGING_REGISTERS, MMA_STAGING_CP_ASYNC, MMA_STAGING_TMA, MMA_STAGING_RESIDENT, MMA_STAGING_FRAGMENT,
	MMA_NSTAGINGS
} MmaStaging;
extern const char *const mma_plan_path_names[MMA_NPATHS];         /* "registers", "ldmatrix", "wgmma" */
extern const char *const mma_staging_names[MMA_NSTAGINGS];        /* "registers", "cp_async", "tma", ... */
static inline bool mma_staging_copies(MmaStaging s) { return s == MMA_STAGING_CP_ASYNC || s == MMA_STAGING_TMA; }

#define PLAN_CT_INT int64_t
#define PLAN_CT_BOOL bool
#define PLAN_CT_PATH MmaPath
#define PLAN_CT_ATOM const MmaAtom *
#define PLAN_CT_STAGING MmaStaging
typedef struct MmaPlan {
#define PLAN(name, kind, lo, hi, doc) PLAN_CT_##kind name;
#include "mma_plan.def"
#undef PLAN
} MmaPlan;

/* Why a plan is malformed or does not fit, for a message about its product */
typedef struct MmaPlanWhy {
	char text[200];
} MmaPlanWhy;

/* The plan of tiling t with path p, nothing staged or pipelined yet */
void mma_plan_init(MmaPlan *p, const MmaTiling *t, MmaPath path);
/* Write p as product op's `plan` attribute */
void mma_plan_set(Module *m, Op *op, const MmaPlan *p);
/* The plan of product op: false when op has none or it is malformed (then
 * why, when given, says why; empty when op has none) */
bool mma_plan_of(const Op *op, MmaPlan *p, MmaPlanWhy *why);
/* The tiling plan p gives product op (MmaTiling of mma.h: m, n, k from
 * op's operand types) */
void mma_plan_tiling(const Op *op, const MmaPlan *p, MmaTiling *t);
/* mma_plan_of, then mma_plan_tiling: false when op has no (well-formed) plan */
bool mma_planned_tiling(const Op *op, MmaTiling *t);
/* Does plan p fit product op on target sm over `warps` warps: the tiling
 * the product has there (mma_product_tiling, B K-major as the plan says),
 * a path the target and types allow, staging only of staged operands,
 * prefetch only of copied operands of a pipelined product? NULL when it
 * does, else what does not fit (a constant, or why's text). */
const char *mma_plan_check(const Op *op, const MmaPlan *p, int warps, int sm, MmaPlanWhy *why);

/* The path of product op (its plan's), MMA_PATH_REGISTERS when none */
MmaPath mma_path(const Op *op);
static inline bool mma_staged(const Op *op) { return mma_path(op) != MMA_PATH_REGISTERS; }
/* How tiled_load ld reaches the staging of the product it feeds (the
 * product's plan; before tile-sched writes plans, its working marks
 * `to_stage` and `tma`); MMA_STAGING_REGISTERS when it does not */
MmaStaging mma_load_staging(const Op *ld);
/* Does ld copy its tile into its product's staging (cp.async or TMA)? */
static inline bool mma_load_copied(const Op *ld) { return mma_staging_copies(mma_load_staging(ld)); }
/* How operand k of product op reaches it (its plan's a or b; registers
 * without a plan) */
MmaStaging mma_operand_staging(const Op *op, int k);
/* Whether ld's copy runs ahead in a pipelined K loop (the plan's
 * a_prefetch / b_prefetch; before plans, the mark `prefetch`) */
bool mma_load_prefetch(const Op *ld);
/* The stages of product op's ring when it is pipelined (plan stages > 1),
 * else dflt; the wgmma groups its plan keeps in flight (0 without a plan) */
int mma_stages(const Op *op, int dflt);
int mma_async_depth(const Op *op);
#endif
