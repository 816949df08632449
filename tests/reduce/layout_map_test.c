/* Unit tests of libcommon/layout_map.c (built by make as
 * $(BUILD)/tests/unit-layout-map, run by tests/reduce.bats). */
#include <stdio.h>
#include <string.h>
#include "layout_map.h"

static int fails;

#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static Layout L(const char *s)
{
	Layout l;
	const char *err = NULL;
	if (!layout_parse(s, &l, &err)) {
		printf("FAIL: cannot parse %s: %s\n", s, err);
		fails++;
		layout_init(&l);
	}
	return l;
}

static void same(const Layout *l, const char *want, int line)
{
	char buf[256];
	layout_str(l, buf, sizeof buf);
	if (strcmp(buf, want)) {
		printf("FAIL line %d: got %s, want %s\n", line, buf, want);
		fails++;
	}
}
#define SAME(l, w) same(l, w, __LINE__)

/* Worst bank multiplicity (distinct words per bank) of one warp access
 * whose lane bit b moves offset bit pos[b], after the swizzle sw. */
static int conflicts(int eb, const int *pos, const unsigned *sw)
{
	int blo, nbank, lanes;
	smem_banks(eb, &blo, &nbank, &lanes);
	int64_t word[32];
	int worst = 0;
	for (int l = 0; l < (1 << lanes); l++) {
		int64_t off = 0;
		for (int b = 0; b < lanes; b++)
			if ((l >> b) & 1 && pos[b] >= 0)
				off |= (int64_t)1 << pos[b];
		int64_t s = 0;
		for (int p = 0; p < 64; p++)
			if ((off >> p) & 1 && sw[p])
				s ^= (int64_t)sw[p] << blo;
		int64_t phys = off ^ s;
		word[l] = eb >= 8 ? phys : phys >> blo;
	}
	for (int bank = 0; bank < (1 << nbank); bank++) {
		int64_t seen[32];
		int n = 0;
		for (int l = 0; l < (1 << lanes); l++) {
			if ((word[l] & ((1 << nbank) - 1)) != bank)
				continue;
			bool dup = false;
			for (int k = 0; k < n; k++)
				dup |= seen[k] == word[l];
			if (!dup)
				seen[n++] = word[l];
		}
		if (n > worst)
			worst = n;
	}
	return worst;
}

int main(void)
{
	BitMap m;
	Layout a, b, r;
	int64_t regs[256];

	/* softmax 4x256, 4 warps, reduce along dim 1: every thread holds the 4 row results */
	int64_t s4x256[2] = { 4, 256 };
	CHECK(bitmap_reduce(&m, 2, s4x256, 1));
	a = L("(8,32,4):(128,1,32)");
	CHECK(layout_push(&a, &m, &r));
	SAME(&r, "(4,32,4):(1,0,0)");
	/* ... which is what the broadcast back needs */
	int64_t s4x1[2] = { 4, 1 };
	CHECK(bitmap_broadcast(&m, 2, s4x256, s4x1));
	CHECK(layout_push(&a, &m, &b));
	SAME(&b, "(4,32,4):(1,0,0)");
	CHECK(layout_gather_map(&r, &a, &m, 0, regs));
	CHECK(regs[0] == 0 && regs[1] == 0 && regs[2] == 1 && regs[7] == 3);

	/* reduce_sum 32x64 along dim 1: warp bit 0 is in the reduced dim */
	int64_t s32x64[2] = { 32, 64 };
	CHECK(bitmap_reduce(&m, 2, s32x64, 1));
	a = L("(16,32,4):(128,1,32)");
	CHECK(layout_push(&a, &m, &r));
	SAME(&r, "(16,32,(2,2)):(2,0,(0,1))");
	/* along dim 0 */
	CHECK(bitmap_reduce(&m, 2, s32x64, 0));
	CHECK(layout_push(&a, &m, &r));
	SAME(&r, "(1,32,(2,2)):(0,1,(32,0))");

	/* permute (transpose) 32x64 -> 64x32: source layout from the result's */
	int64_t perm[2] = { 1, 0 };
	CHECK(bitmap_permute(&m, 2, s32x64, perm));
	a = L("(16,32,4):(128,1,32)");                 /* blocked 64x32 result */
	CHECK(layout_push(&a, &m, &r));
	SAME(&r, "(16,32,4):(4,64,1)");
	CHECK(layout_gather_map(&r, &a, &m, 0, regs));
	b = L("(16,32,4):(128,1,32)");                 /* blocked 32x64 source: not local */
	CHECK(!layout_gather_map(&b, &a, &m, 0, regs));

	/* cat along dim 1 of two 16x32 into 16x64: the top bit of dim 1 picks the operand */
	int64_t s16x32[2] = { 16, 32 };
	CHECK(bitmap_cat(&m, 2, s16x32, 1, false));
	a = L("(8,32,4):(128,1,32)");                  /* result: bit 5 (dim 1 top) is warp bit 0 */
	CHECK(layout_push(&a, &m, &r));
	SAME(&r, "(8,32,(2,2)):(64,1,(0,32))");
	CHECK(layout_gather_map(&r, &a, &m, 0, regs));
	CHECK(bitmap_cat(&m, 2, s16x32, 1, true));
	CHECK(bitmap_apply(&m, 32) == 512 && bitmap_apply(&m, 31) == 31 && bitmap_apply(&m, 64) == 32);

	/* extract (1, 0) of shape 16x64 from 32x64: rows 16..31 */
	int64_t s16x64[2] = { 16, 64 }, idx[2] = { 1, 0 };
	CHECK(bitmap_extract(&m, 2, s16x64, s32x64));
	CHECK(extract_offset(2, s16x64, s32x64, idx) == 1024);
	a = L("(16,32,4):(128,1,32)");                 /* source: row bits 1..4 in registers, row bit 0 in warps */
	b = L("(8,32,4):(128,1,32)");                  /* result */
	CHECK(layout_gather_map(&a, &b, &m, 1024, regs));
	CHECK(regs[0] == 8 && regs[7] == 15);

	/* scans: blocked layouts fit, any dim */
	CHECK(layout_scan_ok(&a, 0, 6));
	CHECK(layout_scan_ok(&a, 6, 5));
	a = L("(2,32,4):(128,1,32)");
	CHECK(layout_scan_ok(&a, 0, 8));
	a = L("((2,4),32,4):((1,256),2,64)");
	CHECK(layout_scan_ok(&a, 0, 10));
	a = L("(2,32,4):(1,4,2)");                     /* warps below lanes */
	CHECK(!layout_scan_ok(&a, 0, 8));
	a = L("(2,(2,16),4):(1,(4,2),64)");            /* lane bits out of order */
	CHECK(!layout_scan_ok(&a, 0, 8));

	/* pack/unpack: f32 registers as 4 bytes each, and back */
	a = L("(2,32,4):(128,1,32)");
	CHECK(layout_expand(&a, 2, &r));
	SAME(&r, "((4,2),32,4):((1,512),4,128)");
	CHECK(layout_contract(&r, 2, &b));
	SAME(&b, "(2,32,4):(128,1,32)");
	CHECK(!layout_contract(&a, 1, &b));

	/* swizzles: a 32x64 f32 transpose writes rows (lane bits -> offset bits
	 * 0..4) and reads columns (lane bits -> 6..10): conflict-free both ways */
	{
		int ph[2][5] = { { 0, 1, 2, 3, 4 }, { 6, 7, 8, 9, 10 } };
		unsigned sw[64];
		smem_swizzle(4, 2, ph, sw, 11);
		CHECK(conflicts(4, ph[0], sw) == 1 && conflicts(4, ph[1], sw) == 1);
		/* without the swizzle the reads would be 32-way conflicts */
		unsigned none[64] = {0};
		CHECK(conflicts(4, ph[1], none) == 32);
		/* f16 (two per word) and f64 (bank pairs, half-warps) */
		int ok1[1][5] = { { 0, 1, 2, 3, 4 } };
		int h[2][5] = { { 0, 1, 2, 3, 4 }, { 7, 8, 9, 10, 11 } };
		smem_swizzle(2, 2, h, sw, 12);
		CHECK(conflicts(2, h[0], sw) == 1 && conflicts(2, h[1], sw) == 1);
		int d[2][5] = { { 0, 1, 2, 3, 4 }, { 5, 6, 7, 8, 9 } };
		smem_swizzle(8, 2, d, sw, 10);
		CHECK(conflicts(8, d[0], sw) == 1 && conflicts(8, d[1], sw) == 1);
		/* the transpose pads instead: one element every 64 */
		CHECK(smem_pad(4, 2, ph, 11) == 6);
		CHECK(smem_pad(4, 1, ok1, 11) == -1);
		/* lanes in both halves of the bank bits, mixed: no padding fits */
		int mix[2][5] = { { 0, 1, 2, 3, 4 }, { 0, 1, 7, 8, 9 } };
		int pm = smem_pad(4, 2, mix, 11);
		CHECK(pm == -2 || pm >= 5);
		/* already conflict-free: no swizzle */
		int ok[1][5] = { { 0, 1, 2, 3, 4 } };
		smem_swizzle(4, 1, ok, sw, 11);
		for (int i = 0; i < 64; i++)
			CHECK(sw[i] == 0);
	}

	if (fails)
		return 1;
	printf("all checks passed\n");
	return 0;
}
