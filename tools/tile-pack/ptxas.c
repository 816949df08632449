/* ptxas.c: find the CUDA tools; what tile-pack's runs of them share (the
 * PTX's .target, command echo, file writing). The assembly itself: cubin.c;
 * temporary directories: tmpdir.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pack.h"
#include "diag.h"
#include "target.h"
#include "toolkit.h"
#include "xalloc.h"

bool path_next(const char **s, StrBuf *dir)
{
	if (!*s || !**s)
		return false;
	const char *e = strchr(*s, ':');
	size_t n = e ? (size_t)(e - *s) : strlen(*s);
	dir->len = 0;
	if (n == 0)
		sb_puts(dir, ".");
	else
		sb_putn(dir, *s, n);
	*s = e ? e + 1 : *s + n;
	return true;
}

static char *search_tool(const char *name, StrBuf *looked)
{
	const char *var;
	const char *root = toolkit_cuda_root(&var);
	StrBuf p = {0};
	sb_printf(&p, "%s/bin/%s", root, name);
	if (access(sb_cstr(&p), X_OK) == 0)
		return p.s;
	sb_printf(looked, "%s/bin (%s)", root, var ? var : "no CUDA_ROOT, CUDA_HOME or CUDA_PATH set");
	const char *path = toolkit_env(TK_PATH);
	while (path_next(&path, &p)) {
		sb_printf(&p, "/%s", name);
		struct stat st;
		if (access(sb_cstr(&p), X_OK) == 0 && stat(p.s, &st) == 0 && S_ISREG(st.st_mode))
			return p.s;
	}
	sb_puts(looked, " and PATH");
	sb_free(&p);
	return NULL;
}

char *pack_find_tool(const char *given, const char *name)
{
	if (given) {
		char *p = xstrdup(given);
		return p;
	}
	StrBuf looked = {0};
	char *tool = search_tool(name, &looked);
	if (!tool)
		diag_plain("%s not found (looked in %s): install the CUDA toolkit or set CUDA_HOME",
			   name, sb_cstr(&looked));
	sb_free(&looked);
	return tool;
}

/* The argument of the first line whose directive is `name` (".target"):
 * where it starts, *eol where its line ends; NULL when no line has it. */
static const char *directive_arg(const uint8_t *ptx, size_t len, const char *name, const char **eolp)
{
	const char *s = (const char *)ptx, *end = s + len;
	size_t nl = strlen(name);
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		if (!eol)
			eol = end;
		const char *p = s;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(eol - p) > nl + 1 && memcmp(p, name, nl) == 0 && (p[nl] == ' ' || p[nl] == '\t')) {
			p += nl;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			*eolp = eol;
			return p;
		}
		s = eol + 1;
	}
	return NULL;
}

void ptx_target(const uint8_t *ptx, size_t len, char *buf, size_t n)
{
	const char *eol, *p = directive_arg(ptx, len, ".target", &eol);
	size_t k = 0;
	while (p && p < eol && k + 1 < n && (p[0] == '_' || (p[0] >= 'a' && p[0] <= 'z') || (p[0] >= '0' && p[0] <= '9')))
		buf[k++] = *p++;
	buf[k] = 0;
}

int ptx_isa(const uint8_t *ptx, size_t len)
{
	const char *eol, *p = directive_arg(ptx, len, ".version", &eol);
	char v[16];
	unsigned major, minor;
	if (!p || (size_t)(eol - p) >= sizeof v)
		return 0;
	memcpy(v, p, (size_t)(eol - p));
	v[eol - p] = 0;
	return sscanf(v, "%u.%u", &major, &minor) == 2 && major < 100 && minor < 10 ? (int)(major * 10 + minor) : 0;
}

void print_command(const char *const argv[])
{
	fputs("+", stderr);
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		bool plain = *a != 0;
		for (const char *p = a; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%", *p))
				plain = false;
		fputc(' ', stderr);
		if (plain) {
			fputs(a, stderr);
			continue;
		}
		fputc('\'', stderr);
		for (const char *p = a; *p; p++)
			if (*p == '\'')
				fputs("'\\''", stderr);
			else
				fputc(*p, stderr);
		fputc('\'', stderr);
	}
	fputc('\n', stderr);
}

int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f) != 0) {
		diag_plain("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

