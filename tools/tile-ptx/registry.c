/* registry.c: the dispatcher: which emitter (families.h) emits each op.
 * One row per op that reaches tile-ptx (the cuda_tile ops tile-lower keeps
 * and the nv_tileas ones); an op without a row is a "not supported yet"
 * user error (util_region.c's emit_op). To add an op: a row here, naming
 * the emitter in its family's file (a new family: a new op_<family>.c and
 * its line in families.h). registry_check proves at startup that every op
 * that can reach tile-ptx has a row. */
#include "families.h"
#include "diag.h"

EmitFn *const emit_table[OPCODE_COUNT] = {
	/* op_arith.c: elementwise arithmetic */
	[CT_addi] = emit_arith, [CT_subi] = emit_arith, [CT_muli] = emit_arith,
	[CT_divi] = emit_arith, [CT_remi] = emit_arith, [CT_negi] = emit_arith,
	[CT_absi] = emit_arith, [CT_maxi] = emit_arith, [CT_mini] = emit_arith,
	[CT_mulhii] = emit_arith, [CT_andi] = emit_arith, [CT_ori] = emit_arith,
	[CT_xori] = emit_arith, [CT_shli] = emit_arith, [CT_shri] = emit_arith,
	[CT_addf] = emit_arith, [CT_subf] = emit_arith, [CT_mulf] = emit_arith,
	[CT_divf] = emit_arith, [CT_fma] = emit_arith, [CT_negf] = emit_arith,
	[CT_absf] = emit_arith, [CT_remf] = emit_arith, [CT_maxf] = emit_arith,
	[CT_minf] = emit_arith, [CT_cmpi] = emit_arith, [CT_cmpf] = emit_arith,
	[CT_select] = emit_arith, [CT_offset] = emit_arith,
	/* op_math.c: elementwise math */
	[CT_sqrt] = emit_math, [CT_rsqrt] = emit_math, [CT_exp] = emit_math,
	[CT_exp2] = emit_math, [CT_log] = emit_math, [CT_log2] = emit_math,
	[CT_pow] = emit_math, [CT_sin] = emit_math, [CT_cos] = emit_math,
	[CT_tan] = emit_math, [CT_sinh] = emit_math, [CT_cosh] = emit_math,
	[CT_tanh] = emit_math, [CT_atan2] = emit_math, [CT_fpowi] = emit_math,
	[CT_ceil] = emit_math, [CT_floor] = emit_math,
	/* op_convert.c: element type conversions */
	[CT_exti] = emit_convert, [CT_trunci] = emit_convert, [CT_itof] = emit_convert,
	[CT_ftoi] = emit_convert, [CT_ftof] = emit_convert, [CT_bitcast] = emit_convert,
	[CT_int_to_ptr] = emit_convert, [CT_ptr_to_int] = emit_convert, [CT_ptr_to_ptr] = emit_convert,
	/* op_constant.c, op_tile_block.c */
	[CT_constant] = emit_constant, [CT_iota] = emit_iota,
	[CT_get_tile_block_id] = emit_tile_block, [CT_get_num_tile_blocks] = emit_tile_block,
	/* op_shape.c */
	[CT_broadcast] = emit_copy, [CT_reshape] = emit_copy, [CT_assume] = emit_assume,
	[CT_permute] = emit_permute, [CT_cat] = emit_cat, [CT_extract] = emit_extract,
	[CT_insert] = emit_insert, [CT_pack] = emit_pack, [CT_unpack] = emit_pack,
	/* op_reduce.c */
	[CT_reduce] = emit_reduce, [CT_scan] = emit_scan,
	/* op_convert_layout.c: layout exchanges */
	[AS_convert_layout] = emit_convert_layout,
	/* op_memory.c */
	[AS_make_memref] = emit_memref,
	[AS_tiled_load] = emit_tiled, [AS_tiled_store] = emit_tiled,
	[AS_load] = emit_ptr_mem, [AS_store] = emit_ptr_mem,
	[AS_create_mem_token] = emit_create_token, [AS_join_mem_token] = emit_join_tokens,
	/* op_atomic.c */
	[AS_atomic_rmw] = emit_atomic, [AS_atomic_cas] = emit_atomic,
	/* op_control.c */
	[CT_for] = emit_for, [CT_if] = emit_if, [CT_loop] = emit_loop,
	[CT_continue] = emit_continue, [CT_break] = emit_break, [CT_yield] = emit_yield,
	[CT_return] = emit_return,
	/* op_print.c, op_assert.c */
	[CT_print_tko] = emit_print, [CT_assert] = emit_assert,
	/* op_global.c (a module's global ops: module.c), op_alloca.c */
	[CT_get_global] = emit_get_global,
	[CT_alloca] = emit_alloca,
	/* op_fence.c */
	[CT_gdc_wait_tko] = emit_fence, [CT_gdc_launch_dependents_tko] = emit_fence,
	[CT_memory_fence_alias_tko] = emit_fence,
	/* op_mma.c: mmaf, mmai (mmaf_scaled to come) */
	[CT_mmaf] = emit_mma, [CT_mmai] = emit_mma,
};

/* Every op that can reach tile-ptx has a row: the cuda_tile ops tile-lower
 * carries down unchanged (LOWER_KEEP) and every nv_tileas op. The ones
 * tile-lower does not lower yet (LOWER_NONE) stop there. */
void registry_check(void)
{
	for (int c = 0; c < OPCODE_COUNT; c++) {
		const OpInfo *in = &op_table[c];
		bool reaches = (in->dialect == DIALECT_CUDA_TILE && in->lower == LOWER_KEEP) ||
			       in->dialect == DIALECT_NV_TILEAS;
		if (reaches && !emit_table[c])
			ice("tile-ptx: op '%s' has no emitter (registry.c)", in->name);
	}
}
