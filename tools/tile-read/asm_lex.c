/* asm_lex.c: the dialect text as MLIR's tokens, read on demand from the
 * parser's cursor (asm_parse.h): whitespace and // comments, punctuation,
 * bare identifiers, integers, strings; and the one error of a parse,
 * located at the text's FILE:LINE:COL (columns from 1, as MLIR counts).
 * Never reads past Parser.end; a NUL byte inside the text is an error. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "diag.h"
#include "strbuf.h"

const Loc *ps_loc_at(Parser *P, const char *at)
{
	unsigned line = 1, col = 1;
	if (at > P->end)
		at = P->end;
	for (const char *q = P->src; q < at; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else if (col < 1000000000u) {
			col++;
		}
	}
	return loc_new(P->m, P->file, line, col, NULL, NULL);
}

bool ps_fail(Parser *P, const char *at, const char *fmt, ...)
{
	if (P->failed)
		return false;
	P->failed = true;
	va_list ap;
	va_start(ap, fmt);
	diag_verror_at_loc(ps_loc_at(P, at), fmt, ap);
	va_end(ap);
	return false;
}

void ps_ws(Parser *P)
{
	const char *p = P->p;
	for (;;) {
		while (p < P->end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p + 1 < P->end && p[0] == '/' && p[1] == '/') {
			while (p < P->end && *p != '\n')
				p++;
			continue;
		}
		break;
	}
	P->p = p;
}

/* the next token as a short quote for "expected X, found Y" */
const char *ps_token_text(Parser *P)
{
	ps_ws(P);
	if (P->p >= P->end)
		return "end of input";
	const char *p = P->p;
	size_t n = 0;
	if (isalnum((unsigned char)*p) || *p == '_' || *p == '%' || *p == '@' || *p == '#' || *p == '^') {
		n = 1;
		while (p + n < P->end && n < 40 && (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' ||
						     p[n] == '$'))
			n++;
	} else {
		n = 1;
	}
	bool printable = true;
	for (size_t i = 0; i < n; i++)
		printable &= p[i] >= 0x20 && p[i] < 0x7f;
	if (!printable)
		return arena_printf(P->m->arena, "byte 0x%02x", (unsigned char)*p);
	return arena_printf(P->m->arena, "'%.*s'", (int)n, p);
}

bool ps_at(Parser *P, const char *punct)
{
	ps_ws(P);
	size_t n = strlen(punct);
	if ((size_t)(P->end - P->p) < n || memcmp(P->p, punct, n) != 0)
		return false;
	/* '-' is not the start of '->' */
	if (n == 1 && punct[0] == '-' && P->p + 1 < P->end && P->p[1] == '>')
		return false;
	return true;
}

bool ps_eat(Parser *P, const char *punct)
{
	if (P->failed || !ps_at(P, punct))
		return false;
	P->p += strlen(punct);
	return true;
}

bool ps_expect(Parser *P, const char *punct)
{
	if (P->failed)
		return false;
	if (ps_eat(P, punct))
		return true;
	return ps_fail(P, P->p, "expected '%s', found %s", punct, ps_token_text(P));
}

static bool id_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool id_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.'; }

size_t ps_ident_len(Parser *P)
{
	ps_ws(P);
	const char *p = P->p;
	if (p >= P->end || !id_start(*p))
		return 0;
	size_t n = 1;
	while (p + n < P->end && id_char(p[n]))
		n++;
	return n;
}

bool ps_at_kw(Parser *P, const char *kw)
{
	size_t n = ps_ident_len(P);
	return n && n == strlen(kw) && memcmp(P->p, kw, n) == 0;
}

bool ps_eat_kw(Parser *P, const char *kw)
{
	if (P->failed || !ps_at_kw(P, kw))
		return false;
	P->p += strlen(kw);
	return true;
}

bool ps_expect_kw(Parser *P, const char *kw)
{
	if (P->failed)
		return false;
	if (ps_eat_kw(P, kw))
		return true;
	return ps_fail(P, P->p, "expected '%s', found %s", kw, ps_token_text(P));
}

const char *ps_ident(Parser *P, const char *what)
{
	if (P->failed)
		return NULL;
	size_t n = ps_ident_len(P);
	if (!n) {
		ps_fail(P, P->p, "expected %s, found %s", what, ps_token_text(P));
		return NULL;
	}
	const char *s = arena_strndup(P->m->arena, P->p, n);
	P->p += n;
	return s;
}

bool ps_int(Parser *P, int64_t *v)
{
	if (P->failed)
		return false;
	ps_ws(P);
	const char *at = P->p, *p = P->p;
	bool neg = p < P->end && *p == '-';
	if (neg)
		p++;
	uint64_t x = 0;
	bool any = false, over = false;
	if (p + 1 < P->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		while (p < P->end && isxdigit((unsigned char)*p)) {
			int d = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
			over |= x >> 60 != 0;
			x = x << 4 | (uint64_t)d;
			p++;
			any = true;
		}
	} else {
		while (p < P->end && isdigit((unsigned char)*p)) {
			uint64_t d = (uint64_t)(*p - '0');
			over |= x > (UINT64_MAX - d) / 10;
			x = x * 10 + d;
			p++;
			any = true;
		}
	}
	if (!any)
		return ps_fail(P, at, "expected an integer, found %s", ps_token_text(P));
	if (over || (!neg && x > INT64_MAX) || (neg && x > (uint64_t)INT64_MAX + 1))
		return ps_fail(P, at, "integer %.*s does not fit in 64 bits", (int)(p - at), at);
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	P->p = p;
	return true;
}

bool ps_string(Parser *P, const char **s)
{
	if (P->failed)
		return false;
	ps_ws(P);
	const char *at = P->p;
	if (at >= P->end || *at != '"')
		return ps_fail(P, at, "expected a string, found %s", ps_token_text(P));
	StrBuf b = {0};
	const char *p = at + 1;
	for (;;) {
		if (p >= P->end || *p == '\n') {
			sb_free(&b);
			return ps_fail(P, at, "unterminated string");
		}
		char c = *p++;
		if (c == '"')
			break;
		if (c == '\0') {
			sb_free(&b);
			return ps_fail(P, p - 1, "NUL byte in a string");
		}
		if (c != '\\') {
			sb_putc(&b, c);
			continue;
		}
		if (p < P->end && (*p == '\\' || *p == '"')) {
			sb_putc(&b, *p++);
		} else if (p < P->end && *p == 'n') {
			sb_putc(&b, '\n');
			p++;
		} else if (p < P->end && *p == 't') {
			sb_putc(&b, '\t');
			p++;
		} else if (p + 1 < P->end && isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
			char h[3] = { p[0], p[1], 0 };
			int v = (int)strtol(h, NULL, 16);
			if (v == 0) {
				sb_free(&b);
				return ps_fail(P, p - 1, "NUL byte in a string");
			}
			sb_putc(&b, (char)v);
			p += 2;
		} else {
			sb_free(&b);
			return ps_fail(P, p - 1, "bad escape in a string");
		}
	}
	*s = arena_strdup(P->m->arena, sb_cstr(&b));
	sb_free(&b);
	P->p = p;
	return true;
}
