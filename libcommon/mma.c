/* mma.c: warp-level MMA tilings and their fragment layouts (mma.h). */
#include "mma.h"

static bool pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

bool mma_tiling(int64_t m, int64_t n, int64_t k, int atom_k, int warps, MmaTiling *t, const char **err)
{
	*t = (MmaTiling){ .m = m, .n = n, .k = k, .atom_m = 16, .atom_n = 8, .atom_k = atom_k, .wm = 1, .wn = 1, .wrep = 1 };
	if (!pow2(m) || !pow2(n) || !pow2(k) || !pow2(warps) || m < 16 || n < 8 || k < atom_k) {
		if (err)
			*err = "tile sizes that are not whole powers of two of the MMA atom";
		return false;
	}
	for (int w = warps; w > 1; w /= 2) {
		int64_t mw = m / t->wm, nw = n / t->wn;
		bool can_m = mw / 16 >= 2, can_n = nw / 8 >= 2;
		if (can_m && (mw >= nw || !can_n))
			t->wm *= 2;
		else if (can_n)
			t->wn *= 2;
		else
			t->wrep *= 2;
	}
	t->mt = m / t->wm / 16;
	t->nt = n / t->wn / 8;
	t->kt = k / atom_k;
	return true;
}

static void add(Layout *l, int n, const int64_t *shape, const int64_t *stride)
{
	int64_t s[8], d[8];
	int k = 0;
	for (int i = 0; i < n; i++)      /* size-1 leaves carry nothing */
		if (shape[i] != 1) {
			s[k] = shape[i];
			d[k++] = stride[i];
		}
	if (k == 0) {
		s[0] = 1;
		d[0] = 0;
		k = 1;
	}
	layout_add_mode(l, k, s, d);
}

static void warps(const MmaTiling *t, Layout *l, int64_t sm, int64_t sn)
{
	add(l, 3, (int64_t[]){ t->wm, t->wn, t->wrep }, (int64_t[]){ sm, sn, 0 });
}

void mma_layout_c(const MmaTiling *t, Layout *l)
{
	int64_t N = t->n, mw = t->m / t->wm, nw = t->n / t->wn;
	layout_init(l);
	add(l, 4, (int64_t[]){ 2, 2, t->nt, t->mt }, (int64_t[]){ 1, 8 * N, 8, 16 * N });
	add(l, 2, (int64_t[]){ 4, 8 }, (int64_t[]){ 2, N });
	warps(t, l, mw * N, nw);
}

void mma_layout_a(const MmaTiling *t, Layout *l)
{
	int64_t K = t->k, mw = t->m / t->wm;
	layout_init(l);
	add(l, 5, (int64_t[]){ 2, 2, 2, t->kt, t->mt }, (int64_t[]){ 1, 8 * K, 8, 16, 16 * K });
	add(l, 2, (int64_t[]){ 4, 8 }, (int64_t[]){ 2, K });
	warps(t, l, mw * K, 0);
}

void mma_layout_b(const MmaTiling *t, Layout *l)
{
	int64_t N = t->n, nw = t->n / t->wn;
	layout_init(l);
	add(l, 4, (int64_t[]){ 2, 2, t->kt, t->nt }, (int64_t[]){ N, 8 * N, 16 * N, 8 });
	add(l, 2, (int64_t[]){ 4, 8 }, (int64_t[]){ 2 * N, 1 });
	warps(t, l, 0, nw);
}
