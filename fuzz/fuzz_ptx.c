/* fuzz_ptx.c: libFuzzer target for tile-run's PTX parser and decoder.
 *
 * Any input: ptx_parse() must return a module or NULL (after one
 * diagnostic) without crashing, hanging, leaking or touching memory outside
 * the input (ASan/UBSan/LSan check that); every instruction of a module it
 * returns must have its operands in the register file and its branch and
 * call targets in the module. The tensor-map notes of the same text
 * (libcommon tmap.h, which tile-run reads too) parse or are refused, and
 * each parsed map round-trips through the encoder and decoder.
 *
 * Build and run: scripts/fuzz-ptx [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "tmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	Module *m = ptx_parse("input.ptx", text, size);
	if (m) {
		/* every branch target and call must be inside the module */
		for (int f = 0; f < m->nfuncs; f++)
			for (int k = 0; k < m->funcs[f].ncode; k++) {
				const Insn *in = &m->funcs[f].code[k];
				if (in->op == OP_BRA && (in->target < 0 || in->target > m->funcs[f].ncode))
					abort();
				if (in->op >= OP_CALL_VPRINTF && (in->target < 0 || in->target >= m->ncalls))
					abort();
				for (int d = 0; d < in->nd; d++)
					if (in->d[d] < 0 || in->d[d] >= m->funcs[f].nslots)
						abort();
				for (int s = 0; s < in->ns; s++)
					if (in->s[s] < 0 || in->s[s] >= m->funcs[f].nslots)
						abort();
			}
		module_free(m);
	}
	TmapNote *notes;
	int n, bad;
	const char *why;
	if (tmap_notes_of(text, size, &notes, &n, &bad, &why)) {
		for (int i = 0; i < n; i++) {
			TmapArgs a = { .elem = notes[i].elem, .rank = notes[i].rank, .base = 0x7f0000001000ull,
				       .swizzle = notes[i].swizzle }, b;
			for (int j = 0; j < a.rank; j++) {
				a.dims[j] = 64;
				a.strides[j] = j ? 64u << (6 * (j - 1)) : 1;
				a.box[j] = notes[i].box[j];
			}
			uint8_t map[TMAP_BYTES];
			tmap_encode(map, &a);
			if (!tmap_decode(map, &b) || b.rank != a.rank || b.swizzle != a.swizzle)
				abort();
			for (int j = 0; j < a.rank; j++)
				if (b.box[j] != a.box[j] || b.dims[j] != a.dims[j])
					abort();
		}
		free(notes);
	}
	free(text);
	return 0;
}
