/* op_reduce.c: cuda_tile.reduce and cuda_tile.scan (op family;
 * docs/lowering.md §8).
 *
 * Both work on the source's register layout, bit by bit of the reduced or
 * scanned dim: the bits held by registers are combined in the thread, the
 * bits held by lanes with warp shuffles, the bits held by warps through one
 * round of shared memory (util_smem.c's exchange buffer). The combiner
 * region is emitted inline for every combination (emit_region_to_yield), with the operands
 * interleaved as the region's arguments are: lhs0, rhs0, lhs1, rhs1, ...
 *
 * reduce: (1) each result register of the slice layout (the source layout
 * with the dim's bits dropped) combines its source registers as a balanced
 * tree in dim order; (2) shfl.sync.bfly over each lane bit of the dim, the
 * lower lane's value as lhs unless the combiner is a single commutative op
 * per operand, so that every lane ends with the same bits; (3) when warps
 * hold part of the dim, or the result's layout is not the slice, one lane
 * per group writes its partial to shared memory at [warp part of the
 * dim][result offset], and after bar.sync each thread combines, in warp
 * order, the partials of the registers of the result layout it holds.
 *
 * scan: the dim is laid out as registers (VL), lanes (L), warps (W),
 * registers (VH), lowest bit first (tile-sched makes it so). (1) a running
 * combine over the VL registers of each segment; (2) a Hillis-Steele scan
 * of the segment totals over the lane bits (shfl.sync.up, or .down for a
 * reverse scan), then each register takes its lane-exclusive prefix; (3)
 * the last lane of each warp's group stores the warp's total, bar.sync,
 * every thread reads the totals of all warps of its group and applies the
 * prefix of the warps before its own; (4) each VH block adds the totals of
 * the VH blocks before it. lhs is always the earlier part in scan order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "diag.h"
#include "xalloc.h"

/* ------------------------------------------------------------ combiner */

static void bind(E *e, Value *arg, LLVMValueRef v)
{
	TV *t = tv_new(e, arg);
	for (int k = 0; k < t->n; k++)
		t->r[k] = v;
	set(e, arg, t);
}

/* out[i] = combiner(lhs, rhs)[i] for the op's n operands. */
static void combine(E *e, Op *op, int n, LLVMValueRef *lhs, LLVMValueRef *rhs, LLVMValueRef *out)
{
	Block *b = op->regions[0].first;
	if (!b || b->nargs != 2 * n)
		ice("tile-ptx: '%s' combiner takes %d arguments, expected %d", op->info->name,
		    b ? b->nargs : 0, 2 * n);
	for (int i = 0; i < n; i++) {
		bind(e, b->args[2 * i], lhs[i]);
		bind(e, b->args[2 * i + 1], rhs[i]);
	}
	Op *y = emit_region_to_yield(e, b);
	if (!y)
		ice("tile-ptx: '%s' combiner without a yield", op->info->name);
	if (y->noperands != n)
		ice("tile-ptx: '%s' combiner yields %d values, expected %d", op->info->name, y->noperands, n);
	for (int i = 0; i < n; i++)
		out[i] = get(e, y->operands[i])->r[0];
}

/* Is the combiner one commutative op per operand (lhs_i op rhs_i)? */
static bool commutative(const Op *op, int n)
{
	Block *b = op->regions[0].first;
	int k = 0;
	FOR_EACH_OP(o, b) {
		if (o->info->code == CT_yield) {
			for (int i = 0; i < n; i++) {
				Op *d = o->operands[i]->def;
				if (!d || d->parent != b || d->noperands != 2)
					return false;
				Value *x = d->operands[0], *y = d->operands[1];
				Value *l = b->args[2 * i], *r = b->args[2 * i + 1];
				if (!((x == l && y == r) || (x == r && y == l)))
					return false;
			}
			return k == n;
		}
		switch (o->info->code) {
		case CT_addf: case CT_addi: case CT_mulf: case CT_muli: case CT_maxf: case CT_minf:
		case CT_maxi: case CT_mini: case CT_andi: case CT_ori: case CT_xori:
			/* no rounding / overflow attributes change commutativity */
			k++;
			break;
		default:
			return false;
		}
	}
	return false;
}

/* Balanced tree over cnt groups of n values (vals[k*n + i]), in order. */
static void tree(E *e, Op *op, int n, int cnt, LLVMValueRef *vals, LLVMValueRef *out)
{
	LLVMValueRef *cur = xmalloc(sizeof *cur * (size_t)(cnt * n + 1));
	memcpy(cur, vals, sizeof *cur * (size_t)(cnt * n));
	while (cnt > 1) {
		int m = 0;
		for (int k = 0; k + 1 < cnt; k += 2, m++)
			combine(e, op, n, cur + k * n, cur + (k + 1) * n, cur + m * n);
		if (cnt & 1) {
			memmove(cur + m * n, cur + (cnt - 1) * n, sizeof *cur * (size_t)n);
			m++;
		}
		cnt = m;
	}
	memcpy(out, cur, sizeof *cur * (size_t)n);
	free(cur);
}

static LLVMValueRef sel_all(E *e, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(e->b, c, a, b, "");
}

/* ------------------------------------------------------------ reduce */

void emit_reduce(E *e, Op *op)
{
	int n = op->noperands;
	RInfo ri;
	if (n < 1 || n > 64 || op->nresults != n || !reduce_info(op, &ri)) {
		unsupported(e, op, "this reduction");
		return;
	}
	TV *src[64], *res[64];
	for (int i = 0; i < n; i++) {
		src[i] = get(e, op->operands[i]);
		res[i] = tv_new(e, op->results[i]);
	}
	int64_t ns = layout_nregs(&ri.src), nsl = layout_nregs(&ri.slice);
	int64_t kmask = (((int64_t)1 << ri.nb) - 1) << ri.lo;
	/* (1) in the thread: each slice register's source registers, in dim order */
	LLVMValueRef *part = xmalloc(sizeof *part * (size_t)(nsl * n + 1));
	LLVMValueRef *grp = xmalloc(sizeof *grp * (size_t)(ns * n + 1));
	int64_t *regs = xmalloc(sizeof *regs * (size_t)(ns + 1));
	for (int64_t r = 0; r < nsl; r++) {
		int64_t want = layout_eval_mode(&ri.slice, 0, r);
		int cnt = 0;
		for (int64_t c = 0; c < ns; c++)
			if (layout_reg_is_primary(&ri.src, c) &&
			    bitmap_apply(&ri.map, layout_eval_mode(&ri.src, 0, c)) == want)
				regs[cnt++] = c;
		if (cnt == 0)
			ice("tile-ptx: reduce: slice register %lld has no source", (long long)r);
		/* dim order */
		for (int a = 1; a < cnt; a++)
			for (int b = a; b > 0 && (layout_eval_mode(&ri.src, 0, regs[b - 1]) & kmask) >
						   (layout_eval_mode(&ri.src, 0, regs[b]) & kmask); b--) {
				int64_t t = regs[b];
				regs[b] = regs[b - 1];
				regs[b - 1] = t;
			}
		for (int k = 0; k < cnt; k++)
			for (int i = 0; i < n; i++)
				grp[k * n + i] = src[i]->r[regs[k]];
		tree(e, op, n, cnt, grp, part + r * n);
	}
	/* (2) lanes. The partials' layout as bits: register bit i holds offset
	 * stride vstr[i], lane bit b lstr[b], warp bit b wstr[b] (0: none). */
	bool comm = commutative(op, n);
	int64_t vstr[BITMAP_MAX], lstr[5], wstr[8];
	int nv = 0, nw = plan_warp_bits(&ri.slice);
	for (int i = ri.slice.begin[0]; i < ri.slice.begin[1]; i++)
		for (int64_t s = 1; s < ri.slice.shape[i]; s <<= 1)
			vstr[nv++] = ri.slice.stride[i] * s;
	for (int b = 0; b < 5; b++)
		lstr[b] = layout_eval_mode(&ri.slice, 1, (int64_t)1 << b);
	for (int b = 0; b < nw; b++)
		wstr[b] = layout_eval_mode(&ri.slice, 2, (int64_t)1 << b);
	int64_t np = nsl;
	for (int b = 0; b < 5; b++) {
		if (!(ri.lane_k & (1u << b)))
			continue;
		LLVMValueRef upper = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, e->lane, c_i32(e, 1 << b), ""),
						   c_i32(e, 0), "");
		if (ri.round && nv > 0) {
			/* reduce-scatter: the lower lane keeps the registers with the
			 * top register bit 0, the upper lane those with it 1; each
			 * sends the other half. Lane bit b then stands for that bit. */
			int64_t half = np / 2;
			for (int64_t r = 0; r < half; r++) {
				LLVMValueRef keep[64], recv[64], lhs[64], rhs[64];
				for (int i = 0; i < n; i++) {
					LLVMValueRef lo = part[r * n + i], hi = part[(r + half) * n + i];
					LLVMValueRef send = sel_all(e, upper, lo, hi);
					keep[i] = sel_all(e, upper, hi, lo);
					recv[i] = warp_shfl(e, "bfly", send, c_i32(e, 1 << b));
					lhs[i] = comm ? keep[i] : sel_all(e, upper, recv[i], keep[i]);
					rhs[i] = comm ? recv[i] : sel_all(e, upper, keep[i], recv[i]);
				}
				combine(e, op, n, lhs, rhs, part + r * n);
			}
			np = half;
			lstr[b] = vstr[--nv];
			continue;
		}
		/* butterfly: every lane of the pair ends with the same value */
		for (int64_t r = 0; r < np; r++) {
			LLVMValueRef mine[64], other[64], lhs[64], rhs[64];
			for (int i = 0; i < n; i++) {
				mine[i] = part[r * n + i];
				other[i] = warp_shfl(e, "bfly", mine[i], c_i32(e, 1 << b));
				lhs[i] = comm ? mine[i] : sel_all(e, upper, other[i], mine[i]);
				rhs[i] = comm ? other[i] : sel_all(e, upper, mine[i], other[i]);
			}
			combine(e, op, n, lhs, rhs, part + r * n);
		}
	}
	/* (3) warps, or a result layout other than the slice: shared memory */
	if (!ri.round) {
		for (int i = 0; i < n; i++)
			for (int64_t r = 0; r < nsl; r++)
				res[i]->r[r] = part[r * n + i];
	} else {
		/* the partials' layout now */
		Layout pl;
		int64_t two[BITMAP_MAX + 5], st[BITMAP_MAX + 5];
		layout_init(&pl);
		for (int i = 0; i < BITMAP_MAX + 5; i++)
			two[i] = 2;
		if (nv == 0) {
			int64_t one = 1, zero = 0;
			layout_add_mode(&pl, 1, &one, &zero);
		} else {
			layout_add_mode(&pl, nv, two, vstr);
		}
		layout_add_mode(&pl, 5, two, lstr);
		for (int b = 0; b < nw; b++)
			st[b] = wstr[b];
		if (nw == 0) {
			int64_t one = 1, zero = 0;
			layout_add_mode(&pl, 1, &one, &zero);
		} else {
			layout_add_mode(&pl, nw, two, st);
		}
		layout_canonicalize(&pl);
		int64_t R = type_num_elements(op->results[0]->type);
		int nwk = 1 << __builtin_popcount(ri.warp_k);
		int64_t off[64];
		operand_offsets(op, nwk * R, off);
		LLVMValueRef base = xchg_begin(e, op);
		/* this warp's index among the warps of the dim */
		LLVMValueRef wk = c_i32(e, 0);
		for (int b = 0, t = 0; b < 5; b++)
			if (ri.warp_k & (1u << b)) {
				LLVMValueRef bit = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, e->warp, c_i32(e, b), ""), c_i32(e, 1), "");
				wk = LLVMBuildOr(e->b, wk, LLVMBuildShl(e->b, bit, c_i32(e, t++), ""), "");
			}
		/* one writer per partial: lanes and warps that only repeat it stay out */
		unsigned lm = 0, wm = 0;
		for (int b = 0; b < 5; b++)
			if (lstr[b] == 0)
				lm |= 1u << b;
		for (int b = 0; b < nw; b++)
			if (wstr[b] == 0 && !(ri.warp_k & (1u << b)))
				wm |= 1u << b;
		LLVMValueRef pred = NULL;
		if (lm)
			pred = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, e->lane, c_i32(e, lm), ""), c_i32(e, 0), "");
		if (wm) {
			LLVMValueRef p = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, e->warp, c_i32(e, wm), ""), c_i32(e, 0), "");
			pred = pred ? LLVMBuildAnd(e->b, pred, p, "") : p;
		}
		LLVMValueRef wkR = LLVMBuildMul(e->b, wk, c_i32(e, R), "");
		for (int64_t r = 0; r < np; r++) {
			LLVMValueRef slot = LLVMBuildAdd(e->b, wkR, elem_offset(e, &pl, r), "");
			for (int i = 0; i < n; i++) {
				int eb = tile_elem_bytes(op->operands[i]->type);
				LLVMValueRef bo = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, slot, c_i32(e, eb), ""), c_i32(e, off[i]), "");
				xchg_store(e, base, bo, part[r * n + i], tile_elem(op->operands[i]->type), pred);
			}
		}
		barrier(e);
		LLVMValueRef *w = xmalloc(sizeof *w * (size_t)(nwk * n + 1));
		for (int q = 0; q < res[0]->n; q++) {
			LLVMValueRef eq = elem_offset(e, &res[0]->lay, q);
			for (int k = 0; k < nwk; k++) {
				LLVMValueRef slot = LLVMBuildAdd(e->b, eq, c_i32(e, (int64_t)k * R), "");
				for (int i = 0; i < n; i++) {
					int eb = tile_elem_bytes(op->operands[i]->type);
					LLVMValueRef bo = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, slot, c_i32(e, eb), ""), c_i32(e, off[i]), "");
					w[k * n + i] = xchg_load(e, base, bo, tile_elem(op->operands[i]->type));
				}
			}
			LLVMValueRef out[64];
			tree(e, op, n, nwk, w, out);
			for (int i = 0; i < n; i++)
				res[i]->r[q] = out[i];
		}
		free(w);
	}
	for (int i = 0; i < n; i++)
		set(e, op->results[i], res[i]);
	free(part);
	free(grp);
	free(regs);
}

/* ------------------------------------------------------------ scan */

static int64_t bits_of(int64_t x, const int *pos, int n)
{
	int64_t r = 0;
	for (int t = 0; t < n; t++)
		r |= ((x >> pos[t]) & 1) << t;
	return r;
}

void emit_scan(E *e, Op *op)
{
	int n = op->noperands;
	SInfo si;
	if (n < 1 || n > 64 || op->nresults != n || !scan_info(op, &si)) {
		unsupported(e, op, "a scan in this layout");
		return;
	}
	bool rev = op_attr_flag(op, "reverse");
	TV *src[64], *res[64];
	for (int i = 0; i < n; i++) {
		src[i] = get(e, op->operands[i]);
		res[i] = tv_new(e, op->results[i]);
		if (!layout_equal(&src[i]->lay, &res[i]->lay))
			ice("tile-ptx: scan operand and result layouts differ");
	}
	int64_t nr = layout_nregs(&si.l);
	int64_t kmask = (((int64_t)1 << si.nb) - 1) << si.lo;
	/* registers: working values, grouping */
	LLVMValueRef *x = xmalloc(sizeof *x * (size_t)(nr * n + 1));
	int64_t *other = xmalloc(sizeof *other * (size_t)(nr + 1)), *vlc = xmalloc(sizeof *vlc * (size_t)(nr + 1)),
		*vhc = xmalloc(sizeof *vhc * (size_t)(nr + 1)), *gid = xmalloc(sizeof *gid * (size_t)(nr + 1));
	int64_t nvl_max = (int64_t)1 << si.nvl, nvh_max = (int64_t)1 << si.nvh;
	for (int64_t c = 0; c < nr; c++) {
		int64_t v = layout_eval_mode(&si.l, 0, c);
		other[c] = v & ~kmask;
		vlc[c] = bits_of(v, si.vl, si.nvl);
		vhc[c] = bits_of(v, si.vh, si.nvh);
		if (rev) {
			vlc[c] = nvl_max - 1 - vlc[c];
			vhc[c] = nvh_max - 1 - vhc[c];
		}
		for (int i = 0; i < n; i++)
			x[c * n + i] = src[i]->r[c];
	}
	/* groups: primary registers with the same (other, vh); members by vl */
	int64_t ng = 0;
	int64_t *g_other = xmalloc(sizeof *g_other * (size_t)(nr + 1)), *g_vh = xmalloc(sizeof *g_vh * (size_t)(nr + 1));
	int64_t *member = xmalloc(sizeof *member * (size_t)(nr * nvl_max + 1));
	for (int64_t k = 0; k < nr * nvl_max; k++)
		member[k] = -1;
	for (int64_t c = 0; c < nr; c++) {
		gid[c] = -1;
		if (!layout_reg_is_primary(&si.l, c))
			continue;
		int64_t g = 0;
		while (g < ng && !(g_other[g] == other[c] && g_vh[g] == vhc[c]))
			g++;
		if (g == ng) {
			g_other[ng] = other[c];
			g_vh[ng] = vhc[c];
			ng++;
		}
		gid[c] = g;
		member[g * nvl_max + vlc[c]] = c;
	}
	LLVMValueRef *tot = xmalloc(sizeof *tot * (size_t)(ng * n + 1));   /* segment / group totals */
	/* (1) registers below the lanes: running combine in scan order */
	for (int64_t g = 0; g < ng; g++) {
		int64_t prev = -1;
		for (int64_t v = 0; v < nvl_max; v++) {
			int64_t c = member[g * nvl_max + v];
			if (c < 0)
				ice("tile-ptx: scan: a segment misses a register");
			if (prev >= 0)
				combine(e, op, n, x + prev * n, x + c * n, x + c * n);
			prev = c;
		}
		memcpy(tot + g * n, x + prev * n, sizeof *tot * (size_t)n);
	}
	/* (2) lanes */
	LLVMValueRef pl = NULL;
	if (si.m > 0) {
		int64_t mm = ((int64_t)1 << si.m) - 1;
		LLVMValueRef cl = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, e->lane, c_i32(e, si.a), ""), c_i32(e, mm), "");
		pl = rev ? LLVMBuildSub(e->b, c_i32(e, mm), cl, "") : cl;
		const char *dir = rev ? "down" : "up";
		LLVMValueRef has_prev = LLVMBuildICmp(e->b, LLVMIntUGE, pl, c_i32(e, 1), "");
		for (int64_t g = 0; g < ng; g++) {
			LLVMValueRef *t = tot + g * n, y[64], c2[64], ex[64];
			for (int j = 0; j < si.m; j++) {
				LLVMValueRef ok = LLVMBuildICmp(e->b, LLVMIntUGE, pl, c_i32(e, 1 << j), "");
				for (int i = 0; i < n; i++)
					y[i] = warp_shfl(e, dir, t[i], c_i32(e, 1 << (si.a + j)));
				combine(e, op, n, y, t, c2);
				for (int i = 0; i < n; i++)
					t[i] = sel_all(e, ok, c2[i], t[i]);
			}
			/* exclusive prefix from the previous lane, applied to the segment */
			for (int i = 0; i < n; i++)
				ex[i] = warp_shfl(e, dir, t[i], c_i32(e, 1 << si.a));
			for (int64_t v = 0; v < nvl_max; v++) {
				int64_t c = member[g * nvl_max + v];
				combine(e, op, n, ex, x + c * n, c2);
				for (int i = 0; i < n; i++)
					x[c * n + i] = sel_all(e, has_prev, c2[i], x[c * n + i]);
			}
		}
	}
	/* (3) warps: the last lane of each group stores the warp total */
	int s = si.nvl + si.m;
	LLVMValueRef *all = xmalloc(sizeof *all * (size_t)(ng * n + 1));   /* totals of whole VH blocks */
	if (si.mw > 0) {
		int64_t slots = type_num_elements(op->operands[0]->type) >> s;
		int64_t off[64];
		operand_offsets(op, slots, off);
		LLVMValueRef base = xchg_begin(e, op);
		int64_t wmx = ((int64_t)1 << si.mw) - 1;
		LLVMValueRef cw = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, e->warp, c_i32(e, si.aw), ""), c_i32(e, wmx), "");
		LLVMValueRef pw = rev ? LLVMBuildSub(e->b, c_i32(e, wmx), cw, "") : cw;
		LLVMValueRef pred = NULL;
		if (pl)
			pred = LLVMBuildICmp(e->b, LLVMIntEQ, pl, c_i32(e, ((int64_t)1 << si.m) - 1), "");
		if (si.lane_rep) {
			LLVMValueRef p = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, e->lane, c_i32(e, si.lane_rep), ""), c_i32(e, 0), "");
			pred = pred ? LLVMBuildAnd(e->b, pred, p, "") : p;
		}
		if (si.warp_rep) {
			LLVMValueRef p = LLVMBuildICmp(e->b, LLVMIntEQ, LLVMBuildAnd(e->b, e->warp, c_i32(e, si.warp_rep), ""), c_i32(e, 0), "");
			pred = pred ? LLVMBuildAnd(e->b, pred, p, "") : p;
		}
		int64_t lowmask = ((int64_t)1 << si.lo) - 1;
		LLVMValueRef *idx0 = xmalloc(sizeof *idx0 * (size_t)(ng + 1));
		for (int64_t g = 0; g < ng; g++) {
			LLVMValueRef o = elem_offset(e, &si.l, member[g * nvl_max]);
			LLVMValueRef hi = LLVMBuildShl(e->b, LLVMBuildLShr(e->b, o, c_i32(e, si.lo + s), ""), c_i32(e, si.lo), "");
			LLVMValueRef idx = LLVMBuildOr(e->b, hi, LLVMBuildAnd(e->b, o, c_i32(e, lowmask), ""), "");
			idx0[g] = LLVMBuildAnd(e->b, idx, c_i32(e, ~(wmx << si.lo)), "");
			for (int i = 0; i < n; i++) {
				int eb = tile_elem_bytes(op->operands[i]->type);
				LLVMValueRef bo = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, idx, c_i32(e, eb), ""), c_i32(e, off[i]), "");
				xchg_store(e, base, bo, tot[g * n + i], tile_elem(op->operands[i]->type), pred);
			}
		}
		barrier(e);
		LLVMValueRef has_prev = LLVMBuildICmp(e->b, LLVMIntUGE, pw, c_i32(e, 1), "");
		for (int64_t g = 0; g < ng; g++) {
			LLVMValueRef T[64], P[64], Pw[64], c2[64];
			int nw = 1 << si.mw;
			for (int t = 0; t < nw; t++) {
				int w = rev ? nw - 1 - t : t;     /* t-th warp in scan order */
				LLVMValueRef slot = LLVMBuildOr(e->b, idx0[g], c_i32(e, (int64_t)w << si.lo), "");
				for (int i = 0; i < n; i++) {
					int eb = tile_elem_bytes(op->operands[i]->type);
					LLVMValueRef bo = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, slot, c_i32(e, eb), ""), c_i32(e, off[i]), "");
					T[i] = xchg_load(e, base, bo, tile_elem(op->operands[i]->type));
				}
				if (t == 0) {
					memcpy(P, T, sizeof *P * (size_t)n);
					memcpy(Pw, T, sizeof *Pw * (size_t)n);
					continue;
				}
				/* P = prefix of the warps before t; Pw picks it for pw == t */
				LLVMValueRef here = LLVMBuildICmp(e->b, LLVMIntEQ, pw, c_i32(e, t), "");
				for (int i = 0; i < n; i++)
					Pw[i] = sel_all(e, here, P[i], Pw[i]);
				combine(e, op, n, P, T, P);
			}
			memcpy(all + g * n, P, sizeof *P * (size_t)n);
			for (int64_t v = 0; v < nvl_max; v++) {
				int64_t c = member[g * nvl_max + v];
				combine(e, op, n, Pw, x + c * n, c2);
				for (int i = 0; i < n; i++)
					x[c * n + i] = sel_all(e, has_prev, c2[i], x[c * n + i]);
			}
		}
		free(idx0);
	} else {
		for (int64_t g = 0; g < ng; g++)
			for (int i = 0; i < n; i++) {
				LLVMValueRef t = tot[g * n + i];
				if (si.m > 0) {
					/* the group's last lane (in scan order) has the total */
					int64_t mm = ((int64_t)1 << si.m) - 1;
					LLVMValueRef srcl = LLVMBuildAnd(e->b, e->lane, c_i32(e, ~(mm << si.a)), "");
					if (!rev)
						srcl = LLVMBuildOr(e->b, srcl, c_i32(e, mm << si.a), "");
					t = warp_shfl(e, "idx", t, srcl);
				}
				all[g * n + i] = t;
			}
	}
	/* (4) registers above the warps: the totals of the blocks before */
	if (si.nvh > 0) {
		bool *done = xcalloc((size_t)ng + 1, 1);
		for (int64_t g0 = 0; g0 < ng; g0++) {
			if (done[g0])
				continue;
			/* the groups of this row, by vh in scan order */
			int64_t *row = xmalloc(sizeof *row * (size_t)(nvh_max + 1));
			for (int64_t v = 0; v < nvh_max; v++)
				row[v] = -1;
			for (int64_t g = 0; g < ng; g++)
				if (g_other[g] == g_other[g0]) {
					row[g_vh[g]] = g;
					done[g] = true;
				}
			LLVMValueRef Q[64];
			for (int64_t v = 0; v < nvh_max; v++) {
				int64_t g = row[v];
				if (g < 0)
					ice("tile-ptx: scan: a block misses its registers");
				if (v > 0)
					for (int64_t u = 0; u < nvl_max; u++) {
						int64_t c = member[g * nvl_max + u];
						combine(e, op, n, Q, x + c * n, x + c * n);
					}
				if (v == 0)
					memcpy(Q, all + g * n, sizeof *Q * (size_t)n);
				else
					combine(e, op, n, Q, all + g * n, Q);
			}
			free(row);
		}
		free(done);
	}
	/* results; duplicated registers copy their primary */
	for (int64_t c = 0; c < nr; c++) {
		int64_t from = c;
		if (gid[c] < 0) {
			int64_t v = layout_eval_mode(&si.l, 0, c);
			for (int64_t d = 0; d < nr; d++)
				if (gid[d] >= 0 && layout_eval_mode(&si.l, 0, d) == v) {
					from = d;
					break;
				}
		}
		for (int i = 0; i < n; i++)
			res[i]->r[c] = x[from * n + i];
	}
	for (int i = 0; i < n; i++)
		set(e, op->results[i], res[i]);
	free(x);
	free(other);
	free(vlc);
	free(vhc);
	free(gid);
	free(g_other);
	free(g_vh);
	free(member);
	free(tot);
	free(all);
}
