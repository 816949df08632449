/* reader.h: tile-read's private interfaces, grouped by defining file.
 *
 * Error policy: the first error is reported at once (one line, with the byte
 * offset of the bad item) and sets Reader.failed; every read after that is
 * a no-op returning 0/NULL, so callers check rd->failed at loop heads and
 * before using results, never after every byte. */
#ifndef TILE_READ_READER_H
#define TILE_READ_READER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"
#include "enums.h"
#include "debug_info.h"

/* Limits that keep every input cheap and every output re-readable (docs/ir.md). */
#define MAX_RANK 16            /* tile / tensor_view / view rank (JSON type grammar) */
#define MAX_TYPE_DEPTH 8       /* nested type references */
#define MAX_ATTR_DEPTH 32      /* nested arrays / dictionaries */
#define MAX_REGION_DEPTH 64    /* ops nested inside regions */
#define MAX_FUNC_TYPES 64      /* inputs or results of a function type */
#define MAX_VALUES (1 << 24)   /* values per function (JSON value names) */

enum { SEC_END, SEC_STRING, SEC_FUNC, SEC_DEBUG, SEC_CONSTANT, SEC_TYPE, SEC_GLOBAL,
       SEC_PRODUCER, SEC_COUNT };

typedef struct Reader Reader;

/* A bounded cursor over [pos, end) of the file; `origin` is where alignment
 * padding is counted from (the start of the enclosing section payload). */
typedef struct Cur {
	Reader *rd;
	size_t pos, end, origin;
} Cur;

/* An offset-indexed table (strings, types, constants, debug attributes):
 * n entries whose start offsets sit at `index` (4 or 8 bytes each), entry i
 * spans data[start[i] .. start[i+1]) and the last runs to `data_end`. */
typedef struct Table {
	uint32_t n;
	size_t index;              /* file offset of the start[] array */
	unsigned width;            /* 4 or 8 */
	size_t data, data_end;     /* file offsets */
} Table;

typedef struct Span { size_t start, len; bool present; } Span;

struct Reader {
	const uint8_t *buf;
	size_t len;
	Module *m;
	int version;               /* 1301 .. 1304 */
	bool failed;
	Span sec[SEC_COUNT];       /* section payloads */
	Table strings, types, consts, dbg_attrs;
	const char **str_cache;    /* decoded, validated strings */
	const Type **type_cache;
	uint8_t *type_state;       /* 0 unread, 1 being read (cycle check), 2 done */
	/* debug section */
	uint32_t dbg_nslots;
	size_t dbg_slots;          /* file offset of u32 slotStart[] */
	uint32_t dbg_nidx;
	size_t dbg_idx;            /* file offset of u64 diIndices[] */
	const Loc **dbg_loc_cache; /* per debug attribute, resolved as a location */
	uint8_t *dbg_state;
	long dbg_call_locs;        /* locations made by appending call-site chains (debug.c's bound) */
	DebugRecords *keep;        /* --emit=asm-debug: the records and each location read, or NULL */
};

/* Where an op's location comes from: diIndices[next .. end) of one function. */
typedef struct DebugCursor { bool active; uint64_t start, next, end; } DebugCursor;

/* cursor.c */
bool rd_fail(Reader *rd, size_t offset, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Cur cur_span(Reader *rd, size_t start, size_t len);
size_t cur_left(const Cur *c);
uint8_t cur_u8(Cur *c);
uint32_t cur_u32(Cur *c);
uint64_t cur_u64(Cur *c);
uint64_t cur_varint(Cur *c);
/* The varint that opens an item DEPTH levels deep; false (after the
 * error "WHAT nested more than MAX deep", or a short read) when there is none. */
bool cur_nested_varint(Cur *c, int depth, int max, const char *what, uint64_t *v);
bool cur_varint65(Cur *c, uint64_t *lo, unsigned *bit64);
int64_t cur_svarint(Cur *c);
uint32_t cur_count(Cur *c, size_t min_item_bytes, const char *what);
bool cur_pad(Cur *c, unsigned align);
bool cur_skip(Cur *c, size_t n);
bool cur_done(Cur *c, const char *what);
uint32_t le32(const uint8_t *p);
uint64_t le64(const uint8_t *p);

/* sections.c */
bool sections_scan(Reader *rd);
bool table_parse(Cur *c, unsigned width, Table *t, const char *what, bool check);
bool table_read(Reader *rd, int sec, unsigned width, Table *t, const char *what, bool check);
Cur table_entry(Reader *rd, const Table *t, uint32_t i);
const char *string_get(Reader *rd, uint64_t idx, size_t at);

/* types.c */
const Type *type_get(Reader *rd, uint64_t idx, size_t at, int depth);
const Type *cur_type(Cur *c);              /* varint type index, resolved */
bool type_is_value(const Type *t);

/* attrs.c */
const Attr *attr_tagged(Cur *c, int depth);
const Attr *attr_dict_body(Cur *c, int depth, bool hints);
const Attr *attr_dense_const(Reader *rd, uint64_t idx, const Type *t, size_t at);
const Attr *attr_enum(Cur *c, EnumKind kind, const char *name);
const Attr *attr_i32_array(Cur *c);
const Attr *attr_predicate(Cur *c);

/* debug.c */
bool debug_init(Reader *rd);
bool debug_function(Reader *rd, uint64_t loc_index, size_t at, DebugCursor *dc, const Loc **floc);
const Loc *debug_next(Reader *rd, DebugCursor *dc, size_t at);
bool debug_finish(Reader *rd, const DebugCursor *dc, size_t at, const char *fname);
/* every debug attribute into rd->keep->rec (after a successful read) */
bool debug_keep_records(Reader *rd);

/* ops.c */
bool ops_read_function(Reader *rd, Cur *body, Block *b, DebugCursor *dc);
/* Checks the layout column of dialect_cuda_tile.def against the other
 * columns (exactly the ops that can be in a body have a layout, versions
 * known and not older than the op, the attributes it decodes are those its
 * rule takes); ice() if not. */
void ops_check_layouts(void);

#endif
