/* util_plan.c: LLVM-free plans over layouts (utility layer, emit.h), shared
 * by the op emitters and by the sizing of the exchange buffer (util_smem.c),
 * which must know every use in a kernel before the first is emitted.
 *
 *   reduce / scan    which offset bits of the dim registers, lanes and warps
 *                    hold (RInfo, SInfo); the bytes of their shared-memory
 *                    round (op_reduce.c)
 *   convert_layout   whether a conversion stays in each thread (a select
 *                    tree, convert_local) or in each warp (shuffles,
 *                    warp_plan), else goes through the exchange buffer
 *                    (op_convert_layout.c, util_xchg.c)
 *   xchg_need        the bytes of exchange buffer an op needs */
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "diag.h"

Layout value_layout(const Value *v)
{
	if (!v->lay)
		ice("tile-ptx: tile value without a layout (%s)", v->type->str);
	return *v->lay;
}

/* ------------------------------------------------------------ conversions */

/* Does xchg_convert handle this conversion (power-of-two leaves)? */
bool convert_ok(const Op *op)
{
	BitOwner own[BITMAP_MAX];
	const Value *a = op->operands[0], *b = op->results[0];
	return ilog2_exact(type_num_elements(b->type)) >= 0 && a->lay && b->lay &&
	       layout_bit_owners(a->lay, BITMAP_MAX, own) && layout_bit_owners(b->lay, BITMAP_MAX, own);
}

/* A conversion where every thread already holds the elements its new
 * registers need, only at a register that may depend on its lane or warp
 * (e.g. every thread holds all 8 row results in registers and the new
 * layout gives lane l row l/4): for each offset bit, a register bit of the
 * new layout must be a register bit of the old, and a lane (warp) bit of
 * the new layout the same lane (warp) bit of the old or a register bit of
 * it (a dynamic register index). Then each new register is a select
 * tree over the old registers on those lane and warp bits (LOCAL_MAX_SEL
 * selects at most in all) instead of a shared-memory round.
 * own_s, own_d: the bit owners of both layouts (over nbits). */
bool convert_local(const Op *op, int *nbits, BitOwner *own_s, BitOwner *own_d)
{
	const Value *a = op->operands[0], *b = op->results[0];
	int nb = ilog2_exact(type_num_elements(b->type));
	if (nb < 0 || nb > BITMAP_MAX || !a->lay || !b->lay || !layout_bit_owners(a->lay, nb, own_s) ||
	    !layout_bit_owners(b->lay, nb, own_d))
		return false;
	int dyn = 0;
	for (int j = 0; j < nb; j++) {
		if (own_s[j].mode < 0 || own_d[j].mode < 0)
			return false;
		if (own_d[j].mode == 0 && own_s[j].mode != 0)
			return false;
		if (own_d[j].mode > 0 && own_s[j].mode != 0 &&
		    (own_s[j].mode != own_d[j].mode || own_s[j].bit != own_d[j].bit))
			return false;
		dyn += own_d[j].mode > 0 && own_s[j].mode == 0;
	}
	*nbits = nb;
	return dyn <= LOCAL_MAX_DYN && layout_nregs(b->lay) * ((1 << dyn) - 1) <= LOCAL_MAX_SEL;
}

/* A move (xchg_move's: dst register r reads source offset m(dst offset) +
 * cadd) that stays inside each warp: every source bit held by a warp bit
 * comes from the same warp bit of the destination, so each element a thread
 * needs lives in its own warp, and one shfl.sync.idx per destination
 * register fetches it (the source lane computed from the thread's own bits).
 * A source register bit that comes from a destination lane or warp bit
 * differs between the receivers of one shuffle: each of its values gets a
 * shuffle of its own and the receiver selects (WARP_MAX_DYN such bits). No
 * shared memory, no barrier. */

bool warp_plan(const Layout *s, const Layout *d, const BitMap *m, int sbits, WarpPlan *p)
{
	if (sbits < 0 || sbits > BITMAP_MAX || m->nbits > BITMAP_MAX || !layout_bit_owners(s, sbits, p->os) ||
	    !layout_bit_owners(d, m->nbits, p->od))
		return false;
	p->sbits = sbits;
	p->nd = 0;
	memset(p->from, -1, sizeof p->from);
	for (int a = 0; a < m->nbits; a++)
		if (m->to[a] >= 0 && m->to[a] < sbits)
			p->from[(int)m->to[a]] = (signed char)a;
	bool lanes = false;
	for (int b = 0; b < sbits; b++) {
		int a = p->from[b];
		BitOwner o = p->os[b], t = a >= 0 ? p->od[a] : (BitOwner){ -1, -1 };
		if (o.mode < 0 || (a >= 0 && t.mode < 0))
			return false;
		if (o.mode == 2 && (t.mode != 2 || t.bit != o.bit))
			return false;
		lanes |= o.mode == 1;
		if (o.mode == 0 && t.mode > 0) {
			if (p->nd == WARP_MAX_DYN)
				return false;
			p->dsrc[p->nd++] = (signed char)b;
		}
	}
	return lanes && layout_nregs(d) << p->nd <= WARP_MAX_SHFL;
}

/* The move an op makes (convert_layout, or an extract marked via_shared
 * with constant indices) as layouts, map and constant offset; false for
 * other ops and dynamic extracts. */
static bool op_move(const Op *op, Layout *s, Layout *d, BitMap *m, int64_t *cadd, int *sbits)
{
	const Value *a = op->operands[0], *b = op->results[0];
	if (!a->lay || !b->lay)
		return false;
	*s = *a->lay;
	*d = *b->lay;
	const Type *st = a->type, *rt = b->type;
	*sbits = ilog2_exact(type_num_elements(st));
	*cadd = 0;
	if (op->info->code == AS_convert_layout)
		return bitmap_identity(m, *sbits);
	if (op->info->code != CT_extract || st->rank > 8 || op->noperands != 1 + st->rank)
		return false;
	int64_t idx[8];
	for (int i = 0; i < st->rank; i++)
		if (!value_const_int(op->operands[1 + i], &idx[i]))
			return false;
	if (!bitmap_extract(m, st->rank, rt->shape, st->shape))
		return false;
	*cadd = extract_offset(st->rank, rt->shape, st->shape, idx);
	return true;
}

static bool op_in_warps(const Op *op)
{
	Layout s, d;
	BitMap m;
	int64_t cadd;
	int sbits;
	WarpPlan p;
	return op_move(op, &s, &d, &m, &cadd, &sbits) && warp_plan(&s, &d, &m, sbits, &p);
}

/* ------------------------------------------------------------ reduce, scan */

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }
int tile_elem_bytes(const Type *tile)
{
	int eb = elem_bytes(tile_elem(tile));
	return eb ? eb : 1;
}

static void thread_bits(const Layout *l, int mode, int nbits_mode, int lo, int nb, unsigned *in, unsigned *rep)
{
	*in = *rep = 0;
	for (int b = 0; b < nbits_mode; b++) {
		int64_t x = layout_eval_mode(l, mode, (int64_t)1 << b);
		if (x == 0)
			*rep |= 1u << b;
		else if (x >= ((int64_t)1 << lo) && x < ((int64_t)1 << (lo + nb)))
			*in |= 1u << b;
	}
}

int plan_warp_bits(const Layout *l) { return ilog2_exact(layout_mode_size(l, 2)); }

bool reduce_info(const Op *op, RInfo *ri)
{
	const Type *t = op->operands[0]->type;
	int dim = (int)op_attr_int(op, "dim", 0);
	ri->src = value_layout(op->operands[0]);
	tile_dim_bits(t->rank, t->shape, dim, &ri->lo, &ri->nb);
	if (!bitmap_reduce(&ri->map, t->rank, t->shape, dim) || !layout_push(&ri->src, &ri->map, &ri->slice))
		return false;
	thread_bits(&ri->src, 1, 5, ri->lo, ri->nb, &ri->lane_k, &ri->lane_rep);
	thread_bits(&ri->src, 2, plan_warp_bits(&ri->src), ri->lo, ri->nb, &ri->warp_k, &ri->warp_rep);
	Layout res = value_layout(op->results[0]);
	ri->round = ri->warp_k != 0 || !layout_equal(&res, &ri->slice);
	return true;
}

static int popcount(unsigned x) { return __builtin_popcount(x); }

/* byte offsets of each operand's array in a reduce/scan buffer of `slots`
 * slots per operand; returns the total */
int64_t operand_offsets(const Op *op, int64_t slots, int64_t *off)
{
	int64_t at = 0;
	for (int i = 0; i < op->noperands; i++) {
		int eb = tile_elem_bytes(op->operands[i]->type);
		at = align_up(at, eb);
		off[i] = at;
		at += slots * eb;
	}
	return at;
}

static int64_t reduce_smem_bytes(Op *op)
{
	RInfo ri;
	if (!reduce_info(op, &ri) || !ri.round)
		return 0;
	int64_t off[64];
	if (op->noperands > 64)
		return 0;
	int64_t slots = ((int64_t)1 << popcount(ri.warp_k)) * type_num_elements(op->results[0]->type);
	return operand_offsets(op, slots, off);
}

bool scan_info(const Op *op, SInfo *si)
{
	const Type *t = op->operands[0]->type;
	memset(si, 0, sizeof *si);
	si->l = value_layout(op->operands[0]);
	tile_dim_bits(t->rank, t->shape, (int)op_attr_int(op, "dim", 0), &si->lo, &si->nb);
	if (!layout_scan_ok(&si->l, si->lo, si->nb))
		return false;
	BitOwner own[BITMAP_MAX];
	if (!layout_bit_owners(&si->l, BITMAP_MAX, own))
		return false;
	bool above = false;
	for (int j = si->lo; j < si->lo + si->nb; j++) {
		if (own[j].mode == 0) {
			if (above)
				si->vh[si->nvh++] = j;
			else
				si->vl[si->nvl++] = j;
		} else if (own[j].mode == 1) {
			if (si->m++ == 0)
				si->a = own[j].bit;
			above = true;
		} else {
			if (si->mw++ == 0)
				si->aw = own[j].bit;
			above = true;
		}
	}
	unsigned in;
	thread_bits(&si->l, 1, 5, si->lo, si->nb, &in, &si->lane_rep);
	thread_bits(&si->l, 2, plan_warp_bits(&si->l), si->lo, si->nb, &in, &si->warp_rep);
	return true;
}

static int64_t scan_smem_bytes(Op *op)
{
	SInfo si;
	if (op->noperands > 64 || !scan_info(op, &si) || si.mw == 0)
		return 0;
	int64_t off[64];
	return operand_offsets(op, type_num_elements(op->operands[0]->type) >> (si.nvl + si.m), off);
}

/* ------------------------------------------------------------ exchange buffer */

/* Bytes an op needs in shared memory; 0 for ops that do not use it. */
int64_t xchg_need(Op *op)
{
	BitOwner os[BITMAP_MAX], od[BITMAP_MAX];
	int nb;
	switch (op->info->code) {
	case AS_convert_layout: {       /* + room for padding (smem_pad: p >= 4) */
		if (!convert_ok(op) || convert_local(op, &nb, os, od) || op_in_warps(op))
			return 0;
		const Type *t = op->results[0]->type;
		int eb = elem_bytes(tile_elem(t));
		int64_t n = type_num_elements(t);
		return (n + n / 16 + 1) * (eb ? eb : 1);
	}
	case CT_extract: {
		if (!op_attr_flag(op, "via_shared") || op_in_warps(op))
			return 0;
		const Type *t = op->operands[0]->type;
		int eb = elem_bytes(tile_elem(t));
		int64_t n = type_num_elements(t);
		return (n + n / 16 + 1) * (eb ? eb : 1);
	}
	case CT_reduce:
		return reduce_smem_bytes(op);
	case CT_scan:
		return scan_smem_bytes(op);
	default:
		return 0;
	}
}
