/* truncate_test.c: every truncation of real bytecode is rejected cleanly,
 * in one process (tests/read.bats runs it; it replaced ~8,000 launches of
 * tile-read).
 *
 * usage: read-truncate [--stride N] FILE...
 * For each FILE: the whole file must decode. Then every proper prefix
 * (lengths 0, N, 2N, ... below the size; N = 1 by default, so every prefix) is
 * decoded by tile_read_bytecode() from a buffer of exactly that length (so
 * ASan sees any read past the end), and must give NULL with exactly one
 * diagnostic line "read-truncate: FILE: offset 0x...: error: MSG".
 * Prints one line per failure (at most 20), then "N files, M prefixes: all
 * rejected cleanly" and exit 0; or exit 1. Exit 2 on usage or I/O errors. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tile_read.h"
#include "diag.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* stderr goes to a scratch file; each decode's diagnostics are what was
 * appended to it since err_mark() */
static off_t err_mark(void)
{
	fflush(stderr);
	off_t at = lseek(STDERR_FILENO, 0, SEEK_CUR);
	if (at < 0) {
		perror("read-truncate: scratch stderr");
		exit(2);
	}
	return at;
}

static size_t err_take(off_t from, char *buf, size_t cap)
{
	fflush(stderr);
	ssize_t n = pread(STDERR_FILENO, buf, cap - 1, from);
	if (n < 0)
		n = 0;
	buf[n] = 0;
	return (size_t)n;
}

static int failures;

static void failure(int saved_err, const char *file, size_t n, const char *what, const char *msg)
{
	failures++;
	if (failures > 20)
		return;
	int mlen = msg ? (int)strcspn(msg, "\n") : 0;
	dprintf(saved_err, "%s: length %zu: %s%s%.*s\n", file, n, what, msg ? ": " : "", mlen, msg ? msg : "");
}

/* one diagnostic line, naming the offset, as diag_error_at_offset writes it */
static const char *bad_message(const char *msg, size_t len, const char *file)
{
	static char prefix[4096];
	snprintf(prefix, sizeof prefix, "read-truncate: %s: offset 0x", file);
	if (len == 0)
		return "no diagnostic";
	if (msg[len - 1] != '\n' || memchr(msg, '\n', len - 1))
		return "not exactly one line";
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, ": error: "))
		return "not \"FILE: offset 0x...: error: MSG\"";
	return NULL;
}

int main(int argc, char **argv)
{
	size_t stride = 1;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "--stride") == 0) {
		stride = strtoul(argv[2], NULL, 10);
		first = 3;
	}
	if (first >= argc || stride == 0) {
		fprintf(stderr, "usage: read-truncate [--stride N] FILE...\n");
		return 2;
	}
	int saved_err = dup(STDERR_FILENO);
	FILE *errf = tmpfile();
	if (saved_err < 0 || !errf || dup2(fileno(errf), STDERR_FILENO) < 0) {
		perror("read-truncate: scratch stderr");
		return 2;
	}
	diag_tool = "read-truncate";
	static char msg[65536];
	size_t prefixes = 0;
	for (int i = first; i < argc; i++) {
		size_t size;
		char *data = slurp(argv[i], &size);
		if (!data) {
			dprintf(saved_err, "read-truncate: cannot read %s\n", argv[i]);
			return 2;
		}
		diag_input = argv[i];
		off_t at = err_mark();
		Module *whole = tile_read_bytecode((const uint8_t *)data, size);
		if (!whole) {
			err_take(at, msg, sizeof msg);
			failure(saved_err, argv[i], size, "the whole file is rejected", msg);
		}
		module_free(whole);
		for (size_t n = 0; n < size; n += stride) {
			uint8_t *p = malloc(n ? n : 1);
			if (!p) {
				dprintf(saved_err, "read-truncate: out of memory\n");
				return 2;
			}
			memcpy(p, data, n);
			at = err_mark();
			Module *m = tile_read_bytecode(p, n);
			size_t len = err_take(at, msg, sizeof msg);
			const char *bad = m ? "accepted" : bad_message(msg, len, argv[i]);
			if (bad)
				failure(saved_err, argv[i], n, bad, len ? msg : NULL);
			module_free(m);
			free(p);
			prefixes++;
		}
		free(data);
	}
	if (failures) {
		dprintf(saved_err, "%d of %zu prefixes not rejected cleanly\n", failures, prefixes);
		return 1;
	}
	dprintf(STDOUT_FILENO, "%d files, %zu prefixes: all rejected cleanly\n", argc - first, prefixes);
	return 0;
}
