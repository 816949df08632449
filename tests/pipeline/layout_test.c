/* Unit tests of the layout algebra (libcommon/layout.c). Built by make as
 * $(BUILD)/tests/unit-layout, run by tests/pipeline.bats; prints one line per
 * failed check, then "all checks passed" and exit 0, or exit 1. */
#include <stdio.h>
#include <string.h>
#include "layout.h"

static int failed;
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); failed++; } } while (0)

static Layout L(const char *s)
{
	Layout l;
	const char *err = NULL;
	if (!layout_parse(s, &l, &err)) {
		printf("FAIL: '%s' did not parse: %s\n", s, err);
		failed++;
		layout_init(&l);
	}
	return l;
}

static void expect(const Layout *l, const char *want, int line)
{
	char buf[256];
	layout_str(l, buf, sizeof buf);
	if (strcmp(buf, want) != 0) {
		printf("FAIL line %d: got %s, want %s\n", line, buf, want);
		failed++;
	}
}
#define EXPECT(l, s) expect(l, s, __LINE__)

static void parse_print(void)
{
	const char *ok[] = { "8:1", "(8,4):(1,8)", "((4,2),32,4):((1,512),4,128)",
			     "(1,32,(2,2)):(0,1,(32,0))", "(3,(2,5)):(10,(1,2))" };
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		Layout l = L(ok[i]);
		EXPECT(&l, ok[i]);
	}
	Layout l;
	const char *err = NULL;
	CHECK(!layout_parse("(4,2):(1)", &l, &err) && err);
	CHECK(!layout_parse("((2,(2,2))):((1,(2,4)))", &l, &err));
	CHECK(!layout_parse("0:1", &l, &err));
	CHECK(!layout_parse("4:1 x", &l, &err));
	CHECK(!layout_parse("4", &l, &err));
}

static void eval(void)
{
	Layout l = L("((4,2),32,4):((1,512),4,128)");
	CHECK(layout_size(&l) == 1024);
	CHECK(layout_cosize(&l) == 1024);
	CHECK(layout_nregs(&l) == 8);
	int64_t c[3] = { 5, 3, 2 };   /* reg 5 = (1,1): 1 + 512; lane 3: 12; warp 2: 256 */
	CHECK(layout_eval_modes(&l, c) == 1 + 512 + 12 + 256);
	CHECK(layout_eval(&l, 0) == 0);
	CHECK(layout_eval(&l, 8) == 4);         /* lane 1 */
	CHECK(layout_is_injective(&l));
	Layout r = L("(4,2):(1,0)");
	CHECK(!layout_is_injective(&r));
	CHECK(layout_contiguous_regs(&l, 0, 16) == 4);
	CHECK(layout_contiguous_regs(&l, 4, 16) == 4);
	CHECK(layout_reg_is_primary(&r, 0));
}

static void algebra(void)
{
	Layout a = L("(6,2):(8,2)"), b = L("(4,3):(3,1)"), r;
	CHECK(layout_compose(&a, &b, &r));
	EXPECT(&r, "((2,2),3):((24,2),8)");
	/* composition is function composition */
	for (int64_t i = 0; i < layout_size(&b); i++)
		CHECK(layout_eval(&r, i) == layout_eval(&a, layout_eval(&b, i)));

	Layout c1 = L("4:1");
	CHECK(layout_complement(&c1, 24, &r));
	EXPECT(&r, "6:4");
	Layout c2 = L("(2,2):(1,6)");
	CHECK(layout_complement(&c2, 24, &r));
	EXPECT(&r, "(3,2):(2,12)");
	Layout c3 = L("(2,2):(1,3)");   /* overlaps: 1*2 > 3 is fine, 3 % 2 != 0 is not */
	CHECK(!layout_complement(&c3, 24, &r));

	Layout d = L("(4,2,3):(2,1,8)"), t = L("4:2");
	CHECK(layout_logical_divide(&d, &t, &r));
	EXPECT(&r, "((2,2),(2,3)):((4,1),(2,8))");

	Layout k = L("((2,1,4),(8,1)):((1,7,2),(8,0))");
	layout_canonicalize(&k);
	EXPECT(&k, "(8,8):(1,8)");
	Layout f = L("(2,4,8):(1,2,8)");
	layout_coalesce(&f);
	EXPECT(&f, "64:1");
	Layout z = L("((2,2),3):((0,0),1)");
	layout_canonicalize(&z);
	EXPECT(&z, "(4,3):(0,1)");
}

static void blocked(void)
{
	Layout l;
	const char *err = NULL;
	CHECK(layout_blocked(1024, 4, 4, &l));
	EXPECT(&l, "((4,2),32,4):((1,512),4,128)");
	CHECK(layout_check_tile(&l, 1024, 4, &err));
	CHECK(layout_blocked(128, 1, 4, &l));
	EXPECT(&l, "(1,32,4):(0,1,32)");
	CHECK(layout_check_tile(&l, 128, 4, &err));
	CHECK(layout_blocked(64, 1, 4, &l));
	EXPECT(&l, "(1,32,(2,2)):(0,1,(32,0))");
	CHECK(layout_check_tile(&l, 64, 4, &err));
	CHECK(layout_reg_is_primary(&l, 0));
	CHECK(layout_blocked(16, 4, 8, &l));
	EXPECT(&l, "(4,(4,8),8):(1,(4,0),0)");
	CHECK(layout_check_tile(&l, 16, 8, &err));
	CHECK(!layout_check_tile(&l, 16, 4, &err));
	CHECK(!layout_check_tile(&l, 8, 8, &err));
	CHECK(!layout_check_tile(&l, 32, 8, &err));
	CHECK(!layout_blocked(100, 4, 4, &l));
	layout_replicated(4, &l);
	EXPECT(&l, "(1,32,4):(0,0,0)");
	CHECK(layout_check_tile(&l, 1, 4, &err));
}

static void maps(void)
{
	/* broadcast a 1x32 row over a 16x32 tile in (4,32,4):(1,4,128) */
	Layout dst, src;
	CHECK(layout_blocked(512, 4, 4, &dst));
	EXPECT(&dst, "(4,32,4):(1,4,128)");
	TileMap m = { TM_BROADCAST, 2, 2, { 16, 32 }, { 1, 32 }, {0} };
	CHECK(tilemap_apply(&m, 5 * 32 + 7) == 7);
	CHECK(layout_derive_source(&dst, &m, &src));
	EXPECT(&src, "(4,(8,4),4):(1,(4,0),0)");
	int64_t regs[8];
	CHECK(layout_local_gather(&src, &dst, &m, 4, regs));
	CHECK(regs[0] == 0 && regs[3] == 3);

	/* a scalar broadcast to a whole tile: one register, replicated */
	Layout big;
	CHECK(layout_blocked(1024, 4, 4, &big));
	TileMap s = { TM_BROADCAST, 1, 1, { 1024 }, { 1 }, {0} };
	CHECK(layout_derive_source(&big, &s, &src));
	EXPECT(&src, "(1,32,4):(0,0,0)");
	Layout rep;
	layout_replicated(4, &rep);
	CHECK(layout_local_gather(&rep, &big, &s, 4, regs));
	CHECK(regs[7] == 0);

	/* reshape keeps the linear offset; a transpose does not */
	TileMap id = { TM_IDENTITY, 2, 1, { 32, 32 }, { 1024 }, {0} };
	CHECK(layout_local_gather(&big, &big, &id, 4, regs));
	TileMap tr = { TM_PERMUTE, 2, 2, { 32, 32 }, { 32, 32 }, { 1, 0 } };
	CHECK(tilemap_apply(&tr, 1) == 32);
	CHECK(!layout_local_gather(&big, &big, &tr, 4, regs));
	CHECK(layout_derive_source(&big, &tr, &src));
	CHECK(layout_local_gather(&src, &big, &tr, 4, regs));
	CHECK(layout_check_tile(&src, 1024, 4, NULL));
}

int main(void)
{
	parse_print();
	eval();
	algebra();
	blocked();
	maps();
	if (failed) {
		printf("%d checks failed\n", failed);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
