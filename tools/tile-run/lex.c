/* lex.c: PTX text -> tokens.
 * Identifiers include dots and "::" (ld.global.v4.b32, %tid.x,
 * shared::cta) and the sigils % $ so an opcode is one token. Numbers:
 * decimal, 0x hex, 0b binary, octal with a leading 0, an optional U suffix;
 * 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX float bit patterns; decimal floats.
 * Comments (// and block) are skipped; line numbers are kept. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

static bool ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '.';
}

static bool lex_fail(Lexer *lx, const char *what)
{
	diag_plain("%s:%u: %s", lx->path, lx->line, what);
	return false;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool lex_number(Lexer *lx, Token *t)
{
	const char *p = lx->p, *e = lx->end;
	if (p + 1 < e && p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
		int nd = (p[1] == 'f' || p[1] == 'F') ? 8 : 16;
		uint64_t v = 0;
		const char *q = p + 2;
		int i;
		for (i = 0; i < nd && q < e && hexval(*q) >= 0; i++, q++)
			v = v << 4 | (uint64_t)hexval(*q);
		if (i != nd)
			return lex_fail(lx, "malformed hexadecimal float literal");
		t->kind = nd == 8 ? TK_F32 : TK_F64;
		t->ival = v;
		lx->p = q;
		return true;
	}
	/* decimal float? */
	const char *q = p;
	while (q < e && isdigit((unsigned char)*q))
		q++;
	if (q < e && (*q == '.' || *q == 'e' || *q == 'E') && !(p[0] == '0' && q == p + 1 && q < e && (q[0] == 'x'))) {
		char buf[64];
		size_t n = 0;
		const char *r = p;
		while (r < e && n < sizeof buf - 1 && (isdigit((unsigned char)*r) || *r == '.' || *r == 'e' || *r == 'E' ||
			((*r == '-' || *r == '+') && (r[-1] == 'e' || r[-1] == 'E'))))
			buf[n++] = *r++;
		buf[n] = 0;
		char *endp;
		t->fval = strtod(buf, &endp);
		if (*endp)
			return lex_fail(lx, "malformed float literal");
		t->kind = TK_FLOAT;
		lx->p = r;
		return true;
	}
	uint64_t v = 0;
	q = p;
	if (q + 1 < e && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		q += 2;
		if (q >= e || hexval(*q) < 0)
			return lex_fail(lx, "malformed hexadecimal literal");
		while (q < e && hexval(*q) >= 0)
			v = v << 4 | (uint64_t)hexval(*q++);
	} else if (q + 1 < e && q[0] == '0' && (q[1] == 'b' || q[1] == 'B')) {
		q += 2;
		while (q < e && (*q == '0' || *q == '1'))
			v = v << 1 | (uint64_t)(*q++ - '0');
	} else if (q[0] == '0') {
		while (q < e && *q >= '0' && *q <= '7')
			v = v * 8 + (uint64_t)(*q++ - '0');
	} else {
		while (q < e && isdigit((unsigned char)*q))
			v = v * 10 + (uint64_t)(*q++ - '0');
	}
	if (q < e && (*q == 'U' || *q == 'u'))
		q++;
	if (q < e && (isalnum((unsigned char)*q) || *q == '_'))
		return lex_fail(lx, "malformed integer literal");
	t->kind = TK_INT;
	t->ival = v;
	lx->p = q;
	return true;
}

bool lex_next(Lexer *lx, Token *t)
{
	const char *e = lx->end;
	for (;;) {
		while (lx->p < e && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n' || *lx->p == '\f')) {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (lx->p + 1 < e && lx->p[0] == '/' && lx->p[1] == '/') {
			while (lx->p < e && *lx->p != '\n')
				lx->p++;
			continue;
		}
		if (lx->p + 1 < e && lx->p[0] == '/' && lx->p[1] == '*') {
			lx->p += 2;
			while (lx->p + 1 < e && !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n')
					lx->line++;
				lx->p++;
			}
			if (lx->p + 1 >= e)
				return lex_fail(lx, "unterminated comment");
			lx->p += 2;
			continue;
		}
		break;
	}
	memset(t, 0, sizeof *t);
	t->line = lx->line;
	t->s = lx->p;
	if (lx->p >= e) {
		t->kind = TK_EOF;
		return true;
	}
	int c = (unsigned char)*lx->p;
	if (c == 0)
		return lex_fail(lx, "NUL byte in PTX text");
	if (ident_start(c)) {
		const char *q = lx->p + 1;
		while (q < e && (ident_char((unsigned char)*q) || (q + 1 < e && q[0] == ':' && q[1] == ':' && q + 2 < e &&
								   ident_char((unsigned char)q[2])))) {
			if (*q == ':')
				q += 2;
			else
				q++;
		}
		t->kind = TK_IDENT;
		t->len = (uint32_t)(q - lx->p);
		lx->p = q;
		return true;
	}
	if (isdigit(c))
		return lex_number(lx, t) && (t->len = (uint32_t)(lx->p - t->s), true);
	if (c == '"') {
		const char *q = lx->p + 1;
		while (q < e && *q != '"' && *q != '\n') {
			if (*q == '\\' && q + 1 < e)
				q++;
			q++;
		}
		if (q >= e || *q != '"')
			return lex_fail(lx, "unterminated string");
		t->kind = TK_STRING;
		t->s = lx->p + 1;
		t->len = (uint32_t)(q - lx->p - 1);
		lx->p = q + 1;
		return true;
	}
	if (strchr(",;:[]{}()+-!|@<>=", c)) {
		t->kind = TK_PUNCT;
		t->len = 1;
		lx->p++;
		return true;
	}
	char msg[64];
	snprintf(msg, sizeof msg, isprint(c) ? "unexpected character '%c'" : "unexpected byte 0x%02x", c);
	return lex_fail(lx, msg);
}
