/* fuzz_read.c: libFuzzer target for tile-read's decoder.
 *
 * Any input: tile_read_bytecode() must return a module or NULL (after one
 * diagnostic) without crashing, hanging or touching memory outside the input
 * (ASan/UBSan check that). Every module it returns must be valid JSON IR:
 * written, read back by the strict JSON reader, and written again, it must
 * give the same bytes; the text printer must work on it too. With
 * -DFUZZ_VERIFY the cuda_tile verifier also runs on every module.
 * -DFUZZ_MLIR: the input is the dialect's text (asm_parse.h) instead, and a
 * module it gives must print as text that reads back to the same text.
 *
 * Build and run: scripts/fuzz-read [SECONDS], scripts/fuzz-read --mlir-lib
 * [SECONDS] (FUZZ_MLIR). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tile_read.h"
#include "json_ir.h"
#include "print.h"
#include "diag.h"
#if defined FUZZ_MLIR && !defined FUZZ_VERIFY
#define FUZZ_VERIFY     /* the text's modules are printed only once verified */
#endif
#ifdef FUZZ_VERIFY
#include "verify.h"
#endif
#ifdef FUZZ_MLIR
#include "asm_parse.h"
#include "enums.h"

/* text -> module -> text -> module -> text: the two texts are the same */
static void text_round_trip(Module *m)
{
	StrBuf t1 = { 0 }, t2 = { 0 };
	asm_print_module(&t1, m, NULL);
	Module *back = asm_parse_module(t1.s ? t1.s : "", t1.len, "printed", bytecode_latest());
	if (!back) {
		fprintf(stderr, "fuzz_read: the text we printed does not read back:\n%s", t1.s ? t1.s : "");
		abort();
	}
	asm_print_module(&t2, back, NULL);
	if (t1.len != t2.len || memcmp(t1.s, t2.s, t1.len) != 0) {
		fprintf(stderr, "fuzz_read: the text we printed reads back to other text:\n%s\n---\n%s",
			t1.s, t2.s ? t2.s : "");
		abort();
	}
	module_free(back);
	sb_free(&t1);
	sb_free(&t2);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag_tool = "fuzz_read";
	diag_input = "input";
#ifdef FUZZ_MLIR
	Module *m = asm_parse_module((const char *)data, size, "input", bytecode_latest());
	if (!m)
		return 0;
	if (verify_cuda_tile(m) > 0) {
		module_free(m);
		return 0;
	}
	text_round_trip(m);
#else
	Module *m = tile_read_bytecode(data, size);
	if (!m)
		return 0;
#endif
	size_t len, len2;
	char *json = json_ir_write(m, &len);
	Module *back = json_ir_read(json, len, NULL);
	if (!back) {
		fprintf(stderr, "fuzz_read: the JSON we wrote does not read back:\n%s", json);
		abort();
	}
	char *json2 = json_ir_write(back, &len2);
	if (len != len2 || memcmp(json, json2, len) != 0) {
		fprintf(stderr, "fuzz_read: the JSON we wrote is not canonical\n");
		abort();
	}
	StrBuf text = { 0 };
	print_module(&text, m);
	sb_free(&text);
#if defined FUZZ_VERIFY && !defined FUZZ_MLIR
	verify_cuda_tile(m);
#endif
	free(json);
	free(json2);
	module_free(back);
	module_free(m);
	return 0;
}
