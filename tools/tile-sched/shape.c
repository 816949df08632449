/* shape.c: layouts for reduce, scan and the shape ops (docs/lowering.md §8),
 * over the value classes of classes.c (which is all it calls).
 *
 * sched.c calls in four places:
 *  shape_constrain  the operands of a reduce share one layout, its results
 *                   another; a scan's operands and results share one; the
 *                   two operands of a cat share one. The op is recorded.
 *  shape_preassign  before anchored classes get blocked layouts: a reduce
 *                   result takes the "slice" of its source layout (the
 *                   source's layout with the reduced dim's bits dropped:
 *                   registers merged, lanes and warps replicated) when
 *                   nothing better is asked of it: no anchor, or an anchor
 *                   that cannot vectorize and a reduction that needs no
 *                   shared-memory round anyway. Softmax's reduce ->
 *                   reshape -> broadcast back then needs no conversion.
 *  shape_propagate  derivations between a free class and an assigned one:
 *                   reduce results from sources, permute either way,
 *                   cat results from operands (plus a register bit for the
 *                   operand) and operands from results, extract results
 *                   from sources when the sub-tile is a register subset,
 *                   an inserted value from the insert's result (the block
 *                   bits dropped), pack/unpack by splitting or joining
 *                   registers.
 *  shape_fix        after every value has its layout: where an op would
 *                   need another thread's registers, nv_tileas.
 *                   convert_layout makes its operand fit (permute, cat,
 *                   insert, pack/unpack), a scan whose dim is not laid out as
 *                   registers-lanes-warps-registers is scanned in a blocked
 *                   layout between two conversions, and an extract that is
 *                   not a register subset (or has dynamic indices) is marked
 *                   via_shared: tile-ptx moves it through shared memory;
 *                   except that extracts of several constant blocks of one
 *                   source into one layout share a conversion of the
 *                   source that makes every block a register subset.
 *                   Reductions need no marking: tile-ptx reads their
 *                   cross-warp partials in whatever layout the result has.
 */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "opinfo.h"
#include "irutil.h"
#include "layout_map.h"
#include "diag.h"
#include "xalloc.h"

static int cls(F *f, const Value *v) { return find(f, v->id); }

void shape_constrain(F *f, Op *op)
{
	if (f->nshops == f->capshops) {
		f->capshops = f->capshops ? 2 * f->capshops : 16;
		f->shops = xrealloc(f->shops, sizeof *f->shops * (size_t)f->capshops);
	}
	f->shops[f->nshops++] = op;
	switch (op->info->code) {
	case CT_reduce:
		for (int i = 1; i < op->noperands; i++)
			unite(f, op->operands[0], op->operands[i]);
		for (int i = 1; i < op->nresults; i++)
			unite(f, op->results[0], op->results[i]);
		break;
	case CT_scan:
		for (int i = 0; i < op->noperands; i++)
			unite(f, op->operands[0], op->operands[i]);
		for (int i = 0; i < op->nresults; i++)
			unite(f, op->operands[0], op->results[i]);
		break;
	case CT_cat:
		unite(f, op->operands[0], op->operands[1]);
		break;
	case CT_insert:          /* the destination tile and the result */
		unite(f, op->operands[1], op->results[0]);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ maps */

static bool reduce_map(const Op *op, BitMap *m)
{
	const Type *t = op->operands[0]->type;
	return bitmap_reduce(m, t->rank, t->shape, (int)op_attr_int(op, "dim", 0));
}

/* Does reducing a source in layout l along the op's dim need a round
 * through shared memory (a reduced bit held by warps)? */
static bool reduce_crosses_warps(const Op *op, const Layout *l)
{
	const Type *t = op->operands[0]->type;
	int lo, nb;
	BitOwner own[BITMAP_MAX];
	tile_dim_bits(t->rank, t->shape, (int)op_attr_int(op, "dim", 0), &lo, &nb);
	if (!layout_bit_owners(l, BITMAP_MAX, own))
		return true;
	for (int j = lo; j < lo + nb; j++)
		if (own[j].mode == 2)
			return true;
	return false;
}

static void invert(const BitMap *m, int nbits, BitMap *inv)
{
	inv->nbits = nbits;
	memset(inv->to, -1, sizeof inv->to);
	for (int i = 0; i < m->nbits; i++)
		if (m->to[i] >= 0 && m->to[i] < nbits)
			inv->to[(int)m->to[i]] = (signed char)i;
}

static int tile_bits(const Type *t)
{
	return ilog2_exact(type_num_elements(t));
}

static bool permute_map(const Op *op, BitMap *m)
{
	const Type *s = op->operands[0]->type;
	const Attr *p = op_attr(op, "permutation");
	if (!p || p->kind != AT_INTS || p->u.ints.n != s->rank)
		return false;
	return bitmap_permute(m, s->rank, s->shape, p->u.ints.v);
}

static bool cat_map(const Op *op, BitMap *m, bool region)
{
	const Type *s = op->operands[0]->type;
	return bitmap_cat(m, s->rank, s->shape, (int)op_attr_int(op, "dim", 0), region);
}

/* Constant block indices of an extract; false when one is dynamic. */
static bool extract_const(const Op *op, int64_t *off)
{
	const Type *s = op->operands[0]->type, *r = op->results[0]->type;
	int64_t idx[8];
	if (s->rank > 8 || op->noperands != 1 + s->rank)
		return false;
	for (int i = 0; i < s->rank; i++)
		if (!value_const_int(op->operands[1 + i], &idx[i]) || idx[i] < 0 ||
		    idx[i] >= s->shape[i] / r->shape[i])
			return false;
	*off = extract_offset(s->rank, r->shape, s->shape, idx);
	return true;
}

static bool extract_map(const Op *op, BitMap *m)
{
	const Type *s = op->operands[0]->type, *r = op->results[0]->type;
	return bitmap_extract(m, s->rank, r->shape, s->shape);
}

/* insert: result offset -> offset in the inserted value (the bits that
 * pick the block dropped) */
static bool insert_map(const Op *op, BitMap *m)
{
	const Type *v = op->operands[0]->type, *r = op->results[0]->type;
	BitMap x;
	if (!bitmap_extract(&x, r->rank, v->shape, r->shape))
		return false;
	invert(&x, tile_bits(r), m);
	return true;
}

static int elem_bits(const Type *t)
{
	const Type *e = tile_elem(t);
	return e && e->kind == TY_SCALAR ? scalar_bits(e->scalar) : 64;
}

/* pack/unpack: k = log2 of the width ratio; wide_src when each source
 * element becomes 2^k result elements. */
static bool pack_ratio(const Op *op, int *k, bool *wide_src)
{
	int a = elem_bits(op->operands[0]->type), b = elem_bits(op->results[0]->type);
	*wide_src = a > b;
	*k = ilog2_exact(a > b ? a / b : b / a);
	return *k > 0 && (a > b ? a % b : b % a) == 0;
}

/* result offset -> source offset of a pack/unpack (the part dropped) */
static void pack_map(const Op *op, int k, bool wide_src, BitMap *m)
{
	int nb = tile_bits(op->results[0]->type);
	m->nbits = nb;
	memset(m->to, -1, sizeof m->to);
	for (int i = 0; i < nb; i++)
		m->to[i] = wide_src ? (i >= k ? (signed char)(i - k) : -1) : (signed char)(i + k);
}

/* ------------------------------------------------------------ derivations */

static bool slice_of(F *f, const Op *op, Layout *out)
{
	BitMap m;
	return reduce_map(op, &m) && layout_push(&f->lay[cls(f, op->operands[0])], &m, out);
}

static void give(F *f, int c, const Layout *l)
{
	f->lay[c] = *l;
	f->assigned[c] = true;
}

void shape_preassign(F *f)
{
	for (int i = 0; i < f->nshops; i++) {
		Op *op = f->shops[i];
		if (op->info->code != CT_reduce)
			continue;
		int sc = cls(f, op->operands[0]), rc = cls(f, op->results[0]);
		if (!f->assigned[sc]) {
			if (!f->vmax[sc])
				continue;
			assign_blocked(f, sc, op->operands[0]);
		}
		if (f->assigned[rc])
			continue;
		Layout s;
		if (!slice_of(f, op, &s))
			continue;
		if (f->vmax[rc] == 0 || (f->vmax[rc] <= 1 && !reduce_crosses_warps(op, &f->lay[sc])))
			give(f, rc, &s);
	}
}

bool shape_propagate(F *f)
{
	bool changed = false;
	for (int i = 0; i < f->nshops; i++) {
		Op *op = f->shops[i];
		if (op->noperands < 1 || op->nresults < 1)
			continue;
		int sc = cls(f, op->operands[0]), rc = cls(f, op->results[0]);
		bool sa = f->assigned[sc], ra = f->assigned[rc];
		if (sa == ra && op->info->code != CT_insert)
			continue;
		BitMap m, inv;
		Layout out;
		switch (op->info->code) {
		case CT_reduce:
			if (sa && slice_of(f, op, &out)) {
				give(f, rc, &out);
				changed = true;
			}
			break;
		case CT_permute:
			if (!permute_map(op, &m))
				break;
			if (ra && layout_push(&f->lay[rc], &m, &out)) {
				give(f, sc, &out);
				changed = true;
			} else if (sa) {
				invert(&m, tile_bits(op->operands[0]->type), &inv);
				if (layout_push(&f->lay[sc], &inv, &out)) {
					give(f, rc, &out);
					changed = true;
				}
			}
			break;
		case CT_cat:
			if (!cat_map(op, &m, false))
				break;
			if (ra && layout_push(&f->lay[rc], &m, &out)) {
				give(f, sc, &out);
				changed = true;
			} else if (sa) {
				/* the operands' layout, plus a register bit for which operand */
				int top = -1;
				for (int b = 0; b < m.nbits; b++)
					if (m.to[b] < 0)
						top = b;
				invert(&m, tile_bits(op->operands[0]->type), &inv);
				Layout p;
				if (top < 0 || !layout_push(&f->lay[sc], &inv, &p))
					break;
				Layout r;
				layout_init(&r);
				for (int mode = 0; mode < 3; mode++) {
					int64_t ls[LAYOUT_MAX_LEAVES + 1], ld[LAYOUT_MAX_LEAVES + 1];
					int n = 0;
					for (int k = p.begin[mode]; k < p.begin[mode + 1]; k++) {
						ls[n] = p.shape[k];
						ld[n++] = p.stride[k];
					}
					if (mode == 0) {
						ls[n] = 2;
						ld[n++] = (int64_t)1 << top;
					}
					layout_add_mode(&r, n, ls, ld);
				}
				layout_canonicalize(&r);
				give(f, rc, &r);
				changed = true;
			}
			break;
		case CT_extract: {
			int64_t off;
			if (!sa || !extract_map(op, &m) || !extract_const(op, &off))
				break;
			invert(&m, tile_bits(op->operands[0]->type), &inv);
			int64_t nr = 0;
			if (!layout_push(&f->lay[sc], &inv, &out))
				break;
			nr = layout_nregs(&out);
			int64_t *regs = xmalloc(sizeof *regs * (size_t)(nr + 1));
			if (layout_gather_map(&f->lay[sc], &out, &m, off, regs)) {
				give(f, rc, &out);
				changed = true;
			}
			free(regs);
			break;
		}
		case CT_insert: {
			int vc = cls(f, op->operands[0]);
			if (!ra || f->assigned[vc] || !insert_map(op, &m) || !layout_push(&f->lay[rc], &m, &out))
				break;
			give(f, vc, &out);
			changed = true;
			break;
		}
		case CT_pack: case CT_unpack: {
			int k;
			bool wide;
			if (!pack_ratio(op, &k, &wide))
				break;
			bool ok = sa ? (wide ? layout_expand(&f->lay[sc], k, &out) : layout_contract(&f->lay[sc], k, &out))
				     : (wide ? layout_contract(&f->lay[rc], k, &out) : layout_expand(&f->lay[rc], k, &out));
			if (ok) {
				give(f, sa ? rc : sc, &out);
				changed = true;
			}
			break;
		}
		default:
			break;
		}
	}
	return changed;
}

/* ------------------------------------------------------------ fixing */

static Layout layout_of(const Value *v)
{
	if (!v->lay)
		ice("tile-sched: a value without a layout");
	return *v->lay;
}

/* Give operand i of op the layout want through a convert_layout. */
static void convert_operand(F *f, Op *op, int i, const Layout *want)
{
	Value *src = op->operands[i];
	const Type *t = src->type;
	Op *cv = op_build(f->m, AS_convert_layout, 1, &src, 1, &t, op->loc);
	set_layout(f->m, cv->results[0], want);
	op_insert_before(op, cv);
	op->operands[i] = cv->results[0];
}

/* Let result i of op come out in layout `made`, converted to the layout
 * its users see. */
static void convert_result(F *f, Op *op, int i, const Layout *made)
{
	Value *res = op->results[i];
	const Type *t = res->type;
	Op *cv = op_build(f->m, AS_convert_layout, 1, &res, 1, &t, op->loc);
	cv->results[0]->layout = res->layout;
	cv->results[0]->lay = res->lay;
	replace_uses(f->fn, res, cv->results[0]);
	cv->operands[0] = res;
	set_layout(f->m, res, made);
	if (!op->next)
		ice("tile-sched: '%s' ends its block", op->info->name);
	op_insert_before(op->next, cv);
}

static bool gather_ok(const Layout *src, const Layout *dst, const BitMap *m, int64_t add)
{
	int64_t n = layout_nregs(dst);
	int64_t *regs = xmalloc(sizeof *regs * (size_t)(n + 1));
	bool ok = layout_gather_map(src, dst, m, add, regs);
	free(regs);
	return ok;
}

static void fix_scan(F *f, Op *op)
{
	const Type *t = op->operands[0]->type;
	int lo, nb;
	tile_dim_bits(t->rank, t->shape, (int)op_attr_int(op, "dim", 0), &lo, &nb);
	Layout l = layout_of(op->operands[0]);
	if (layout_scan_ok(&l, lo, nb))
		return;
	/* scan in a blocked layout (lanes, then warps, then registers: any dim
	 * fits) between two conversions */
	Layout b;
	if (!layout_blocked(type_num_elements(t), 1, f->warps, &b))
		ice("tile-sched: no blocked layout for a scan of %s", t->str);
	for (int i = 0; i < op->noperands; i++)
		convert_operand(f, op, i, &b);
	for (int i = 0; i < op->nresults; i++)
		convert_result(f, op, i, &b);
}

static void fix_pack(F *f, Op *op)
{
	int k;
	bool wide;
	if (!pack_ratio(op, &k, &wide))
		ice("tile-sched: '%s' with element widths that are not a power-of-two ratio", op->info->name);
	Layout s = layout_of(op->operands[0]), r = layout_of(op->results[0]), want;
	BitMap m;
	pack_map(op, k, wide, &m);
	bool ok = true;
	for (int j = 0; j < (wide ? 1 : 1 << k) && ok; j++)
		ok = gather_ok(&s, &r, &m, j);
	if (ok)
		return;
	if (wide ? layout_contract(&r, k, &want) : layout_expand(&r, k, &want)) {
		convert_operand(f, op, 0, &want);
		return;
	}
	/* the result layout splits an element's parts over threads: make the
	 * result where the source is, then convert */
	if (!(wide ? layout_expand(&s, k, &want) : layout_contract(&s, k, &want)))
		ice("tile-sched: no layout for '%s'", op->info->name);
	convert_result(f, op, 0, &want);
}

/* The layout of an extract's source in which the result's registers,
 * lanes and warps stay where they are and the bits that pick the block
 * (the source bits the extract map does not reach) are register bits: then
 * every block of the source is a register subset in the result's layout.
 * False when that would take more than two block bits or 64 registers. */
static bool extract_source_layout(const Op *op, const Layout *r, Layout *out)
{
	BitMap m;
	Layout p;
	if (!extract_map(op, &m) || !layout_push(r, &m, &p))
		return false;
	int nb = tile_bits(op->operands[0]->type);
	bool hit[BITMAP_MAX] = { false };
	for (int b = 0; b < m.nbits; b++)
		if (m.to[b] >= 0)
			hit[(int)m.to[b]] = true;
	int64_t ls[LAYOUT_MAX_LEAVES + 1], ld[LAYOUT_MAX_LEAVES + 1];
	int n = 0, added = 0;
	for (int k = p.begin[0]; k < p.begin[1]; k++) {
		ls[n] = p.shape[k];
		ld[n++] = p.stride[k];
	}
	for (int b = 0; b < nb; b++)
		if (!hit[b]) {
			if (++added > 2 || n >= LAYOUT_MAX_LEAVES)
				return false;
			ls[n] = 2;
			ld[n++] = (int64_t)1 << b;
		}
	layout_init(out);
	layout_add_mode(out, n, ls, ld);
	for (int mode = 1; mode < 3; mode++)
		layout_add_mode(out, p.begin[mode + 1] - p.begin[mode], p.shape + p.begin[mode], p.stride + p.begin[mode]);
	layout_canonicalize(out);
	return layout_nregs(out) <= 64;
}

/* Would this extract read its block from another thread's registers? */
static bool extract_needs_move(const Op *op, Layout *s, Layout *r, int64_t *off, bool *constant)
{
	BitMap m;
	*s = layout_of(op->operands[0]);
	*r = layout_of(op->results[0]);
	if (!extract_map(op, &m))
		ice("tile-sched: bad extract");
	*constant = extract_const(op, off);
	return !*constant || !gather_ok(s, r, &m, *off);
}

/* Can extract o read its block from the conversion of op's source to want
 * (same source, block, result type and layout; constant indices)? */
static bool shares_conversion(const Op *op, const Op *o, const Value *src, const Layout *r,
			      const Layout *want, const BitMap *m)
{
	Layout s2, r2;
	int64_t off2;
	bool cst2;
	return o->info->code == CT_extract && o->operands[0] == src && o->parent == op->parent &&
	       strcmp(o->results[0]->type->str, op->results[0]->type->str) == 0 &&
	       extract_needs_move(o, &s2, &r2, &off2, &cst2) && cst2 && layout_equal(r, &r2) &&
	       gather_ok(want, &r2, m, off2);
}

/* An extract that is not a register subset: when other extracts later in
 * the same block read other constant blocks of the same source into the
 * same layout (the halves of a butterfly), one conversion of the source to
 * extract_source_layout serves them all, and all become register picks:
 * one exchange instead of one each. A lone extract (or a dynamic one) is
 * marked via_shared: tile-ptx writes the source and reads only the block.
 * shops[at] is op. */
static void fix_extract(F *f, Op *op, int at)
{
	Layout s, r, want;
	int64_t off;
	bool cst;
	BitMap m;
	if (!extract_needs_move(op, &s, &r, &off, &cst))
		return;
	extract_map(op, &m);
	Value *src = op->operands[0];
	int n = 0;
	if (cst && extract_source_layout(op, &r, &want) && gather_ok(&want, &r, &m, off))
		for (int j = at + 1; j < f->nshops; j++)
			n += shares_conversion(op, f->shops[j], src, &r, &want, &m);
	if (n == 0) {
		op_set_attr(f->m, op, "via_shared", attr_bool(f->m, true));
		return;
	}
	convert_operand(f, op, 0, &want);       /* before the first; the later ones read it too */
	for (int j = at + 1; j < f->nshops; j++)
		if (shares_conversion(op, f->shops[j], src, &r, &want, &m))
			f->shops[j]->operands[0] = op->operands[0];
}

void shape_fix(F *f)
{
	for (int i = 0; i < f->nshops; i++) {
		Op *op = f->shops[i];
		BitMap m;
		switch (op->info->code) {
		case CT_scan:
			fix_scan(f, op);
			break;
		case CT_permute: {
			Layout s = layout_of(op->operands[0]), r = layout_of(op->results[0]), want;
			if (!permute_map(op, &m))
				ice("tile-sched: bad permutation");
			if (gather_ok(&s, &r, &m, 0))
				break;
			if (!layout_push(&r, &m, &want))
				ice("tile-sched: no source layout for a permute");
			convert_operand(f, op, 0, &want);
			break;
		}
		case CT_cat: {
			Layout r = layout_of(op->results[0]), want;
			if (!cat_map(op, &m, false))
				ice("tile-sched: bad cat");
			for (int j = 0; j < 2; j++) {
				Layout s = layout_of(op->operands[j]);
				if (gather_ok(&s, &r, &m, 0))
					continue;
				if (!layout_push(&r, &m, &want))
					ice("tile-sched: no operand layout for a cat");
				convert_operand(f, op, j, &want);
			}
			break;
		}
		case CT_extract:
			fix_extract(f, op, i);
			break;
		case CT_insert: {
			Layout v = layout_of(op->operands[0]), r = layout_of(op->results[0]), want;
			if (!insert_map(op, &m))
				ice("tile-sched: bad insert");
			if (gather_ok(&v, &r, &m, 0))
				break;
			if (!layout_push(&r, &m, &want))
				ice("tile-sched: no layout for an inserted value");
			convert_operand(f, op, 0, &want);
			break;
		}
		case CT_pack: case CT_unpack:
			fix_pack(f, op);
			break;
		default:
			break;
		}
	}
}
