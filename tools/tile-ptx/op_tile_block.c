/* op_tile_block.c: get_tile_block_id and get_num_tile_blocks (op family):
 * the tile block's coordinates and the grid's size from %ctaid.x/y/z and
 * %nctaid.x/y/z (a tile block is a CTA), the same in every register. */
#include "emit.h"
#include "families.h"

void emit_tile_block(E *e, Op *op)
{
	static const char *const id[] = { "ctaid.x", "ctaid.y", "ctaid.z" };
	static const char *const nid[] = { "nctaid.x", "nctaid.y", "nctaid.z" };
	for (int i = 0; i < 3 && i < op->nresults; i++) {
		TV *t = tv_new(e, op->results[i]);
		LLVMValueRef x = sreg(e, op->info->code == CT_get_tile_block_id ? id[i] : nid[i]);
		for (int k = 0; k < t->n; k++)
			t->r[k] = x;
		set(e, op->results[i], t);
	}
}
