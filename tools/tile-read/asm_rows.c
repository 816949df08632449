/* asm_rows.c: the rows of asm_ops.def as a table (asm_row) and their check
 * against the verifier's operand groups (asm_check_rows); what a row says
 * about one op is asm_groups.c's (asm.h). Constant data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "diag.h"
#include "opinfo.h"
#include "verify.h"

#define FMT(s) s, NULL
#define CUSTOM(fn) NULL, asm_custom_##fn
static const AsmRow rows[] = {
#define ASM(op, mn, opnds, res, dflt, flags, how) [CT_##op] = { mn, opnds, res, dflt, how, flags },
#include "asm_ops.def"
#undef ASM
};
#undef FMT
#undef CUSTOM

const AsmRow *asm_row(const Op *op)
{
	unsigned c = op->info->code;
	if (op->info->dialect != DIALECT_CUDA_TILE || c >= sizeof rows / sizeof rows[0] || !rows[c].mnemonic)
		return NULL;
	return &rows[c];
}

void asm_check_rows(void)
{
	for (int i = 0; i < OPCODE_COUNT; i++) {
		const OpInfo *o = &op_table[i];
		if (o->dialect != DIALECT_CUDA_TILE)
			continue;
		if (i >= (int)(sizeof rows / sizeof rows[0]) || !rows[i].mnemonic)
			ice("asm_ops.def: no row for '%s'", o->name);
		const char *groups = verify_rule_operands(i);
		char w[64], k;
		int g = 0;
		for (; asm_word_at(rows[i].operands, g, w, sizeof w, &k); g++)
			if (!groups || !groups[g] || groups[g] != (k ? k : '1'))
				ice("asm_ops.def: '%s': operand group '%s' is not the verifier's '%c'", o->name, w,
				    groups && groups[g] ? groups[g] : '-');
		if (groups && groups[g])
			ice("asm_ops.def: '%s': %zu operand groups in its rule, %d in its row", o->name,
			    strlen(groups), g);
		if (!rows[i].format == !rows[i].custom)
			ice("asm_ops.def: '%s': a format or a printer, not both", o->name);
	}
}

const AsmRow *asm_row_code(int code)
{
	if (code < 0 || code >= (int)(sizeof rows / sizeof rows[0]) || !rows[code].mnemonic ||
	    op_table[code].dialect != DIALECT_CUDA_TILE)
		return NULL;
	return &rows[code];
}
