/* strbuf.h: a growable string; {0} is an empty buffer. */
#ifndef TILE_STRBUF_H
#define TILE_STRBUF_H
#include <stddef.h>

typedef struct StrBuf { char *s; size_t len, cap; } StrBuf;

void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sb_cstr(StrBuf *b);   /* never NULL; valid until the next put */
void sb_free(StrBuf *b);
#endif
