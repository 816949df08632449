/* tile_limit.c: what no chunk loop takes and no thread can hold
 * (docs/lowering.md §11 "What stays whole, and the limit"): after chunk.c,
 * in an entry without an MMA product, the first tile value past
 * TILE_WHOLE_MAX elements a thread is a located user error naming the op
 * that keeps it whole (not the loads that merely feed it), its type, the
 * elements a thread and the threads. Calls libcommon only. */
#include "sched_int.h"
#include "irutil.h"
#include "opinfo.h"
#include "diag.h"
#include "mma.h"

/* elements a thread of a tile left whole (after chunking) past which the
 * kernel is refused: straight-line code for each, compile time and memory
 * growing with the tile: a 64K-element cumsum over 128 threads (512 a
 * thread) compiles in 12 s, a 256K one (2048) not in 5 minutes; NVIDIA's
 * 13.5 takes 61 s for the 64K one */
#define TILE_WHOLE_MAX 1024

typedef struct SizeCheck {
	int64_t threads;
	Op *first, *keeper;     /* the first over-large value's op; the first that keeps one whole */
	const Type *tf, *tk;
} SizeCheck;

/* an op that only passes a tile along (a load, an elementwise op, a
 * broadcast): a chunk loop would take it; the op that keeps the tile
 * whole is another */
static bool passes_along(const Op *op)
{
	switch (op->info->code) {
	case AS_tiled_load: case AS_load: case CT_broadcast: case CT_constant: case CT_reshape:
		return true;
	default:
		return op_is_elementwise(op->info);
	}
}

static int size_fn(Op *op, void *ctx)
{
	SizeCheck *sc = ctx;
	for (int i = 0; i < op->nresults; i++) {
		const Type *t = op->results[i]->type;
		if (!type_is_tile(t) || t->rank == 0 || type_num_elements(t) / sc->threads <= TILE_WHOLE_MAX)
			continue;
		if (!sc->first) {
			sc->first = op;
			sc->tf = t;
		}
		if (!sc->keeper && !passes_along(op)) {
			sc->keeper = op;
			sc->tk = t;
		}
	}
	return sc->keeper ? 1 : 0;
}

static int product_fn(Op *op, void *ctx)
{
	if (mma_is_product(op)) {
		*(bool *)ctx = true;
		return 1;
	}
	return 0;
}

int check_tile_sizes(Op *fn, int warps)
{
	/* an entry with a product is left to its accumulator's own budget
	 * (libcommon mma: fragments, staging, K chunks): a 256x256 f32
	 * accumulator over one warp is 2048 registers a thread, and compiles */
	bool product = false;
	op_walk(fn, product_fn, &product);
	if (product)
		return 0;
	SizeCheck sc = { .threads = 32 * (int64_t)warps };
	op_walk(fn, size_fn, &sc);
	Op *op = sc.keeper ? sc.keeper : sc.first;
	const Type *t = sc.keeper ? sc.tk : sc.tf;
	if (!op)
		return 0;
	diag_error(op->loc, "'%s' op: its %s result would be %lld elements a thread over %lld threads; a "
		   "tile this op keeps whole (not computed in chunks: docs/lowering.md section 11) is "
		   "supported up to %d elements a thread: use a smaller tile", op->info->name, t->str,
		   (long long)(type_num_elements(t) / sc.threads), (long long)sc.threads, TILE_WHOLE_MAX);
	return 1;
}
