/* chunk.h: what chunk.c (the cones and their groups) and chunk_cut.c (the
 * loops that replace them) share: a cone, the per-block context, the
 * chunk budgets. Private to tile-sched's chunk pass. */
#ifndef TILE_SCHED_CHUNK_H
#define TILE_SCHED_CHUNK_H
#include "sched_int.h"

#define CHUNK_OVER 32       /* elements a thread above which a value is big */
#define CHUNK_ELEMS 16      /* elements a thread in each chunk value */
#define CHUNK_ELEMS_ACC 8   /* the same where the loop carries chunk-shaped accumulators */
#define MAX_RANK 16          /* the shape arrays below; Tile IR's tiles are far smaller */

typedef struct CV { Value *v; int axis; } CV;     /* a cone value and its chunk axis */

typedef struct Cone {
	Op *sink;
	int axis;              /* the sink's operand's chunk axis */
	int64_t n;             /* extent along it */
	Op **ops;              /* cone ops (original), any order */
	int nops, capops;
	CV *vals;
	int nvals, capvals;
	bool dead;             /* dropped: a value of its cone escapes */
	int dir;               /* its scans along the axis: 1 forward, 2 reversed, 3 both (dropped) */
} Cone;

typedef struct Ctx {
	Module *m;
	Op *fn;
	Block *blk;
	int64_t threads;
} Ctx;

/* chunk_cut.c (chunk.c calls it, never the other way) */
int chunk_cone_axis(const Cone *k, const Value *v);      /* v's chunk axis in k, or -1 */
bool chunk_cone_has_op(const Cone *k, const Op *op);
bool chunk_carried_scan(const Op *op, int axis);         /* a scan along its chunk axis */
/* the loop for cones ks[0..nk) (one group), chunks of ch along the axis */
void chunk_rewrite_group(const Ctx *c, Cone *ks, int nk, int64_t ch);

#endif
