/* xalloc.c: malloc and friends that abort on out of memory (xalloc.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"
#include "diag.h"

static void *check(void *p, size_t n)
{
	if (!p)
		ice("out of memory (%zu bytes)", n);
	return p;
}

void *xmalloc(size_t n)
{
	return check(malloc(n ? n : 1), n);
}

void *xcalloc(size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		ice("out of memory (%zu x %zu bytes)", count, size);
	if (!count || !size)
		count = size = 1;
	return check(calloc(count, size), count * size);
}

void *xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1), n);
}

char *xstrndup(const char *s, size_t n)
{
	const char *end = memchr(s, 0, n);
	size_t len = end ? (size_t)(end - s) : n;
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}
