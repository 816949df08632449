/* layout.c: CuTe layout algebra (see layout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "xalloc.h"

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int log2i(int64_t x)
{
	int n = 0;
	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------ building */

void layout_init(Layout *l)
{
	memset(l, 0, sizeof *l);
}

bool layout_add_mode(Layout *l, int n, const int64_t *shape, const int64_t *stride)
{
	int at = layout_nleaves(l);
	if (l->nmodes >= LAYOUT_MAX_MODES || at + n > LAYOUT_MAX_LEAVES)
		return false;
	for (int i = 0; i < n; i++) {
		l->shape[at + i] = shape[i];
		l->stride[at + i] = stride[i];
	}
	l->tuple[l->nmodes] = n != 1;
	l->nmodes++;
	l->begin[l->nmodes] = at + n;
	return true;
}

/* Append one leaf to the last mode (creating the mode when `new_mode`). */
static bool push_leaf(Layout *l, bool new_mode, int64_t s, int64_t d)
{
	int at = layout_nleaves(l);
	if (at >= LAYOUT_MAX_LEAVES)
		return false;
	if (new_mode) {
		if (l->nmodes >= LAYOUT_MAX_MODES)
			return false;
		l->tuple[l->nmodes] = false;
		l->nmodes++;
	} else if (l->nmodes == 0) {
		return false;
	} else {
		l->tuple[l->nmodes - 1] = true;
	}
	l->shape[at] = s;
	l->stride[at] = d;
	l->begin[l->nmodes] = at + 1;
	return true;
}

/* ------------------------------------------------------------ parsing */

typedef struct P {
	const char *s;
	const char *err;
} P;

static void skip_ws(P *p)
{
	while (*p->s == ' ')
		p->s++;
}

static bool parse_int(P *p, int64_t *v)
{
	skip_ws(p);
	bool neg = false;
	if (*p->s == '-') {
		neg = true;
		p->s++;
	}
	if (*p->s < '0' || *p->s > '9') {
		p->err = "expected an integer";
		return false;
	}
	int64_t x = 0;
	while (*p->s >= '0' && *p->s <= '9') {
		if (x > (INT64_MAX - 9) / 10) {
			p->err = "integer too large";
			return false;
		}
		x = x * 10 + (*p->s++ - '0');
	}
	*v = neg ? -x : x;
	return true;
}

/* One tree: int | "(" elem ("," elem)* ")" with elem = int | "(" int,.. ")".
 * Fills leaves and per-mode counts; depth > 2 is rejected. */
typedef struct Tree {
	int nmodes;
	int count[LAYOUT_MAX_MODES];
	bool tuple[LAYOUT_MAX_MODES];
	int nleaves;
	int64_t v[LAYOUT_MAX_LEAVES];
	bool top_tuple;
} Tree;

/* After an item of a parenthesised list: 1 (and past it) at ',', 0 (and
 * past it) at ')', -1 with p->err set at anything else. */
static int list_more(P *p)
{
	skip_ws(p);
	if (*p->s == ',' || *p->s == ')')
		return *p->s++ == ',';
	p->err = "expected ',' or ')'";
	return -1;
}

static bool parse_mode(P *p, Tree *t)
{
	skip_ws(p);
	if (t->nmodes >= LAYOUT_MAX_MODES) {
		p->err = "too many modes";
		return false;
	}
	int m = t->nmodes++;
	t->count[m] = 0;
	t->tuple[m] = false;
	if (*p->s == '(') {
		p->s++;
		t->tuple[m] = true;
		for (;;) {
			if (t->nleaves >= LAYOUT_MAX_LEAVES) {
				p->err = "too many leaves";
				return false;
			}
			skip_ws(p);
			if (*p->s == '(') {
				p->err = "layouts nested deeper than two levels are not supported";
				return false;
			}
			if (!parse_int(p, &t->v[t->nleaves]))
				return false;
			t->nleaves++;
			t->count[m]++;
			int more = list_more(p);
			if (more < 0)
				return false;
			if (!more)
				break;
		}
		return true;
	}
	if (t->nleaves >= LAYOUT_MAX_LEAVES) {
		p->err = "too many leaves";
		return false;
	}
	if (!parse_int(p, &t->v[t->nleaves]))
		return false;
	t->nleaves++;
	t->count[m] = 1;
	return true;
}

static bool parse_tree(P *p, Tree *t)
{
	memset(t, 0, sizeof *t);
	skip_ws(p);
	if (*p->s != '(') {
		t->top_tuple = false;
		return parse_mode(p, t);
	}
	t->top_tuple = true;
	p->s++;
	for (;;) {
		if (!parse_mode(p, t))
			return false;
		int more = list_more(p);
		if (more <= 0)
			return more == 0;
	}
}

bool layout_parse(const char *s, Layout *out, const char **err)
{
	P p = { s, NULL };
	Tree sh, st;
	layout_init(out);
	if (!parse_tree(&p, &sh))
		goto fail;
	skip_ws(&p);
	if (*p.s != ':') {
		p.err = "expected ':' between shape and stride";
		goto fail;
	}
	p.s++;
	if (!parse_tree(&p, &st))
		goto fail;
	skip_ws(&p);
	if (*p.s) {
		p.err = "unexpected text after the layout";
		goto fail;
	}
	if (sh.top_tuple != st.top_tuple || sh.nmodes != st.nmodes || sh.nleaves != st.nleaves) {
		p.err = "shape and stride differ in structure";
		goto fail;
	}
	for (int m = 0; m < sh.nmodes; m++)
		if (sh.count[m] != st.count[m] || sh.tuple[m] != st.tuple[m]) {
			p.err = "shape and stride differ in structure";
			goto fail;
		}
	/* sizes and strides beyond any tile's (LAYOUT_MAX_EXTENT) would
	 * overflow the products of layout_size and layout_cosize */
	int64_t size = 1;
	for (int i = 0; i < sh.nleaves; i++) {
		if (sh.v[i] <= 0) {
			p.err = "shapes must be positive";
			goto fail;
		}
		if (sh.v[i] > LAYOUT_MAX_EXTENT / size || st.v[i] > LAYOUT_MAX_EXTENT || st.v[i] < -LAYOUT_MAX_EXTENT) {
			p.err = "the layout is larger than any tile";
			goto fail;
		}
		size *= sh.v[i];
	}
	int at = 0;
	for (int m = 0; m < sh.nmodes; m++) {
		layout_add_mode(out, sh.count[m], sh.v + at, st.v + at);
		out->tuple[m] = sh.tuple[m];
		at += sh.count[m];
	}
	return true;
fail:
	if (err)
		*err = p.err;
	return false;
}

/* ------------------------------------------------------------ printing */

static void print_part(StrBuf *b, const Layout *l, const int64_t *v)
{
	if (l->nmodes == 1 && !l->tuple[0]) {
		sb_printf(b, "%lld", (long long)v[l->begin[0]]);
		return;
	}
	if (l->nmodes == 1) {
		/* a single tuple mode: print its leaves as the top-level tuple */
		sb_putc(b, '(');
		for (int i = l->begin[0]; i < l->begin[1]; i++)
			sb_printf(b, "%s%lld", i > l->begin[0] ? "," : "", (long long)v[i]);
		sb_putc(b, ')');
		return;
	}
	sb_putc(b, '(');
	for (int m = 0; m < l->nmodes; m++) {
		if (m)
			sb_putc(b, ',');
		if (l->tuple[m]) {
			sb_putc(b, '(');
			for (int i = l->begin[m]; i < l->begin[m + 1]; i++)
				sb_printf(b, "%s%lld", i > l->begin[m] ? "," : "", (long long)v[i]);
			sb_putc(b, ')');
		} else {
			sb_printf(b, "%lld", (long long)v[l->begin[m]]);
		}
	}
	sb_putc(b, ')');
}

void layout_print(StrBuf *b, const Layout *l)
{
	if (l->nmodes == 0) {
		sb_puts(b, "():()");
		return;
	}
	print_part(b, l, l->shape);
	sb_putc(b, ':');
	print_part(b, l, l->stride);
}

const char *layout_str(const Layout *l, char *buf, size_t n)
{
	StrBuf b = {0};
	layout_print(&b, l);
	snprintf(buf, n, "%s", sb_cstr(&b));
	sb_free(&b);
	return buf;
}

bool layout_equal(const Layout *a, const Layout *b)
{
	if (a->nmodes != b->nmodes)
		return false;
	for (int m = 0; m <= a->nmodes; m++)
		if (a->begin[m] != b->begin[m])
			return false;
	for (int m = 0; m < a->nmodes; m++)
		if (a->tuple[m] != b->tuple[m])
			return false;
	for (int i = 0; i < layout_nleaves(a); i++)
		if (a->shape[i] != b->shape[i] || a->stride[i] != b->stride[i])
			return false;
	return true;
}

/* ------------------------------------------------------------ evaluation */

int64_t layout_mode_size(const Layout *l, int m)
{
	int64_t n = 1;
	for (int i = l->begin[m]; i < l->begin[m + 1]; i++)
		n *= l->shape[i];
	return n;
}

int64_t layout_size(const Layout *l)
{
	int64_t n = 1;
	for (int i = 0; i < layout_nleaves(l); i++)
		n *= l->shape[i];
	return n;
}

int64_t layout_cosize(const Layout *l)
{
	/* the largest index is reached at the largest coordinate of every
	 * positive-stride leaf and 0 of every negative one */
	int64_t hi = 0;
	for (int i = 0; i < layout_nleaves(l); i++)
		if (l->stride[i] > 0)
			hi += (l->shape[i] - 1) * l->stride[i];
	return hi + 1;
}

int64_t layout_eval_mode(const Layout *l, int m, int64_t c)
{
	int64_t idx = 0;
	for (int i = l->begin[m]; i < l->begin[m + 1]; i++) {
		idx += (c % l->shape[i]) * l->stride[i];
		c /= l->shape[i];
	}
	return idx;
}

int64_t layout_eval_modes(const Layout *l, const int64_t *coord)
{
	int64_t idx = 0;
	for (int m = 0; m < l->nmodes; m++)
		idx += layout_eval_mode(l, m, coord[m]);
	return idx;
}

int64_t layout_eval(const Layout *l, int64_t c)
{
	int64_t idx = 0;
	for (int i = 0; i < layout_nleaves(l); i++) {
		idx += (c % l->shape[i]) * l->stride[i];
		c /= l->shape[i];
	}
	return idx;
}

/* ------------------------------------------------------------ algebra */

/* Coalesce the leaves [lo, hi) into out (appended as one mode). */
static void coalesce_leaves(const int64_t *shape, const int64_t *stride, int n, Layout *out)
{
	int64_t s[LAYOUT_MAX_LEAVES], d[LAYOUT_MAX_LEAVES];
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (shape[i] == 1)
			continue;
		if (k > 0 && ((d[k - 1] == 0 && stride[i] == 0) ||
			      (stride[i] != 0 && stride[i] == s[k - 1] * d[k - 1]))) {
			s[k - 1] *= shape[i];
			continue;
		}
		s[k] = shape[i];
		d[k] = stride[i];
		k++;
	}
	if (k == 0) {
		s[0] = 1;
		d[0] = 0;
		k = 1;
	}
	layout_add_mode(out, k, s, d);
}

void layout_canonicalize(Layout *l)
{
	Layout r;
	layout_init(&r);
	for (int m = 0; m < l->nmodes; m++)
		coalesce_leaves(l->shape + l->begin[m], l->stride + l->begin[m],
				l->begin[m + 1] - l->begin[m], &r);
	*l = r;
}

void layout_coalesce(Layout *l)
{
	Layout r;
	layout_init(&r);
	coalesce_leaves(l->shape, l->stride, layout_nleaves(l), &r);
	*l = r;
}

/* a o (s:d) for a flattened a, appended as leaves of the current last mode
 * of r (a new mode when new_mode). */
static bool compose_leaf(const int64_t *as, const int64_t *ad, int an, int64_t s, int64_t d,
			 Layout *r, bool new_mode)
{
	int64_t ls[LAYOUT_MAX_LEAVES], ld[LAYOUT_MAX_LEAVES];
	int k = 0;
	if (d == 0 || s == 1) {
		ls[k] = s;
		ld[k] = 0;
		k++;
		goto emit;
	}
	{
		int64_t S[LAYOUT_MAX_LEAVES], D[LAYOUT_MAX_LEAVES];
		for (int i = 0; i < an; i++) {
			S[i] = as[i];
			D[i] = ad[i];
		}
		/* divide by d */
		int64_t rest = d;
		int j = 0;
		while (j < an - 1 && rest > 1) {
			if (rest % S[j] == 0) {
				rest /= S[j];
				j++;
			} else if (S[j] % rest == 0) {
				S[j] /= rest;
				D[j] *= rest;
				rest = 1;
			} else {
				return false;
			}
		}
		if (rest > 1) {            /* the last leaf extends without bound */
			S[j] = S[j] % rest == 0 ? S[j] / rest : 1;
			D[j] *= rest;
		}
		/* keep the first s */
		int64_t need = s;
		for (; j < an && need > 1; j++) {
			if (j == an - 1) {
				ls[k] = need;
				ld[k] = D[j];
				k++;
				need = 1;
			} else if (need % S[j] == 0) {
				ls[k] = S[j];
				ld[k] = D[j];
				k++;
				need /= S[j];
			} else if (S[j] % need == 0) {
				ls[k] = need;
				ld[k] = D[j];
				k++;
				need = 1;
			} else {
				return false;
			}
		}
	}
emit:
	for (int i = 0; i < k; i++)
		if (!push_leaf(r, new_mode && i == 0, ls[i], ld[i]))
			return false;
	return true;
}

bool layout_compose(const Layout *a, const Layout *b, Layout *r)
{
	Layout fa = *a;
	layout_coalesce(&fa);
	layout_init(r);
	for (int m = 0; m < b->nmodes; m++) {
		for (int i = b->begin[m]; i < b->begin[m + 1]; i++)
			if (!compose_leaf(fa.shape, fa.stride, layout_nleaves(&fa),
					  b->shape[i], b->stride[i], r, i == b->begin[m]))
				return false;
	}
	layout_canonicalize(r);
	return true;
}

bool layout_complement(const Layout *a, int64_t m, Layout *r)
{
	int64_t s[LAYOUT_MAX_LEAVES], d[LAYOUT_MAX_LEAVES];
	int n = 0;
	for (int i = 0; i < layout_nleaves(a); i++)
		if (a->shape[i] != 1 && a->stride[i] != 0) {
			if (a->stride[i] < 0)
				return false;
			s[n] = a->shape[i];
			d[n] = a->stride[i];
			n++;
		}
	/* sort by stride (insertion sort; n is small) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {
			int64_t t = d[j]; d[j] = d[j - 1]; d[j - 1] = t;
			t = s[j]; s[j] = s[j - 1]; s[j - 1] = t;
		}
	int64_t rs[LAYOUT_MAX_LEAVES + 1], rd[LAYOUT_MAX_LEAVES + 1];
	int k = 0;
	int64_t cur = 1;
	for (int i = 0; i < n; i++) {
		if (d[i] % cur != 0 || d[i] < cur)
			return false;
		rs[k] = d[i] / cur;
		rd[k] = cur;
		k++;
		cur = s[i] * d[i];
	}
	if (m % cur != 0)
		return false;
	rs[k] = m / cur;
	rd[k] = cur;
	k++;
	layout_init(r);
	coalesce_leaves(rs, rd, k, r);
	return true;
}

bool layout_logical_divide(const Layout *a, const Layout *b, Layout *r)
{
	Layout fb = *b, c, bc;
	layout_coalesce(&fb);
	if (!layout_complement(&fb, layout_size(a), &c))
		return false;
	layout_init(&bc);
	layout_add_mode(&bc, layout_nleaves(&fb), fb.shape, fb.stride);
	layout_add_mode(&bc, layout_nleaves(&c), c.shape, c.stride);
	return layout_compose(a, &bc, r);
}

bool layout_is_injective(const Layout *l)
{
	int64_t n = layout_size(l);
	int64_t cs = layout_cosize(l);
	if (n > (1 << 20) || cs > (1 << 24))
		return false;
	for (int i = 0; i < layout_nleaves(l); i++)
		if (l->stride[i] < 0)
			return false;
	unsigned char *seen = xcalloc((size_t)cs, 1);
	bool ok = true;
	for (int64_t c = 0; c < n && ok; c++) {
		int64_t x = layout_eval(l, c);
		if (seen[x])
			ok = false;
		seen[x] = 1;
	}
	free(seen);
	return ok;
}

/* ------------------------------------------------------------ register layouts */

/* Place a domain leaf of size s (power of 2) at index stride *cur while
 * *rem elements remain; the part beyond the tile replicates. */
static void place(int64_t s, int64_t *cur, int64_t *rem, int64_t *ls, int64_t *ld, int *k)
{
	if (*rem >= s) {
		ls[*k] = s;
		ld[*k] = *cur;
		(*k)++;
		*cur *= s;
		*rem /= s;
		return;
	}
	if (*rem > 1) {
		ls[*k] = *rem;
		ld[*k] = *cur;
		(*k)++;
		s /= *rem;
		*cur *= *rem;
		*rem = 1;
	}
	ls[*k] = s;
	ld[*k] = 0;
	(*k)++;
}

bool layout_blocked(int64_t n, int64_t vec, int warps, Layout *out)
{
	if (!is_pow2(n) || !is_pow2(vec) || !is_pow2(warps) || vec > n)
		return false;
	int64_t cur = 1, rem = n;
	int64_t vs[4], vd[4], ls[4], ld[4], ws[4], wd[4];
	int vk = 0, lk = 0, wk = 0;
	place(vec, &cur, &rem, vs, vd, &vk);
	place(32, &cur, &rem, ls, ld, &lk);
	place(warps, &cur, &rem, ws, wd, &wk);
	if (rem > 1) {
		vs[vk] = rem;
		vd[vk] = cur;
		vk++;
	}
	layout_init(out);
	layout_add_mode(out, vk, vs, vd);
	layout_add_mode(out, lk, ls, ld);
	layout_add_mode(out, wk, ws, wd);
	layout_canonicalize(out);
	return true;
}

void layout_replicated(int warps, Layout *out)
{
	int64_t one = 1, zero = 0, l = 32, w = warps;
	layout_init(out);
	layout_add_mode(out, 1, &one, &zero);
	layout_add_mode(out, 1, &l, &zero);
	layout_add_mode(out, 1, &w, &zero);
}

bool layout_check_tile(const Layout *l, int64_t n, int warps, const char **err)
{
	const char *e = NULL;
	if (l->nmodes != 3)
		e = "a register layout has three modes (registers, lanes, warps)";
	else if (layout_mode_size(l, 1) != 32)
		e = "the lane mode of a register layout has size 32";
	else if (layout_mode_size(l, 2) != warps)
		e = "the warp mode of the layout does not match the number of warps";
	else if (layout_size(l) > (1 << 24) || n > (1 << 24))
		e = "layout too large to check";
	if (!e) {
		unsigned char *seen = xcalloc((size_t)n, 1);
		int64_t size = layout_size(l);
		for (int64_t c = 0; c < size && !e; c++) {
			int64_t x = layout_eval(l, c);
			if (x < 0 || x >= n)
				e = "the layout maps a register outside the tile";
			else
				seen[x] = 1;
		}
		for (int64_t i = 0; i < n && !e; i++)
			if (!seen[i])
				e = "the layout leaves an element of the tile unheld";
		free(seen);
	}
	if (e && err)
		*err = e;
	return e == NULL;
}

int64_t layout_contiguous_regs(const Layout *l, int64_t r, int64_t cap)
{
	int64_t nregs = layout_mode_size(l, 0);
	int64_t base = layout_eval_mode(l, 0, r);
	int64_t k = 1;
	while (k < cap && r + k < nregs && layout_eval_mode(l, 0, r + k) == base + k)
		k++;
	return k;
}

bool layout_reg_is_primary(const Layout *l, int64_t r)
{
	for (int i = l->begin[0]; i < l->begin[1]; i++) {
		if (l->stride[i] == 0 && r % l->shape[i] != 0)
			return false;
		r /= l->shape[i];
	}
	return true;
}

/* ------------------------------------------------------------ tile maps */

int64_t tilemap_apply(const TileMap *m, int64_t e)
{
	if (m->kind == TM_IDENTITY)
		return e;
	int64_t c[8];
	for (int i = m->rank_dst - 1; i >= 0; i--) {
		c[i] = e % m->dst_shape[i];
		e /= m->dst_shape[i];
	}
	int64_t sc[8] = {0};
	if (m->kind == TM_BROADCAST) {
		for (int i = 0; i < m->rank_src; i++)
			sc[i] = m->src_shape[i] == 1 ? 0 : c[i];
	} else {
		for (int i = 0; i < m->rank_dst; i++)
			sc[m->perm[i]] = c[i];
	}
	int64_t x = 0;
	for (int i = 0; i < m->rank_src; i++)
		x = x * m->src_shape[i] + sc[i];
	return x;
}

bool layout_derive_source(const Layout *dst, const TileMap *m, Layout *src)
{
	Layout r;
	layout_init(&r);
	for (int mode = 0; mode < dst->nmodes; mode++) {
		int64_t ls[LAYOUT_MAX_LEAVES], ld[LAYOUT_MAX_LEAVES];
		int k = 0;
		for (int i = dst->begin[mode]; i < dst->begin[mode + 1]; i++) {
			int64_t s = dst->shape[i], d = dst->stride[i];
			if (d == 0) {
				if (mode != 0 && k < LAYOUT_MAX_LEAVES) {
					ls[k] = s;
					ld[k++] = 0;
				}
				continue;
			}
			if (!is_pow2(s) || !is_pow2(d))
				return false;
			for (int b = 0; b < log2i(s); b++) {
				int64_t md = tilemap_apply(m, d << b);
				if (md == 0 && mode == 0)
					continue;        /* duplicated register: dropped */
				if (k >= LAYOUT_MAX_LEAVES)
					return false;
				ls[k] = 2;
				ld[k++] = md;
			}
		}
		coalesce_leaves(ls, ld, k, &r);
	}
	*src = r;
	return true;
}

bool layout_local_gather(const Layout *src, const Layout *dst, const TileMap *m, int warps, int64_t *regs)
{
	int64_t nd = layout_mode_size(dst, 0), ns = layout_mode_size(src, 0);
	for (int64_t r = 0; r < nd; r++) {
		bool found = false;
		for (int64_t c = 0; c < ns && !found; c++) {
			bool ok = true;
			for (int w = 0; w < warps && ok; w++)
				for (int l = 0; l < 32 && ok; l++) {
					int64_t dc[3] = { r, l, w }, sc[3] = { c, l, w };
					ok = layout_eval_modes(src, sc) ==
					     tilemap_apply(m, layout_eval_modes(dst, dc));
				}
			if (ok) {
				regs[r] = c;
				found = true;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

/* layout_tile_run_width down a dim of d elements at tile-linear stride s */
static int run_width_down(const Layout *l, int cap, int64_t s, int64_t d)
{
	int64_t n = layout_nregs(l);
	if (s < 1 || d < 1)
		return 1;
	for (int v = cap; v > 1; v /= 2) {
		if (n % v || d % v)
			continue;
		bool ok = true;
		/* lanes and warps move the dim's coordinate by multiples of v */
		for (int m = 1; m <= 2 && ok; m++)
			for (int i = l->begin[m]; i < l->begin[m + 1]; i++)
				if ((l->stride[i] / s) % d % v || (l->stride[i] < s && l->stride[i] * l->shape[i] > s))
					ok = false;
		for (int64_t r = 0; r < n && ok; r += v) {
			int64_t base = layout_eval_mode(l, 0, r);
			if (base / s % d % v)
				ok = false;
			for (int k = 1; k < v && ok; k++)
				if (layout_eval_mode(l, 0, r + k) != base + k * s)
					ok = false;
		}
		if (ok)
			return v;
	}
	return 1;
}

int layout_run_width(const Layout *l, int cap)
{
	int64_t n = layout_nregs(l);
	for (int v = cap; v > 1; v /= 2) {
		if (n % v)
			continue;
		bool ok = true;
		for (int m = 1; m <= 2 && ok; m++)
			for (int i = l->begin[m]; i < l->begin[m + 1]; i++)
				if (l->stride[i] % v)
					ok = false;
		for (int64_t r = 0; r < n && ok; r += v) {
			int64_t base = layout_eval_mode(l, 0, r);
			if (base % v)
				ok = false;
			for (int k = 1; k < v && ok; k++)
				if (layout_eval_mode(l, 0, r + k) != base + k)
					ok = false;
		}
		if (ok)
			return v;
	}
	return 1;
}

int layout_tile_run_width(const Layout *l, int cap, int rank, const int64_t *shape, int d)
{
	if (rank < 1 || d < 0 || d >= rank - 1)
		return layout_run_width(l, cap);
	int64_t s = 1;
	for (int i = d + 1; i < rank; i++)
		s *= shape[i];
	return run_width_down(l, cap, s, shape[d]);
}
