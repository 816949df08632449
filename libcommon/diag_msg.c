/* diag_msg.c: user errors and warnings (diag.h): formatted as
 * "TOOL: INPUT: WHERE: KIND: MSG" into this thread's sink, or written to
 * stderr in one write; source locations in cuTile's two forms; quiet
 * stretches; verbatim text. The state it reads and counts in is diag.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "diag.h"
#include "ir.h"
#include "strbuf.h"

void diag_quiet_begin(DiagQuiet *q)
{
	q->text = (StrBuf){0};
	q->saved_sink = diag_sink;
	q->saved_errors = diag_errors;
	diag_sink = &q->text;
}

void diag_quiet_end(DiagQuiet *q)
{
	diag_sink = q->saved_sink;
	diag_errors = q->saved_errors;
	sb_free(&q->text);
}

void diag_raw(const char *s, size_t n)
{
	if (diag_sink)
		sb_putn(diag_sink, s, n);
	else
		fwrite(s, 1, n, stderr);
}

/* Append a formatted message to b. */
static void sb_vput(StrBuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n <= 0)
		return;
	char *tmp = malloc((size_t)n + 1);
	if (!tmp)
		abort();
	vsnprintf(tmp, (size_t)n + 1, fmt, ap);
	sb_putn(b, tmp, (size_t)n);
	free(tmp);
}

/* Hand a finished message to the sink, or to stderr in one write. */
static void emit(StrBuf *own)
{
	if (!diag_sink) {
		fwrite(own->s ? own->s : "", 1, own->len, stderr);
		sb_free(own);
	}
}

void diag_verror(const char *where, const char *kind, const char *fmt, va_list ap)
{
	StrBuf own = {0};
	StrBuf *b = diag_sink ? diag_sink : &own;
	sb_printf(b, "%s: ", diag_tool);
	if (diag_input)
		sb_printf(b, "%s: ", diag_input);
	if (where && *where)
		sb_printf(b, "%s: ", where);
	sb_printf(b, "%s: ", kind);
	sb_vput(b, fmt, ap);
	sb_putc(b, '\n');
	emit(&own);
	if (kind[0] == 'e')
		diag_errors++;
}

/* A file name inside "...": '"', '\\' and control bytes as MLIR writes
 * them (\22, \5C, \0A); `paren` also escapes ')' (the fused form's prefix
 * must hold none, or cuTile's pattern stops there). */
static size_t put_name(char *buf, size_t n, size_t at, const char *s, int paren)
{
	for (; *s && at + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f || (paren && c == ')'))
			at += (size_t)snprintf(buf + at, n - at, "\\%02X", c);
		else
			buf[at++] = (char)c;
	}
	buf[at] = 0;
	return at;
}

static size_t put(char *buf, size_t n, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t n, size_t at, const char *fmt, ...)
{
	if (at >= n)
		return at;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + at, n - at, fmt, ap);
	va_end(ap);
	at += k > 0 ? (size_t)k : 0;
	return at < n ? at : n - 1;
}

const char *diag_loc_format(const Loc *loc, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	if (!loc || !loc->file || n < 16)
		return buf;
	if (!loc->caller) {
		at = put(buf, n, at, "loc(\"");
		at = put_name(buf, n, at, loc->file, 0);
		put(buf, n, at, "\":%u:%u)", loc->line, loc->col);
		return buf;
	}
	at = put(buf, n, at, "loc(fused<");
	if (loc->func) {
		at = put(buf, n, at, "\"");
		at = put_name(buf, n, at, loc->func, 1);
		at = put(buf, n, at, "\" ");
	}
	for (const Loc *c = loc->caller; c && c->file; c = c->caller) {
		at = put(buf, n, at, "%scalled from \"", c == loc->caller ? "" : ", ");
		at = put_name(buf, n, at, c->file, 1);
		at = put(buf, n, at, "\":%u:%u", c->line, c->col);
		if (c->func) {
			at = put(buf, n, at, " in \"");
			at = put_name(buf, n, at, c->func, 1);
			at = put(buf, n, at, "\"");
		}
	}
	at = put(buf, n, at, ">[\"");
	at = put_name(buf, n, at, loc->file, 0);
	put(buf, n, at, "\":%u:%u])", loc->line, loc->col);
	return buf;
}

/* CALL with ap, the variadic arguments after fmt */
#define WITH_AP(call) do { va_list ap; va_start(ap, fmt); call; va_end(ap); } while (0)

static void diag_vat_loc(const Loc *loc, const char *kind, const char *fmt, va_list ap)
{
	char where[2048];
	diag_loc_format(loc, where, sizeof where);
	diag_verror(where, kind, fmt, ap);
}

void diag_error(const Loc *loc, const char *fmt, ...)
{
	WITH_AP(diag_vat_loc(loc, "error", fmt, ap));
}

void diag_warning(const Loc *loc, const char *fmt, ...)
{
	WITH_AP(diag_vat_loc(loc, "warning", fmt, ap));
}

void diag_verror_at_offset(size_t offset, const char *fmt, va_list ap)
{
	char where[64];
	snprintf(where, sizeof where, "offset 0x%zx", offset);
	diag_verror(where, "error", fmt, ap);
}

void diag_error_at_offset(size_t offset, const char *fmt, ...)
{
	WITH_AP(diag_verror_at_offset(offset, fmt, ap));
}

void diag_error_at_path(const char *json_pointer, const char *fmt, ...)
{
	char where[1024];
	snprintf(where, sizeof where, "at %s", json_pointer && *json_pointer ? json_pointer : "/");
	WITH_AP(diag_verror(where, "error", fmt, ap));
}

void diag_error_where(const char *where, const char *fmt, ...)
{
	WITH_AP(diag_verror(where, "error", fmt, ap));
}

void diag_plain(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	StrBuf own = {0};
	StrBuf *b = diag_sink ? diag_sink : &own;
	sb_printf(b, "%s: error: ", diag_tool);
	sb_vput(b, fmt, ap);
	sb_putc(b, '\n');
	emit(&own);
	va_end(ap);
	diag_errors++;
}
