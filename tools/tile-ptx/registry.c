/* registry.c: the dispatcher: which emitter (families.h) emits each op.
 * The table is built from the `emit` column of the op tables
 * (libcommon/dialect_cuda_tile.def, dialect_nv_tile.def): emit_<emit>, or
 * none for an op that never reaches tile-ptx; tile-ptx keeps no per-op list
 * of its own. An op that reaches tile-ptx without an emitter would be a
 * "not supported yet" user error (util_region.c's emit_op); registry_check
 * proves at startup that there is none, and no emitter for an op that
 * cannot arrive. To add an op: its row's emit column, naming an emitter of
 * its family's file (a new family: a new op_<family>.c and its line in
 * families.h). */
#include "families.h"
#include "diag.h"

#define emit_none NULL

EmitFn *const emit_table[OPCODE_COUNT] = {
#define OP(name, opcode, since, traits, lower, family, emit, rule, layout) [CT_##name] = emit_##emit,
#include "dialect_cuda_tile.def"
#undef OP
#define NVOP(name, dialects, traits, check, emit) NVOP_IN_AS_##dialects([AS_##name] = emit_##emit,)
#include "dialect_nv_tile.def"
#undef NVOP
};

/* Exactly the ops that can reach tile-ptx have an emitter: the cuda_tile
 * ops tile-lower carries down unchanged (LOWER_KEEP) and every nv_tileas op.
 * The ones tile-lower rewrites (REWRITE), does not lower yet (NONE) or that
 * are module structure (TOP: module.c) never do. */
void registry_check(void)
{
	for (int c = 0; c < OPCODE_COUNT; c++) {
		const OpInfo *in = &op_table[c];
		bool reaches = (in->dialect == DIALECT_CUDA_TILE && in->lower == LOWER_KEEP) ||
			       in->dialect == DIALECT_NV_TILEAS;
		if (reaches && !emit_table[c])
			ice("tile-ptx: op '%s' has no emitter (its emit column, %s)", in->name,
			    in->dialect == DIALECT_CUDA_TILE ? "dialect_cuda_tile.def" : "dialect_nv_tile.def");
		if (!reaches && emit_table[c])
			ice("tile-ptx: op '%s' never reaches tile-ptx but has an emitter (its emit column)",
			    in->name);
	}
}
