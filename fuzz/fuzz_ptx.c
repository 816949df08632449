/* fuzz_ptx.c: libFuzzer target for tile-run's PTX parser and decoder.
 *
 * Any input: ptx_parse() must return a module or NULL (after one
 * diagnostic) without crashing, hanging, leaking or touching memory outside
 * the input (ASan/UBSan/LSan check that); every instruction of a module it
 * returns must have its operands in the register file and its branch and
 * call targets in the module.
 *
 * Build and run: scripts/fuzz-ptx [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"

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
	free(text);
	return 0;
}
