/* writer.h: the bytecode writer's private interfaces (write.h), grouped by
 * defining file. Error policy: the first user error goes out at once through
 * wr_fail (or wr_need) and sets Writer.failed; callers check it at loop heads. */
#ifndef TILE_READ_WRITER_H
#define TILE_READ_WRITER_H
#include <stdbool.h>
#include <stdint.h>
#include "ir.h"
#include "strbuf.h"
#include "bc_out.h"

typedef struct Writer {
	const Module *m;
	int version;
	bool failed;
	Intern strs;                 /* key: the string's bytes */
	Intern types;                /* key: the type's canonical spelling */
	StrBuf type_data;            /* entries, back to back */
	uint32_t *type_start;        /* type_start[i]: entry i's offset in type_data */
	Intern consts;               /* key: the encoded blob (varint size, raw) */
	struct DebugOut *dbg;        /* write_debug.c's state */
	const struct DebugRecords *records;   /* write.h; or NULL */
} Writer;

/* write_tables.c */
bool wr_fail(Writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "WHAT needs bytecode version V+ (writing W)" unless since <= w->version */
bool wr_need(Writer *w, int since, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint32_t wr_string(Writer *w, const char *s);
uint32_t wr_type(Writer *w, const Type *t);
/* a dense constant's pool index (the value as the reader reads it back) */
uint32_t wr_const(Writer *w, const Attr *dense);
/* a tagged ("self-contained") attribute; `hints`: an optimization hints
 * dictionary (tag 11) at the top */
void wr_tagged(Writer *w, StrBuf *b, const Attr *a, bool hints);
void wr_dict_body(Writer *w, StrBuf *b, const Attr *dict);
/* the string, type and constant sections' payloads */
void wr_string_section(Writer *w, StrBuf *payload);
void wr_type_section(Writer *w, StrBuf *payload);
void wr_const_section(Writer *w, StrBuf *payload);
void wr_tables_free(Writer *w);

/* write_ops.c: the ops of entry `fn`'s body, in wire order */
bool wr_function_body(Writer *w, const Op *fn, StrBuf *body);

/* write_debug.c: an entry's debug slot: begin (its own location), each
 * op's as it is written (pre-order), end: the slot's number, 0 when every
 * location was unknown (no slot then) */
void wr_debug_begin(Writer *w, const Op *fn);
void wr_debug_op(Writer *w, const Op *op);
uint64_t wr_debug_end(Writer *w);
bool wr_debug_section(Writer *w, StrBuf *payload);   /* false: nothing to write */
void wr_debug_free(Writer *w);

#endif
