/* diag.c: user-facing errors and internal-bug aborts (see diag.h). */
#include <stdio.h>
#include <stdlib.h>
#include "diag.h"
#include "ir.h"

const char *diag_tool = "tile";
const char *diag_input;
int diag_errors;

void diag_verror(const char *where, const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", diag_tool);
	if (diag_input)
		fprintf(stderr, "%s: ", diag_input);
	if (where && *where)
		fprintf(stderr, "%s: ", where);
	fprintf(stderr, "%s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (kind[0] == 'e')
		diag_errors++;
}

static void where_of_loc(const Loc *loc, char *buf, size_t n)
{
	buf[0] = 0;
	if (loc && loc->file)
		snprintf(buf, n, "%s:%u:%u", loc->file, loc->line, loc->col);
}

void diag_error(const Loc *loc, const char *fmt, ...)
{
	char where[512];
	where_of_loc(loc, where, sizeof where);
	va_list ap;
	va_start(ap, fmt);
	diag_verror(where, "error", fmt, ap);
	va_end(ap);
}

void diag_warning(const Loc *loc, const char *fmt, ...)
{
	char where[512];
	where_of_loc(loc, where, sizeof where);
	va_list ap;
	va_start(ap, fmt);
	diag_verror(where, "warning", fmt, ap);
	va_end(ap);
}

void diag_error_at_offset(size_t offset, const char *fmt, ...)
{
	char where[64];
	snprintf(where, sizeof where, "offset 0x%zx", offset);
	va_list ap;
	va_start(ap, fmt);
	diag_verror(where, "error", fmt, ap);
	va_end(ap);
}

void diag_error_at_path(const char *json_pointer, const char *fmt, ...)
{
	char where[1024];
	snprintf(where, sizeof where, "at %s", json_pointer && *json_pointer ? json_pointer : "/");
	va_list ap;
	va_start(ap, fmt);
	diag_verror(where, "error", fmt, ap);
	va_end(ap);
}

void diag_error_where(const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(where, "error", fmt, ap);
	va_end(ap);
}

void diag_plain(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", diag_tool);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	diag_errors++;
}

void ice(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: internal error: ", diag_tool);
	vfprintf(stderr, fmt, ap);
	fputs("\n(this is a bug in the compiler, not in your kernel; please report it)\n", stderr);
	va_end(ap);
	abort();
}
