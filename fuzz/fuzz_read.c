/* fuzz_read.c: libFuzzer target for tile-read's decoder.
 *
 * Any input: tile_read_bytecode() must return a module or NULL (after one
 * diagnostic) without crashing, hanging or touching memory outside the input
 * (ASan/UBSan check that). Every module it returns must be valid JSON IR:
 * written, read back by the strict JSON reader, and written again, it must
 * give the same bytes; the text printer must work on it too. With
 * -DFUZZ_VERIFY the cuda_tile verifier also runs on every module.
 *
 * Build and run: scripts/fuzz-read [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tile_read.h"
#include "json_ir.h"
#include "print.h"
#include "diag.h"
#ifdef FUZZ_VERIFY
#include "verify.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag_tool = "fuzz_read";
	diag_input = "input";
	Module *m = tile_read_bytecode(data, size);
	if (!m)
		return 0;
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
#ifdef FUZZ_VERIFY
	verify_cuda_tile(m);
#endif
	free(json);
	free(json2);
	module_free(back);
	module_free(m);
	return 0;
}
