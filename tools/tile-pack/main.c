/* tile-pack: PTX -> ptxas -> cubin, fatbin (SASS + PTX) or host object.
 * Accepts: PTX text. Guarantees: see pack.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pack.h"
#include "diag.h"
#include "knobs.h"
#include "target.h"
#include "tool.h"
#include "xalloc.h"

static const char *const emits[] = { "cubin", "fatbin", "obj", "nv-host", NULL };

static PackOptions opts = {
	.opt_level = 3,
	.host_arch = "x86_64",
	.host_os = "linux",
	.symbol = "tileiras_fatbin",
	.remark_format = "yaml",
	.language = "auto",
	.nv_host = "callbacks",
};
static const char *ptxas_args[64];

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tile-pack: error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n(run 'tile-pack --help' for usage)\n");
	va_end(ap);
	return -1;
}

static bool flag_value(const char *value, bool *out)
{
	if (!value || strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
		*out = true;
		return true;
	}
	if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
		*out = false;
		return true;
	}
	return false;
}

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	static const char *const valued[] = { "--sanitize",
		"--host-arch", "--host-os", "--symbol", "--remarks-output-file", "--remark-format",
		"--ptxas", "--fatbinary", "--ptxas-arg", "--language", "--nv-host", NULL };
	if (strcmp(name, "-v") == 0 || strcmp(name, "--verbose") == 0)
		return flag_value(value, &opts.verbose) ? 1 : bad("bad value in '%s=%s'", name, value);
	if (strcmp(name, "--lineinfo") == 0)
		return flag_value(value, &opts.lineinfo) ? 1 : bad("bad value in '%s=%s'", name, value);
	if (strcmp(name, "-g") == 0 || strcmp(name, "--device-debug") == 0)
		return flag_value(value, &opts.device_debug) ? 1 : bad("bad value in '%s=%s'", name, value);
	bool want = false;   /* this call found one of ours without its value */
	int used = tool_target_option(name, value, &want, &opts.gpu_name, &opts.opt_level);
	if (used || want) {
		*takes_value = want;
		return used;
	}
	for (const char *const *v = valued; *v; v++) {
		if (strcmp(name, *v) != 0)
			continue;
		if (!value) {
			*takes_value = true;
			return 0;
		}
		if (strcmp(name, "--sanitize") == 0) {
			if (strcmp(value, "memcheck") != 0)
				return bad("unknown sanitizer '%s' (supported: memcheck)", value);
			opts.memcheck = true;
		} else if (strcmp(name, "--host-arch") == 0) {
			if (strcmp(value, "x86_64") != 0 && strcmp(value, "aarch64") != 0)
				return bad("unsupported host architecture '%s' (x86_64, aarch64)", value);
			opts.host_arch = value;
		} else if (strcmp(name, "--host-os") == 0) {
			if (strcmp(value, "linux") != 0 && strcmp(value, "windows") != 0)
				return bad("unsupported host operating system '%s' (linux, windows)", value);
			opts.host_os = value;
		} else if (strcmp(name, "--symbol") == 0) {
			if (!value[0])
				return bad("empty symbol name");
			opts.symbol = value;
		} else if (strcmp(name, "--remarks-output-file") == 0) {
			opts.remarks_file = value;
		} else if (strcmp(name, "--remark-format") == 0) {
			if (strcmp(value, "yaml") != 0 && strcmp(value, "command-line") != 0)
				return bad("unknown remark format '%s' (yaml, command-line)", value);
			opts.remark_format = value;
		} else if (strcmp(name, "--language") == 0) {
			if (strcmp(value, "auto") != 0 && strcmp(value, "tileir") != 0 && strcmp(value, "ptx") != 0)
				return bad("unknown language '%s' (auto, tileir, ptx)", value);
			opts.language = value;
		} else if (strcmp(name, "--nv-host") == 0) {
			if (strcmp(value, "callbacks") != 0 && strcmp(value, "none") != 0)
				return bad("unknown --nv-host '%s' (callbacks, none)", value);
			opts.nv_host = value;
		} else if (strcmp(name, "--ptxas") == 0) {
			opts.ptxas = value;
		} else if (strcmp(name, "--fatbinary") == 0) {
			opts.fatbinary = value;
		} else if (strcmp(name, "--ptxas-arg") == 0) {
			if (opts.n_ptxas_args >= (int)(sizeof ptxas_args / sizeof ptxas_args[0]))
				return bad("too many --ptxas-arg options");
			ptxas_args[opts.n_ptxas_args++] = value;
			opts.ptxas_args = ptxas_args;
		}
		return 1;
	}
	return 0;
}

/* --emit=nv-host: the .nv.host object a TILEIR cubin of this PTX would
 * carry (nvhost.c), without ptxas: to inspect or test the callbacks */
static int emit_nv_host(ToolRun *r, const PtxInput *in)
{
	char t[32];
	ptx_target(in->text, in->len, t, sizeof t);
	const char *g = opts.gpu_name ? opts.gpu_name : t;
	if (strncmp(g, "sm_", 3) != 0 || atoi(g + 3) <= 0) {
		diag_plain("--emit=nv-host: no target (give --gpu-name or a PTX .target)");
		return EXIT_INPUT;
	}
	StrBuf names = {0};
	int ne = ptx_entry_names(in->text, in->len, &names);
	const char **list = xcalloc((size_t)ne + 1, sizeof *list);
	const char *q = names.s;
	for (int i = 0; i < ne; i++, q += strlen(q) + 1)
		list[i] = q;
	int hr = pack_nv_host(&opts, list, ne, in->text, in->len, atoi(g + 3), &r->bytes);
	free(list);
	sb_free(&names);
	r->out_is_bytes = true;
	return hr < 0 ? EXIT_INPUT : EXIT_OK;
}

static int run(ToolRun *r)
{
	if (opts.device_debug && opts.opt_level != 0) {
		diag_plain("--device-debug needs --opt-level=0 (ptxas cannot debug optimized code)");
		return EXIT_INPUT;
	}
	if (r->input_len == 0) {
		diag_plain("empty input: expected PTX");
		return EXIT_INPUT;
	}
	if (memchr(r->input, 0, r->input_len)) {
		diag_plain("the input is not PTX text (it holds NUL bytes: Tile IR bytecode, say, is not PTX)");
		return EXIT_INPUT;
	}
	PtxInput in = { .text = r->input, .len = r->input_len, .display = diag_input };
	struct stat st;
	if (strcmp(r->input_name, "-") != 0 && stat(r->input_name, &st) == 0 && S_ISREG(st.st_mode))
		in.path = r->input_name;
	char arch[16];
	StrBuf cubin = {0}, fatbin = {0};
	int rc = EXIT_INPUT;
	if (strcmp(r->emit, "nv-host") == 0)
		return emit_nv_host(r, &in);
	if (pack_cubin(&opts, &in, &cubin, arch) < 0)
		goto out;
	if (strcmp(r->emit, "cubin") == 0) {
		r->bytes = cubin;
		cubin = (StrBuf){0};
	} else {
		if (pack_fatbin(&opts, &in, &cubin, arch, &fatbin) < 0)
			goto out;
		if (strcmp(r->emit, "fatbin") == 0) {
			r->bytes = fatbin;
			fatbin = (StrBuf){0};
		} else if (pack_host_object(&opts, fatbin.s, fatbin.len, &r->bytes) < 0) {
			goto out;
		}
	}
	r->out_is_bytes = true;
	rc = EXIT_OK;
out:
	sb_free(&cubin);
	sb_free(&fatbin);
	return rc;
}

/* --query-tensor-maps [--language=L] [--nv-host=K] [--ptxas=P]: prints
 * "yes" when the cubins would be TILEIR with a host callback that fills
 * tensor maps (so tile-ptx may use TMA: scripts/tileiras), else "no" */
static int query_tensor_maps(int argc, char **argv)
{
	PackOptions q = { .language = "auto" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--language=", 11) == 0)
			q.language = a + 11;
		else if (strncmp(a, "--nv-host=", 10) == 0)
			q.nv_host = a + 10;
		else if (strncmp(a, "--ptxas=", 8) == 0)
			q.ptxas = a + 8;
		else if (strcmp(a, "--query-tensor-maps") != 0) {
			diag_plain("--query-tensor-maps takes only --language, --nv-host and --ptxas, not '%s'", a);
			return EXIT_USAGE;
		}
	}
	puts(pack_fills_tensor_maps(&q) ? "yes" : "no");
	return EXIT_OK;
}

/* --which-ptxas [--ptxas=P]: prints the ptxas tile-pack would run and its
 * version, "PATH (release M.m.p)" (`tileiras --version` shows it: the cubins
 * depend on it), or the message naming where it looked and exits 1 */
static int which_ptxas(int argc, char **argv)
{
	const char *given = NULL;
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--ptxas=", 8) == 0)
			given = argv[i] + 8;
		else if (strcmp(argv[i], "--which-ptxas") != 0) {
			diag_plain("--which-ptxas takes only --ptxas, not '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	char *id = pack_ptxas_identity(given);
	if (!id)
		return EXIT_INPUT;
	puts(id);
	free(id);
	return EXIT_OK;
}

/* an entry of its own, not tool_main's: the switches read once for it */
static int with_knobs(int (*entry)(int, char **), int argc, char **argv)
{
	Knobs k;
	knobs_read(&k);
	const Knobs *was = knobs_use(&k);
	int rc = entry(argc, argv);
	knobs_use(was);
	return rc;
}

int main(int argc, char **argv)
{
	diag_tool = "tile-pack";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--query-tensor-maps") == 0)
			return with_knobs(query_tensor_maps, argc, argv);
		if (strcmp(argv[i], "--which-ptxas") == 0)
			return with_knobs(which_ptxas, argc, argv);
	}
	static const Tool t = {
		.name = "tile-pack",
		.summary = "Assemble PTX with ptxas into a cubin, a fatbin (SASS + PTX) or a host object.",
		.options_help =
			"  --gpu-name=SM      GPU to assemble for (sm_75 ... sm_121; --arch too);\n"
			"                     default: the PTX's .target. A PTX .target sm_XXa/f of\n"
			"                     the same GPU is kept as the ptxas -arch\n"
			"  -O N, --opt-level=N  ptxas optimization level 0-3 (default 3)\n"
			"  --lineinfo         ptxas -lineinfo\n"
			"  -g, --device-debug ptxas -g (needs -O0)\n"
			"  --sanitize=memcheck  ptxas -sanitize=memcheck\n"
			"  --host-arch=A      host object architecture: x86_64 (default), aarch64\n"
			"  --host-os=OS       host object format: linux (ELF, default), windows (COFF)\n"
			"  --symbol=NAME      host object symbol of the fatbin (default tileiras_fatbin;\n"
			"                     NAME_size holds its length)\n"
			"  --remarks-output-file=F  write per-kernel resource remarks from ptxas -v to F\n"
			"  --remark-format=FMT  yaml (default, LLVM remark YAML) or command-line\n"
			"  --language=L       auto (default): a TILEIR-language cubin (.language 7, as\n"
			"                     NVIDIA's) when the ptxas can assemble it (13.2+), else\n"
			"                     plain PTX and a remark; tileir: required; ptx: never\n"
			"  --nv-host=K        TILEIR cubins: callbacks (default: embed the .nv.host\n"
			"                     launch-callback object NVIDIA's carry, for --host-arch/\n"
			"                     --host-os; docs/abi.md 5.3) or none\n"
			"  --ptxas=PATH       this ptxas (also $TILEIRAS_PTXAS); default: the newest of\n"
			"                     $CUDA_ROOT|$CUDA_HOME|$CUDA_PATH|/usr/local/cuda, PATH and\n"
			"                     pip's nvidia/cu13/bin ($VIRTUAL_ENV, python3 on PATH)\n"
			"  --fatbinary=PATH   this fatbinary instead of the toolkit's or PATH's\n"
			"  --ptxas-arg=ARG    pass ARG to ptxas (repeatable)\n"
			"  --query-tensor-maps  print yes when the cubins would fill TMA tensor maps\n"
			"                     (TILEIR with callbacks: tile-sched --tma may be used), else no\n"
			"  --which-ptxas      print the ptxas this would run and its version, and exit\n"
			"  -v, --verbose      print the ptxas candidates, the one chosen and the\n"
			"                     ptxas and fatbinary command lines\n"
			"  environment: MLIR_ENABLE_EVO and PTX_KNOBS_PATH both set: ptxas\n"
			"                     --knobs-file=$PTX_KNOBS_PATH; TILE_PACK_NO_EARLY=1: start\n"
			"                     ptxas only once its inputs are written (by default it\n"
			"                     starts while the .nv.host object is built)\n"
			"  output: cubin = ptxas output; fatbin = fatbinary of the cubin and the PTX;\n"
			"          obj = host relocatable object with the fatbin in section .nv_fatbin;\n"
			"          nv-host = the .nv.host callback object alone (no ptxas run)\n",
		TOOL_STAGE(NULL, "cubin"),
	};
	return tool_main(argc, argv, &t);
}
