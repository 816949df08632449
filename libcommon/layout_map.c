/* layout_map.c: bit maps between tile offsets and their action on register
 * layouts (see layout_map.h). */
#include <stdlib.h>
#include <string.h>
#include "layout_map.h"

int ilog2_exact(int64_t x)
{
	if (x <= 0 || (x & (x - 1)))
		return -1;
	int n = 0;
	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

int64_t bitmap_apply(const BitMap *m, int64_t x)
{
	int64_t r = 0;
	for (int i = 0; i < m->nbits && x; i++, x >>= 1)
		if ((x & 1) && m->to[i] >= 0)
			r |= (int64_t)1 << m->to[i];
	return r;
}

/* bits per dim and the lowest offset bit of each dim (row-major) */
static bool dim_bits(int rank, const int64_t *shape, int *nb, int *lo, int *total)
{
	if (rank < 0 || rank > 8)
		return false;
	int at = 0;
	for (int d = rank - 1; d >= 0; d--) {
		nb[d] = ilog2_exact(shape[d]);
		if (nb[d] < 0)
			return false;
		lo[d] = at;
		at += nb[d];
	}
	if (at > BITMAP_MAX)
		return false;
	*total = at;
	return true;
}

void tile_dim_bits(int rank, const int64_t *shape, int dim, int *lo, int *nb)
{
	int n[8], l[8], t;
	if (!dim_bits(rank, shape, n, l, &t) || dim < 0 || dim >= rank) {
		*lo = *nb = 0;
		return;
	}
	*lo = l[dim];
	*nb = n[dim];
}

static void map_init(BitMap *m, int nbits)
{
	m->nbits = nbits;
	memset(m->to, -1, sizeof m->to);
}

bool bitmap_identity(BitMap *m, int nbits)
{
	if (nbits < 0 || nbits > BITMAP_MAX)
		return false;
	map_init(m, nbits);
	for (int i = 0; i < nbits; i++)
		m->to[i] = (signed char)i;
	return true;
}

bool bitmap_broadcast(BitMap *m, int rank, const int64_t *res_shape, const int64_t *src_shape)
{
	int rn[8], rl[8], sn[8], sl[8], rt, st;
	if (!dim_bits(rank, res_shape, rn, rl, &rt) || !dim_bits(rank, src_shape, sn, sl, &st))
		return false;
	map_init(m, rt);
	for (int d = 0; d < rank; d++) {
		if (sn[d] != rn[d] && sn[d] != 0)
			return false;
		for (int b = 0; b < rn[d] && sn[d]; b++)
			m->to[rl[d] + b] = (signed char)(sl[d] + b);
	}
	return true;
}

bool bitmap_permute(BitMap *m, int rank, const int64_t *src_shape, const int64_t *perm)
{
	int64_t res[8];
	int rn[8], rl[8], sn[8], sl[8], rt, st;
	if (rank < 1 || rank > 8)
		return false;
	for (int i = 0; i < rank; i++) {
		if (perm[i] < 0 || perm[i] >= rank)
			return false;
		res[i] = src_shape[perm[i]];
	}
	if (!dim_bits(rank, res, rn, rl, &rt) || !dim_bits(rank, src_shape, sn, sl, &st))
		return false;
	map_init(m, rt);
	for (int i = 0; i < rank; i++)
		for (int b = 0; b < rn[i]; b++)
			m->to[rl[i] + b] = (signed char)(sl[perm[i]] + b);
	return true;
}

bool bitmap_reduce(BitMap *m, int rank, const int64_t *src_shape, int dim)
{
	int sn[8], sl[8], st;
	if (dim < 0 || dim >= rank || !dim_bits(rank, src_shape, sn, sl, &st))
		return false;
	map_init(m, st);
	for (int d = 0; d < rank; d++)
		for (int b = 0; b < sn[d]; b++)
			m->to[sl[d] + b] = d == dim ? -1 : (signed char)(d < dim ? sl[d] + b - sn[dim] : sl[d] + b);
	return true;
}

bool bitmap_cat(BitMap *m, int rank, const int64_t *op_shape, int dim, bool region)
{
	int64_t res[8];
	int rn[8], rl[8], on[8], ol[8], rt, ot;
	if (dim < 0 || dim >= rank || rank > 8)
		return false;
	for (int d = 0; d < rank; d++)
		res[d] = op_shape[d] * (d == dim ? 2 : 1);
	if (!dim_bits(rank, res, rn, rl, &rt) || !dim_bits(rank, op_shape, on, ol, &ot))
		return false;
	map_init(m, rt);
	for (int d = 0; d < rank; d++) {
		for (int b = 0; b < on[d]; b++)
			m->to[rl[d] + b] = (signed char)(ol[d] + b);
		if (d == dim)
			m->to[rl[d] + on[d]] = region ? (signed char)ot : -1;
	}
	return true;
}

bool bitmap_extract(BitMap *m, int rank, const int64_t *res_shape, const int64_t *src_shape)
{
	int rn[8], rl[8], sn[8], sl[8], rt, st;
	if (!dim_bits(rank, res_shape, rn, rl, &rt) || !dim_bits(rank, src_shape, sn, sl, &st))
		return false;
	map_init(m, rt);
	for (int d = 0; d < rank; d++) {
		if (rn[d] > sn[d])
			return false;
		for (int b = 0; b < rn[d]; b++)
			m->to[rl[d] + b] = (signed char)(sl[d] + b);
	}
	return true;
}

int64_t extract_offset(int rank, const int64_t *res_shape, const int64_t *src_shape, const int64_t *idx)
{
	int64_t off = 0;
	for (int d = 0; d < rank; d++)
		off = off * src_shape[d] + idx[d] * res_shape[d];
	return off;
}

/* ------------------------------------------------------------ layouts */

bool layout_push(const Layout *l, const BitMap *m, Layout *out)
{
	Layout r;
	layout_init(&r);
	for (int mode = 0; mode < l->nmodes; mode++) {
		int64_t ls[LAYOUT_MAX_LEAVES], ld[LAYOUT_MAX_LEAVES];
		int k = 0;
		for (int i = l->begin[mode]; i < l->begin[mode + 1]; i++) {
			int64_t s = l->shape[i], d = l->stride[i];
			if (s == 1)
				continue;
			int bs = ilog2_exact(s);
			if (bs < 0)
				return false;
			if (d == 0) {
				if (mode != 0) {
					if (k >= LAYOUT_MAX_LEAVES)
						return false;
					ls[k] = s;
					ld[k++] = 0;
				}
				continue;
			}
			int bd = ilog2_exact(d);
			if (bd < 0)
				return false;
			for (int b = 0; b < bs; b++) {
				int j = bd + b;
				int t = j < m->nbits ? m->to[j] : -1;
				if (t < 0 && mode == 0)
					continue;
				if (k >= LAYOUT_MAX_LEAVES)
					return false;
				ls[k] = 2;
				ld[k++] = t < 0 ? 0 : (int64_t)1 << t;
			}
		}
		if (!layout_add_mode(&r, k, ls, ld))
			return false;
	}
	layout_canonicalize(&r);
	*out = r;
	return true;
}

bool layout_gather_map(const Layout *src, const Layout *dst, const BitMap *m, int64_t add,
		       int64_t *regs)
{
	if (src->nmodes != 3 || dst->nmodes != 3)
		return false;
	/* the thread part must map exactly: every lane and warp bit */
	for (int mode = 1; mode <= 2; mode++) {
		int64_t nd = layout_mode_size(dst, mode), ns = layout_mode_size(src, mode);
		if (nd != ns)
			return false;
		for (int64_t c = 1; c < nd; c <<= 1)
			if (bitmap_apply(m, layout_eval_mode(dst, mode, c)) != layout_eval_mode(src, mode, c))
				return false;
	}
	/* and a whole check of every thread against register 0 (cheap) */
	for (int64_t w = 0; w < layout_mode_size(dst, 2); w++)
		for (int64_t lane = 0; lane < 32; lane++) {
			int64_t dc[3] = { 0, lane, w }, sc[3] = { 0, lane, w };
			if (bitmap_apply(m, layout_eval_modes(dst, dc)) !=
			    layout_eval_modes(src, sc) - layout_eval_mode(src, 0, 0) + bitmap_apply(m, layout_eval_mode(dst, 0, 0)))
				return false;
		}
	int64_t ns = layout_nregs(src), nd = layout_nregs(dst);
	int64_t cos = 1;
	for (int64_t c = 0; c < ns; c++) {
		int64_t x = layout_eval_mode(src, 0, c);
		if (x + 1 > cos)
			cos = x + 1;
	}
	int64_t *at = NULL;
	if (cos <= ((int64_t)1 << 22)) {
		at = malloc(sizeof *at * (size_t)cos);
		if (at) {
			for (int64_t i = 0; i < cos; i++)
				at[i] = -1;
			for (int64_t c = ns - 1; c >= 0; c--)
				at[layout_eval_mode(src, 0, c)] = c;
		}
	}
	bool ok = true;
	for (int64_t r = 0; r < nd && ok; r++) {
		int64_t want = bitmap_apply(m, layout_eval_mode(dst, 0, r)) | add;
		int64_t found = -1;
		if (at) {
			if (want >= 0 && want < cos)
				found = at[want];
		} else {
			for (int64_t c = 0; c < ns && found < 0; c++)
				if (layout_eval_mode(src, 0, c) == want)
					found = c;
		}
		if (found < 0)
			ok = false;
		else
			regs[r] = found;
	}
	free(at);
	return ok;
}

bool layout_bit_owners(const Layout *l, int nbits, BitOwner *own)
{
	for (int j = 0; j < nbits; j++)
		own[j].mode = own[j].bit = -1;
	for (int mode = 0; mode < l->nmodes && mode < 3; mode++) {
		int cb = 0;
		for (int i = l->begin[mode]; i < l->begin[mode + 1]; i++) {
			int bs = ilog2_exact(l->shape[i]);
			if (bs < 0)
				return false;
			if (l->stride[i] == 0) {
				cb += bs;
				continue;
			}
			int bd = ilog2_exact(l->stride[i]);
			if (bd < 0)
				return false;
			for (int b = 0; b < bs; b++) {
				int j = bd + b;
				if (j >= nbits || own[j].mode != -1)
					return false;
				own[j].mode = (signed char)mode;
				own[j].bit = (signed char)(cb + b);
			}
			cb += bs;
		}
	}
	return true;
}

bool layout_scan_ok(const Layout *l, int lo, int nb)
{
	BitOwner own[BITMAP_MAX];
	if (lo + nb > BITMAP_MAX || !layout_bit_owners(l, BITMAP_MAX, own))
		return false;
	int phase = 0, last = -1;    /* 0 low registers, 1 lanes, 2 warps, 3 high registers */
	for (int j = lo; j < lo + nb; j++) {
		int m = own[j].mode;
		if (m < 0)
			return false;
		if (m == 0) {
			if (phase == 1 || phase == 2)
				phase = 3;
			continue;
		}
		int want_phase = m;     /* 1 lanes, 2 warps */
		if (phase > want_phase)
			return false;
		if (phase == want_phase && own[j].bit != last + 1)
			return false;
		phase = want_phase;
		last = own[j].bit;
	}
	return true;
}

bool layout_expand(const Layout *l, int k, Layout *out)
{
	if (l->nmodes != 3 || k < 0 || k > 6)
		return false;
	Layout r;
	layout_init(&r);
	int64_t f = (int64_t)1 << k;
	for (int mode = 0; mode < 3; mode++) {
		int64_t ls[LAYOUT_MAX_LEAVES], ld[LAYOUT_MAX_LEAVES];
		int n = 0;
		if (mode == 0) {
			ls[n] = f;
			ld[n++] = 1;
		}
		for (int i = l->begin[mode]; i < l->begin[mode + 1]; i++) {
			if (n >= LAYOUT_MAX_LEAVES)
				return false;
			ls[n] = l->shape[i];
			ld[n++] = l->stride[i] * f;
		}
		layout_add_mode(&r, n, ls, ld);
	}
	layout_canonicalize(&r);
	*out = r;
	return true;
}

bool layout_contract(const Layout *l, int k, Layout *out)
{
	if (l->nmodes != 3 || k < 0 || k > 6)
		return false;
	int64_t f = (int64_t)1 << k;
	int b0 = l->begin[0];
	if (k > 0 && (l->stride[b0] != 1 || l->shape[b0] % f != 0))
		return false;
	Layout r;
	layout_init(&r);
	for (int mode = 0; mode < 3; mode++) {
		int64_t ls[LAYOUT_MAX_LEAVES], ld[LAYOUT_MAX_LEAVES];
		int n = 0;
		for (int i = l->begin[mode]; i < l->begin[mode + 1]; i++) {
			int64_t s = l->shape[i], d = l->stride[i];
			if (mode == 0 && i == b0 && k > 0) {
				s /= f;
				d = 1;
			} else if (d != 0) {
				if (d % f)
					return false;
				d /= f;
			}
			ls[n] = s;
			ld[n++] = d;
		}
		layout_add_mode(&r, n, ls, ld);
	}
	layout_canonicalize(&r);
	*out = r;
	return true;
}

/* ------------------------------------------------------------ shared-memory banks */

/* Bank positions in element-offset space for elements of eb bytes: offset
 * bits [blo, blo + nbank) choose the bank (the word for eb <= 4, the bank
 * pair for 8-byte elements); bits below blo stay in one word; lanes
 * considered: the first `lanes` lane bits (64-bit accesses go in two
 * half-warp phases). */
void smem_banks(int eb, int *blo, int *nbank, int *lanes)
{
	if (eb >= 8) {
		*blo = 0;
		*nbank = 4;
		*lanes = 4;
		return;
	}
	*blo = eb == 4 ? 0 : eb == 2 ? 1 : 2;
	*nbank = 5;
	*lanes = 5;
}

static int rank_of(int n, const unsigned *v)
{
	unsigned basis[32] = {0};
	int r = 0;
	for (int i = 0; i < n; i++) {
		unsigned x = v[i];
		for (int b = 31; b >= 0 && x; b--) {
			if (!((x >> b) & 1))
				continue;
			if (!basis[b]) {
				basis[b] = x;
				r++;
				x = 0;
			} else {
				x ^= basis[b];
			}
		}
	}
	return r;
}

/* Bank vectors of one phase (lane address bits pos[], -1 = none);
 * unassigned high bits are skipped. */
static int phase_vectors(const int *pos, int nlanes, int blo, int nbank, const unsigned *sw,
			 const bool *set, unsigned *out)
{
	int n = 0;
	for (int i = 0; i < nlanes; i++) {
		int p = pos[i];
		if (p < 0 || p < blo)
			continue;
		if (p < blo + nbank)
			out[n++] = 1u << (p - blo);
		else if (set[p])
			out[n++] = sw[p];
	}
	return n;
}

static bool phase_ok(const int *pos, int nlanes, int blo, int nbank, const unsigned *sw)
{
	bool set[64];
	for (int i = 0; i < 64; i++)
		set[i] = true;
	unsigned v[8];
	int n = phase_vectors(pos, nlanes, blo, nbank, sw, set, v);
	for (int i = 0; i < n; i++)
		if (!v[i])
			return false;
	return rank_of(n, v) == n;
}

void smem_swizzle(int eb, int nphases, int (*phases)[5], unsigned *sw, int abits)
{
	int blo, nbank, lanes;
	smem_banks(eb, &blo, &nbank, &lanes);
	bool set[64] = {0};
	memset(sw, 0, sizeof *sw * 64);
	for (int k = 0; k < nphases; k++) {
		for (int i = 0; i < lanes; i++) {
			int p = phases[k][i];
			if (p < blo + nbank || p >= abits || set[p])
				continue;
			unsigned cur[8];
			int n = phase_vectors(phases[k], lanes, blo, nbank, sw, set, cur);
			unsigned pick = 0;
			for (int t = 0; t < nbank && !pick; t++) {       /* one bank bit: one XOR */
				cur[n] = 1u << t;
				if (rank_of(n + 1, cur) == n + 1)
					pick = cur[n];
			}
			for (unsigned c = 1; c < (1u << nbank) && !pick; c++) {
				cur[n] = c;
				if (rank_of(n + 1, cur) == n + 1)
					pick = c;
			}
			sw[p] = pick;
			set[p] = true;
		}
	}
	for (int k = 0; k < nphases; k++)
		if (!phase_ok(phases[k], lanes, blo, nbank, sw)) {
			memset(sw, 0, sizeof *sw * 64);
			return;
		}
}


/* Worst number of distinct words one bank serves in a warp access whose
 * lane bit b moves offset bit pos[b], after physical(x) = x + (x >> p)
 * (p < 0: no padding). */
static int pad_conflicts(int eb, const int *pos, int p)
{
	int blo, nbank, lanes;
	smem_banks(eb, &blo, &nbank, &lanes);
	int64_t word[32];
	for (int l = 0; l < (1 << lanes); l++) {
		int64_t off = 0;
		for (int b = 0; b < lanes; b++)
			if (((l >> b) & 1) && pos[b] >= 0)
				off |= (int64_t)1 << pos[b];
		int64_t phys = p >= 0 ? off + (off >> p) : off;
		word[l] = eb >= 8 ? phys : phys >> blo;
	}
	int worst = 1;
	for (int l = 0; l < (1 << lanes); l++) {
		int n = 0;
		for (int k = 0; k < (1 << lanes); k++) {
			if ((word[k] & ((1 << nbank) - 1)) != (word[l] & ((1 << nbank) - 1)))
				continue;
			bool first = true;       /* count each word once */
			for (int j = 0; j < k; j++)
				first &= word[j] != word[k];
			n += first;
		}
		if (n > worst)
			worst = n;
	}
	return worst;
}

int smem_pad(int eb, int nphases, int (*phases)[5], int abits)
{
	int blo, nbank, lanes;
	smem_banks(eb, &blo, &nbank, &lanes);
	bool clean = true;
	for (int k = 0; k < nphases; k++)
		clean &= pad_conflicts(eb, phases[k], -1) == 1;
	if (clean)
		return -1;
	for (int p = blo + nbank; p < abits; p++) {
		bool ok = true;
		for (int k = 0; k < nphases && ok; k++)
			ok = pad_conflicts(eb, phases[k], p) == 1;
		if (ok)
			return p;
	}
	return -2;
}
