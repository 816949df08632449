/* diag_msg.c: user errors and warnings (diag.h): formatted as
 * "TOOL: INPUT: WHERE: KIND: MSG" into this thread's sink, or written to
 * stderr in one write; source locations in cuTile's two forms; quiet
 * stretches; verbatim text. The state it reads and counts in is diag.c's. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The cuda_tile op each internal op is made from, as a user's message
 * names it (diag.h: diag_user); NULL: made by the compiler itself. */
static const struct { const char *nv, *user; } nv_ops[] = {
	{ "make_memref", "cuda_tile.make_tensor_view" },
	{ "tiled_load", "cuda_tile.load_view_tko" },
	{ "tiled_store", "cuda_tile.store_view_tko" },
	{ "load", "cuda_tile.load_ptr_tko" },
	{ "store", "cuda_tile.store_ptr_tko" },
	{ "create_mem_token", "cuda_tile.make_token" },
	{ "join_mem_token", "cuda_tile.join_tokens" },
	{ "atomic_rmw", "cuda_tile.atomic_rmw_tko" },
	{ "atomic_cas", "cuda_tile.atomic_cas_tko" },
	{ "convert_layout", NULL },
};

/* msg with every nv_tileaa.X / nv_tileas.X (quoted or not) as the user's op */
static void put_user_text(StrBuf *b, const char *msg)
{
	const char *p = msg;
	for (;;) {
		const char *aa = strstr(p, "nv_tileaa."), *as = strstr(p, "nv_tileas.");
		const char *q = !aa ? as : !as ? aa : aa < as ? aa : as;
		if (!q) {
			sb_puts(b, p);
			return;
		}
		const char *name = q + 10, *e = name;
		while ((*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9') || *e == '_')
			e++;
		bool quoted = q > p && q[-1] == '\'' && *e == '\'';
		const char *user = "";
		bool known = false;
		for (size_t i = 0; i < sizeof nv_ops / sizeof nv_ops[0]; i++)
			if (strlen(nv_ops[i].nv) == (size_t)(e - name) &&
			    strncmp(nv_ops[i].nv, name, (size_t)(e - name)) == 0) {
				user = nv_ops[i].user;
				known = true;
			}
		if (known && !user) {
			/* 'nv_tileas.convert_layout' op: no op of the user's */
			const char *from = quoted ? q - 1 : q, *to = quoted ? e + 1 : e;
			if (strncmp(to, " op", 3) == 0)
				to += 3;
			sb_putn(b, p, (size_t)(from - p));
			sb_puts(b, "a layout conversion (made by the compiler)");
			p = to;
			continue;
		}
		sb_putn(b, p, (size_t)(q - p));
		if (known)
			sb_puts(b, user);
		else
			sb_putn(b, name, (size_t)(e - name));
		p = e;
	}
}

/* A file name as the user's form writes it: as it is, but control bytes as
 * \0A (a message is one line), and '"' as \22 where the name holds "loc(",
 * which would have cuTile's patterns take the line for MLIR's form. */
static void put_user_file(StrBuf *b, const char *f)
{
	bool esc_quote = strcasestr(f, "loc(") != NULL;
	for (; *f; f++) {
		unsigned char c = (unsigned char)*f;
		if (c < 0x20 || c == 0x7f || (esc_quote && c == '"'))
			sb_printf(b, "\\%02X", c);
		else
			sb_putc(b, (char)c);
	}
}

/* One user-form diagnostic: loc (may be NULL) or where, then the call sites. */
static void user_report(StrBuf *b, const Loc *loc, const char *where, const char *kind, const char *fmt,
			va_list ap)
{
	StrBuf msg = {0};
	sb_vput(&msg, fmt, ap);
	bool located = loc && loc->file;
	if (located) {
		put_user_file(b, loc->file);
		sb_printf(b, ":%u:%u: ", loc->line, loc->col);
	}
	sb_printf(b, "%s: ", kind);
	put_user_text(b, sb_cstr(&msg));
	if (!located && where && *where)
		sb_printf(b, " (%s)", where);
	sb_putc(b, '\n');
	sb_free(&msg);
	if (!located)
		return;
	/* a deep chain (cuTile inlines up to 1000 calls): its innermost
	 * NOTES_HEAD sites, a count, and the outermost (the kernel's line) */
	enum { NOTES_HEAD = 14 };
	int n = 0;
	for (const Loc *c = loc->caller; c && c->file; c = c->caller)
		n++;
	const char *callee = loc->func;
	int i = 0;
	for (const Loc *c = loc->caller; c && c->file; c = c->caller, i++) {
		if (n > NOTES_HEAD + 2 && i >= NOTES_HEAD && i < n - 1) {
			if (i == NOTES_HEAD)
				sb_printf(b, "note: (%d more call sites)\n", n - NOTES_HEAD - 1);
			callee = c->func;
			continue;
		}
		put_user_file(b, c->file);
		sb_printf(b, ":%u:%u: note: ", c->line, c->col);
		if (callee)
			sb_printf(b, "'%s' ", callee);
		sb_puts(b, "called from here");
		if (c->func)
			sb_printf(b, ", in '%s'", c->func);
		sb_putc(b, '\n');
		callee = c->func;
	}
}

static void report(const Loc *loc, const char *where, bool with_input, const char *kind, const char *fmt,
		   va_list ap)
{
	StrBuf own = {0};
	StrBuf *b = diag_sink ? diag_sink : &own;
	if (diag_user) {
		user_report(b, loc, where, kind, fmt, ap);
	} else {
		char buf[2048];
		if (loc)
			where = diag_loc_format(loc, buf, sizeof buf);
		sb_printf(b, "%s: ", diag_tool);
		if (with_input && diag_input)
			sb_printf(b, "%s: ", diag_input);
		if (where && *where)
			sb_printf(b, "%s: ", where);
		sb_printf(b, "%s: ", kind);
		sb_vput(b, fmt, ap);
		sb_putc(b, '\n');
	}
	emit(&own);
	if (kind[0] == 'e')
		diag_errors++;
}

void diag_verror(const char *where, const char *kind, const char *fmt, va_list ap)
{
	report(NULL, where, true, kind, fmt, ap);
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
	report(loc, NULL, true, kind, fmt, ap);
}

void diag_verror_at_loc(const Loc *loc, const char *fmt, va_list ap)
{
	diag_vat_loc(loc, "error", fmt, ap);
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
	char where[64] = "";
	if (offset || !diag_user)     /* the user's form: the start of the file goes without saying */
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
	report(NULL, NULL, false, "error", fmt, ap);
	va_end(ap);
}
