/* diag.h: diagnostics. Two kinds, kept apart:
 *  - user errors (bad input, bad options): diag_error() prints
 *    "TOOL: INPUT: WHERE: error: MSG" and counts; the tool exits 1 (or 2 for
 *    usage). diag_msg.c.
 *  - internal bugs: ice() prints "TOOL: internal error: MSG" and aborts.
 *    diag.c, with the state below; it calls no other file of libcommon.
 * WHERE is a source location from debug info when there is one, else a byte
 * offset ("offset 0x1c4"), else a JSON pointer ("at /module/ops/0"), else empty.
 * A source location is written in the two forms cuTile's _parse_tileir_stderr
 * (cuda/tile/_compile.py) matches, so cuTile reports the error at the Python line:
 *    loc("FILE":LINE:COL)                                       plain location
 *    loc(fused<"f" called from "FILE":L:C in "k", ...>["FILE":LINE:COL])
 *                                       call-site (inlined) location: the
 *                                       bracket is the op's own place, the
 *                                       prefix the call chain, innermost first
 * A '"' or '\\' in a name is written \22 / \5C (MLIR's escape), and ')' in
 * the fused prefix \29 (cuTile's pattern allows none there). */
#ifndef TILE_DIAG_H
#define TILE_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include "strbuf.h"

struct Loc;

/* Per thread (libtileiras runs one compile per thread at a time): */
extern _Thread_local const char *diag_tool;     /* "tile-read" */
extern _Thread_local const char *diag_input;    /* input file name, "<stdin>" */
extern _Thread_local int diag_errors;
/* The user's form (tileiras' stages, under TILEIRAS_USER_DIAG, and
 * libtileiras): no tool or input name, and
 *    FILE:LINE:COL: error: MSG                 located (the op's own place)
 *    FILE:LINE:COL: note: 'f' called from here, in 'k'
 *                                              one line per call site, innermost first
 *    error: MSG (WHERE)                        byte offset, JSON pointer
 *    error: MSG                                no location
 * and an internal op name in MSG ('nv_tileaa.tiled_load') written as the
 * cuda_tile op it was made from ('cuda_tile.load_view_tko'). Never MLIR's
 * loc(...) form: cuTile 1.7.0 parses that into a location it cannot print
 * (its CompilerExecutionError's str() fails), so the place is in the text
 * (docs/driver.md, "Messages"). false: the tools' own form above. */
extern _Thread_local bool diag_user;
/* Where this thread's diagnostics go: NULL (the default) is stderr; else
 * every message, and diag_raw's text, is appended to this buffer
 * (libtileiras: the program's log). ice() still writes to stderr. */
extern _Thread_local struct StrBuf *diag_sink;
/* A stretch whose messages nobody is to see (a probe whose failure is said
 * again later, or is not the caller's to say): diag_quiet_begin points this
 * thread's sink at q->text, keeping the sink and error count it had;
 * diag_quiet_end puts both back and drops the text. */
typedef struct DiagQuiet {
	StrBuf text;
	StrBuf *saved_sink;
	int saved_errors;
} DiagQuiet;
void diag_quiet_begin(DiagQuiet *q);
void diag_quiet_end(DiagQuiet *q);
/* Text passed through verbatim (ptxas's messages) to the sink or stderr. */
void diag_raw(const char *s, size_t n);

void diag_error(const struct Loc *loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_error_at_offset(size_t offset, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_error_at_path(const char *json_pointer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_warning(const struct Loc *loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_error_where(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_verror(const char *where, const char *kind, const char *fmt, va_list ap);
void diag_verror_at_offset(size_t offset, const char *fmt, va_list ap);
/* diag_error's va_list form (a reader's own fail function passes its
 * caller's format on) */
void diag_verror_at_loc(const struct Loc *loc, const char *fmt, va_list ap);
/* A user error with no location: "TOOL: error: MSG". */
void diag_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The location part of a diagnostic (forms above) into buf; "" if unknown. */
const char *diag_loc_format(const struct Loc *loc, char *buf, size_t n);

_Noreturn void ice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
