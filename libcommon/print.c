/* print.c: the MLIR-like text form of the IR (--emit=text on every stage).
 * Generic op syntax, one op per line:
 *   %2 = cuda_tile.addi %0, %1 {overflow = "none"} : tile<8xi32> loc("k.py":3:5)
 * Read-only: the text form is for people; the JSON form is what stages read. */
#include <stdio.h>
#include <string.h>
#include "print.h"
#include "opinfo.h"
#include "diag.h"

static void put_string(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(b, "\\%02X", *p);
		else
			sb_putc(b, (char)*p);
	}
	sb_putc(b, '"');
}

/* the integers of an AT_INTS or AT_SAME_ELEMENTS attribute, ", " between */
static void put_ints(StrBuf *b, const Attr *a)
{
	for (int i = 0; i < a->u.ints.n; i++)
		sb_printf(b, "%s%lld", i ? ", " : "", (long long)a->u.ints.v[i]);
}

void print_assumption(StrBuf *b, const Attr *a)
{
	switch (a->kind) {
	case AT_DIV_BY:
		sb_printf(b, "div_by<%lld", (long long)a->u.div_by.divisor);
		if (a->u.div_by.has_every)
			sb_printf(b, ", every %lld along %lld", (long long)a->u.div_by.every,
				  (long long)a->u.div_by.along);
		sb_putc(b, '>');
		return;
	case AT_SAME_ELEMENTS:
		sb_puts(b, "same_elements<[");
		put_ints(b, a);
		sb_puts(b, "]>");
		return;
	case AT_BOUNDED:
		sb_puts(b, "bounded<");
		if (a->u.bounded.has_lb)
			sb_printf(b, "%lld", (long long)a->u.bounded.lb);
		else
			sb_putc(b, '?');
		sb_puts(b, ", ");
		if (a->u.bounded.has_ub)
			sb_printf(b, "%lld", (long long)a->u.bounded.ub);
		else
			sb_putc(b, '?');
		sb_putc(b, '>');
		return;
	default:
		ice("print_assumption: attribute kind %d", a->kind);
	}
}

void print_attr(StrBuf *b, const Attr *a)
{
	switch (a->kind) {
	case AT_INT:
		sb_printf(b, "%lld", (long long)a->u.i);
		if (a->type)
			sb_printf(b, " : %s", a->type->str);
		return;
	case AT_FLOAT:
		sb_printf(b, "0x%llx : %s", (unsigned long long)a->u.bits, a->type->str);
		return;
	case AT_BOOL: sb_puts(b, a->u.i ? "true" : "false"); return;
	case AT_STRING: put_string(b, a->u.s); return;
	case AT_TYPE: sb_puts(b, a->type->str); return;
	case AT_INTS:
		sb_putc(b, '[');
		put_ints(b, a);
		sb_putc(b, ']');
		return;
	case AT_ARRAY:
		sb_putc(b, '[');
		for (int i = 0; i < a->u.array.n; i++) {
			if (i)
				sb_puts(b, ", ");
			print_attr(b, a->u.array.v[i]);
		}
		sb_putc(b, ']');
		return;
	case AT_DICT:
		sb_putc(b, '{');
		for (int i = 0; i < a->u.dict.n; i++) {
			sb_printf(b, "%s%s = ", i ? ", " : "", a->u.dict.v[i].name);
			print_attr(b, a->u.dict.v[i].attr);
		}
		sb_putc(b, '}');
		return;
	case AT_DENSE:
		sb_printf(b, "dense<%s\"0x", a->u.dense.splat ? "splat " : "");
		for (size_t i = 0; i < a->u.dense.n; i++)
			sb_printf(b, "%02X", a->u.dense.bytes[i]);
		sb_printf(b, "\"> : %s", a->type->str);
		return;
	case AT_DIV_BY: case AT_SAME_ELEMENTS: case AT_BOUNDED:
		print_assumption(b, a);
		return;
	}
}

static void indent(StrBuf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_puts(b, "  ");
}

static void print_loc(StrBuf *b, const Loc *l)
{
	if (!l || !l->file)
		return;
	sb_puts(b, " loc(");
	put_string(b, l->file);
	sb_printf(b, ":%u:%u", l->line, l->col);
	if (l->func && l->func_flags)     /* bit 0, the only one: DISubprogram `declaration` */
		sb_puts(b, " subprogram_flags = declaration");
	if (l->caller && l->caller->file) {
		sb_puts(b, " called from ");
		put_string(b, l->caller->file);
		sb_printf(b, ":%u:%u", l->caller->line, l->caller->col);
	}
	sb_putc(b, ')');
}

static void print_op(StrBuf *b, const Op *op, int depth)
{
	indent(b, depth);
	for (int i = 0; i < op->nresults; i++)
		sb_printf(b, "%s%%%d", i ? ", " : "", op->results[i]->id);
	if (op->nresults)
		sb_puts(b, " = ");
	sb_puts(b, op->info->name);
	for (int i = 0; i < op->noperands; i++)
		sb_printf(b, "%s%%%d", i ? ", " : " ", op->operands[i]->id);
	if (op->nattrs) {
		sb_puts(b, " {");
		for (int i = 0; i < op->nattrs; i++) {
			sb_printf(b, "%s%s = ", i ? ", " : "", op->attrs[i].name);
			print_attr(b, op->attrs[i].attr);
		}
		sb_putc(b, '}');
	}
	if (op->nresults) {
		sb_puts(b, " : ");
		for (int i = 0; i < op->nresults; i++)
			sb_printf(b, "%s%s", i ? ", " : "", op->results[i]->type->str);
	}
	for (int i = 0; i < op->nresults; i++)
		if (op->results[i]->layout) {
			sb_printf(b, " layout(%%%d = ", op->results[i]->id);
			print_attr(b, op->results[i]->layout);
			sb_putc(b, ')');
		}
	print_loc(b, op->loc);
	for (int r = 0; r < op->nregions; r++) {
		sb_puts(b, r ? " {\n" : " {\n");
		FOR_EACH_BLOCK(blk, &op->regions[r]) {
			indent(b, depth);
			sb_puts(b, "^bb(");
			for (int i = 0; i < blk->nargs; i++)
				sb_printf(b, "%s%%%d: %s", i ? ", " : "", blk->args[i]->id,
					  blk->args[i]->type->str);
			sb_puts(b, "):\n");
			FOR_EACH_OP(inner, blk)
				print_op(b, inner, depth + 1);
		}
		indent(b, depth);
		sb_putc(b, '}');
	}
	sb_putc(b, '\n');
}

void print_module(StrBuf *b, Module *m)
{
	ir_number_values(m);
	sb_printf(b, "// stage: %s\n", m->stage);
	sb_printf(b, "module @%s", m->name);
	if (m->attrs && m->attrs->u.dict.n) {
		sb_puts(b, " attributes ");
		print_attr(b, m->attrs);
	}
	sb_puts(b, " {\n");
	FOR_EACH_OP(op, &m->body)
		print_op(b, op, 1);
	sb_puts(b, "}\n");
}
