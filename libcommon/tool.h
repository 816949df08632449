/* tool.h: the skeleton every stage executable shares.
 *
 *   TOOL [options] [INPUT|-] [-o OUTPUT|-]
 *
 * Reads INPUT (default stdin), runs the stage, writes OUTPUT (default stdout)
 * only when the stage succeeded, and atomically (temp file + rename): never
 * a partial file. Common options: -o, --emit=FORMAT, --help, --version.
 * Exit codes (docs/architecture.md): 0 ok, 1 bad input or I/O error,
 * 2 bad usage, 134 (abort) internal bug.
 *
 * A stage is a function over a ToolRun; the executable is a thin main()
 * that calls tool_main() with the stage's Tool description. */
#ifndef TILE_TOOL_H
#define TILE_TOOL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"
#include "strbuf.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

typedef struct ToolRun {
	const char *input_name;     /* as given, "-" for stdin */
	const uint8_t *input;       /* whole input */
	size_t input_len;
	Module *in;                 /* parsed input IR (tools with in_stages) */
	const char *emit;           /* --emit value, or the tool's default */
	Module *out;                /* IR result: written as JSON or text per emit */
	StrBuf bytes;               /* or: raw result bytes (PTX, cubin, ...) */
	bool out_is_bytes;
	const char *output_name;    /* -o value, NULL = stdout */
	void *ctx;                  /* the tool's own option state */
} ToolRun;

typedef struct Tool {
	const char *name;           /* "tile-read" */
	const char *summary;        /* one line for --help */
	const char *options_help;   /* the tool's own options, for --help */
	const char *const *in_stages;   /* accepted IR stages; NULL: raw bytes in */
	const char *default_emit;   /* "json" */
	const char *const *emits;   /* accepted --emit values, NULL-terminated */
	/* A tool option "--name[=value]" or "-x [value]": return 1 if used, 0 if
	 * unknown, -1 if bad (after diag). *takes_value tells the skeleton that
	 * the option wants a value; it is then called again with it. */
	int (*option)(ToolRun *r, const char *name, const char *value, bool *takes_value);
	int (*run)(ToolRun *r);     /* EXIT_OK or EXIT_INPUT (after diag) */
} Tool;

/* Reads the switches (knobs.h) once, for every pass of the run, then the
 * command line and the input; returns the exit status. */
int tool_main(int argc, char **argv, const Tool *t);

/* The options every compiling stage shares with the driver, for a Tool's
 * option(): --gpu-name=SM (or --arch=SM), --opt-level=N, -O N, -ON.
 * Returns like Tool.option (1 used, 0 not one of these or needs its value,
 * -1 bad value after a message); sets *gpu (a target-table name) or *opt. */
int tool_target_option(const char *name, const char *value, bool *takes_value,
		       const char **gpu, int *opt);
/* The target to compile for: gpu (from --gpu-name) if given, else the
 * module's "target" attribute; neither is an error (no default: NVIDIA's
 * tileiras has none either). Records it as the module's "target"
 * attribute. The target is decided once, where cuda_tile is lowered
 * (tile-lower): in lowered IR a gpu that disagrees with the module's
 * target is an error. NULL after a message if there is none, the name is
 * not a target or it disagrees. */
struct Target;
const struct Target *tool_pick_target(Module *m, const char *gpu);
/* The rest of a stage's Tool: its input stages and default emit, and the
 * file's own emits[], option() and run(). */
#define TOOL_STAGE(stages_, default_emit_) \
	.in_stages = (stages_), .default_emit = (default_emit_), .emits = emits, .option = option, .run = run
#define TOOL_TARGET_OPTIONS_HELP \
	"  --gpu-name=SM      target GPU, sm_75 ... sm_121; required unless the\n" \
	"                     module names its target\n" \
	"  -O N, -ON, --opt-level=N  optimization level 0-3 (default 3)\n"
/* Write buf to path atomically ("-" or NULL: stdout). 0 ok, -1 after diag. */
int write_output_atomic(const char *path, const void *buf, size_t len);
/* Read a whole file ("-" = stdin). NULL after diag. */
uint8_t *read_whole_file(const char *path, size_t *len);
#define TOOL_VERSION "0.1.0"
#endif
