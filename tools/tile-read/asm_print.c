/* asm_print.c: a cuda_tile module in the dialect's own assembly syntax, as
 * NVIDIA's tileirdisasm 13.5 prints it (asm.h): each top-level op (global,
 * entry) in turn, ops without the cuda_tile. prefix, their results named
 * by asm_names.c, each op through its row of asm_ops.def (a declarative
 * format, asm_format.c, or a printer of asm_custom.c), regions, the
 * leftover attribute dictionary, and with -g the location aliases
 * (asm_debug.c). Read-only over the IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "opinfo.h"

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

static void print_op(AsmCtx *c, const Op *op);

static void print_loc(AsmCtx *c, const Op *op)
{
	if (c->locs)
		asm_locs_op(c->b, c->locs, op);
}

void asm_region(AsmCtx *c, const Region *r, bool print_terms)
{
	sb_puts(c->b, "{\n");
	FOR_EACH_BLOCK(b, r) {
		c->indent++;
		FOR_EACH_OP(op, b) {
			if (!op->next && op_has(op->info, OPT_TERM) && !print_terms)
				break;
			for (int i = 0; i < c->indent; i++)
				sb_puts(c->b, "  ");
			print_op(c, op);
			print_loc(c, op);
			sb_putc(c->b, '\n');
		}
		c->indent--;
	}
	for (int i = 0; i < c->indent; i++)
		sb_puts(c->b, "  ");
	sb_putc(c->b, '}');
}

void asm_attr_dict(AsmCtx *c, const Op *op, const char *elided, bool with_keyword)
{
	const AsmRow *row = asm_row(op);
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

static void print_op(AsmCtx *c, const Op *op)
{
	const AsmRow *row = asm_row(op);
	if (op->nresults) {
		for (int i = 0; i < op->nresults; i++) {
			int id = op->results[i]->id;
			if (i && !c->group_size[id])
				continue;
			if (i)
				sb_puts(c->b, ", ");
			sb_printf(c->b, "%%%s", c->head[id] ? c->head[id] : "?");
			if (c->group_size[id] > 1)
				sb_printf(c->b, ":%d", c->group_size[id]);
		}
		sb_puts(c->b, " = ");
	}
	if (!row) {
		sb_printf(c->b, "\"%s\"() <<no assembly format>>", op->info->name);
		return;
	}
	sb_puts(c->b, row->mnemonic);
	if (row->custom)
		row->custom(c, op);
	else
		asm_print_format(c, op, row);
}

void asm_print_module(StrBuf *b, Module *m, const struct DebugRecords *debug)
{
	asm_check_rows();
	ir_number_values(m);
	AsmLocs *locs = debug ? asm_locs_new(m, debug) : NULL;
	if (!m->body.first)
		sb_putc(b, '\n');       /* NVIDIA's prints an empty module as an empty line */
	FOR_EACH_OP(top, &m->body) {
		int nv = op_count_values(top) + 1;
		Namer *nm = asm_names_new(top, nv);
		AsmCtx c = { b, 0, asm_names_spell(nm), asm_names_head(nm), asm_names_group_size(nm), nv, locs };
		print_op(&c, top);
		print_loc(&c, top);
		sb_putc(b, '\n');
		asm_names_free(nm);
	}
	if (locs)
		asm_locs_print(b, locs);
	asm_locs_free(locs);
}
