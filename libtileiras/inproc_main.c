/* tileiras-inproc: bytecode -> cubin (or PTX) in one process through
 * libtileiras (docs/libtileiras.md). The plain path of scripts/tileiras:
 *
 *   tileiras-inproc INPUT.tileirbc --gpu-name=sm_90 [-O N] [--lineinfo]
 *                   [--device-debug] [--sanitize=memcheck] [--emit=cubin|ptx]
 *                   [--time] [-o OUTPUT|-]
 * --time: one line on stderr, "time read=MS lower=MS sched=MS ptx=MS pack=MS".
 *
 * Exit status: the API's code (NVIDIA's driver exit codes: 2 bad option or
 * configuration, 3 not Tile IR bytecode, 5 compile failure), 1 for a file
 * that cannot be read or written. Diagnostics on stderr. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tileiras.h"
#include "tool.h"

static int usage(const char *why)
{
	fprintf(stderr, "tileiras-inproc: error: %s\n"
			"usage: tileiras-inproc INPUT --gpu-name=SM [-O N] [--lineinfo] [--device-debug]\n"
			"       [--sanitize=memcheck] [--emit=cubin|ptx] [-o OUTPUT]\n", why);
	return 2;
}

int main(int argc, char **argv)
{
	TileirasConfig c = { .opt_level = 3 };
	const char *input = NULL, *output = "elf.o", *emit = "cubin";
	bool want_time = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		if (strncmp(a, "--gpu-name=", 11) == 0)
			v = a + 11;
		else if (strcmp(a, "--gpu-name") == 0 && i + 1 < argc)
			v = argv[++i];
		if (v) {
			if (strncmp(v, "sm_", 3) != 0)
				return usage("--gpu-name takes sm_NN");
			c.gpu_id = atoi(v + 3);
			continue;
		}
		if (strncmp(a, "--opt-level=", 12) == 0)
			c.opt_level = atoi(a + 12);
		else if (strcmp(a, "-O") == 0 && i + 1 < argc)
			c.opt_level = atoi(argv[++i]);
		else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '9' && !a[3])
			c.opt_level = a[2] - '0';
		else if (strcmp(a, "--time") == 0)
			want_time = true;
		else if (strcmp(a, "--lineinfo") == 0)
			c.lineinfo = 1;
		else if (strcmp(a, "--device-debug") == 0 || strcmp(a, "-g") == 0)
			c.device_debug = 1;
		else if (strcmp(a, "--sanitize=memcheck") == 0)
			c.sanitize = TILEIRAS_SANITIZE_MEMCHECK;
		else if (strcmp(a, "--emit=cubin") == 0 || strcmp(a, "--emit=ptx") == 0)
			emit = a + 7;
		else if (strcmp(a, "-o") == 0 && i + 1 < argc)
			output = argv[++i];
		else if (strncmp(a, "--output-file=", 14) == 0)
			output = a + 14;
		else if (a[0] == '-' && a[1])
			return usage("unknown option");
		else if (input)
			return usage("more than one input");
		else
			input = a;
	}
	if (!input)
		return usage("no input file");
	size_t len;
	uint8_t *buf = read_whole_file(input, &len);
	if (!buf)
		return 1;
	c.input_buffer_data = buf;
	c.input_buffer_size = len;
	TileirasProgram *p = NULL;
	int rc = tileirasProgramCreate(&p, &c);
	if (rc) {
		fprintf(stderr, "error: %s\n", tileirasGetLastError());
		free(buf);
		return rc;
	}
	tileirasProgramSetInputName(p, input);
	bool ptx = strcmp(emit, "ptx") == 0;
	if (ptx)
		tileirasProgramRequestForms(p, TILEIRAS_FORM_PTX);
	rc = tileirasProgramCompile(p);
	TileirasByteView log, out;
	tileirasProgramGetLog(p, &log);
	fwrite(log.data, 1, log.size, stderr);
	if (!rc)
		rc = ptx ? tileirasProgramGetForm(p, TILEIRAS_FORM_PTX, &out) : tileirasProgramGetOutput(p, &out);
	if (want_time) {
		double ms[TILEIRAS_N_STAGES];
		tileirasProgramGetStageTimes(p, ms);
		fprintf(stderr, "time read=%.2f lower=%.2f sched=%.2f ptx=%.2f pack=%.2f\n", ms[0], ms[1], ms[2],
			ms[3], ms[4]);
	}
	if (!rc && write_output_atomic(output, out.data, out.size) < 0)
		rc = 1;
	tileirasProgramRelease(p);
	free(buf);
	return rc;
}
