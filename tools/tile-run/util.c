/* util.c: messages, allocation that cannot fail, and the type tables. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"

const char *const type_names[TY_COUNT] = {
	[TY_NONE] = "",
#define T(n, e, b, k) [TY_##e] = #n,
#include "types.def"
#undef T
};
const uint8_t type_bytes[TY_COUNT] = {
#define T(n, e, b, k) [TY_##e] = b,
#include "types.def"
#undef T
};
const char type_kind[TY_COUNT] = {
#define T(n, e, b, k) [TY_##e] = #k[0],
#include "types.def"
#undef T
};

int type_from_name(const char *s)
{
	for (int k = 1; k < TY_COUNT; k++)
		if (strcmp(type_names[k], s) == 0)
			return k;
	return 0;
}

void run_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fflush(stdout);
	fprintf(stderr, "tile-run: error: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fflush(stdout);
	fprintf(stderr, "tile-run: internal error: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory (%zu bytes)", size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xcalloc(n + 1, 1);
	memcpy(p, s, n);
	return p;
}
