/* asm.h: the cuda_tile dialect's own assembly syntax (what NVIDIA's
 * tileirdisasm prints), tile-read --emit=asm. Private to tile-read; the
 * files and their jobs:
 *
 *   asm_ops.def     one row per cuda_tile op: its operand and result names,
 *                   its default attribute values and its assembly format
 *                   (the op definition's declarative format, or a printer
 *                   of asm_custom.c); a parser of this text can read the
 *                   same rows
 *   asm_rows.c      the rows as a table, checked against the verifier
 *   asm_groups.c    what a row says about one op (operand groups, defaults)
 *   asm_print.c     the module, ops, regions
 *   asm_out.c       values, newlines, attribute dictionaries
 *   asm_names.c     SSA names, as MLIR's AsmPrinter gives them
 *   asm_format.c    the interpreter of the declarative formats
 *   asm_debug.c     -g: MLIR's location aliases from tile-read's debug records
 *   asm_custom.c    the ops whose format is C (entry, for, loop, views, ...)
 *                   and the format's custom<...> directives
 *   asm_values.c    types, attributes, dense constants
 *   asm_float.c     floats spelled as MLIR and LLVM's APFloat spell them
 *
 * Everything here prints into a StrBuf; nothing fails once the module has
 * been read and verified. */
#ifndef TILE_READ_ASM_H
#define TILE_READ_ASM_H
#include <stdbool.h>
#include <stdint.h>
#include "ir.h"
#include "strbuf.h"

/* tile-read --emit=asm: the module as NVIDIA's tileirdisasm prints it
 * (no module header: its entries and globals one after another). With the
 * debug records tile-read kept (--emit=asm-debug, tileirdisasm -g), each op
 * ends in its location alias and the aliases follow the module; NULL: no
 * locations. */
struct DebugRecords;
void asm_print_module(StrBuf *b, Module *m, const struct DebugRecords *debug);

/* ------------------------------------------------------------ asm_ops.def */
typedef struct AsmCtx AsmCtx;
typedef void AsmCustomFn(AsmCtx *c, const Op *op);

typedef struct AsmRow {
	const char *mnemonic;     /* as printed: "fpowf" for cuda_tile.pow */
	const char *operands;     /* operand groups: "lhs rhs", "view index* token?" */
	const char *results;      /* result names: "result", "results*" */
	const char *defaults;     /* "overflow=none rounding=zero": an attribute at its
				   * default is as if absent */
	const char *format;       /* declarative format, or NULL with `custom` */
	AsmCustomFn *custom;
	unsigned flags;           /* ASM_* */
} AsmRow;

enum {
	ASM_NAMED_RESULTS = 1 << 0,  /* SSA names from `results` (ops with several fixed results) */
	ASM_DEFAULT_DIALECT = 1 << 1,/* has OpAsmOpInterface: regions print ops without prefix;
				      * assume_ names after it */
};

/* ------------------------------------------------------------ asm_rows.c, asm_groups.c */
const AsmRow *asm_row(const Op *op);
const AsmRow *asm_row_code(int code);     /* by OpCode; NULL when none */
/* Every cuda_tile op has a row whose operand groups are the verifier's
 * (verify_rule_operands); ice() otherwise. Run before each --emit=asm. */
void asm_check_rows(void);

/* the i-th word of a space-separated list, without its '?' / '*' suffix
 * (into *kind, 0 for none); false past the end */
bool asm_word_at(const char *list, int i, char *w, size_t n, char *kind);
int asm_word_index(const char *list, const char *name);   /* -1 when absent */
bool asm_in_list(const char *list, const char *name);
/* operand group g of op (by the row's names), as [first, first + n) */
int asm_group(const Op *op, const AsmRow *row, int g, int *first);
int asm_group_named(const Op *op, const AsmRow *row, const char *name, int *first);
int asm_result_group(const Op *op, const AsmRow *row, const char *name, int *first);
/* the attribute is at the row's default for it (prints as absent) */
bool asm_at_default(const AsmRow *row, const char *name, const Attr *a);

/* ------------------------------------------------------------ asm_names.c */
typedef struct Namer Namer;
/* the names of every value defined inside top-level op `top` (ids below nvalues) */
Namer *asm_names_new(const Op *top, int nvalues);
const char **asm_names_spell(const Namer *nm);
const char **asm_names_head(const Namer *nm);
const int *asm_names_group_size(const Namer *nm);
void asm_names_free(Namer *nm);

/* ------------------------------------------------------------ asm_format.c */
/* A declarative format as elements (parsed once per op, cached) */
enum { E_LIT, E_SPACE, E_VAR, E_TYPE, E_CUSTOM, E_DICT, E_GROUP, E_OILIST };
typedef struct AsmElem {
	int kind;
	char text[64];            /* literal, variable or directive name */
	int nargs;
	char args[4][64];         /* custom<..>(args): "$x" or "type($x)" */
	bool keyword;             /* attr-dict-with-keyword */
	bool anchor;              /* marked ^ inside its group */
	struct AsmElem *kids;     /* group / oilist clause elements */
	int nkids;
} AsmElem;
const AsmElem *asm_format_elems(int code, const AsmRow *row, int *n);
void asm_print_format(AsmCtx *c, const Op *op, const AsmRow *row);

/* ------------------------------------------------------------ asm_print.c, asm_out.c */
struct AsmCtx {
	StrBuf *b;
	int indent;               /* current nesting, two spaces each */
	const char **spell;       /* by Value.id: how a use reads, "%tile", "%1#1" */
	const char **head;        /* by Value.id of a result group's first value: its name */
	const int *group_size;    /* by the same id: the group's size ("%for:2") */
	int nvalues;
	const struct AsmLocs *locs; /* location aliases (tileirdisasm -g), or NULL */
	/* asm_print.c's region printer and asm_rows.c's table, for the printers
	 * below them (no calls back up) */
	void (*region)(AsmCtx *c, const Region *r, bool print_terms);
	const AsmRow *(*row)(const Op *op);
};

/* "%name", "%7", "%for#1" (a result of a multi-result group) */
void asm_value(AsmCtx *c, const Value *v);
void asm_values(AsmCtx *c, Value *const *v, int n);   /* ", " between */
/* a region: "{" ... "}" (MLIR's printRegion without entry block arguments);
 * the block's terminator left out when !print_terms */
static inline void asm_region(AsmCtx *c, const Region *r, bool print_terms)
{
	c->region(c, r, print_terms);
}
/* MLIR's printOptionalAttrDict over the attributes not in `elided`
 * (a space-separated list; operand_segment_sizes always elided) */
void asm_attr_dict(AsmCtx *c, const Op *op, const char *elided, bool with_keyword);
void asm_newline(AsmCtx *c);

/* ------------------------------------------------------------ asm_custom.c */
/* the format's custom<Name>(args) directives, args as written */
bool asm_directive(AsmCtx *c, const Op *op, const AsmRow *row, const char *name,
		   int nargs, const char *const *args);
/* the rounding mode a custom<...RoundingMode> directive leaves out; NULL
 * for other directives */
const char *asm_rounding_default(const char *directive);
#define ASM_CUSTOM_FNS(X) X(entry) X(for) X(loop) X(load_view_tko) \
	X(store_view_tko) X(atomic_red_view_tko) X(make_tensor_view) X(make_view) \
	X(get_shape) X(multimem_load_reduce) X(multimem_reduce) X(multimem_store)
#define X(n) AsmCustomFn asm_custom_##n;
ASM_CUSTOM_FNS(X)
#undef X

/* ------------------------------------------------------------ asm_debug.c */
typedef struct AsmLocs AsmLocs;
/* the aliases of every location the module's ops have, met in print order */
AsmLocs *asm_locs_new(Module *m, const struct DebugRecords *d);
void asm_locs_op(StrBuf *b, const AsmLocs *l, const Op *op);   /* " loc(#loc3)" */
void asm_locs_print(StrBuf *b, const AsmLocs *l);             /* the definitions */
void asm_locs_free(AsmLocs *l);

/* ------------------------------------------------------------ asm_values.c */
void asm_type(StrBuf *b, const Type *t);
/* an attribute as MLIR prints it; with_type adds " : i32" to typed integers
 * and floats (printAttribute) or not (printAttributeWithoutType) */
void asm_attr(StrBuf *b, const Attr *a, bool with_type);
void asm_string(StrBuf *b, const char *s);      /* "..." with MLIR's escapes */
/* an attribute named in a declarative format: enums bare ("weak") or as
 * their EnumAttr (overflow<no_wrap>), strings quoted, symbols @name,
 * hints <sm_100 = {...}>, others as asm_attr */
void asm_format_attr(StrBuf *b, const char *name, const Attr *a);
void asm_hints(StrBuf *b, const Attr *a);    /* <sm_100 = {occupancy = 2}> */
void asm_symbol(StrBuf *b, const char *name);   /* @name or @"..." */
/* constant's value: "<f32: 1.000000e+00> : tile<8xf32>" */
void asm_dense(StrBuf *b, const Attr *dense, const Type *tile);
/* the constant's SSA name: "cst_1_i32", "true", "cst_f32" */
const char *asm_constant_name(Arena *a, const Attr *dense);
/* the spelling MLIR gives an enum value our IR spells differently
 * ("nsw" -> "no_signed_wrap"); s itself otherwise */
const char *asm_enum(const char *attr_name, const char *s);

/* ------------------------------------------------------------ asm_float.c */
/* A float format as APFloat sees it: precision counts the integer bit.
 * nan: 0 none (f4E2M1FN), 1 the all-ones exponent is inf (mantissa 0) or
 * NaN (IEEE), 2 only the all-ones pattern is NaN (the FN/FNU formats). */
typedef struct AsmFloatSem {
	int ebits, mbits, bias, precision;
	bool has_sign;
	int nan;
} AsmFloatSem;
bool asm_float_sem(ScalarKind k, AsmFloatSem *s);   /* false: not a float kind */
/* a float of scalar kind k given by its bits, as printFloatValue spells it */
void asm_float(StrBuf *b, ScalarKind k, uint64_t bits);
/* a splat float constant's part of its SSA name: "_NaN", "_0", "_3" or "" */
const char *asm_float_name_part(ScalarKind k, uint64_t bits);

#endif
