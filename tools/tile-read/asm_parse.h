/* asm_parse.h: the reader of the cuda_tile dialect's text (what
 * tile-read --emit=asm and NVIDIA's tileirdisasm print; a `.mlir` file),
 * private to tile-read. It builds the same Module the bytecode reader
 * builds, so verification and the JSON output are shared. The files and
 * their jobs:
 *
 *   asm_lex.c       the text as MLIR tokens, on demand; errors at line:col
 *   asm_pnames.c    SSA names in scopes (regions hide what they define)
 *   asm_ptype.c     types
 *   asm_pattr.c     attributes, dense constants, floats
 *   asm_ploc.c      loc(...) and the #alias definitions of -g text
 *   asm_pformat.c   an op by its row of asm_ops.def's declarative format
 *   asm_pcustom.c   the ops with C printers (asm_custom.c) read back
 *   asm_pgroups.c   an op being read: attributes, operand groups, result types
 *   asm_pop.c       one op: results, name, its row, defaults, location
 *   asm_pmodule.c   the module: top-level ops, regions, blocks
 *
 * Error policy (as the bytecode reader's): the first error is reported at
 * once, one line located at the text's FILE:LINE:COL, and sets
 * Parser.failed; every later call returns at once. */
#ifndef TILE_READ_ASM_PARSE_H
#define TILE_READ_ASM_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"
#include "asm.h"

#define PS_MAX_DEPTH 64        /* regions nested (reader.h's MAX_REGION_DEPTH) */
#define PS_MAX_ATTR_DEPTH 32   /* attributes nested */

typedef struct PNames PNames;
typedef struct PAliases PAliases;

struct POp;
typedef struct Parser {
	const char *src;          /* the text, NUL-terminated */
	const char *p, *end;      /* the cursor; end = src + length */
	const char *file;         /* for locations: the input's name */
	Module *m;
	int version;              /* the module's bytecode version (defaults depend on it) */
	bool failed;
	int depth;                /* regions open */
	PNames *names;
	PAliases *aliases;
	/* asm_pmodule.c's region readers, for the op readers below it (no
	 * calls back up) */
	struct Region *(*region)(struct Parser *P, int nargs, const Type *const *types, const char *const *names,
				 const size_t *name_lens, const char *const *name_at, int implicit);
	struct Region *(*arg_region)(struct Parser *P, struct POp *o, const Attr **arg_attrs, int *nargs_out);
} Parser;

/* asm_lex.c */
bool ps_fail(Parser *P, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const Loc *ps_loc_at(Parser *P, const char *at);   /* FILE:LINE:COL of the text */
void ps_ws(Parser *P);                              /* spaces and // comments */
bool ps_at(Parser *P, const char *punct);           /* the next token is punct */
bool ps_eat(Parser *P, const char *punct);
bool ps_expect(Parser *P, const char *punct);
size_t ps_ident_len(Parser *P);                     /* a bare identifier here: its length */
bool ps_at_kw(Parser *P, const char *kw);
bool ps_eat_kw(Parser *P, const char *kw);
bool ps_expect_kw(Parser *P, const char *kw);
const char *ps_ident(Parser *P, const char *what);  /* in the arena; NULL after an error */
bool ps_int(Parser *P, int64_t *v);                 /* [-]decimal or 0x hex */
bool ps_string(Parser *P, const char **s);          /* "..." with MLIR's escapes */
const char *ps_token_text(Parser *P);               /* the next token, for messages */

/* asm_pnames.c */
PNames *ps_names_new(void);
void ps_names_free(PNames *n);
size_t ps_names_mark(PNames *n);
void ps_names_pop(PNames *n, size_t mark);
/* define %name as n values (%name:n, or one) */
bool ps_define(Parser *P, const char *at, const char *name, size_t len, Value **v, int n);
/* a use: "%name" or "%name#i"; NULL after an error */
Value *ps_value(Parser *P);
bool ps_at_value(Parser *P);

/* asm_ptype.c */
const Type *ps_type(Parser *P);
bool ps_at_type(Parser *P);

/* asm_pattr.c */
const Attr *ps_attr(Parser *P, int depth);          /* MLIR's generic attribute */
const Attr *ps_dict(Parser *P, int depth);          /* {k = v, ...} */
const Attr *ps_hints(Parser *P);                    /* <sm_100 = {...}> */
const Attr *ps_assumption(Parser *P);               /* div_by<..>, same_elements<..>, bounded<..> */
/* <f32: ...> : tile<..>: the dense value and its type */
const Attr *ps_dense(Parser *P, const Type **type);
bool ps_float_bits(Parser *P, const char *at, ScalarKind k, uint64_t *bits);
/* an enum attribute of kind k spelled as a bare word */
const Attr *ps_enum(Parser *P, EnumKind k, const char *attr);
bool ps_at_enum(Parser *P, EnumKind k);

/* asm_ploc.c */
void ps_aliases_scan(Parser *P);                    /* the #name = ... lines */
void ps_aliases_free(PAliases *a);
bool ps_at_loc(Parser *P);
const Loc *ps_loc(Parser *P);                       /* loc(...) */
void ps_skip_alias_def(Parser *P);                  /* at top level: past "#x = ..." */

/* asm_pop.c: an op as it is being read */
typedef struct POp {
	const OpInfo *info;
	const AsmRow *row;
	const char *at;
	int ngroups;
	Value **grp[8];           /* operands by the row's groups */
	int ngrp[8];
	bool grp_set[8];
	int nres;                 /* results (names defined), -1 unknown */
	const Type *rtypes[256];  /* [nres] */
	NamedAttr attrs[64];
	int nattrs;
	Region *regions[2];
	int nregions;
} POp;

void pop_set_attr(Parser *P, POp *o, const char *name, const Attr *a);
const Attr *pop_attr(const POp *o, const char *name);
int pop_group(const POp *o, const char *name);     /* the row's group index, -1 */
bool pop_set_group(Parser *P, POp *o, int g, Value **v, int n);
/* types given for result group `name` (or every result: NULL) */
bool pop_result_types(Parser *P, POp *o, const char *name, const Type *const *t, int n);
/* a list of operands "%a, %b" (n known, or -1: as many as there are) */
int ps_value_list(Parser *P, Value ***out, int want);
/* a list of types "T, U" (n known, or -1) */
int ps_type_list(Parser *P, const Type ***out, int want);
/* the types given for an operand group: checked against its values */
bool pop_check_types(Parser *P, POp *o, int g, const Type *const *t, int n, const char *at);

/* a region "{ ... }" whose block has these arguments; the implicit
 * terminator `implicit` (an OpCode, or -1) added when the block has none */
static inline Region *ps_region(Parser *P, int nargs, const Type *const *types, const char *const *names,
				const size_t *name_lens, const char *const *name_at, int implicit)
{
	return P->region(P, nargs, types, names, name_lens, name_at, implicit);
}
/* "(%a: T, %b: U {attrs})" then a region: reduce/scan bodies, entry (with
 * "optimization_hints=<..>" between, set on o; arg_attrs NULL: none taken) */
static inline Region *ps_arg_region(Parser *P, POp *o, const Attr **arg_attrs, int *nargs_out)
{
	return P->arg_region(P, o, arg_attrs, nargs_out);
}

bool pformat_op(Parser *P, POp *o);                 /* asm_pformat.c */
typedef bool PCustomFn(Parser *P, POp *o);          /* asm_pcustom.c */
#define X(n) PCustomFn pcustom_##n;
ASM_CUSTOM_FNS(X)
#undef X
/* "[%i, %j]" into group g */
bool pcustom_memory(Parser *P, POp *o);              /* SEM [SCOPE] */

Op *ps_op(Parser *P, Block *b);                     /* asm_pop.c */

/* asm_pmodule.c: the stage's entry: text -> module (NULL after the error) */
Module *asm_parse_module(const char *text, size_t len, const char *file, int version);
/* does this input look like the dialect's text (a .mlir name, or text
 * that starts as MLIR does) */
bool asm_is_text(const char *name, const uint8_t *buf, size_t len);

#endif
