/* asm_out.c: the printers' output primitives (asm.h): values by their SSA
 * names, newlines at the nesting, MLIR's optional attribute dictionary.
 * Used by asm_print.c, asm_format.c and asm_custom.c; calls only down
 * (asm_groups.c, asm_values.c). */
#include <stdio.h>
#include <string.h>
#include "asm.h"

void asm_value(AsmCtx *c, const Value *v)
{
	const char *s = v->id < c->nvalues ? c->spell[v->id] : NULL;
	sb_puts(c->b, s ? s : "<<UNKNOWN SSA VALUE>>");
}

void asm_values(AsmCtx *c, Value *const *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(c->b, ", ");
		asm_value(c, v[i]);
	}
}

void asm_newline(AsmCtx *c)
{
	sb_putc(c->b, '\n');
	for (int i = 0; i < c->indent; i++)
		sb_puts(c->b, "  ");
}

void asm_attr_dict(AsmCtx *c, const Op *op, const char *elided, bool with_keyword)
{
	const AsmRow *row = c->row(op);
	int n = 0;
	for (int i = 0; i < op->nattrs; i++) {
		const NamedAttr *na = &op->attrs[i];
		if (strcmp(na->name, "operand_segment_sizes") == 0 || asm_in_list(elided, na->name) ||
		    (row && asm_at_default(row, na->name, na->attr)))
			continue;
		sb_puts(c->b, n++ ? ", " : with_keyword ? " attributes {" : " {");
		sb_puts(c->b, na->name);
		if (na->attr->kind == AT_BOOL && na->attr->u.i)
			continue;
		sb_puts(c->b, " = ");
		asm_attr(c->b, na->attr, true);
	}
	if (n)
		sb_putc(c->b, '}');
}
