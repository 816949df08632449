/* irutil.h: small IR helpers shared by the lower stages (tile-lower,
 * tile-sched, tile-ptx): operand groups, use replacement, op building,
 * constants. */
#ifndef TILE_IRUTIL_H
#define TILE_IRUTIL_H
#include "ir.h"
#include "opinfo.h"
#include "target.h"

/* Operand group g of an op with operand_segment_sizes: returns its size and
 * sets *start. Without the attribute, returns -1. */
int op_group(const Op *op, int g, int *start);
/* The single operand of group g, or NULL when the group is empty. */
Value *op_group_value(const Op *op, int g);

/* Largest power of two dividing x (at most 2^30; 2^30 for 0): what a
 * divisibility fact or a constant stride/shape guarantees. */
int64_t pow2_factor(int64_t x);

/* The tile dim of a tiled load/store whose elements are contiguous in
 * memory: the one its dim_map sends to the view's innermost dim (the last
 * tile dim for the identity map); vector_bytes counts along it. And the
 * tile-linear (row-major) stride of tile dim d of t. */
int tiled_vector_dim(const Op *op, int rank);
int64_t tile_dim_stride(const Type *t, int d);

/* Is a memory op weak (memory_ordering_semantics absent or "weak"): ordered
 * by tokens only, free to move and to be vectorized? */
bool op_is_weak(const Op *op);

/* May a weak memory op move past op (program order, same block)? Yes
 * unless op has an ordering effect: an atomic, a fence, a print, an
 * assert, a load or store that is not weak, or a region holding one.
 * (tile-sched's load sinking and chunk loops.) */
bool op_weak_may_pass(const Op *op);

/* Replace every use of `from` by `to` in the ops nested under `root`. */
void replace_uses(Op *root, Value *from, Value *to);
/* Does any op under root use v? */
bool has_uses(Op *root, Value *v);

/* New op by code, not yet inserted. */
Op *op_build(Module *m, enum OpCode code, int nops, Value *const *ops,
	     int nres, const Type *const *types, const Loc *loc);
/* A deep copy of op, not inserted: its attributes, location, regions,
 * blocks and nested ops; an operand defined inside op is the copy's own
 * value, any other is op's (the copy reads what op reads). */
Op *op_clone(Module *m, const Op *op);
/* Insert op before `before` in before's block. */
void op_insert_before(Op *before, Op *op);

/* The op whose region holds op (NULL at the top level). */
Op *op_parent_op(const Op *op);
/* The for / loop a continue or break in op's place belongs to: the
 * nearest enclosing one, through ifs only; NULL when there is none. */
Op *op_enclosing_loop(Op *op);
/* The top-level op (entry) containing op. */
Op *op_toplevel(Op *op);

/* An entry's optimization hint `key` (num_worker_warps_per_cta,
 * occupancy, ...): from the dictionary under the module's target (`sm_90`)
 * if it has the key, else from `default`; NULL when neither has it. */
/* The module's target (its `target` attribute, decided once by tile-lower:
 * libcommon tool_pick_target) as targets.def's row; NULL when it has none
 * or names no target */
const Target *module_target(const Module *m);
/* Whether the cubin will fill TMA tensor maps (the module's `tma_maps`,
 * recorded where the target is decided: tile-lower --tma) */
bool module_tma_maps(const Module *m);
const Attr *entry_hint(const Module *m, const Op *fn, const char *key);

/* An integer addi / subi / muli of a and b (a's type), overflow "none",
 * not inserted. */
Op *int_arith_op(Module *m, enum OpCode code, Value *a, Value *b, const Loc *loc);

/* A cuda_tile.constant of a scalar integer tile<iN>, splat. */
Op *const_int_op(Module *m, const Type *tile_type, int64_t v, const Loc *loc);
/* If v is defined by a splat integer constant, store its value. */
bool value_const_int(const Value *v, int64_t *out);

/* Element type of a tile type (the scalar or ptr), NULL if not a tile. */
const Type *tile_elem(const Type *t);
/* Size in bytes of one element in memory (i1 and f8 one byte; f4: 0 = packed). */
int elem_bytes(const Type *elem);
bool type_is_tile(const Type *t);

/* "file:line:col" of a location, or "" */
const char *loc_str(const Loc *l, char *buf, size_t n);

/* Is v made inside op (a result of an op in its regions, or an argument of one of its blocks)? */
bool value_made_inside(const Op *op, const Value *v);
/* Every op under root (root too) with this code, in op_walk's order: an
 * array to free, *n of them. Collect first, change after. */
Op **ops_with_code(Op *root, enum OpCode code, int *n);
/* Is there a continue or break (nested ones too) in b before `end` (its
 * terminator: a loop body that jumps only at its end)? */
bool block_jumps_before(const Block *b, const Op *end);

#endif
