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
#include "enums.h"

#define MAX_ATTRS 6
#define MAX_GROUPS 6
#define MAX_REPORTED 100         /* errors printed; the rest are only counted */

/* element classes: bit (1 << ScalarKind) per element type, plus pointers */
#define EC_PTR (1u << 24)

/* attribute kinds a row asks for */
enum {
	AK_ENUM = 1,  /* string, a spelling of the row's enum kind (and in `allow` if set) */
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
	AK_PLAN,      /* a product's MMA plan: a dictionary (its fields: mma_plan.def, checked by stagecheck) */
};
/* AttrRule.req: optional, required, or put on the op by the lower stages
 * (docs/ir.md §6.3) and accepted only below cuda_tile (verify_kept_ops) */
enum { OPT = 0, REQ = 1, BELOW = 2 };

typedef struct AttrRule {
	const char *name;
	unsigned char kind;
	unsigned char req;           /* REQ: must be present (from `since` on); OPT; BELOW */
	short since;                 /* first bytecode version with it; older: absent or default */
	const char *const *allow;    /* AK_ENUM: the spellings this op accepts; NULL: all of `ek` */
	const char *dflt;            /* value that older versions imply */
	EnumKind ek;                 /* AK_ENUM: its kind (libcommon/enums.def) */
} AttrRule;

/* type-rule families (enum Family, FAM_*): the `family` column of
 * dialect_cuda_tile.def (opinfo.h); one checker each (verify_families.c) */

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
	bool below;                  /* verify_kept_ops: IR below cuda_tile, nv ops skipped */
} V;

extern const OpRule rules[OPCODE_COUNT];
typedef void (*FamCheck)(V *v, const Op *op, const OpRule *r, const Groups *g);
extern const FamCheck fam_check[FAM_COUNT];


/* verify_util.c */
/* "'cuda_tile.X' op " + message, at the op's location (or offset, or JSON pointer) */
void verr(V *v, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool gate(V *v, const Op *op, int since, const char *what);
const char *ec_name(unsigned ec, char *buf, size_t n);
unsigned ec_of(const Type *elem);
const char *sym_of(const Op *op);               /* its sym_name */
const Op *find_symbol(V *v, const char *name);  /* v->syms, sorted by sym_of */
/* verify_cuda_tile.c */
bool check_type(V *v, const Op *op, const Type *t);

#endif
