/* tile-read: Tile IR bytecode -> cuda_tile JSON IR.
 *
 * Reads:      Tile IR bytecode, versions 13.1 to 13.5 (the
 *             container, every section, types, attributes, constants,
 *             globals, debug info, all opcodes; docs/bytecode.md); or the
 *             cuda_tile dialect's text (a .mlir name, or text that starts
 *             as MLIR does: asm_parse.h), as of --bytecode-version.
 * Writes:     the cuda_tile stage of the JSON IR (docs/ir.md), module attrs
 *             bytecode_version and (13.3+) producer; --emit=text prints it
 *             in the generic text form of every stage (libcommon/print.c),
 *             --emit=asm in the cuda_tile dialect's own assembly syntax,
 *             as NVIDIA's tileirdisasm prints it (asm.h); --emit=bytecode
 *             Tile IR bytecode again (write.h), of --bytecode-version or
 *             else the input's version.
 * Checks:     the whole container strictly: truncation, bad magic, unknown,
 *             duplicate or oversized sections, out-of-range indices, bad
 *             lengths, trailing bytes, type recursion, over-deep nesting,
 *             features newer than the file's version. Then the cuda_tile
 *             verifier (libcommon/verify.h; --no-verify skips it).
 * Exit:       0 ok; 1 bad input (one line "tile-read: FILE: offset 0xNN:
 *             error: MSG", or the verifier's errors), no output written;
 *             2 usage.
 * The stage itself is tile_read_run() (tile_read.h). */
#include <stdlib.h>
#include <string.h>
#include "tool.h"
#include "tile_read.h"
#include "asm.h"
#include "debug_info.h"
#include "asm_parse.h"
#include "write.h"
#include "diag.h"
#include "verify.h"

static const char *const emits[] = { "json", "text", "asm", "asm-debug", "bytecode", NULL };

static bool no_verify;
static int version;       /* --bytecode-version, 0: the newest */

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	(void)r;
	if (strcmp(name, "--no-verify") == 0) {
		no_verify = true;
		return 1;
	}
	if (strcmp(name, "--bytecode-version") == 0) {
		if (!value) {
			*takes_value = true;
			return 1;
		}
		version = bytecode_version_parse(value);
		if (!bytecode_version_known(version)) {
			diag_error(NULL, "unknown bytecode version '%s' (one of %s)", value, bytecode_version_list());
			return -1;
		}
		return 1;
	}
	return 0;
}

/* the dialect's text (asm_parse.h), verified unless --no-verify */
static Module *read_text(ToolRun *r)
{
	const char *name = strcmp(r->input_name, "-") == 0 ? "<stdin>" : r->input_name;
	Module *m = asm_parse_module((const char *)r->input, r->input_len, name,
				     version ? version : bytecode_latest());
	if (m && !no_verify && verify_cuda_tile(m) > 0) {
		module_free(m);
		return NULL;
	}
	return m;
}

static int run(ToolRun *r)
{
	bool debug = strcmp(r->emit, "asm-debug") == 0;
	bool bytecode = strcmp(r->emit, "bytecode") == 0;
	DebugRecords keep = {0};
	if (asm_is_text(r->input_name, r->input, r->input_len))
		r->out = read_text(r);
	else
		r->out = tile_read_run_keep(r->input, r->input_len, !no_verify, debug || bytecode ? &keep : NULL);
	if (r->out && strncmp(r->emit, "asm", 3) == 0) {
		asm_print_module(&r->bytes, r->out, debug ? &keep : NULL);
		r->out_is_bytes = true;
	}
	if (r->out && bytecode) {
		/* the version asked for, else the input's */
		const Attr *v = module_attr(r->out, "bytecode_version");
		int want = version ? version : v && v->kind == AT_STRING ? bytecode_version_parse(v->u.s) : 0;
		if (!bytecode_version_known(want))
			want = bytecode_latest();
		r->out_is_bytes = true;
		bool ok = bc_write_module(r->out, want, keep.rec ? &keep : NULL, &r->bytes);
		free(keep.refs);
		if (!ok)
			return EXIT_INPUT;
		/* another version than the input's: then checked as a module of
		 * that one too (rules that changed with no change on the wire) */
		if (!v || v->kind != AT_STRING || bytecode_version_parse(v->u.s) != want) {
			module_set_attr(r->out, "bytecode_version", attr_string(r->out, bytecode_version_name(want)));
			if (!no_verify && verify_cuda_tile(r->out) > 0)
				return EXIT_INPUT;
		}
		return EXIT_OK;
	}
	free(keep.refs);
	return r->out ? EXIT_OK : EXIT_INPUT;
}

int main(int argc, char **argv)
{
	static const Tool t = {
		.name = "tile-read",
		.summary = "Decode Tile IR bytecode (13.1 to 13.5) into cuda_tile JSON IR.",
		.options_help = "  --no-verify        skip the cuda_tile verifier (structure is still checked)\n"
				"  --bytecode-version=13.N  the version of text input (default the newest)\n"
				"                     and of --emit=bytecode (default the input's)\n",
		TOOL_STAGE(NULL, "json"),
	};
	return tool_main(argc, argv, &t);
}
