/* asm_custom.c: the cuda_tile ops whose assembly syntax is C in the
 * dialect's definition (MLIR's hasCustomAssemblyFormat: entry, for, loop,
 * the view loads and stores, make_*_view, the shape queries, 13.5's
 * multimem ops), and the custom<...> directives the declarative formats of
 * asm_ops.def call. Spacing, keywords and type lists are NVIDIA's
 * tileirdisasm 13.5's, double spaces included. Read-only over the IR. */
#include <string.h>
#include "asm.h"
#include "opinfo.h"

static void put(AsmCtx *c, const char *s) { sb_puts(c->b, s); }
static void type(AsmCtx *c, const Type *t) { asm_type(c->b, t); }

static const char *str_attr(const Op *op, const char *name)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_STRING ? a->u.s : NULL;
}

/* ------------------------------------------------------------------ directives */

/* the rounding mode a custom<...RoundingMode> directive leaves out */
const char *asm_rounding_default(const char *directive)
{
	if (strcmp(directive, "IEEERoundingMode") == 0 || strcmp(directive, "DivFOpRoundingMode") == 0 ||
	    strcmp(directive, "SqrtOpRoundingMode") == 0)
		return "nearest_even";
	if (strcmp(directive, "TanHOpRoundingMode") == 0 || strcmp(directive, "ExpOpRoundingMode") == 0)
		return "full";
	if (strcmp(directive, "IntegerRoundingMode") == 0)
		return "nearest_int_to_zero";
	return NULL;
}

static void rounding_unless(AsmCtx *c, const Op *op, const char *dflt)
{
	const char *m = str_attr(op, "rounding_mode");
	if (m && strcmp(m, dflt) != 0)
		sb_printf(c->b, "rounding<%s>", m);
}

/* printControlFlowRegion: a terminator without operands of the op's
 * implicit kind is left out */
static void control_region(AsmCtx *c, const Region *r, enum OpCode implicit)
{
	bool terms = true;
	if (r->first && r->first->last) {
		const Op *t = r->first->last;
		terms = t->noperands != 0 || t->info->code != implicit;
	}
	asm_region(c, r, terms);
}

/* "(%a: T, %b: U {k = v})": arg_attrs, when given, one dictionary per argument */
static void block_arg_list(AsmCtx *c, const Block *b, const Attr *arg_attrs)
{
	put(c, "(");
	for (int i = 0; b && i < b->nargs; i++) {
		if (i)
			put(c, ", ");
		asm_value(c, b->args[i]);
		put(c, ": ");
		type(c, b->args[i]->type);
		if (arg_attrs && arg_attrs->kind == AT_ARRAY && i < arg_attrs->u.array.n) {
			const Attr *d = arg_attrs->u.array.v[i];
			if (d->kind == AT_DICT && d->u.dict.n) {
				put(c, " ");
				asm_attr(c->b, d, true);
			}
		}
	}
	put(c, ")");
}

bool asm_directive(AsmCtx *c, const Op *op, const AsmRow *row, const char *name,
		   int nargs, const char *const *args)
{
	(void)row;
	(void)nargs;
	const char *attr = nargs && args[0][0] == '$' ? args[0] + 1 : "";
	const char *s = str_attr(op, attr);
	if (asm_rounding_default(name))
		rounding_unless(c, op, asm_rounding_default(name));
	else if (strcmp(name, "Signedness") == 0 || strcmp(name, "ComparisonPredicate") == 0 ||
		 strcmp(name, "ComparisonOrdering") == 0)
		put(c, s ? s : "");
	else if (strcmp(name, "SymbolVisibility") == 0) {
		if (s && strcmp(s, "public") != 0)
			sb_printf(c->b, "%s ", s);
	} else if (strcmp(name, "AssumePredicate") == 0) {
		const Attr *p = op_attr(op, attr);
		if (p)
			asm_attr(c->b, p, true);
	} else if (strcmp(name, "DenseTypedElementsAttr") == 0) {
		const Attr *v = op_attr(op, attr);
		if (v && op->nresults)
			asm_dense(c->b, v, op->results[0]->type);
	} else if (strcmp(name, "DenseTypedElementsAttrNoResult") == 0) {
		const Attr *v = op_attr(op, attr);
		if (v)
			asm_dense(c->b, v, v->type);
	} else if (strcmp(name, "IfOpRegion") == 0) {
		int i = strcmp(attr, "elseRegion") == 0;
		if (i < op->nregions)
			control_region(c, &op->regions[i], CT_yield);
	} else if (strcmp(name, "ArgumentRegion") == 0) {
		if (op->nregions) {
			asm_newline(c);
			block_arg_list(c, op->regions[0].first, NULL);
			put(c, " ");
			asm_region(c, &op->regions[0], true);
		}
	} else {
		sb_printf(c->b, "<<custom<%s>>>", name);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ ops */

void asm_custom_entry(AsmCtx *c, const Op *op)
{
	put(c, " ");
	asm_symbol(c->b, str_attr(op, "sym_name") ? str_attr(op, "sym_name") : "");
	const Block *b = op->nregions ? op->regions[0].first : NULL;
	block_arg_list(c, b, op_attr(op, "arg_attrs"));
	const Attr *h = op_attr(op, "optimization_hints");
	if (h && h->kind == AT_DICT && h->u.dict.n) {
		put(c, " optimization_hints=");
		asm_hints(c->b, h);
	}
	put(c, " ");
	if (op->nregions)
		asm_region(c, &op->regions[0], true);
	asm_attr_dict(c, op, "arg_attrs function_type sym_name res_attrs optimization_hints", false);
}

static void iter_values(AsmCtx *c, const Op *op, int first, const Block *b, int arg0)
{
	put(c, "iter_values(");
	for (int i = first; i < op->noperands; i++) {
		if (i > first)
			put(c, ", ");
		if (b && arg0 + i - first < b->nargs)
			asm_value(c, b->args[arg0 + i - first]);
		put(c, " = ");
		asm_value(c, op->operands[i]);
	}
	put(c, ")");
}

static void types_of(AsmCtx *c, Value *const *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			put(c, ", ");
		type(c, v[i]->type);
	}
}

void asm_custom_for(AsmCtx *c, const Op *op)
{
	const Block *b = op->nregions ? op->regions[0].first : NULL;
	if (op_attr_flag(op, "unsignedCmp"))
		put(c, " unsigned");
	put(c, " ");
	if (b && b->nargs)
		asm_value(c, b->args[0]);
	put(c, " in (");
	asm_value(c, op->operands[0]);
	put(c, " to ");
	asm_value(c, op->operands[1]);
	put(c, ", step ");
	asm_value(c, op->operands[2]);
	put(c, ") : ");
	type(c, op->operands[0]->type);
	put(c, " ");
	if (op->noperands > 3) {
		iter_values(c, op, 3, b, 1);
		put(c, " -> (");
		types_of(c, op->operands + 3, op->noperands - 3);
		put(c, ") ");
	}
	if (op->nregions)
		control_region(c, &op->regions[0], CT_continue);
	asm_attr_dict(c, op, "unsignedCmp", false);
}

void asm_custom_loop(AsmCtx *c, const Op *op)
{
	const Block *b = op->nregions ? op->regions[0].first : NULL;
	put(c, " ");
	bool iters = op->noperands > 0, ret = op->nresults > 0;
	if (iters) {
		iter_values(c, op, 0, b, 0);
		put(c, " ");
	}
	if (iters || ret)
		put(c, ": ");
	if (iters) {
		types_of(c, op->operands, op->noperands);
		put(c, " ");
		if (ret)
			put(c, "-> ");
	}
	if (ret) {
		types_of(c, op->results, op->nresults);
		put(c, " ");
	}
	if (op->nregions)
		control_region(c, &op->regions[0], CT_continue);
	asm_attr_dict(c, op, "", false);
}

void asm_custom_get_shape(AsmCtx *c, const Op *op)
{
	put(c, " ");
	asm_value(c, op->operands[0]);
	put(c, " : ");
	type(c, op->operands[0]->type);
	put(c, " -> ");
	if (op->nresults)
		type(c, op->results[0]->type);
}

/* " weak", " relaxed device" */
static void memory_attrs(AsmCtx *c, const Op *op)
{
	const char *sem = str_attr(op, "memory_ordering_semantics");
	const char *scope = str_attr(op, "memory_scope");
	sb_printf(c->b, " %s", sem ? sem : "");
	if (scope)
		sb_printf(c->b, " %s", scope);
}

/* "%view[%i, %j]" of the operand groups view and index */
static void view_index(AsmCtx *c, const Op *op, const AsmRow *row, const char *view_group)
{
	int f, n = asm_group_named(op, row, view_group, &f);
	if (n)
		asm_value(c, op->operands[f]);
	put(c, "[");
	n = asm_group_named(op, row, "index", &f);
	asm_values(c, op->operands + f, n);
	put(c, "]");
}

/* printIndexTypes: ", T" once when all index types agree, else each */
static void index_types(AsmCtx *c, const Op *op, const AsmRow *row)
{
	int f, n = asm_group_named(op, row, "index", &f);
	bool same = true;
	for (int i = 1; i < n; i++)
		same &= op->operands[f + i]->type == op->operands[f]->type;
	for (int i = 0; i < (same && n ? 1 : n); i++) {
		put(c, ", ");
		type(c, op->operands[f + i]->type);
	}
}

static const Value *token_operand(const Op *op, const AsmRow *row)
{
	int f, n = asm_group_named(op, row, "token", &f);
	return n ? op->operands[f] : NULL;
}

static void inbounds(AsmCtx *c, const Op *op)
{
	const Attr *a = op_attr(op, "inbounds");
	if (a) {
		put(c, " inbounds = ");
		asm_attr(c->b, a, true);
	}
}

/* token, optimization_hints, 13.5's inbounds, other attributes */
static void view_optionals(AsmCtx *c, const Op *op, const AsmRow *row)
{
	const Value *t = token_operand(op, row);
	if (t) {
		put(c, " token = ");
		asm_value(c, t);
	}
	const Attr *h = op_attr(op, "optimization_hints");
	if (h) {
		put(c, " optimization_hints = ");
		asm_hints(c->b, h);
	}
	inbounds(c, op);
	asm_attr_dict(c, op, "memory_ordering_semantics memory_scope optimization_hints inbounds", true);
}

void asm_custom_load_view_tko(AsmCtx *c, const Op *op)
{
	const AsmRow *row = c->row(op);
	memory_attrs(c, op);
	put(c, " ");
	view_index(c, op, row, "view");
	view_optionals(c, op, row);
	put(c, " : ");
	type(c, op->operands[0]->type);
	index_types(c, op, row);
	put(c, " -> ");
	types_of(c, op->results, op->nresults);
}

void asm_custom_store_view_tko(AsmCtx *c, const Op *op)
{
	const AsmRow *row = c->row(op);
	memory_attrs(c, op);
	put(c, " ");
	asm_value(c, op->operands[0]);
	put(c, ", ");
	view_index(c, op, row, "view");
	view_optionals(c, op, row);
	put(c, " : ");
	type(c, op->operands[0]->type);
	put(c, ", ");
	type(c, op->operands[1]->type);
	index_types(c, op, row);
	put(c, " -> ");
	if (op->nresults)
		type(c, op->results[0]->type);
}

void asm_custom_atomic_red_view_tko(AsmCtx *c, const Op *op)
{
	const AsmRow *row = c->row(op);
	memory_attrs(c, op);
	put(c, " ");
	view_index(c, op, row, "view");
	const char *mode = str_attr(op, "mode");
	sb_printf(c->b, ", %s, ", mode ? mode : "");
	int f, n = asm_group_named(op, row, "value", &f);
	if (n)
		asm_value(c, op->operands[f]);
	const Value *t = token_operand(op, row);
	if (t) {
		put(c, " token = ");
		asm_value(c, t);
	}
	inbounds(c, op);
	asm_attr_dict(c, op, "memory_ordering_semantics memory_scope mode inbounds", true);
	put(c, " : ");
	if (n)
		type(c, op->operands[f]->type);
	put(c, ", ");
	type(c, op->operands[0]->type);
	index_types(c, op, row);
	put(c, " -> ");
	if (op->nresults)
		type(c, op->results[0]->type);
}

void asm_custom_make_tensor_view(AsmCtx *c, const Op *op)
{
	const AsmRow *row = c->row(op);
	const Type *tv = op->results[0]->type;
	put(c, " ");
	asm_value(c, op->operands[0]);
	for (int part = 0; part < 2; part++) {
		put(c, part ? "], strides = [" : ", shape = [");
		int f, n = asm_group(op, row, part + 1, &f);
		const int64_t *dims = part ? tv->strides : tv->shape;
		int used = 0;
		for (int i = 0; i < tv->rank; i++) {
			if (i)
				put(c, ", ");
			if (dims[i] == DYN_DIM && used < n)
				asm_value(c, op->operands[f + used++]);
			else
				sb_printf(c->b, "%lld", (long long)dims[i]);
		}
	}
	put(c, "]");
	asm_attr_dict(c, op, "", false);
	put(c, " : ");
	/* 13.5: a base pointer with an attribute (multicast) has its type shown */
	const Type *base = op->operands[0]->type;
	bool show_base = base->kind == TY_TILE && base->elem->kind == TY_PTR && base->elem->ptr_attr != PTR_ATTR_NONE;
	if (show_base) {
		type(c, base);
		put(c, op->noperands > 1 ? ", " : " -> ");
	}
	if (op->noperands > 1) {
		type(c, op->operands[1]->type);
		put(c, " -> ");
	}
	type(c, tv);
}

void asm_custom_make_view(AsmCtx *c, const Op *op)
{
	put(c, " ");
	asm_value(c, op->operands[0]);
	asm_attr_dict(c, op, "", false);
	put(c, " : ");
	type(c, op->results[0]->type);
}

/* 13.5's multimem ops: " inbounds = [true]" or else a space, then the other
 * attributes as " attributes {reduction = #cuda_tile.multimem_reduction_kind<min>}"
 * (add, the default, left out) */
static void multimem_attrs(AsmCtx *c, const Op *op)
{
	const Attr *ib = op_attr(op, "inbounds");
	if (ib) {
		put(c, " inbounds = ");
		asm_attr(c->b, ib, true);
	} else {
		put(c, " ");
	}
	const char *red = str_attr(op, "reduction");
	if (red && strcmp(red, "add") != 0)
		sb_printf(c->b, " attributes {reduction = #cuda_tile.multimem_reduction_kind<%s>}", red);
	asm_attr_dict(c, op, "memory_ordering_semantics memory_scope reduction inbounds", true);
}

void asm_custom_multimem_load_reduce(AsmCtx *c, const Op *op)
{
	const AsmRow *row = c->row(op);
	memory_attrs(c, op);
	put(c, " ");
	view_index(c, op, row, "view");
	const Value *t = token_operand(op, row);
	if (t) {
		put(c, " token = ");
		asm_value(c, t);
	}
	multimem_attrs(c, op);
	put(c, " : ");
	type(c, op->operands[0]->type);
	index_types(c, op, row);
	if (t) {
		put(c, ", ");
		type(c, t->type);
	}
	put(c, " -> ");
	types_of(c, op->results, op->nresults);
}

static void multimem_write(AsmCtx *c, const Op *op)
{
	const AsmRow *row = c->row(op);
	memory_attrs(c, op);
	put(c, " ");
	asm_value(c, op->operands[0]);
	put(c, ", ");
	view_index(c, op, row, "tile");
	const Value *t = token_operand(op, row);
	if (t) {
		put(c, " token = ");
		asm_value(c, t);
	}
	multimem_attrs(c, op);
	put(c, " : ");
	type(c, op->operands[0]->type);
	put(c, ", ");
	type(c, op->operands[1]->type);
	index_types(c, op, row);
	if (t) {
		put(c, ", ");
		type(c, t->type);
	}
	put(c, " -> ");
	if (op->nresults)
		type(c, op->results[0]->type);
}

void asm_custom_multimem_reduce(AsmCtx *c, const Op *op) { multimem_write(c, op); }
void asm_custom_multimem_store(AsmCtx *c, const Op *op) { multimem_write(c, op); }
