/* tile-sched: nv_tileas -> scheduled (docs/lowering.md §4).
 * Accepts: nv_tileas IR that passes the lower-stage verifier.
 * Guarantees: scheduled IR in which every tile value carries a register
 * layout (docs/ir.md §4.3) that holds each element of its tile for
 * --num-warps warps (module attribute num_warps; without the option an
 * entry with 13.5's num_worker_warps_per_cta hint gets that many (hints.c),
 * and one whose tiles all have one element gets 1 warp, as NVIDIA's tileiras
 * gives them, in the entry's own num_warps attribute), every broadcast and
 * reshape is a register copy, and conversions are explicit
 * (nv_tileas.convert_layout). With --remarks-output-file=F it also writes
 * remarks (remarks.c) to F, in --remark-format (yaml, the default, or
 * command-line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"
#include "irutil.h"
#include "diag.h"
#include "stagecheck.h"
#include "sched.h"
#include "strbuf.h"
#include "remark.h"

static int num_warps = 4;
static bool fixed_warps;     /* --num-warps given: every entry gets it */
static const char *gpu;   /* --gpu-name: must be the module's target (tool_pick_target) */
static int opt;
static const char *remarks_file;   /* --remarks-output-file */
static bool remarks_yaml = true;   /* --remark-format */
static unsigned remark_kinds;      /* --remark-kinds; 0 = all */
static bool tma;                   /* --tma */

static int option(ToolRun *r, const char *name, const char *value, bool *takes_value)
{
	bool want = false;   /* this call found one of ours without its value */
	int used = tool_target_option(name, value, &want, &gpu, &opt);
	if (used || want) {
		*takes_value = want;
		return used;
	}
	if (strcmp(name, "--remarks-output-file") == 0 || strcmp(name, "--remark-format") == 0 ||
	    strcmp(name, "--remark-kinds") == 0) {
		if (!value) {
			*takes_value = true;
			return 0;
		}
		if (strcmp(name, "--remarks-output-file") == 0) {
			remarks_file = value;
		} else if (strcmp(name, "--remark-kinds") == 0) {
			int k = remark_kinds_parse(value);
			if (k < 0) {
				diag_plain("--remark-kinds takes a list of passed, missed, failed, analysis, not '%s'", value);
				return -1;
			}
			remark_kinds = (unsigned)k;
		} else if (strcmp(value, "yaml") == 0 || strcmp(value, "command-line") == 0) {
			remarks_yaml = value[0] == 'y';
		} else {
			diag_plain("--remark-format takes yaml or command-line, not '%s'", value);
			return -1;
		}
		return 1;
	}
	if (strcmp(name, "--tma") == 0) {
		tma = true;
		return 1;
	}
	if (strcmp(name, "--num-warps") != 0)
		return 0;
	if (!value) {
		*takes_value = true;
		return 0;
	}
	char *end;
	long n = strtol(value, &end, 10);
	if (*end || n < 1 || n > 32 || (n & (n - 1))) {
		diag_plain("--num-warps takes a power of two from 1 to 32, not '%s'", value);
		return -1;
	}
	num_warps = (int)n;
	fixed_warps = true;
	return 1;
}

static int run(ToolRun *r)
{
	Module *m = r->in;
	r->out = m;
	r->in = NULL;
	if (!tool_pick_target(m, gpu) || stage_check(m) || (!fixed_warps && check_hints(m)))
		return EXIT_INPUT;
	if (sched_module(m, num_warps, fixed_warps, tma || module_tma_maps(m)))
		return EXIT_INPUT;
	if (stage_check(m))
		ice("tile-sched produced invalid scheduled IR (see above)");
	if (remarks_file) {
		StrBuf b = { 0 };
		sched_remarks(m, &b, remarks_yaml, remark_kinds);
		FILE *f = fopen(remarks_file, "w");
		if (!f || fputs(sb_cstr(&b), f) < 0 || fclose(f) != 0) {
			diag_plain("cannot write remark file '%s'", remarks_file);
			sb_free(&b);
			return EXIT_INPUT;
		}
		sb_free(&b);
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const char *const stages[] = { "nv_tileas", NULL };
	static const char *const emits[] = { "json", "text", NULL };
	static const Tool t = {
		.name = "tile-sched",
		.summary = "Assign a register layout to every tile value (nv_tileas -> scheduled).",
		.options_help = "  --num-warps=N      warps per CTA, a power of two 1..32 (default 4; 1 for an\n"
				"                     entry whose tiles all have one element)\n"
				"  --gpu-name=SM      the module's target (an error when it is not: tile-lower\n"
				"                     decides the target); --opt-level=N: no effect\n"
				"  --remarks-output-file=F  write memory and layout remarks to F\n"
				"  --remark-format=yaml|command-line  their form (default yaml)\n"
				"  --remark-kinds=LIST  only these kinds: passed,missed,failed,analysis\n"
				"  --tma              sm_90: wgmma operands whose views are aligned entry\n"
				"                     parameters go by TMA (marked `tma`); their tensor maps\n"
				"                     are hidden parameters only a TILEIR cubin's host callback\n"
				"                     fills (tile-pack with ptxas >= 13.2; the driver decides);\n"
				"                     a K loop whose views lack only the alignment facts is\n"
				"                     versioned: by TMA when its pointers and strides are\n"
				"                     16-byte aligned at run time, as before when not\n",
		TOOL_STAGE(stages, "json"),
	};
	return tool_main(argc, argv, &t);
}
