/* parse.h: what lex.c, parse.c and decode.c share: tokens, raw operands and
 * the per-function naming state (registers, symbols, labels) the decoder
 * resolves operands against. Nothing here outlives loading. */
#ifndef TILE_RUN_PARSE_H
#define TILE_RUN_PARSE_H
#include "run.h"

typedef enum {
	TK_EOF, TK_IDENT, TK_INT, TK_F32, TK_F64, TK_FLOAT, TK_STRING, TK_PUNCT,
} TokKind;

typedef struct Token {
	TokKind kind;
	const char *s;          /* start in the text */
	uint32_t len, line;
	uint64_t ival;          /* TK_INT (two's complement), TK_F32/TK_F64 bits */
	double fval;            /* TK_FLOAT */
} Token;

typedef struct Lexer {
	const char *path, *p, *end;
	uint32_t line;
} Lexer;

/* Next token; false after a message on bad input. */
bool lex_next(Lexer *lx, Token *t);

typedef enum {
	RO_REG, RO_IMM, RO_SYM, RO_ADDR, RO_VEC, RO_LIST, RO_SINK,
} RawKind;

/* an immediate: kind TK_INT, TK_F32, TK_F64 or TK_FLOAT */
typedef struct Imm {
	TokKind kind;
	uint64_t bits;
	double f;
} Imm;

struct RawOperand {
	RawKind kind;
	bool neg;               /* !%p */
	char name[256];         /* RO_REG/RO_SYM: the name; RO_ADDR: base name or "" */
	Imm imm;                /* RO_IMM; RO_ADDR with no base: the address */
	int64_t off;            /* RO_ADDR / RO_SYM offset */
	int nsub;               /* RO_VEC / RO_LIST elements, in sub[] */
	struct RawOperand *sub;
	bool pair;              /* RO_REG "%p|%q": second name in name2 */
	char name2[256];
};

/* a named thing in a function body or the module */
enum { NM_REG, NM_VAR, NM_PARAM, NM_FUNC, NM_LABEL };
typedef struct Name {
	char *name;
	int kind;
	int slot;               /* NM_REG: slot; NM_LABEL: instruction index */
	int ty;                 /* NM_REG: declared type */
	uint64_t addr;          /* NM_VAR/NM_PARAM: address in its space */
	int space;
	int func;               /* NM_FUNC */
	int scope;
} Name;

typedef struct DecodeCtx {
	Module *m;
	Func *f;
	int fidx;
	Name *names;            /* function scope (a stack; inner scopes last) */
	int nnames, capnames;
	int scope;
	uint32_t line;
	/* constant slots, deduplicated */
	uint64_t *consts;
	int32_t *const_slot;
	int nconsts, capconsts;
	int nslots;
	uint64_t *init;         /* grows with nslots */
	int capinit;
	/* branch fixups: insn index -> label name */
	struct { int insn; char *label; uint32_t line; } *fix;
	int nfix, capfix;
	Name found;             /* dc_lookup's answer for a register of a range */
} DecodeCtx;

/* operand.c: names and operands -> slots; every bool is false after one
 * message naming the PTX line (dc_bad's, printf-style, returns false) */
bool dc_bad(DecodeCtx *dc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
Name *dc_lookup(DecodeCtx *dc, const char *name);
Var *module_lookup_var(Module *m, const char *name, int *index);
int module_lookup_func(Module *m, const char *name);
int dc_const_slot(DecodeCtx *dc, uint64_t v);
int dc_new_slot(DecodeCtx *dc);
int dc_sreg_id(const char *name);       /* SR_..., -1 if not a special register */
bool dc_src(DecodeCtx *dc, const RawOperand *o, int ty, int32_t *slot);    /* ty types an immediate */
bool dc_dst(DecodeCtx *dc, const RawOperand *o, int32_t *slot);
bool dc_dst_second(DecodeCtx *dc, const RawOperand *o, int32_t *slot);     /* "%p|%q": %q */
bool dc_addr(DecodeCtx *dc, const RawOperand *o, Insn *in, int32_t *slot);  /* [..]: in->off too */
/* {a, b, ..} of want registers, or one register when want is 1 */
bool dc_vec_or_reg(DecodeCtx *dc, const RawOperand *o, bool isdst, int ty, int32_t *slots, int want);
bool dc_need(DecodeCtx *dc, int nops, int lo, int hi, const char *opc);    /* lo..hi operands */
bool dc_add_fix(DecodeCtx *dc, const char *label);     /* the branch being decoded goes to label */
/* decode_async.c: wgmma.*, mbarrier.*, cp.async.bulk*, cp.async.mbarrier.arrive */
int decode_async(DecodeCtx *dc, Insn *in, const char *opcode, char **parts, int np, RawOperand *ops, int nops);
/* decode_tcgen05.c: tcgen05.* */
int decode_tcgen05(DecodeCtx *dc, Insn *in, const char *opcode, char **parts, int np, RawOperand *ops, int nops);
#endif
