/* op_fence.c: the 13.4 synchronisation ops (op family; docs/lowering.md §9).
 * gdc_wait_tko / gdc_launch_dependents_tko: griddepcontrol.wait /
 * .launch_dependents on sm_90 and newer (programmatic dependent launch);
 * older targets have no dependent launches, so nothing to wait for.
 * memory_fence_alias_tko: fence.proxy.alias. The result token orders like
 * the operand token. */
#include "emit.h"
#include "families.h"

static const Value *token_operand(const Op *op)
{
	for (int i = 0; i < op->noperands; i++)
		if (op->operands[i]->type->kind == TY_TOKEN)
			return op->operands[i];
	return NULL;
}

void emit_fence(E *e, Op *op)
{
	const char *intr = NULL;
	switch (op->info->code) {
	case CT_gdc_wait_tko:
		intr = e->o->target->sm >= 90 ? "llvm.nvvm.griddepcontrol.wait" : NULL;
		break;
	case CT_gdc_launch_dependents_tko:
		intr = e->o->target->sm >= 90 ? "llvm.nvvm.griddepcontrol.launch.dependents" : NULL;
		break;
	case CT_memory_fence_alias_tko:
		intr = "llvm.nvvm.fence.proxy.alias";
		break;
	default:
		unsupported(e, op, "this op");
		return;
	}
	if (intr)
		call_intr(e, intr, NULL, NULL, 0);
	/* the result token orders like the operand token */
	const Value *in = token_operand(op);
	token_like(e, op->nresults ? op->results[0] : NULL, in, in != NULL);
}
