/* program.h: libtileiras's program handle, shared by program.c (the API's
 * checks and getters) and compile.c (the stages in memory). Internal. */
#ifndef TILEIRAS_PROGRAM_H
#define TILEIRAS_PROGRAM_H
#include <stdbool.h>
#include "tileiras.h"
#include "strbuf.h"

#define TILEIRAS_N_FORMS 4

struct TileirasProgram {
	TileirasConfig config;          /* validated; the input is borrowed */
	char gpu_name[16];              /* "sm_90" */
	char *input_name;               /* for diagnostics; NULL: none */
	unsigned forms_wanted;          /* TILEIRAS_FORM_* */
	bool compiled;                  /* output holds the last compile's cubin */
	StrBuf output;                  /* cubin */
	StrBuf forms[TILEIRAS_N_FORMS]; /* by bit number; len 0 = none */
	bool have_form[TILEIRAS_N_FORMS];
	StrBuf log;                     /* diagnostics of the last compile */
	double stage_ms[TILEIRAS_N_STAGES];   /* wall time per stage, last compile */
	unsigned remark_kinds;          /* TILEIRAS_REMARK_* of tile-sched's remarks; 0: none */
	bool remark_resources;          /* tile-pack's (ptxas) resource remarks */
	bool remark_yaml;               /* YAML, else the command-line form */
	StrBuf remarks;                 /* the last compile's remarks, sched's then pack's */
};

/* Record the one-line message of a non-zero return for tileirasGetLastError
 * and return code. */
int tileiras_fail(int code, const char *msg);

/* Run the pipeline on p's input: TILEIRAS_SUCCESS, 3 or 5 (compile.c). */
int tileiras_compile(TileirasProgram *p);

#endif
