/* ir.h: the in-memory IR every stage shares.
 *
 * A Module owns an Arena; everything reachable from it (types, attributes,
 * ops, blocks, values, strings) lives in that arena and dies with it.
 * Types are interned: two types are equal iff their pointers are equal, and
 * every type carries its canonical spelling (docs/ir.md, "Types").
 * Ops are generic, MLIR-style: name (resolved against the dialect op tables),
 * operands, results, sorted named attributes, regions of blocks, a location.
 * Functions and globals are top-level ops of the module (cuda_tile.entry,
 * cuda_tile.global); value numbering restarts inside each top-level op.
 */
#ifndef TILE_IR_H
#define TILE_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "enums.h"

/* ---------------------------------------------------------------- arena */
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);          /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- types */
typedef enum ScalarKind {
#define SCALAR(id, spelling, bits, isfloat) SC_##id,
#include "scalars.def"
#undef SCALAR
	SC_COUNT
} ScalarKind;

typedef enum TypeKind {
	TY_SCALAR,          /* element types: i1..i64, f16.., never a value type in cuda_tile */
	TY_PTR,             /* ptr<E> */
	TY_TILE,            /* tile<4x8xE>, tile<E> (rank 0) */
	TY_TENSOR_VIEW,     /* tensor_view<?x8xE, strides=[8,1]> */
	TY_PARTITION_VIEW,  /* partition_view<tile=(4x2), tensor_view<..>, dim_map=[..]> */
	TY_STRIDED_VIEW,    /* strided_view<tile=(..), traversal_strides=[..], tensor_view<..>> */
	TY_GATHER_SCATTER_VIEW, /* gather_scatter_view<tile=(..), tensor_view<..>, sparse_dim=N> */
	TY_TOKEN,           /* token */
	TY_FUNC,            /* (T, ...) -> (T, ...) */
} TypeKind;

#define DYN_DIM INT64_MIN   /* '?' in tensor_view shapes and strides */

typedef enum PaddingValue {
	PAD_NONE = -1, PAD_ZERO, PAD_NEG_ZERO, PAD_NAN, PAD_POS_INF, PAD_NEG_INF
} PaddingValue;

/* 13.5 pointer attribute (bytecode values: 0 none, 1 unicast, 2 multicast) */
typedef enum PtrAttr { PTR_ATTR_NONE = 0, PTR_ATTR_UNICAST = 1, PTR_ATTR_MULTICAST = 2 } PtrAttr;

typedef struct Type Type;
struct Type {
	TypeKind kind;
	ScalarKind scalar;          /* TY_SCALAR */
	const Type *elem;           /* TY_PTR pointee, TY_TILE / TY_TENSOR_VIEW element */
	int rank;                   /* tile / tensor_view / view tile rank */
	const int64_t *shape;       /* tile shape, tensor_view shape, view tile shape */
	const int64_t *strides;     /* tensor_view strides; strided_view traversal strides */
	const Type *view;           /* the tensor_view of a partition/strided/gather view */
	const int64_t *dim_map;     /* views: length rank, NULL = identity */
	int sparse_dim;             /* gather_scatter_view */
	PaddingValue padding;       /* views */
	PtrAttr ptr_attr;           /* TY_PTR, TY_TENSOR_VIEW: 13.5's pointer attribute */
	int nin, nout;              /* TY_FUNC */
	const Type *const *ins, *const *outs;
	const char *str;            /* canonical spelling; also the interning key */
};

typedef struct TypeTable TypeTable;   /* per-module interning table */

struct Module;
const Type *type_scalar(struct Module *m, ScalarKind k);
const Type *type_ptr(struct Module *m, const Type *pointee);
/* 13.5's pointer attribute: spelled ptr<f32, multicast>, tensor_view<..., unicast> */
const Type *type_ptr_attr(struct Module *m, const Type *pointee, PtrAttr a);
const Type *type_tensor_view_attr(struct Module *m, const Type *elem, int rank, const int64_t *shape,
				  const int64_t *strides, PtrAttr a);
const char *ptr_attr_name(PtrAttr a);   /* "", "unicast", "multicast" */
const Type *type_tile(struct Module *m, const Type *elem, int rank, const int64_t *shape);
const Type *type_tensor_view(struct Module *m, const Type *elem, int rank,
			     const int64_t *shape, const int64_t *strides);
const Type *type_partition_view(struct Module *m, int rank, const int64_t *tile,
				const Type *tv, const int64_t *dim_map, PaddingValue pad);
const Type *type_strided_view(struct Module *m, int rank, const int64_t *tile,
			      const int64_t *traversal, const Type *tv,
			      const int64_t *dim_map, PaddingValue pad);
const Type *type_gather_scatter_view(struct Module *m, int rank, const int64_t *tile,
				     const Type *tv, int sparse_dim, PaddingValue pad);
const Type *type_token(struct Module *m);
const Type *type_func(struct Module *m, int nin, const Type *const *ins,
		      int nout, const Type *const *outs);
/* Parse a type spelling (docs/ir.md grammar). NULL + *err set on failure
 * (the message is a string in m's arena). */
const Type *type_parse(struct Module *m, const char *s, const char **err);

const char *scalar_name(ScalarKind k);
int scalar_bits(ScalarKind k);
bool scalar_is_float(ScalarKind k);
bool scalar_from_name(const char *s, size_t n, ScalarKind *out);
const char *padding_name(PaddingValue p);
int64_t type_num_elements(const Type *t);     /* tile: product of shape (INT64_MAX on overflow) */
bool type_is_view(const Type *t);              /* partition/strided/gather_scatter */
bool type_same_shape(const Type *a, const Type *b);   /* same rank and extents */

/* ---------------------------------------------------------------- locations */
typedef struct Loc Loc;
struct Loc {
	const char *file;       /* NULL = unknown location */
	unsigned line, col;
	const char *func;       /* enclosing subprogram name, or NULL */
	unsigned func_flags;    /* 13.5's DISubprogram flags of func: 1 = declaration (0: none or older) */
	const Loc *caller;      /* call-site chain (inlining), or NULL */
};
/* The deepest call-site chain a location may have: cuTile inlines helper
 * functions up to 1000 calls deep (its MAX_RECURSION_DEPTH); tile-read and
 * the JSON readers take this many, and jansson parses the JSON it makes
 * (its nesting limit is 2048). */
#define LOC_MAX_CALLERS 1536

/* ---------------------------------------------------------------- attributes */
typedef enum AttrKind {
	AT_INT,        /* int64, optional integer type (tagged IntegerAttr) */
	AT_FLOAT,      /* bit pattern + float type */
	AT_BOOL,       /* also UnitAttr (present = true) */
	AT_STRING,     /* also enum values, spelled by name */
	AT_TYPE,
	AT_INTS,       /* dense integer array (DenseI32/I64ArrayAttr) */
	AT_ARRAY,      /* array of attributes */
	AT_DICT,       /* sorted by key, keys unique and non-empty */
	AT_DENSE,      /* dense elements: raw little-endian bytes, one element (splat) or all */
	AT_DIV_BY,     /* assume predicate div_by<d[, every e along a]> */
	AT_SAME_ELEMENTS,
	AT_BOUNDED,
} AttrKind;

typedef struct Attr Attr;
typedef struct NamedAttr { const char *name; const Attr *attr; } NamedAttr;

struct Attr {
	AttrKind kind;
	const Type *type;           /* AT_INT (optional), AT_FLOAT, AT_TYPE, AT_DENSE */
	union {
		int64_t i;              /* AT_INT, AT_BOOL */
		uint64_t bits;          /* AT_FLOAT */
		const char *s;          /* AT_STRING */
		struct { int n; const int64_t *v; } ints;          /* AT_INTS, AT_SAME_ELEMENTS */
		struct { int n; const Attr *const *v; } array;     /* AT_ARRAY */
		struct { int n; const NamedAttr *v; } dict;        /* AT_DICT */
		struct { size_t n; const uint8_t *bytes; bool splat; } dense;
		struct { int64_t divisor; bool has_every; int64_t every, along; } div_by;
		struct { bool has_lb, has_ub; int64_t lb, ub; } bounded;
	} u;
};

struct Module;
const Attr *attr_int(struct Module *m, int64_t v, const Type *type_or_null);
const Attr *attr_float(struct Module *m, uint64_t bits, const Type *type);
const Attr *attr_bool(struct Module *m, bool v);
const Attr *attr_string(struct Module *m, const char *s);
const Attr *attr_type(struct Module *m, const Type *t);
const Attr *attr_ints(struct Module *m, int n, const int64_t *v);
const Attr *attr_array(struct Module *m, int n, const Attr *const *v);
/* Sorts a copy of v by key. Returns NULL if a key is empty or duplicated. */
const Attr *attr_dict(struct Module *m, int n, const NamedAttr *v);
const Attr *attr_dense(struct Module *m, const Type *tile, size_t n, const uint8_t *bytes, bool splat);
const Attr *attr_div_by(struct Module *m, int64_t d, bool has_every, int64_t every, int64_t along);
const Attr *attr_same_elements(struct Module *m, int n, const int64_t *v);
const Attr *attr_bounded(struct Module *m, bool has_lb, int64_t lb, bool has_ub, int64_t ub);
const Attr *dict_get(const Attr *dict, const char *key);

/* ---------------------------------------------------------------- values, ops */
typedef struct Value Value;
typedef struct Op Op;
typedef struct Block Block;
typedef struct Region Region;
typedef struct OpInfo OpInfo;
struct Layout;                /* layout.h */

struct Value {
	const Type *type;
	Op *def;                 /* defining op, or NULL for a block argument */
	Block *owner;            /* block of a block argument */
	int index;               /* result number / argument number */
	int id;                  /* printing number, assigned by ir_number_values() */
	const Attr *layout;      /* distributed layout (set by tile-sched), or NULL: what is written out */
	const struct Layout *lay;/* the same, parsed once (json_ir.c, tile-sched); NULL when absent or
				  * not a layout (stagecheck says why) */
};

struct Block {
	int nargs;
	Value **args;
	Op *first, *last;
	Region *parent;
	Block *next;
};

struct Region {
	Block *first, *last;
	int nblocks;
	Op *parent;
};

struct Op {
	const OpInfo *info;
	int noperands, nresults, nattrs, nregions;
	Value **operands;
	Value **results;
	NamedAttr *attrs;        /* sorted by name, unique */
	Region *regions;
	const Loc *loc;          /* never NULL; file == NULL when unknown */
	size_t offset;           /* byte offset in the input bytecode, 0 if none */
	Block *parent;
	Op *prev, *next;
};

typedef struct Module {
	Arena *arena;
	TypeTable *types;
	const char *stage;       /* "cuda_tile", "nv_tileaa", "nv_tileas", "scheduled" */
	const char *name;        /* module symbol, "kernels" */
	const Attr *attrs;       /* AT_DICT of module attributes (bytecode_version, target, ...) */
	Block body;              /* top-level ops: entries and globals */
	const Loc *unknown_loc;
} Module;

Module *module_new(const char *stage);
void module_free(Module *m);
const Attr *module_attr(const Module *m, const char *key);
void module_set_attr(Module *m, const char *key, const Attr *a);

Op *op_new(Module *m, const OpInfo *info, int noperands, Value *const *operands,
	   int nresults, const Type *const *result_types, int nregions, const Loc *loc);
void op_set_attr(Module *m, Op *op, const char *name, const Attr *a);
const Attr *op_attr(const Op *op, const char *name);
/* Remove op's attribute `name` (nothing when it has none) */
void op_remove_attr(Op *op, const char *name);
/* Typed attribute getters: the attribute `name` of op when it is there with
 * the kind asked for, else the default. These are the only copies; a stage
 * does not write its own. */
int64_t op_attr_int(const Op *op, const char *name, int64_t dflt);           /* AT_INT */
int64_t op_attr_int_at(const Op *op, const char *name, int i, int64_t dflt); /* AT_INTS[i] */
const char *op_attr_str(const Op *op, const char *name, const char *dflt);   /* AT_STRING */
bool op_attr_flag(const Op *op, const char *name);                           /* AT_BOOL, set */
/* An enum attribute as its value (ROUNDING_full, ...; libcommon/enums.def):
 * -1 when absent or not a spelling of kind k. */
int op_attr_enum(const Op *op, const char *name, EnumKind k);
Block *region_add_block(Module *m, Region *r, int nargs, const Type *const *argtypes);
void block_append(Block *b, Op *op);
void block_insert_before(Block *b, Op *before, Op *op);
void op_remove(Op *op);
/* l with its subprogram's flags set (l itself when they are already those) */
const Loc *loc_with_func_flags(Module *m, const Loc *l, unsigned flags);
const Loc *loc_new(Module *m, const char *file, unsigned line, unsigned col,
		   const char *func, const Loc *caller);

/* Give every value a number. Numbering restarts at 0 in each top-level op;
 * an op's results are numbered before its regions, a block's arguments
 * before its ops (the order the text and JSON forms print them). */
void ir_number_values(Module *m);
/* The number of values op defines: its results and, in its regions, every
 * block argument and every result of a nested op (an upper bound on the
 * value numbers of a top-level op, for tables indexed by value id). */
int op_count_values(const Op *op);

#define FOR_EACH_OP(op, block) for (Op *op = (block)->first; op; op = op->next)
#define FOR_EACH_BLOCK(b, region) for (Block *b = (region)->first; b; b = b->next)

/* Walk every op under `op` (inclusive), pre-order. Stop if fn returns non-zero. */
int op_walk(Op *op, int (*fn)(Op *op, void *ctx), void *ctx);
int module_walk(Module *m, int (*fn)(Op *op, void *ctx), void *ctx);

#endif
