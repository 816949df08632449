/* families.h: the op emitters, one group per op family file (op_*.c).
 * Each has the registry's signature (EmitFn, context.h): emit op, set its
 * results' registers. registry.c maps every op to one of them (the emit
 * column of the op's .def row names it); a family file calls only the
 * utility layer (emit.h), never another family. */
#ifndef TILE_PTX_FAMILIES_H
#define TILE_PTX_FAMILIES_H
#include "context.h"
#include "opinfo.h"

/* op_arith.c: integer and float arithmetic, compare, select, offset */
EmitFn emit_arith;
/* op_math.c: sqrt, exp, log, trigonometric, ... */
EmitFn emit_math;
/* op_convert.c: exti, trunci, itof, ftoi, ftof, bitcast, pointer casts */
EmitFn emit_convert;
/* op_constant.c */
EmitFn emit_constant, emit_iota;
/* op_tile_block.c: get_tile_block_id, get_num_tile_blocks */
EmitFn emit_tile_block;
/* op_shape.c */
EmitFn emit_copy;                  /* broadcast, reshape */
EmitFn emit_assume, emit_permute, emit_cat, emit_extract, emit_insert;
EmitFn emit_pack;                  /* pack, unpack */
/* op_reduce.c */
EmitFn emit_reduce, emit_scan;
/* op_convert_layout.c */
EmitFn emit_convert_layout;
/* op_memory.c */
EmitFn emit_memref;
EmitFn emit_tiled;                 /* tiled_load, tiled_store */
EmitFn emit_ptr_mem;               /* load, store */
EmitFn emit_create_token, emit_join_tokens;
/* op_atomic.c: atomic_rmw, atomic_cas */
EmitFn emit_atomic;
/* op_control.c */
EmitFn emit_for, emit_if, emit_loop, emit_continue, emit_break, emit_yield, emit_return;
/* op_print.c, op_assert.c */
EmitFn emit_print, emit_assert;
/* op_global.c (emit_global also at module level, module.c) */
EmitFn emit_global, emit_get_global;
/* op_alloca.c */
EmitFn emit_alloca;
/* op_fence.c: gdc_wait_tko, gdc_launch_dependents_tko, memory_fence_alias_tko */
EmitFn emit_fence;
/* op_mma.c: mmaf, mmai through mma.sync (f32: FMA) */
EmitFn emit_mma;

/* registry.c: op code -> emitter, NULL where tile-ptx has none */
extern EmitFn *const emit_table[OPCODE_COUNT];
void registry_check(void);         /* every op that reaches tile-ptx has an emitter (else an internal error) */

#endif
