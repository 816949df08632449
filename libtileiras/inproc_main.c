/* tileiras-inproc: bytecode -> cubin (or PTX) in one process through
 * libtileiras (docs/libtileiras.md). The plain path of scripts/tileiras:
 *
 *   tileiras-inproc INPUT.tileirbc --gpu-name=sm_90 [-O N] [--lineinfo]
 *                   [--device-debug] [--sanitize=memcheck] [--emit=cubin|ptx]
 *                   [--time] [--quiet-on-failure] [-o OUTPUT|-] [--input-name=NAME]
 *                   [--then-exec PROGRAM ARGS...]
 *                   [--host-arch=x86_64|aarch64] [--host-os=linux|windows]
 *                   [--remark-kinds=LIST] [--resource-remarks]
 *                   [--remark-format=yaml|command-line] [--remarks-output-file=F]
 * --time: one line on stderr, "time read=MS lower=MS sched=MS ptx=MS pack=MS".
 * --version: the build and the ptxas (tileirasGetVersion), exit 0.
 * --input-name: how messages name the input (scripts/tileiras passes the
 * user's file when it reads a copy). Remarks are what the stages write with
 * the same options (tile-sched --remark-kinds, tile-pack's ptxas resource
 * remarks), sched's then pack's, to F (default: stdout) after a successful
 * compile. This is scripts/tileiras's fast path (docs/libtileiras.md).
 *
 * Exit status: the API's code (NVIDIA's driver exit codes: 2 bad option or
 * configuration, 3 not Tile IR bytecode, 5 compile failure), 1 for a file
 * that cannot be read or written. Diagnostics on stderr; with
 * --quiet-on-failure only when it succeeds (a caller that does a failed
 * compile again another way: scripts/tileiras's fast path, which so needs
 * no process to capture them). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tileiras.h"
#include "tool.h"
#include "remark.h"

static int usage(const char *why)
{
	fprintf(stderr, "tileiras-inproc: error: %s\n"
			"usage: tileiras-inproc INPUT --gpu-name=SM [-O N] [--lineinfo] [--device-debug]\n"
			"       [--sanitize=memcheck] [--emit=cubin|ptx] [-o OUTPUT]\n", why);
	return 2;
}

static int compile_main(int argc, char **argv)
{
	/* the host object is for this machine unless --host-arch says otherwise */
#if defined(__aarch64__)
	TileirasConfig c = { .opt_level = 3, .host_arch = TILEIRAS_HOST_ARCH_AARCH64 };
#else
	TileirasConfig c = { .opt_level = 3, .host_arch = TILEIRAS_HOST_ARCH_X86_64 };
#endif
	const char *input = NULL, *output = "elf.o", *emit = "cubin", *input_name = NULL;
	const char *remarks_file = NULL;
	unsigned remark_kinds = 0;
	bool want_time = false, resource_remarks = false, remark_yaml = false;
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
		else if (strcmp(a, "--version") == 0) {
			printf("tileiras-inproc (open tileiras)\n%s\n", tileirasGetVersion());
			return 0;
		}
		else if (strcmp(a, "--quiet-on-failure") == 0)
			continue;
		else if (strncmp(a, "--input-name=", 13) == 0)
			input_name = a + 13;
		else if (strcmp(a, "--host-arch=x86_64") == 0 || strcmp(a, "--host-arch=aarch64") == 0)
			c.host_arch = a[12] == 'x' ? TILEIRAS_HOST_ARCH_X86_64 : TILEIRAS_HOST_ARCH_AARCH64;
		else if (strcmp(a, "--host-os=linux") == 0 || strcmp(a, "--host-os=windows") == 0)
			c.host_os = a[10] == 'l' ? TILEIRAS_HOST_OS_LINUX : TILEIRAS_HOST_OS_WINDOWS;
		else if (strncmp(a, "--remark-kinds=", 15) == 0) {
			int k = remark_kinds_parse(a + 15);
			if (k <= 0)
				return usage("--remark-kinds takes a list of passed, missed, failed, analysis");
			remark_kinds = (unsigned)k;
		} else if (strcmp(a, "--resource-remarks") == 0)
			resource_remarks = true;
		else if (strcmp(a, "--remark-format=yaml") == 0 || strcmp(a, "--remark-format=command-line") == 0)
			remark_yaml = a[16] == 'y';
		else if (strncmp(a, "--remarks-output-file=", 22) == 0)
			remarks_file = a + 22;
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
	tileirasProgramSetInputName(p, input_name ? input_name : input);
	tileirasProgramRequestRemarks(p, remark_kinds, resource_remarks, remark_yaml);
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
	bool want_remarks = remark_kinds || resource_remarks;
	TileirasByteView rem = { 0 };
	if (!rc && want_remarks)
		tileirasProgramGetRemarks(p, &rem);
	if (!rc && want_remarks && !remarks_file)
		fwrite(rem.data, 1, rem.size, stdout);
	if (!rc && want_remarks && remarks_file && write_output_atomic(remarks_file, rem.data, rem.size) < 0)
		rc = 1;
	if (!rc && write_output_atomic(output, out.data, out.size) < 0)
		rc = 1;
	tileirasProgramRelease(p);
	free(buf);
	return rc;
}

/* --quiet-on-failure: stderr goes to a memory file, copied out only when the
 * compile succeeded. --then-exec PROGRAM ARGS... (last): when the compile
 * fails, quietly, run PROGRAM ARGS in this process instead, with
 * TILEIRAS_NO_INPROC=1 (scripts/tileiras execs this for cuTile's command
 * line and names itself: a failure is compiled again by its stages, and no
 * shell waits on a child meanwhile) */
int main(int argc, char **argv)
{
	bool quiet = false;
	char **then = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--then-exec") == 0) {
			if (i + 1 >= argc)
				return usage("--then-exec needs a program");
			then = argv + i + 1;
			argc = i;
			quiet = true;
			break;
		}
		quiet |= strcmp(argv[i], "--quiet-on-failure") == 0;
	}
	int held = -1, saved = -1;
	if (quiet) {
		fflush(stderr);
		held = memfd_create("tileiras-inproc-stderr", MFD_CLOEXEC);
		saved = held >= 0 ? dup(2) : -1;
		if (saved < 0 || dup2(held, 2) < 0) {
			if (held >= 0)
				close(held);
			held = -1;
		}
	}
	int rc = compile_main(argc, argv);
	if (held >= 0) {
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		if (rc == 0) {
			char buf[65536];
			ssize_t n;
			lseek(held, 0, SEEK_SET);
			while ((n = read(held, buf, sizeof buf)) > 0)
				if (write(2, buf, (size_t)n) < 0)
					break;
		}
		close(held);
	}
	if (rc != 0 && then) {
		setenv("TILEIRAS_NO_INPROC", "1", 1);
		execv(then[0], then);
		fprintf(stderr, "tileiras-inproc: cannot run '%s': %s\n", then[0], strerror(errno));
		return 1;
	}
	return rc;
}
