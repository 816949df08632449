/* xalloc.h: allocation that cannot fail. Out of memory is an internal error:
 * one message ("TOOL: internal error: out of memory ...") and abort, so no
 * caller checks for NULL. Zero sizes allocate one byte (never NULL). */
#ifndef TILE_XALLOC_H
#define TILE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);   /* zeroed; count * size checked for overflow */
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
