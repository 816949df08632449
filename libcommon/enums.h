/* enums.h: bytecode versions (versions.def) and the enum attributes of
 * cuda_tile (enums.def): their kinds, spellings, bytecode values and first
 * versions. All of it is constant data; every function is a lookup. */
#ifndef TILE_ENUMS_H
#define TILE_ENUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ versions */
enum {
#define VERSION(num, spelling) BYTECODE_VERSION_##num = num,
#include "versions.def"
#undef VERSION
};
int bytecode_latest(void);                     /* the last row of versions.def: 1304 */
bool bytecode_version_known(int version);
/* "13.4"; "?" when the version is not in versions.def */
const char *bytecode_version_name(int version);
/* "13.4" -> 1304; -1 when not a known spelling */
int bytecode_version_parse(const char *s);
/* For messages: "13.1, 13.2, 13.3, 13.4, 13.5" and "\"13.1\", \"13.2\", ..." */
const char *bytecode_version_list(void);
const char *bytecode_version_list_quoted(void);

/* ------------------------------------------------------------ enum attributes */
typedef enum EnumKind {
#define ENUM(kind, what) EK_##kind,
#define VAL(kind, spelling, value, since)
#include "enums.def"
#undef ENUM
#undef VAL
	EK_COUNT
} EnumKind;

enum {
#define ENUM(kind, what)
#define VAL(kind, spelling, value, since) kind##_##spelling = value,
#include "enums.def"
#undef ENUM
#undef VAL
};

typedef struct EnumVal { EnumKind kind; int value; const char *spelling; int since; } EnumVal;
extern const EnumVal enum_values[];
extern const int enum_value_count;

/* "rounding mode" */
const char *enum_kind_what(EnumKind k);
/* The spelling of bytecode value v of kind k in `version` (0: any version);
 * NULL when v is not a value of k there. */
const char *enum_spelling(EnumKind k, uint64_t v, int version);
/* The row of a spelling of kind k; NULL when it is not one. */
const EnumVal *enum_lookup(EnumKind k, const char *spelling);
/* Every spelling of kind k in bytecode order, ", "-separated, into buf. */
const char *enum_list(EnumKind k, char *buf, size_t n);
/* Checks enums.def (values dense from 0 in order, versions known); NULL or
 * a message in buf. */
const char *enums_check(char *buf, size_t n);

#endif
