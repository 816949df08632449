/* wire_layout.h: the wire layout of a cuda_tile op in a function body, the
 * `layout` column of libcommon/dialect_cuda_tile.def as data: the fields
 * in wire order (results, flags, attributes, operands, regions). ops.c
 * decodes bytecode by it; the text parser (asm_parse*.c) fills in the
 * attributes the wire always carries; the writer (write*.c) encodes by it. */
#ifndef TILE_READ_LAYOUT_H
#define TILE_READ_LAYOUT_H
#include "enums.h"

typedef enum FieldKind {
	F_END, F_RES, F_NRES, F_NRES_TOKEN, F_FLAGS, F_UNIT, F_ENUM, F_INT, F_BOOL, F_STR,
	F_SYMREF, F_I32ARR, F_CONST, F_PRED, F_TARRAY, F_HINTS, F_BOOLARR, F_OPND, F_OPT,
	F_VAR, F_ALL, F_REGIONS,
} FieldKind;

typedef struct Field {
	FieldKind kind;
	const char *name;       /* attribute name */
	int n, max;             /* counts */
	unsigned mask;          /* flag bit, 0 = not flag-controlled */
	int since;              /* first version the field is on the wire; 0 = always */
	EnumKind en;            /* EK_* */
	int dflt;               /* ENUM_SINCE: value before `since` */
} Field;

#define RES(k)                  { .kind = F_RES, .n = (k) }
#define NRES(k)                 { .kind = F_NRES, .n = (k) }
#define NRES_TOKEN(v)           { .kind = F_NRES_TOKEN, .since = (v) }
#define FLAGS                   { .kind = F_FLAGS }
#define FLAGS_SINCE(v)          { .kind = F_FLAGS, .since = (v) }
#define UNIT(nm, b)             { .kind = F_UNIT, .name = nm, .mask = 1u << (b) }
#define ENUM(nm, e)             { .kind = F_ENUM, .name = nm, .en = EK_##e }
#define ENUM_OPT(nm, e, b)      { .kind = F_ENUM, .name = nm, .en = EK_##e, .mask = 1u << (b) }
#define ENUM_SINCE(nm, e, v, d) { .kind = F_ENUM, .name = nm, .en = EK_##e, .since = (v), .dflt = (d) }
#define INT(nm)                 { .kind = F_INT, .name = nm }
#define BOOL(nm)                { .kind = F_BOOL, .name = nm }
#define STR(nm)                 { .kind = F_STR, .name = nm }
#define SYMREF(nm)              { .kind = F_SYMREF, .name = nm }
#define I32ARR(nm)              { .kind = F_I32ARR, .name = nm }
#define CONST(nm)               { .kind = F_CONST, .name = nm }
#define PRED(nm)                { .kind = F_PRED, .name = nm }
#define TARRAY(nm)              { .kind = F_TARRAY, .name = nm }
#define HINTS(nm, b)            { .kind = F_HINTS, .name = nm, .mask = 1u << (b) }
#define BOOLARR_SINCE(nm, v, g) { .kind = F_BOOLARR, .name = nm, .since = (v), .n = (g) }
#define OPND(k)                 { .kind = F_OPND, .n = (k) }
#define OPT(b)                  { .kind = F_OPT, .mask = 1u << (b) }
#define VAR                     { .kind = F_VAR }
#define ALL(lo, hi)             { .kind = F_ALL, .n = (lo), .max = (hi) }
#define REGIONS(k)              { .kind = F_REGIONS, .n = (k) }

/* the `layout` column of dialect_cuda_tile.def */
#define LAYOUT(...)             (const Field[]){ __VA_ARGS__, { .kind = F_END } }
#define NO_LAYOUT               NULL

/* the layout of cuda_tile op `code` (enum OpCode); NULL for the ops that
 * cannot be in a body (entry, global, module) */
const Field *ops_layout(int code);

#endif
