/* Unit tests of libcommon pieces that no tool reaches directly: the type
 * spelling parser, the target table, the subprocess helper, the op, enum and
 * verifier tables (every op has every row it needs), the typed attribute
 * getters. Prints one line per failed check and exits 1 if any failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"
#include "target.h"
#include "proc.h"
#include "opinfo.h"
#include "enums.h"
#include "verify.h"
#include "tmap.h"

static int failed;
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); failed++; } } while (0)

static void type_roundtrip(Module *m, const char *s)
{
	const char *err = NULL;
	const Type *t = type_parse(m, s, &err);
	if (!t) {
		printf("FAIL: '%s' did not parse: %s\n", s, err);
		failed++;
		return;
	}
	if (strcmp(t->str, s) != 0) {
		printf("FAIL: '%s' printed as '%s'\n", s, t->str);
		failed++;
	}
	CHECK(type_parse(m, s, NULL) == t);   /* interned */
}

static void type_rejects(Module *m, const char *s, const char *want)
{
	const char *err = NULL;
	const Type *t = type_parse(m, s, &err);
	if (t || !err || !strstr(err, want)) {
		printf("FAIL: '%s' should be rejected with '%s', got %s\n", s, want, t ? "a type" : err);
		failed++;
	}
}

static void test_types(void)
{
	Module *m = module_new("cuda_tile");
	const char *good[] = {
		"i1", "i4", "f8E4M3FN", "f4E2M1FN", "ptr<f16>", "tile<f32>", "tile<4x8xbf16>",
		"tile<16xptr<f16>>", "token", "tensor_view<f32>",
		"tensor_view<?x1024xf16, strides=[1024,1]>", "tensor_view<?x?xf32, strides=[?,1]>",
		"partition_view<tile=(4x2), tensor_view<?x?xf32, strides=[?,1]>>",
		"partition_view<tile=(4x2), padding_value=nan, tensor_view<?x?xf32, strides=[?,1]>, dim_map=[1,0]>",
		"strided_view<tile=(2), traversal_strides=[3], tensor_view<?xf32, strides=[1]>>",
		"gather_scatter_view<tile=(8x16), padding_value=zero, tensor_view<?x?xf32, strides=[?,1]>, sparse_dim=0>",
		"() -> ()", "(tile<ptr<f32>>, tile<i32>) -> ()", "(tile<i32>) -> (tile<i32>, token)",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		type_roundtrip(m, good[i]);
	/* identity dim_map is not printed */
	const Type *t = type_parse(m, "partition_view<tile=(4x2), tensor_view<?x?xf32, strides=[?,1]>, dim_map=[0,1]>", NULL);
	CHECK(t == NULL);   /* non-canonical: the canonical form omits the identity map */
	int64_t map[2] = { 0, 1 }, tile[2] = { 4, 2 };
	const Type *tv = type_parse(m, "tensor_view<?x?xf32, strides=[?,1]>", NULL);
	CHECK(tv && type_partition_view(m, 2, tile, tv, map, PAD_NONE) ==
		    type_parse(m, "partition_view<tile=(4x2), tensor_view<?x?xf32, strides=[?,1]>>", NULL));
	type_rejects(m, "tile<4xf33>", "unknown element type");
	type_rejects(m, "tile<4x f32>", "canonical");
	type_rejects(m, "tile<4xf32", "expected '>'");
	type_rejects(m, "tensor_view<4xf32>", "expected ','");
	type_rejects(m, "tensor_view<4x4xf32, strides=[1]>", "one entry per dimension");
	type_rejects(m, "partition_view<tile=(4), tile<4xf32>>", "tensor_view");
	type_rejects(m, "gather_scatter_view<tile=(8), tensor_view<?xf32, strides=[1]>, sparse_dim=3>", "sparse_dim");
	type_rejects(m, "tile<4xf32> ", "canonical");
	type_rejects(m, "((i32) -> ()) -> ()", "cannot nest");
	type_rejects(m, "tile<99999999999999999999xf32>", "out of range");
	type_rejects(m, "tile<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>", "rank too large");
	CHECK(type_num_elements(type_parse(m, "tile<4x8xf32>", NULL)) == 32);
	/* many inputs: a kernel with 60 2-D arrays has 300 */
	{
		char buf[8192] = "(";
		for (int i = 0; i < 300; i++)
			strcat(buf, i ? ", tile<i32>" : "tile<ptr<f32>>");
		strcat(buf, ") -> ()");
		const Type *f = type_parse(m, buf, NULL);
		CHECK(f && f->kind == TY_FUNC && f->nin == 300 && f->ins[299]->kind == TY_TILE);
	}
	module_free(m);
}

static void test_targets(void)
{
	const char *names[] = { "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_103",
				"sm_110", "sm_120", "sm_121" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		CHECK(target_by_name(names[i]) != NULL);
	CHECK(target_by_name("sm_70") == NULL);
	CHECK(target_by_name("sm_90a") == NULL);
	const Target *h = target_by_name("sm_90");
	CHECK(target_has(h, TF_WGMMA) && target_has(h, TF_TMA) && !target_has(h, TF_TCGEN05));
	CHECK(strcmp(target_ptx_arch(h, TARGET_ARCH), "sm_90a") == 0);
	CHECK(strcmp(target_ptx_arch(h, TARGET_PLAIN), "sm_90") == 0);
	CHECK(strcmp(target_ptx_arch(h, TARGET_FAMILY), "sm_90") == 0);       /* no sm_90f */
	CHECK(strcmp(target_ptx_arch(target_by_name("sm_100"), TARGET_FAMILY), "sm_100f") == 0);
	CHECK(strcmp(target_ptx_arch(target_by_name("sm_121"), TARGET_FAMILY), "sm_121f") == 0);
	CHECK(!target_has(target_by_name("sm_80"), TF_TMA));
	CHECK(target_has(target_by_name("sm_100"), TF_TCGEN05));
	CHECK(strcmp(target_ptx_arch(target_by_name("sm_80"), TARGET_ARCH), "sm_80") == 0);
}

static void test_proc(void)
{
	ProcResult r;
	char *cat[] = { "cat", NULL };
	CHECK(proc_run(cat, "hello", 5, 5000, &r) == 0);
	CHECK(r.end == PROC_EXITED && r.code == 0 && strcmp(r.out.s, "hello") == 0);
	proc_result_free(&r);

	/* large stdin and stdout at once must not deadlock */
	static char big[1 << 20];
	memset(big, 'x', sizeof big);
	CHECK(proc_run(cat, big, sizeof big, 10000, &r) == 0 && r.out.len == sizeof big);
	proc_result_free(&r);

	char *sh_err[] = { "sh", "-c", "echo oops >&2; exit 3", NULL };
	CHECK(proc_run(sh_err, NULL, 0, 5000, &r) == -1);
	CHECK(r.end == PROC_EXITED && r.code == 3 && strcmp(r.err.s, "oops\n") == 0);
	CHECK(strcmp(proc_describe(&r), "exited with status 3") == 0);
	proc_result_free(&r);

	char *sh_sig[] = { "sh", "-c", "kill -SEGV $$", NULL };
	CHECK(proc_run(sh_sig, NULL, 0, 5000, &r) == -1 && r.end == PROC_SIGNALED && r.code == 11);
	CHECK(strstr(proc_describe(&r), "signal 11") != NULL);
	proc_result_free(&r);

	char *sleeper[] = { "sleep", "10", NULL };
	CHECK(proc_run(sleeper, NULL, 0, 200, &r) == -1 && r.end == PROC_TIMED_OUT);
	CHECK(strstr(proc_describe(&r), "timed out") != NULL);
	proc_result_free(&r);

	char *none[] = { "/nonexistent/ptxas", NULL };
	CHECK(proc_run(none, NULL, 0, 1000, &r) == -1 && r.end == PROC_NOT_STARTED);
	CHECK(strstr(proc_describe(&r), "No such file") != NULL);
	proc_result_free(&r);
}

/* The one-record-per-op tables agree with each other, and the derived
 * predicates answer what the hand-kept lists used to. */
static void test_tables(void)
{
	char buf[256];
	const char *e = verify_check_tables(buf, sizeof buf);
	if (e) {
		printf("FAIL: tables: %s\n", e);
		failed++;
	}
	/* op records */
	CHECK(opinfo_by_bytecode(0x03) == &op_table[CT_addi]);
	CHECK(opinfo_by_bytecode(0x7A) == &op_table[CT_memory_fence_alias_tko]);
	CHECK(opinfo_by_bytecode(0x7D) == &op_table[CT_multimem_store_view_tko]);
	CHECK(opinfo_by_bytecode(0x19) == NULL && opinfo_by_bytecode(256) == NULL);
	CHECK(opinfo_by_name("nv_tileaa.convert_layout") == NULL);
	CHECK(opinfo_by_name("nv_tileas.convert_layout") == &op_table[AS_convert_layout]);
	CHECK(op_table[AA_tiled_load].dialect == DIALECT_NV_TILEAA && op_table[AS_tiled_load].dialect == DIALECT_NV_TILEAS);
	int nshape = 0, naccept = 0, nkept = 0;
	for (int i = 0; i < OPCODE_COUNT; i++) {
		nshape += op_is_shape(&op_table[i]);
		naccept += op_lower_accepts(&op_table[i]);
		nkept += op_table[i].dialect == DIALECT_CUDA_TILE && !op_kept_below(&op_table[i]);
	}
	CHECK(nshape == 8);      /* reduce scan permute cat extract insert pack unpack */
	CHECK(op_is_shape(&op_table[CT_insert]) && !op_is_shape(&op_table[CT_broadcast]));
	CHECK(naccept == 105);   /* every cuda_tile op (108) but module/entry/global */
	CHECK(op_lower_accepts(&op_table[CT_mmaf_scaled]) && op_lower_accepts(&op_table[CT_mmai]) && op_lower_accepts(&op_table[CT_mmaf]) && op_lower_accepts(&op_table[CT_atan2]));
	CHECK(nkept == 20);      /* views, memory (multimem too), tokens, shape queries, atomics, module, global */
	CHECK(op_kept_below(&op_table[CT_mmaf_scaled]));     /* sm_120's block-scaled mma.sync (else rewritten) */
	CHECK(!op_kept_below(&op_table[CT_load_view_tko]) && op_kept_below(&op_table[CT_reduce]));
	CHECK(op_table[CT_divi].family == FAM_SAME && op_table[CT_insert].family == FAM_INSERT);
	/* versions and enums */
	CHECK(bytecode_latest() == 1305 && bytecode_version_known(1302) && !bytecode_version_known(1306));
	CHECK(strcmp(bytecode_version_name(1303), "13.3") == 0 && bytecode_version_parse("13.4") == 1304);
	CHECK(bytecode_version_parse("13.0") == -1 && strcmp(bytecode_version_name(1200), "?") == 0);
	CHECK(strcmp(bytecode_version_list(), "13.1, 13.2, 13.3, 13.4, 13.5") == 0);
	CHECK(strcmp(bytecode_version_list_quoted(), "\"13.1\", \"13.2\", \"13.3\", \"13.4\", \"13.5\"") == 0);
	CHECK(strcmp(enum_spelling(EK_ROUNDING, ROUNDING_nearest_away, 0), "nearest_away") == 0);
	CHECK(enum_spelling(EK_ROUNDING, ROUNDING_nearest_away, 1303) == NULL);
	CHECK(enum_spelling(EK_SIGNEDNESS, 2, 0) == NULL);
	CHECK(enum_lookup(EK_RMW_MODE, "xchg")->value == RMW_MODE_xchg && RMW_MODE_xchg == 9);
	CHECK(enum_lookup(EK_SCOPE, "xchg") == NULL);
	CHECK(strcmp(enum_list(EK_ORDERING, buf, sizeof buf), "weak, relaxed, acquire, release, acq_rel") == 0);
	CHECK(strcmp(enum_kind_what(EK_CMP_PRED), "comparison predicate") == 0);
}

/* The typed attribute getters: the value when the kind matches, else the default. */
static void test_getters(void)
{
	Module *m = module_new("cuda_tile");
	Op *op = op_new(m, &op_table[CT_divi], 0, NULL, 0, NULL, 0, NULL);
	op_set_attr(m, op, "dim", attr_int(m, 3, NULL));
	op_set_attr(m, op, "step", attr_ints(m, 2, (int64_t[]){ 4, 8 }));
	op_set_attr(m, op, "rounding", attr_string(m, "negative_inf"));
	op_set_attr(m, op, "signedness", attr_string(m, "sideways"));
	op_set_attr(m, op, "flag", attr_bool(m, true));
	op_set_attr(m, op, "unset", attr_bool(m, false));
	CHECK(op_attr_int(op, "dim", -1) == 3 && op_attr_int(op, "step", -1) == -1);
	CHECK(op_attr_int(op, "nope", 7) == 7 && op_attr_int(op, "flag", 7) == 7);
	CHECK(op_attr_int_at(op, "step", 1, -1) == 8 && op_attr_int_at(op, "step", 2, -1) == -1);
	CHECK(op_attr_int_at(op, "step", -1, -1) == -1 && op_attr_int_at(op, "dim", 0, -1) == -1);
	CHECK(strcmp(op_attr_str(op, "rounding", "x"), "negative_inf") == 0);
	CHECK(strcmp(op_attr_str(op, "dim", "x"), "x") == 0 && op_attr_str(op, "nope", NULL) == NULL);
	CHECK(op_attr_flag(op, "flag") && !op_attr_flag(op, "unset") && !op_attr_flag(op, "dim"));
	CHECK(op_attr_enum(op, "rounding", EK_ROUNDING) == ROUNDING_negative_inf);
	CHECK(op_attr_enum(op, "rounding", EK_SIGNEDNESS) == -1);
	CHECK(op_attr_enum(op, "signedness", EK_SIGNEDNESS) == -1 && op_attr_enum(op, "nope", EK_SCOPE) == -1);
	/* op_count_values: results, block arguments, nested results */
	const Type *i32 = type_parse(m, "tile<i32>", NULL);
	Op *top = op_new(m, &op_table[CT_entry], 0, NULL, 0, NULL, 1, NULL);
	Block *b = region_add_block(m, &top->regions[0], 2, (const Type *[]){ i32, i32 });
	block_append(b, op_new(m, &op_table[CT_addi], 2, b->args, 1, &i32, 0, NULL));
	block_append(b, op_new(m, &op_table[CT_get_tile_block_id], 0, NULL, 3, (const Type *[]){ i32, i32, i32 }, 0, NULL));
	CHECK(op_count_values(top) == 6);
	module_free(m);
}

/* map's 16 little-endian words: want's 8, then zeros (NVIDIA's callbacks
 * leave 0x40-0x7f to the driver) */
static void tmap_words_are(const uint8_t *map, const uint64_t want[8], const char *what, size_t i)
{
	for (int k = 0; k < 16; k++) {
		uint64_t w = 0;
		for (int j = 0; j < 8; j++)
			w |= (uint64_t)map[8 * k + j] << (8 * j);
		if (w != (k < 8 ? want[k] : 0)) {
			printf("FAIL: %s tensor map %zu word %d: %llx, NVIDIA's %llx\n", what, i, k, (unsigned long long)w,
			       (unsigned long long)(k < 8 ? want[k] : 0));
			failed++;
		}
	}
}

/* tmap_encode against what NVIDIA's tileiras 13.5 callback wrote for the
 * aligned f16 matmul (tests/mma/launch/...ickz6ktd, sm_90; A box 128x32,
 * 64-byte swizzle; B box 32x64, 128-byte swizzle) and the tf32 one
 * (...gqcn080s: f32 A box 16x64, 64-byte swizzle; B box 32x16, 128-byte;
 * tf32 as its ftofs round nearest_even, f32 with them patched to rounding
 * zero), called on parameter blocks with these shapes (2026-11-26,
 * docs/abi.md §5.3.1) */
static void test_tmap(void)
{
	static const struct {
		TmapElem el;
		uint32_t d0, d1, stride, b0, b1;
		int swz;
		uint64_t w[8];
	} nv[] = {
		{ TMAP_F16, 4096, 4096, 4096, 32, 128, 64, { 0x7f0000001000, 0x20000244312, 0, 0, 0xfff00000fff, 0, 0x1f00000000000000, 0x7f } },
		{ TMAP_F16, 4096, 4096, 4096, 64, 32, 128, { 0x7f0000200000, 0x20000246312, 0, 0, 0xfff00000fff, 0, 0x3f00000000000000, 0x1f } },
		{ TMAP_F16, 90, 100, 90, 32, 128, 64, { 0x7f0000001000, 0xb00044312, 0, 0, 0x6300000059, 0, 0x1f00000000000000, 0x7f } },
		{ TMAP_F16, 70, 90, 70, 64, 32, 128, { 0x7f0000200000, 0x800046312, 0, 0, 0x5900000045, 0, 0x3f00000000000000, 0x1f } },
		{ TMAP_F16, 32, 64, 32, 32, 128, 64, { 0x7f0000001000, 0x400044312, 0, 0, 0x3f0000001f, 0, 0x1f00000000000000, 0x7f } },
		{ TMAP_F16, 64, 32, 64, 64, 32, 128, { 0x7f0000200000, 0x800046312, 0, 0, 0x1f0000003f, 0, 0x3f00000000000000, 0x1f } },
		{ TMAP_TF32, 4096, 4096, 4096, 16, 64, 64, { 0x7f0000001000, 0x40000254392, 0, 0, 0xfff00000fff, 0, 0x0f00000000000000, 0x3f } },
		{ TMAP_TF32, 4096, 4096, 4096, 32, 16, 128, { 0x7f0000200000, 0x40000256392, 0, 0, 0xfff00000fff, 0, 0x1f00000000000000, 0xf } },
		{ TMAP_TF32, 72, 200, 72, 16, 64, 64, { 0x7f0000001000, 0x1200054392, 0, 0, 0xc700000047, 0, 0x0f00000000000000, 0x3f } },
		{ TMAP_TF32, 136, 72, 136, 32, 16, 128, { 0x7f0000100000, 0x2200056392, 0, 0, 0x4700000087, 0, 0x1f00000000000000, 0xf } },
		{ TMAP_TF32, 16, 64, 16, 16, 64, 64, { 0x7f0000001000, 0x400054392, 0, 0, 0x3f0000000f, 0, 0x0f00000000000000, 0x3f } },
		{ TMAP_F32, 90, 100, 92, 16, 64, 64, { 0x7f0000001000, 0x1700044392, 0, 0, 0x6300000059, 0, 0x0f00000000000000, 0x3f } },
		{ TMAP_F32, 70, 90, 72, 32, 16, 128, { 0x7f0000200000, 0x1200046392, 0, 0, 0x5900000045, 0, 0x1f00000000000000, 0xf } },
	};
	for (size_t i = 0; i < sizeof nv / sizeof nv[0]; i++) {
		TmapArgs a = { nv[i].el, 2, nv[i].w[0], { nv[i].d0, nv[i].d1 }, { 1, nv[i].stride }, { nv[i].b0, nv[i].b1 }, nv[i].swz };
		uint8_t out[TMAP_BYTES];
		tmap_encode(out, &a);
		tmap_words_are(out, nv[i].w, "rank-2", i);
		TmapArgs back;
		CHECK(tmap_decode(out, &back));
		CHECK(a.strides[1] % 8 || (back.base == a.base && back.dims[0] == a.dims[0] && back.dims[1] == a.dims[1] &&
		      back.strides[1] == a.strides[1] && back.box[0] == a.box[0] && back.box[1] == a.box[1] &&
		      back.swizzle == a.swizzle && back.elem == a.elem && back.rank == 2));
		out[0x40] = 1;
		CHECK(!tmap_decode(out, &back));
	}
	/* NVIDIA's callbacks' maps of its f64 matmul (swizzle 64: flags 0x44492) and its f32 one (no
	 * swizzle: 0x40392), read from their host objects (scripts/check-emulator, 2026-11-28): decoded */
	static const uint64_t nvw[][8] = {
		{ 0x7f0000000000, 0x10000244492, 0, 0, 0xff000001ff, 0, 0x0700000000000000, 0x1f },
		{ 0x7f0000000000, 0x8000240392, 0, 0, 0xff000001ff, 0, 0x0f00000000000000, 0x3f },
	};
	for (size_t i = 0; i < sizeof nvw / sizeof nvw[0]; i++) {
		uint8_t in[TMAP_BYTES] = { 0 };
		memcpy(in, nvw[i], sizeof nvw[i]);
		TmapArgs back;
		CHECK(tmap_decode(in, &back) && back.rank == 2 && back.dims[0] == 512 && back.dims[1] == 256 &&
		      back.box[0] == (i ? 16 : 8) && back.box[1] == (i ? 64 : 32) && back.swizzle == (i ? 0 : 64) &&
		      back.elem == (i ? TMAP_F32 : TMAP_F64) && back.strides[1] == (i ? 512 : 512));
	}
	/* rank 4: NVIDIA's attention (tests/fmha/fmha_f16_aligned, sm_90a), its
	 * Q map of a [B, H, S, D] = [3, 5, 1000, 64] view (strides 320000,
	 * 64000, 64, 1) in its dims order D, S, B, H; then bit 21 at the edge
	 * of 128 KiB counted over every dim (B = 2, stride 65472 / 65408) */
	static const struct {
		uint32_t d[4], s[4];
		uint64_t w[8];
	} nv4[] = {
		{ { 64, 1000, 3, 5 }, { 1, 64, 320000, 64000 },
		  { 0x7f0000000000, 0x800246332, 0x1f4000009c40, 0, 0x3e70000003f, 0x400000002, 0x3f00000000000000, 0x3f } },
		{ { 64, 1, 2, 1 }, { 1, 64, 65472, 64 },
		  { 0x7f0000000000, 0x800246332, 0x800001ff8, 0, 0x3f, 0x1, 0x3f00000000000000, 0x3f } },
		{ { 64, 1, 2, 1 }, { 1, 64, 65408, 64 },
		  { 0x7f0000000000, 0x800046332, 0x800001ff0, 0, 0x3f, 0x1, 0x3f00000000000000, 0x3f } },
	};
	for (size_t i = 0; i < sizeof nv4 / sizeof nv4[0]; i++) {
		TmapArgs a = { TMAP_F16, 4, nv4[i].w[0], { 0 }, { 0 }, { 64, 64, 1, 1 }, 128 };
		memcpy(a.dims, nv4[i].d, sizeof nv4[i].d);
		memcpy(a.strides, nv4[i].s, sizeof nv4[i].s);
		uint8_t out[TMAP_BYTES];
		tmap_encode(out, &a);
		tmap_words_are(out, nv4[i].w, "rank-4", i);
		TmapArgs back;
		CHECK(tmap_decode(out, &back) && back.rank == 4 && back.dims[3] == a.dims[3] && back.strides[2] == a.strides[2] &&
		      back.strides[3] == a.strides[3] && back.box[1] == 64 && back.box[2] == 1);
	}
	TmapNote n;
	const char *why;
	CHECK(tmap_note_parse("k 15 bf16 base=p0 dims=p2,64 stride=p3 box=64,32 swizzle=128", &n, &why));
	CHECK(n.hidden == 15 && n.elem == TMAP_BF16 && n.base == 0 && n.dims[0].param == 2 && n.dims[1].param < 0 &&
	      n.dims[1].value == 64 && n.strides[1].param == 3 && n.box[0] == 64 && n.box[1] == 32 && n.swizzle == 128 &&
	      n.rank == 2);
	StrBuf sb = { 0 };
	tmap_note_print(&sb, &n);
	CHECK(strcmp(sb.s, TMAP_NOTE "k 15 bf16 base=p0 dims=p2,64 stride=p3 box=64,32 swizzle=128\n") == 0);
	sb_free(&sb);
	CHECK(!tmap_note_parse("k 15 f32 base=p0 dims=p2,64 stride=p3 box=64,32 swizzle=128", &n, &why));
	CHECK(!tmap_note_parse("k 15 i32 base=p0 dims=p2,64 stride=p3 box=32,32 swizzle=128", &n, &why));
	/* f64 and u8 (NVIDIA's maps of f64 and f8 operands): a 128-byte row is 16 / 128 elements */
	CHECK(tmap_note_parse("k 15 f64 base=p0 dims=p2,64 stride=p3 box=16,32 swizzle=128", &n, &why) && n.elem == TMAP_F64);
	CHECK(!tmap_note_parse("k 15 u8 base=p0 dims=p2,64 stride=p3 box=64,32 swizzle=128", &n, &why));
	CHECK(tmap_note_parse("k 15 u8 base=p0 dims=p2,64 stride=p3 box=128,32 swizzle=128", &n, &why) && n.elem == TMAP_U8);
	CHECK(!tmap_note_parse("k 15 tf32x base=p0 dims=p2,64 stride=p3 box=32,16 swizzle=128", &n, &why));
	CHECK(tmap_note_parse("k 15 tf32 base=p0 dims=p2,64 stride=p3 box=32,16 swizzle=128", &n, &why) &&
	      n.elem == TMAP_TF32 && n.box[0] == 32);
	CHECK(tmap_note_parse("k 15 f32 base=p0 dims=p2,64 stride=p3 box=16,64 swizzle=64", &n, &why) && n.elem == TMAP_F32);
	CHECK(!tmap_note_parse("k 15 f16 base=p0 dims=p2,64 stride=p3 box=64,32 swizzle=64", &n, &why));
	CHECK(!tmap_note_parse("k 0 f16 base=p0 dims=p2,64 stride=p3 box=32,32 swizzle=64", &n, &why));
	CHECK(!tmap_note_parse("k 5 f16 base=p0 dims=p2,64 stride=p3 box=32,0 swizzle=64", &n, &why));
	CHECK(!tmap_note_parse("k 5 f16 base=p0 dims=p2 stride=p3 box=32,32 swizzle=64", &n, &why));
	CHECK(!tmap_note_parse("k 5 f16 base=p0 dims=p2,-1 stride=p3 box=32,32 swizzle=64", &n, &why));
	/* rank 4 */
	CHECK(tmap_note_parse("k 37 f16 base=p0 dims=p4,p3,p1,p2 stride=p7,p5,p6 box=64,64,1,1 swizzle=128", &n, &why) &&
	      n.rank == 4 && n.dims[2].param == 1 && n.strides[3].param == 6 && n.box[3] == 1);
	tmap_note_print(&sb, &n);
	CHECK(strcmp(sb.s, TMAP_NOTE "k 37 f16 base=p0 dims=p4,p3,p1,p2 stride=p7,p5,p6 box=64,64,1,1 swizzle=128\n") == 0);
	sb_free(&sb);
	CHECK(!tmap_note_parse("k 37 f16 base=p0 dims=p4,p3,p1,p2 stride=p7,p5 box=64,64,1,1 swizzle=128", &n, &why));
	CHECK(!tmap_note_parse("k 37 f16 base=p0 dims=p4,p3,p1,p2 stride=p7,p5,p6 box=64,64,1 swizzle=128", &n, &why));
	CHECK(!tmap_note_parse("k 37 f16 base=p0 dims=1,2,3,4,5,6 stride=1,2,3,4,5 box=64,1,1,1,1,1 swizzle=128", &n, &why));
	CHECK(!tmap_note_parse("k 37 f16 base=p0 dims=p4,p3,p1,p2 stride=p7,p37,p6 box=64,64,1,1 swizzle=128", &n, &why));
	const char ptx[] = "x\n" TMAP_NOTE "k 5 f16 base=p0 dims=p2,p1 stride=p3 box=32,128 swizzle=64\n"
			   TMAP_NOTE "k 9 f16 base=p4 dims=p6,p5 stride=p7 box=64,32 swizzle=128\n";
	TmapNote *all;
	int cnt, bad;
	bool ok = tmap_notes_of(ptx, sizeof ptx - 1, &all, &cnt, &bad, &why);
	if (!ok)
		printf("FAIL: notes: line %d: %s\n", bad, why);
	CHECK(ok && cnt == 2 && all[1].hidden == 9);
	free(all);
	const char bad_ptx[] = "x\ny\n" TMAP_NOTE "k 5 f16 base=p0\n";
	CHECK(!tmap_notes_of(bad_ptx, sizeof bad_ptx - 1, &all, &cnt, &bad, &why) && bad == 3);
}

int main(void)
{
	test_tables();
	test_getters();
	test_types();
	test_targets();
	test_proc();
	test_tmap();
	if (failed)
		printf("%d checks failed\n", failed);
	else
		printf("all checks passed\n");
	return failed != 0;
}
