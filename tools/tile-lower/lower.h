/* lower.h: tile-lower's two conversions (docs/lowering.md).
 *   cuda_tile -> nv_tileaa   lower_to_aa()  views become make_memref (base
 *                            pointer + shape + strides + divisibility facts);
 *                            view loads/stores become tiled_load/tiled_store
 *                            with tile shape, padding and in-bounds facts.
 *   nv_tileaa -> nv_tileas   lower_to_as()  every memory op picks its copy
 *                            (vectorized ld/st) and its widest legal access.
 * Both work in place, keep locations, and return 0 or the number of user
 * errors reported (unsupported ops). */
#ifndef TILE_LOWER_H
#define TILE_LOWER_H
#include "ir.h"
#include "target.h"
#include "opinfo.h"

int lower_to_aa(Module *m, const Target *t);
int lower_to_as(Module *m, const Target *t);
/* lower.c: the stage's run, for its executable and libtileiras: the target
 * (gpu, else the module's), then cuda_tile or nv_tileaa IR to nv_tileas
 * (nv_tileaa with stop_at_aa). 0, or EXIT_INPUT after the diagnostics. */
int lower_run(Module *m, const char *gpu, bool tma, bool stop_at_aa);

/* lower_ops.c: atomics and the views that lower to pointer tiles (strided,
 * gather/scatter; atomic_red_view_tko). Each returns false after a
 * diagnostic or on malformed operands. */
bool lower_atomic(Module *m, Op *fn, Op *op);
/* batched_mma.c: a rank-3 mmaf / mmai as rank-2 products of its slices */
bool lower_batched_mma(Module *m, Op *fn, Op *op, int sm);
/* build.c: what the MMA rewrites share: one op of one result inserted before
 * `at`, a product like op (its code and attributes) on other operands before op */
Value *lower_emit1(Module *m, Op *at, enum OpCode code, int n, Value **ops, const Type *t);
Op *lower_product_like(Module *m, Op *op, Value *const *ops, int n);     /* n operands: 3, or mmaf_scaled's 5 */
Op *lower_product_at(Module *m, Op *op, Op *at, Value *const *ops, int n);   /* the same, before `at` */
/* k_chunks.c: a product on target sm computed by FMA (libcommon
 * mma_fma_product) over K > 16, or staged (or decoded, mmaf_scaled) in more
 * shared memory than sm has, as a chain of products over K chunks. Returns
 * the op whose result replaces op's (op itself when left whole, the last
 * product of a chain, or the loop over K chunks when every operand loads its
 * own chunks); with out (room for cap), the products in order and their
 * number in *nout (one: the loop's). */
Op *lower_k_chunks(Module *m, Op *fn, Op *op, int sm, Op **out, int cap, int *nout);     /* the value that replaces op's result */
/* scaled_mma.c: mmaf_scaled as decoded, scaled f32 operands of an mmaf
 * (where the target has no block-scaled MMA for it: libcommon mma_block_scaled_ok) */
bool lower_scaled_mma(Module *m, Op *fn, Op *op, int sm);
/* ptr_vec.c: the widest access (bytes, <= 16) a load / store through a tile
 * of pointers may make: one element, or a run whose pointers are consecutive
 * and aligned and whose mask and padding agree */
int64_t lower_ptr_vector_bytes(const Op *op);
bool lower_is_pointer_view(Value *v);
bool lower_pointer_view_mem(Module *m, Op *fn, Op *op);
bool lower_pointer_view_shape(Module *m, Op *fn, Op *op);   /* get_index_space_shape */

#endif
