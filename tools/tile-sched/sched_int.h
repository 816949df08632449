/* sched_int.h: tile-sched's per-kernel state and its layers, bottom up:
 *   classes.c  value classes (union-find), anchors, blocked layouts
 *   shape.c    reduce, scan and the shape ops (docs/lowering.md §8): their
 *              class constraints, derivations and fixes; calls classes.c
 *   mma.c      mmaf: fragment layouts (libcommon/mma.h); calls classes.c
 *   sched.c    the per-kernel driver (sched.h): calls the others
 *   chunk.c    big tiles' stores, reductions and scans as loops over
 *              chunks (first, before the layouts; libcommon only): the
 *              cones and groups; calls chunk_cut.c (the loops; chunk.h
 *              between the two) and one_trip.c (one-trip loops holding big
 *              tiles replaced by their bodies, first)
 *   tile_limit.c  the whole-tile limit, after chunk.c
 *   version.c  K loops versioned on alignment for TMA (before the layouts;
 *              libcommon only)
 *   prefetch.c loads of a loop that writes nothing issued one iteration
 *              ahead (before the layouts; libcommon only)
 *   remarks.c  remarks on the scheduled IR (sched.h), beside the others:
 *              reads layouts and attributes only
 * (scripts/include-graph checks that nothing calls upward). */
#ifndef TILE_SCHED_INT_H
#define TILE_SCHED_INT_H
#include "ir.h"
#include "layout.h"

typedef struct F {
	Module *m;
	Op *fn;
	int warps;
	int nvals;
	Value **vals;        /* by id */
	int *parent;
	int *vmax;           /* by class root: 0 = not anchored, else max chunk in elements */
	int64_t *vstride;    /* by class root: the chunk's tile-linear stride (1: along the rows;
			      * a transposed view's: down a column) */
	bool *pairs;         /* by class root: f4 memory access, chunks of at least 2 (a byte) */
	unsigned char *rowred;   /* by class root: ROW_REDUCED (reduced along its innermost dim)
			      * and/or ROW_MMA (an unaligned MMA operand load, mma.c): each
			      * thread keeps elements of a row (classes.c assign_blocked) */
	bool plain;          /* TILE_SCHED_PLAIN_LAYOUTS: no row / broadcast-source preferences */
	bool tma;            /* --tma: MMA operands by TMA where they can be (mma.c) */
	bool *assigned;
	Layout *lay;
	Op **bcasts;
	int nbcasts;
	Op **shops;          /* reduce, scan, permute, cat, extract, insert, pack, unpack (shape.c) */
	int nshops, capshops;
	Op **mmas;           /* mmaf ops (mma.c) */
	int nmmas, capmmas;
} F;

enum { ROW_REDUCED = 1, ROW_MMA = 2 };

/* classes.c */
int find(F *f, int x);                       /* class root of value id x */
void unite(F *f, Value *a, Value *b);        /* same layout (tiles only) */
void anchor(F *f, Value *v, int64_t elems);  /* v's class moves at most elems per access */
/* the same, the elements a chunk of tile dim d (tiled_vector_dim) */
void anchor_dim(F *f, Value *v, int64_t elems, int d);
void assign_blocked(F *f, int root, Value *v);   /* the class's blocked layout */
void set_layout(Module *m, Value *v, const Layout *l);   /* v's layout attribute and Value.lay */

/* shape.c */
void shape_constrain(F *f, Op *op);          /* classes and the op list */
void shape_preassign(F *f);                  /* reduce results that take the slice of their source */
bool shape_propagate(F *f);                  /* one round of derivations; true if a class got a layout */
void shape_fix(F *f);                        /* after layouts: make ops local or mark them */

/* mma.c */
int mma_module_sm(const Module *m);          /* the module's target's sm (80 without one) */
void mma_constrain(F *f, Op *op);            /* accumulator and result share a class; the op list */
void mma_prefer_rows(F *f);                  /* unaligned operand loads keep row runs (rowred) */
void mma_preassign(F *f);                    /* accumulator classes take the fragment layout */
bool mma_b_down_columns(F *f, const Op *ld); /* ld feeds a K-major staged B (MmaTiling.bk) */
void mma_fix(F *f);                          /* after layouts: operands converted to their fragments */

/* version.c (before layouts, on the entry alone: no F) */
/* K loops whose product's loads pass tma_load_ok only with alignment facts
 * into an `if` on those facts at run time; returns how many */
int version_for_tma(Module *m, Op *fn, int warps, int sm);

/* prefetch.c (before layouts, on the entry alone): in each `for` that
 * writes nothing, the loads that move with the counter carried one
 * iteration ahead; returns how many loops changed */
int prefetch_loop_loads(Module *m, Op *fn, int warps);

/* chunk.c (before layouts, on the entry alone): big tiles' stores and
 * reductions as loops over chunks; returns how many loops */
int chunk_big_tiles(Module *m, Op *fn, int warps);
/* one_trip.c (called by chunk.c): one-trip `for`s holding a tile of more
 * than `over` elements a thread replaced by their bodies; how many */
int inline_one_trip_loops(Op *fn, int64_t threads, int over);
/* tile_limit.c: a located user error for the first tile value that stays
 * whole beyond what a thread may hold; returns the number of errors (0 or 1) */
int check_tile_sizes(Op *fn, int warps);

/* sink.c */
void sink_loads(Op *fn);                     /* weak loads and their conversions down to their first use */
/* plan.c: last, each product's working marks (mma.c) become its MMA plan */
void mma_write_plans(Module *m, Op *fn, int warps);

#endif
