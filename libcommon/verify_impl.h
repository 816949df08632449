/* verify_impl.h: private to verify_*.c (the cuda_tile verifier, verify.h).
 * The op table row types, the verifier state, and the helpers the family
 * checkers share. */
#ifndef TILE_VERIFY_IMPL_H
#define TILE_VERIFY_IMPL_H
#include <stdbool.h>
#include <stdint.h>
#include "verify.h"
#include "ir.h"
#include "opinfo.h"
#include "diag.h"

#define VER_LATEST 1304          /* a module without bytecode_version gets every feature */
#define TILE_MAX_ELEMS 16777216  /* elements in one tile */
#define MAX_ATTRS 6
#define MAX_GROUPS 6
#define MAX_REPORTED 100         /* errors printed; the rest are only counted */

/* element classes: bit (1 << ScalarKind) per element type, plus pointers */
#define EC_PTR (1u << 24)

/* attribute kinds a row asks for */
enum {
	AK_ENUM = 1,  /* string, one of the row's allowed spellings */
	AK_INT,       /* integer */
	AK_BOOL,      /* boolean, always present */
	AK_UNIT,      /* boolean flag, present when set */
	AK_STR,       /* string */
	AK_TYPE,      /* {"type": T} */
	AK_I32S,      /* DenseI32Array: [ints]; INT32_MIN/MAX rejected */
	AK_ARRAY,     /* array of attributes */
	AK_DENSE,     /* dense elements */
	AK_PRED,      /* assume predicate */
	AK_HINTS,     /* optimization_hints: dict of dicts */
	AK_BOOLS,     /* dense bool array (13.4 inbounds) */
};
enum { OPT = 0, REQ = 1 };

typedef struct AttrRule {
	const char *name;
	unsigned char kind;
	unsigned char req;           /* REQ: must be present (from `since` on) */
	short since;                 /* first bytecode version with it; older: absent or default */
	const char *const *allow;    /* AK_ENUM: the spellings this op accepts */
	const char *dflt;            /* value that older versions imply */
} AttrRule;

/* type-rule families: one checker each (verify_families.c) */
enum Family {
	FAM_NONE, FAM_SAME, FAM_CMP, FAM_SELECT, FAM_CONV, FAM_OFFSET, FAM_FPOWI, FAM_PACK,
	FAM_CONSTANT, FAM_IOTA, FAM_BROADCAST, FAM_RESHAPE, FAM_PERMUTE, FAM_CAT, FAM_EXTRACT,
	FAM_INSERT, FAM_BLOCKID, FAM_GET_GLOBAL, FAM_ASSUME, FAM_ASSERT, FAM_PRINT, FAM_TOKENS,
	FAM_MAKE_TV, FAM_MAKE_VIEW, FAM_GET_SHAPE, FAM_LOAD_PTR, FAM_STORE_PTR, FAM_LOAD_VIEW,
	FAM_STORE_VIEW, FAM_ATOMIC, FAM_ATOMIC_RED, FAM_ALLOCA, FAM_MMAF, FAM_MMAI,
	FAM_MMAF_SCALED, FAM_IF, FAM_FOR, FAM_LOOP, FAM_REDUCE, FAM_SCAN, FAM_TERM, FAM_ENTRY,
	FAM_GLOBAL, FAM_MODULE, FAM_COUNT
};

/* row flags */
enum {
	F_APPROX_F32 = 1 << 0,   /* rounding approx only for f32 */
	F_FULL_F32 = 1 << 1,     /* rounding full only for f32 */
	F_DIVI = 1 << 2,         /* rounding negative_inf not with unsigned */
	F_IMPURE = 1 << 3,       /* not speculatable: not allowed in reduce/scan bodies */
	W_WIDER = 1 << 4,        /* conversion: result element wider */
	W_NARROWER = 1 << 5,     /* conversion: result element narrower */
	W_SAMEWIDTH = 1 << 6,    /* conversion: same element width */
	W_DIFFTYPE = 1 << 7,     /* conversion: element types differ */
	F_FTOF = 1 << 8,         /* ftof rounding rules */
	F_ITOF = 1 << 9,         /* itof target rules */
};

typedef struct OpRule {
	const char *operands;        /* one char per operand group: '1' one, '?' optional, '*' variadic */
	bool segmented;              /* carries operand_segment_sizes (AttrSizedOperandSegments) */
	signed char rmin, rmax;      /* result count; rmax -1 = no limit */
	signed char nregions;
	unsigned char fam;
	unsigned ec, ec2;            /* element class of the operands, of the result (conversions) */
	unsigned flags;
	AttrRule attrs[MAX_ATTRS];   /* terminated by name == NULL */
} OpRule;

/* operand groups after operand_segment_sizes: group i is
 * operands[start[i] .. start[i] + len[i]) */
typedef struct Groups { int n; int start[MAX_GROUPS], len[MAX_GROUPS]; } Groups;

typedef struct V {
	Module *m;
	int ver;                     /* 1301 = 13.1 */
	int errors;
	const Op *pure_owner;        /* innermost reduce/scan whose body we are in */
	const Type **seen;           /* pointer set of checked types */
	bool *seen_ok;               /* ... and whether each passed */
	size_t seen_cap, seen_n;
	Op **syms;                   /* top-level ops with a sym_name */
	int nsyms;
} V;

extern const OpRule rules[OPCODE_COUNT];
typedef void (*FamCheck)(V *v, const Op *op, const OpRule *r, const Groups *g);
extern const FamCheck fam_check[FAM_COUNT];

extern const char *const E_SIGN[], *const E_OVF[], *const E_RND[], *const E_MOS[];

/* "'cuda_tile.X' op " + message, at the op's location (or offset, or JSON pointer) */
void verr(V *v, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool gate(V *v, const Op *op, int since, const char *what);
bool check_type(V *v, const Op *op, const Type *t);
const char *ver_name(int ver);
const char *ec_name(unsigned ec, char *buf, size_t n);
unsigned ec_of(const Type *elem);
const Op *find_symbol(V *v, const char *name);

#endif
