/* npy.c: NumPy .npy files, format versions 1-3, C order, little-endian or
 * byte-order-free dtypes: b1 i1 u1 i2 u2 f2 i4 u4 f4 i8 u8 f8 (bf16 arrays
 * travel as u2). Reading checks the header and the data size; writing
 * produces version 1.0 with the same dtype and shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npy.h"
#include "run.h"

static bool npy_fail(const char *path, const char *why)
{
	diag_plain("%s: not a usable .npy file: %s", path, why);
	return false;
}

bool npy_read(const char *path, Npy *out)
{
	memset(out, 0, sizeof *out);
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_plain("cannot open '%s'", path);
		return false;
	}
	uint8_t head[10];
	if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
		fclose(f);
		return npy_fail(path, "bad magic");
	}
	uint32_t hlen;
	int major = head[6];
	if (major == 1) {
		hlen = head[8] | (uint32_t)head[9] << 8;
	} else if (major == 2 || major == 3) {
		uint8_t b[2];
		if (fread(b, 1, 2, f) != 2) {
			fclose(f);
			return npy_fail(path, "truncated header");
		}
		hlen = head[8] | (uint32_t)head[9] << 8 | (uint32_t)b[0] << 16 | (uint32_t)b[1] << 24;
	} else {
		fclose(f);
		return npy_fail(path, "unknown format version");
	}
	if (hlen > 1 << 20) {
		fclose(f);
		return npy_fail(path, "header too large");
	}
	char *h = calloc(hlen + 1, 1);
	if (!h || fread(h, 1, hlen, f) != hlen) {
		free(h);
		fclose(f);
		return npy_fail(path, "truncated header");
	}
	/* {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } */
	char *d = strstr(h, "'descr'");
	char *fo = strstr(h, "'fortran_order'");
	char *sh = strstr(h, "'shape'");
	if (!d || !fo || !sh) {
		free(h);
		fclose(f);
		return npy_fail(path, "header lacks descr, fortran_order or shape");
	}
	char *q = strchr(d + 7, '\'');
	char *q2 = q ? strchr(q + 1, '\'') : NULL;
	if (!q || !q2 || q2 - q - 1 >= (int)sizeof out->descr) {
		free(h);
		fclose(f);
		return npy_fail(path, "bad descr");
	}
	memcpy(out->descr, q + 1, (size_t)(q2 - q - 1));
	if (strncmp(strchr(fo, ':') + 1 + strspn(strchr(fo, ':') + 1, " "), "False", 5) != 0) {
		free(h);
		fclose(f);
		return npy_fail(path, "Fortran order is not supported (use numpy.ascontiguousarray)");
	}
	const char *ds = out->descr;
	char order = ds[0];
	if (order == '>' && ds[2] != '1') {
		free(h);
		fclose(f);
		return npy_fail(path, "big-endian data is not supported");
	}
	if (order == '<' || order == '|' || order == '=' || order == '>')
		ds++;
	char kind = ds[0];
	int isz = atoi(ds + 1);
	if (!strchr("biuf", kind) || !(isz == 1 || isz == 2 || isz == 4 || isz == 8) || (kind == 'f' && isz == 1) ||
	    (kind == 'b' && isz != 1)) {
		free(h);
		fclose(f);
		return npy_fail(path, "unsupported dtype (bool, int8-64, uint8-64, float16/32/64)");
	}
	out->kind = kind;
	out->itemsize = (uint32_t)isz;
	char *p = strchr(sh, '(');
	if (!p) {
		free(h);
		fclose(f);
		return npy_fail(path, "bad shape");
	}
	p++;
	out->ndim = 0;
	uint64_t count = 1;
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		char *e;
		unsigned long long v = strtoull(p, &e, 10);
		if (e == p || out->ndim == 8) {
			free(h);
			fclose(f);
			return npy_fail(path, "bad shape");
		}
		out->shape[out->ndim++] = v;
		if (v && count > (1ull << 40) / v) {
			free(h);
			fclose(f);
			return npy_fail(path, "array too large");
		}
		count *= v;
		p = e;
	}
	free(h);
	out->count = count;
	out->bytes = count * out->itemsize;
	/* a shape larger than the file: refused before allocating for it (up to
	 * 2^40 elements; ASan's calloc of that takes tens of seconds) */
	long at = ftell(f);
	if (at >= 0 && fseek(f, 0, SEEK_END) == 0) {
		long end = ftell(f);
		if (end >= at && (uint64_t)(end - at) < out->bytes) {
			fclose(f);
			return npy_fail(path, "data shorter than the shape says");
		}
		if (fseek(f, at, SEEK_SET) != 0) {
			fclose(f);
			return npy_fail(path, "cannot seek");
		}
	}
	out->data = calloc(out->bytes ? out->bytes : 1, 1);
	if (!out->data) {
		fclose(f);
		return npy_fail(path, "out of memory");
	}
	if (out->bytes && fread(out->data, 1, out->bytes, f) != out->bytes) {
		fclose(f);
		return npy_fail(path, "data shorter than the shape says");
	}
	fclose(f);
	return true;
}

bool npy_write(const char *path, const Npy *a)
{
	char h[512];
	int n = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (", a->descr);
	for (int k = 0; k < a->ndim; k++)
		n += snprintf(h + n, sizeof h - (size_t)n, "%llu,%s", (unsigned long long)a->shape[k],
			      k + 1 < a->ndim ? " " : "");
	if (a->ndim > 1)
		n--;    /* "(3, 4)" not "(3, 4,)" */
	n += snprintf(h + n, sizeof h - (size_t)n, "), }");
	int total = 10 + n + 1;
	int pad = (64 - total % 64) % 64;
	FILE *f = fopen(path, "wb");
	if (!f) {
		diag_plain("cannot write '%s'", path);
		return false;
	}
	uint16_t hlen = (uint16_t)(n + pad + 1);
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc(hlen & 0xff, f);
	fputc(hlen >> 8, f);
	fwrite(h, 1, (size_t)n, f);
	for (int k = 0; k < pad; k++)
		fputc(' ', f);
	fputc('\n', f);
	fwrite(a->data, 1, a->bytes, f);
	if (fclose(f) != 0) {
		diag_plain("cannot write '%s'", path);
		return false;
	}
	return true;
}
