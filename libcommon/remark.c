/* remark.c: remark documents in LLVM's YAML or NVIDIA's command-line form
 * (remark.h). The YAML matches what NVIDIA's tileiras writes:
 *   --- !Passed
 *   Pass:            Memory
 *   Name:            RemarkMemoryLoadInstructionSelected
 *   DebugLoc:        { File: 'k.py', Line: 9, Column: 9 }
 *   Function:        k
 *   Args:
 *     - Remark:      Load instruction selected
 *   ...
 * Scalars are quoted ('…', '' for a quote) only where YAML needs it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "remark.h"
#include "ir.h"
#include "xalloc.h"

static bool needs_quotes(const char *s)
{
	if (!*s || s[0] == ' ' || s[strlen(s) - 1] == ' ' || strchr("-?!&*|>%@`'\"{[", s[0]))
		return true;
	for (const char *p = s; *p; p++)
		if ((*p == ':' && (p[1] == ' ' || !p[1])) || (*p == ' ' && p[1] == '#') ||
		    strchr(",[]{}'\"\n\t", *p))
			return true;
	return false;
}

static void yaml_scalar(StrBuf *b, const char *s, bool force)
{
	if (!force && !needs_quotes(s)) {
		sb_puts(b, s);
		return;
	}
	sb_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_putc(b, '\'');
		sb_putc(b, *s == '\n' ? ' ' : *s);
	}
	sb_putc(b, '\'');
}

static void lower_kind(StrBuf *b, const char *kind)
{
	/* command-line: remark[passed], remark[missed], remark[failed], remark[analysis] */
	if (strcmp(kind, "Failure") == 0) {
		sb_puts(b, "failed");
		return;
	}
	for (const char *p = kind; *p; p++)
		sb_putc(b, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
}

static unsigned kind_bit(const char *k, size_t n)
{
	static const char *const names[] = { "passed", "missed", "failed", "analysis" };
	for (unsigned i = 0; i < 4; i++)
		if (strlen(names[i]) == n && strncmp(names[i], k, n) == 0)
			return 1u << i;
	return 0;
}

int remark_kinds_parse(const char *list)
{
	unsigned bits = 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		unsigned b = kind_bit(p, n);
		if (!b)
			return -1;
		bits |= b;
		p += n + (p[n] == ',');
	}
	return (int)bits;
}

void remark_begin(RemarkOut *o, const char *kind, const char *pass, const char *name,
		  const Loc *loc, const char *func, const char *remark)
{
	StrBuf *b = o->b;
	const char *k = strcmp(kind, "Failure") == 0 ? "failed" : kind;
	char lk[16];
	size_t n = 0;
	for (; k[n] && n < sizeof lk - 1; n++)
		lk[n] = (char)(k[n] >= 'A' && k[n] <= 'Z' ? k[n] - 'A' + 'a' : k[n]);
	o->skip = o->kinds && !(o->kinds & kind_bit(lk, n));
	if (o->skip)
		return;
	bool has_loc = loc && loc->file;
	if (o->yaml) {
		sb_printf(b, "--- !%s\nPass:            ", kind);
		yaml_scalar(b, pass, false);
		sb_puts(b, "\nName:            ");
		yaml_scalar(b, name, false);
		if (has_loc) {
			sb_puts(b, "\nDebugLoc:        { File: ");
			yaml_scalar(b, loc->file, true);
			sb_printf(b, ", Line: %u, Column: %u }", loc->line, loc->col);
		}
		if (func) {
			sb_puts(b, "\nFunction:        ");
			yaml_scalar(b, func, false);
		}
		sb_puts(b, "\nArgs:\n");
		remark_arg(o, "Remark", "%s", remark);
		return;
	}
	if (func && (!o->func || strcmp(o->func, func) != 0)) {
		sb_printf(b, "in function: %s:\n\n", func);
		o->func = func;
		o->pass = NULL;
	}
	if (!o->pass || strcmp(o->pass, pass) != 0) {
		sb_printf(b, "  category: %s\n", pass);
		o->pass = pass;
	}
	sb_puts(b, "    remark[");
	lower_kind(b, kind);
	sb_printf(b, "]: %s\n", remark);
	if (has_loc)
		sb_printf(b, "      --> \"%s\":%u:%u\n", loc->file, loc->line, loc->col);
	sb_printf(b, "       |\n       = name: %s\n", name);
}

void remark_arg(RemarkOut *o, const char *key, const char *fmt, ...)
{
	char buf[1024];
	if (o->skip)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	StrBuf *b = o->b;
	if (o->yaml) {
		size_t kl = strlen(key);
		sb_printf(b, "  - %s:%*s", key, kl < 12 ? (int)(12 - kl) : 1, "");
		yaml_scalar(b, buf, false);
		sb_putc(b, '\n');
	} else if (strcmp(key, "Remark") == 0) {
		/* already the remark[...] line */
	} else if (strcmp(key, "Reason") == 0) {
		sb_printf(b, "       = reason: %s\n", buf);
	} else {
		sb_printf(b, "       = note: %s = %s\n", key, buf);
	}
}

void remark_end(RemarkOut *o)
{
	if (o->yaml && !o->skip)
		sb_puts(o->b, "...\n");
}
