/* tileir.c: make PTX a TILEIR-language module, as NVIDIA's tileiras writes it.
 *
 * Accepts: PTX text. Guarantees: the same PTX with `.language 7` as the last
 * directive of every `.entry` header (after .reqntid/.minnctapersm, right
 * before the body's '{' on its line, so ptxas's line numbers still match the
 * input; entries that have one keep theirs), NVIDIA's 64-byte launch
 * metadata global `___NV_TILE_LAUNCH_META_DATA___` defined at the end (unless
 * the PTX has it), and `.version`
 * raised to 9.2 when lower (ptxas: "Feature '.language' requires PTX ISA
 * .version 9.2 or later"; raising the version changes no code, docs/abi.md
 * §5). With `.language 7`, ptxas 13.2+ records EIATTR_LANGUAGE = TILEIR in
 * the cubin, which is what makes the driver treat the kernel as a tile kernel
 * (docs/abi.md §5). Nothing else changes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include "pack.h"

#define LAUNCH_META "___NV_TILE_LAUNCH_META_DATA___"
#define TILEIR_MIN_PTX_MAJOR 9
#define TILEIR_MIN_PTX_MINOR 2

/* Length of a comment starting at p ("//..." to the end of the line,
 * "/ *...* /"), 0 if p starts none. */
static size_t comment_len(const char *p, const char *end)
{
	if (end - p < 2 || p[0] != '/')
		return 0;
	if (p[1] == '/') {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		return e ? (size_t)(e - p) : (size_t)(end - p);
	}
	if (p[1] == '*') {
		for (const char *q = p + 2; q + 1 < end; q++)
			if (q[0] == '*' && q[1] == '/')
				return (size_t)(q + 2 - p);
		return (size_t)(end - p);
	}
	return 0;
}

static bool is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.';
}

/* Does the directive `word` (".entry") start at p, as a whole word? */
static bool word_at(const char *s, const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - p) < n || memcmp(p, word, n) != 0)
		return false;
	if (p > s && is_word_char(p[-1]))
		return false;
	return p + n == end || !is_word_char(p[n]);
}

int ptx_to_tileir(const uint8_t *ptx, size_t len, StrBuf *out)
{
	const char *s = (const char *)ptx, *end = s + len, *copied = s;
	int entries = 0;
	bool version_done = false;
	for (const char *p = s; p < end;) {
		size_t c = comment_len(p, end);
		if (c) {
			p += c;
			continue;
		}
		if (*p == '"') {   /* strings hold no directives */
			for (p++; p < end && *p != '"' && *p != '\n'; p++)
				if (*p == '\\' && p + 1 < end)
					p++;
			p++;
			continue;
		}
		if (!version_done && word_at(s, p, end, ".version")) {
			version_done = true;
			const char *v = p + 8;
			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			int major = 0, minor = 0, used = 0;
			if (sscanf(v, "%d.%d%n", &major, &minor, &used) == 2 &&
			    (major < TILEIR_MIN_PTX_MAJOR ||
			     (major == TILEIR_MIN_PTX_MAJOR && minor < TILEIR_MIN_PTX_MINOR))) {
				sb_putn(out, copied, (size_t)(v - copied));
				sb_printf(out, "%d.%d", TILEIR_MIN_PTX_MAJOR, TILEIR_MIN_PTX_MINOR);
				copied = p = v + used;
				continue;
			}
			p = v;
			continue;
		}
		if (!word_at(s, p, end, ".entry")) {
			p++;
			continue;
		}
		/* the header runs to the body's '{' (or ';' for a declaration) */
		const char *q = p + 6;
		bool has_language = false;
		while (q < end && *q != '{' && *q != ';') {
			size_t k = comment_len(q, end);
			if (k) {
				q += k;
				continue;
			}
			if (word_at(s, q, end, ".language"))
				has_language = true;
			q++;
		}
		if (q < end && *q == '{' && !has_language) {
			sb_putn(out, copied, (size_t)(q - copied));
			sb_puts(out, ".language 7 ");
			copied = q;
			entries++;
		}
		p = q < end ? q + 1 : end;
	}
	sb_putn(out, copied, (size_t)(end - copied));
	/* NVIDIA's modules all define it (docs/abi.md §3); no kernel reads it.
	 * At the end, so the lines above keep their numbers. */
	if (!memmem(ptx, len, LAUNCH_META, strlen(LAUNCH_META))) {
		if (out->len && out->s[out->len - 1] != '\n')
			sb_putc(out, '\n');
		sb_printf(out, "\n.visible .global .align 8 .b8 %s[64];\n", LAUNCH_META);
	}
	return entries;
}

int ptx_entry_names(const uint8_t *ptx, size_t len, StrBuf *names)
{
	const char *s = (const char *)ptx, *end = s + len;
	int n = 0;
	for (const char *p = s; p < end;) {
		size_t c = comment_len(p, end);
		if (c) {
			p += c;
			continue;
		}
		if (!word_at(s, p, end, ".entry")) {
			p++;
			continue;
		}
		p += 6;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		const char *name = p;
		while (p < end && is_word_char(*p))
			p++;
		if (p > name) {
			sb_putn(names, name, (size_t)(p - name));
			sb_putc(names, 0);
			n++;
		}
	}
	return n;
}
