/* write_ops.c: function bodies as bytecode, by the wire layouts
 * (wire_layout.h; the inverse of ops.c). Values are numbered as the reader
 * numbers them: the arguments, then each op's serialized results after the
 * op and its regions; a block's arguments and everything defined in it are
 * numbered while it is open and dropped when it closes. The numbers live in
 * Value.id while a body is written (-1: not defined here). */
#include <string.h>
#include "writer.h"
#include "wire_layout.h"
#include "opinfo.h"
#include "diag.h"

typedef struct Body {
	Writer *w;
	StrBuf *b;
	int nvals;
} Body;

static int forget(Op *op, void *ctx)
{
	(void)ctx;
	for (int i = 0; i < op->nresults; i++)
		op->results[i]->id = -1;
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(blk, &op->regions[r])
			for (int i = 0; i < blk->nargs; i++)
				blk->args[i]->id = -1;
	return 0;
}

static void forget_block(Block *blk)
{
	for (int i = 0; i < blk->nargs; i++)
		blk->args[i]->id = -1;
	FOR_EACH_OP(op, blk)
		op_walk(op, forget, NULL);
}

static bool operand(Body *bd, const Op *op, int i)
{
	if (i >= op->noperands)
		ice("%s: its layout wants operand %d of %d", op->info->name, i, op->noperands);
	const Value *v = op->operands[i];
	if (v->id < 0)
		return wr_fail(bd->w, "%s operand %d is not a value defined before it in bytecode %s",
			       op->info->name, i, bytecode_version_name(bd->w->version));
	bo_varint(bd->b, (uint64_t)v->id);
	return true;
}

static int64_t segment(const Op *op, const Attr *seg, int si)
{
	if (!seg || seg->kind != AT_INTS || si >= seg->u.ints.n)
		ice("%s: no operand_segment_sizes entry %d", op->info->name, si);
	return seg->u.ints.v[si];
}

/* the bytecode value of enum attribute `a` (a spelling) */
static bool enum_value(Writer *w, const Op *op, const Field *f, const Attr *a, uint64_t *v)
{
	const EnumVal *e = a && a->kind == AT_STRING ? enum_lookup(f->en, a->u.s) : NULL;
	if (!e)
		return wr_fail(w, "%s: attribute '%s' is not a %s", op->info->name, f->name,
			       enum_kind_what(f->en));
	*v = (uint64_t)e->value;
	return wr_need(w, e->since, "%s value '%s' of %s", f->name, e->spelling, op->info->name);
}

/* The flag bits of op's present optional fields. */
static uint64_t op_flags(const Op *op, const Field *row, const Attr *seg)
{
	uint64_t flags = 0;
	int si = 0;
	for (const Field *f = row; f->kind != F_END; f++) {
		bool set = false;
		switch (f->kind) {
		case F_UNIT: set = op_attr_flag(op, f->name); break;
		case F_ENUM: case F_HINTS: set = f->mask && op_attr(op, f->name); break;
		case F_OPT: set = segment(op, seg, si) != 0; si++; break;
		case F_OPND: si += f->n; break;
		case F_VAR: si++; break;
		default: break;
		}
		if (set)
			flags |= f->mask;
	}
	return flags;
}

/* The name of the first field flag bit `mask` of row stands for. */
static const char *flag_field(const Field *row, uint64_t flags)
{
	for (const Field *f = row; f->kind != F_END; f++)
		if (f->mask & flags)
			return f->name ? f->name : "an optional operand";
	return "?";
}

static bool write_ops(Body *bd, Block *blk);

static bool write_field(Body *bd, const Op *op, const Field *f, const Field *row,
			const Attr *seg, uint64_t flags, int *oi, int *si, int *nser)
{
	Writer *w = bd->w;
	StrBuf *b = bd->b;
	const Attr *a = f->name ? op_attr(op, f->name) : NULL;
	switch (f->kind) {
	case F_RES:
		for (int i = 0; i < f->n; i++)
			bo_varint(b, wr_type(w, op->results[i]->type));
		*nser = op->nresults;
		return true;
	case F_NRES:
		bo_varint(b, (uint64_t)op->nresults);
		for (int i = 0; i < op->nresults; i++)
			bo_varint(b, wr_type(w, op->results[i]->type));
		*nser = op->nresults;
		return true;
	case F_NRES_TOKEN:
		if (w->version < f->since) {
			bo_varint(b, 0);   /* the token result is implicit, with no number */
			*nser = 0;
			return true;
		}
		bo_varint(b, (uint64_t)op->nresults);
		for (int i = 0; i < op->nresults; i++)
			bo_varint(b, wr_type(w, op->results[i]->type));
		*nser = op->nresults;
		return true;
	case F_FLAGS:
		if (w->version >= f->since)
			bo_varint(b, flags);
		else if (flags)
			return wr_need(w, f->since, "%s of %s", flag_field(row, flags), op->info->name);
		return true;
	case F_UNIT:
		return true;
	case F_ENUM: {
		uint64_t v;
		if (w->version < f->since) {
			if (a && (!enum_value(w, op, f, a, &v) || v != (uint64_t)f->dflt))
				return wr_need(w, f->since, "attribute '%s' = %s of %s", f->name, a->u.s,
					       op->info->name);
			return true;
		}
		if (f->mask && !a)
			return true;
		if (!enum_value(w, op, f, a, &v))
			return false;
		bo_varint(b, v);
		return true;
	}
	case F_INT:
		bo_varint(b, (uint64_t)op_attr_int(op, f->name, 0));
		return true;
	case F_BOOL:
		bo_u8(b, op_attr_flag(op, f->name));
		return true;
	case F_STR:
	case F_SYMREF:
		bo_varint(b, wr_string(w, op_attr_str(op, f->name, "")));
		return true;
	case F_I32ARR:
		bo_varint(b, a && a->kind == AT_INTS ? (uint64_t)a->u.ints.n : 0);
		for (int i = 0; a && a->kind == AT_INTS && i < a->u.ints.n; i++)
			bo_u32(b, (uint32_t)(int32_t)a->u.ints.v[i]);
		return true;
	case F_CONST:
		if (!a || a->kind != AT_DENSE)
			return wr_fail(w, "%s: attribute '%s' is not dense elements", op->info->name, f->name);
		bo_varint(b, wr_const(w, a));
		return true;
	case F_PRED:
		if (!a)
			return wr_fail(w, "%s has no attribute '%s'", op->info->name, f->name);
		wr_tagged(w, b, a, false);
		return !w->failed;
	case F_TARRAY:
		bo_varint(b, a && a->kind == AT_ARRAY ? (uint64_t)a->u.array.n : 0);
		for (int i = 0; a && a->kind == AT_ARRAY && i < a->u.array.n; i++)
			wr_tagged(w, b, a->u.array.v[i], false);
		return !w->failed;
	case F_HINTS:
		if (a)
			wr_dict_body(w, b, a);
		return !w->failed;
	case F_BOOLARR: {
		bool any = false;
		for (int i = 0; a && a->kind == AT_ARRAY && i < a->u.array.n; i++)
			any |= a->u.array.v[i]->u.i != 0;
		if (w->version < f->since)
			return !any || wr_need(w, f->since, "attribute '%s' of %s", f->name, op->info->name);
		int64_t n = segment(op, seg, f->n);
		bo_varint(b, (uint64_t)n);
		for (int64_t i = 0; i < n; i++)
			bo_u8(b, any && i < a->u.array.n && a->u.array.v[i]->u.i);
		return true;
	}
	case F_OPND:
		for (int i = 0; i < f->n; i++)
			if (!operand(bd, op, (*oi)++))
				return false;
		*si += f->n;
		return true;
	case F_OPT:
		if (segment(op, seg, (*si)++) && !operand(bd, op, (*oi)++))
			return false;
		return true;
	case F_VAR: {
		int64_t n = segment(op, seg, (*si)++);
		bo_varint(b, (uint64_t)n);
		for (int64_t i = 0; i < n; i++)
			if (!operand(bd, op, (*oi)++))
				return false;
		return true;
	}
	case F_ALL:
		bo_varint(b, (uint64_t)(op->noperands - *oi));
		while (*oi < op->noperands)
			if (!operand(bd, op, (*oi)++))
				return false;
		return true;
	case F_REGIONS:
		bo_varint(b, (uint64_t)op->nregions);
		return true;
	case F_END:
		break;
	}
	ice("bad layout field %d", f->kind);
}

static bool write_op(Body *bd, Op *op)
{
	Writer *w = bd->w;
	const Field *row = op->info->dialect == DIALECT_CUDA_TILE ? ops_layout(op->info->code) : NULL;
	if (!row)
		return wr_fail(w, "%s cannot be in a function body", op->info->name);
	if (!wr_need(w, op->info->since, "%s", op->info->name))
		return false;
	bo_varint(bd->b, (uint64_t)op->info->bytecode_opcode);
	wr_debug_op(w, op);
	const Attr *seg = op_attr(op, "operand_segment_sizes");
	uint64_t flags = op_flags(op, row, seg);
	int oi = 0, si = 0, nser = 0;
	for (const Field *f = row; f->kind != F_END; f++)
		if (!write_field(bd, op, f, row, seg, flags, &oi, &si, &nser))
			return false;
	for (int r = 0; r < op->nregions; r++) {
		bo_varint(bd->b, (uint64_t)op->regions[r].nblocks);
		FOR_EACH_BLOCK(blk, &op->regions[r]) {
			bo_varint(bd->b, (uint64_t)blk->nargs);
			for (int i = 0; i < blk->nargs; i++)
				bo_varint(bd->b, wr_type(w, blk->args[i]->type));
			int mark = bd->nvals;
			for (int i = 0; i < blk->nargs; i++)
				blk->args[i]->id = bd->nvals++;
			int nops = 0;
			FOR_EACH_OP(o, blk)
				nops++;
			bo_varint(bd->b, (uint64_t)nops);
			if (!write_ops(bd, blk))
				return false;
			forget_block(blk);
			bd->nvals = mark;
		}
	}
	for (int i = 0; i < nser; i++)
		op->results[i]->id = bd->nvals++;
	return !w->failed;
}

static bool write_ops(Body *bd, Block *blk)
{
	FOR_EACH_OP(op, blk)
		if (!write_op(bd, op))
			return false;
	return true;
}

bool wr_function_body(Writer *w, const Op *fn, StrBuf *body)
{
	Body bd = { w, body, 0 };
	Block *entry = fn->regions[0].first;
	op_walk((Op *)fn, forget, NULL);
	for (int i = 0; i < entry->nargs; i++)
		entry->args[i]->id = bd.nvals++;
	bool ok = write_ops(&bd, entry);
	op_walk((Op *)fn, forget, NULL);
	return ok;
}
