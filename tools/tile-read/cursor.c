/* cursor.c: bounded little-endian reads over the input, and the one error sink.
 * Every read checks its bytes against the cursor's end; a failed read reports
 * once, leaves the cursor where it was, and returns 0. */
#include <stdarg.h>
#include <stdio.h>
#include "reader.h"
#include "diag.h"

bool rd_fail(Reader *rd, size_t offset, const char *fmt, ...)
{
	if (rd->failed)
		return false;
	rd->failed = true;
	va_list ap;
	va_start(ap, fmt);
	diag_verror_at_offset(offset, fmt, ap);
	va_end(ap);
	return false;
}

Cur cur_span(Reader *rd, size_t start, size_t len)
{
	Cur c = { rd, start, start + len, start };
	return c;
}

size_t cur_left(const Cur *c)
{
	return c->pos < c->end ? c->end - c->pos : 0;
}

uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static bool need(Cur *c, size_t n, const char *what)
{
	if (c->rd->failed)
		return false;
	if (cur_left(c) < n)
		return rd_fail(c->rd, c->pos, "unexpected end of %s (need %zu byte%s, %zu left)",
			       what, n, n == 1 ? "" : "s", cur_left(c));
	return true;
}

uint8_t cur_u8(Cur *c)
{
	if (!need(c, 1, "data"))
		return 0;
	return c->rd->buf[c->pos++];
}

/* N (4 or 8) little-endian bytes */
static uint64_t cur_le(Cur *c, size_t n)
{
	if (!need(c, n, "data"))
		return 0;
	uint64_t v = n == 4 ? le32(c->rd->buf + c->pos) : le64(c->rd->buf + c->pos);
	c->pos += n;
	return v;
}

uint32_t cur_u32(Cur *c) { return (uint32_t)cur_le(c, 4); }

uint64_t cur_u64(Cur *c) { return cur_le(c, 8); }

/* Unsigned LEB128 of up to 10 bytes. Over-long encodings are accepted (the
 * reference reader does); bits beyond 64 are not: *bit64 receives bit 64 when
 * the caller can use it, else it is an error. */
static bool varint(Cur *c, uint64_t *out, unsigned *bit64)
{
	size_t start = c->pos;
	/* fast path: a short varint with room to spare */
	if (!c->rd->failed && cur_left(c) >= 3) {
		const uint8_t *p = c->rd->buf + start;
		if (p[0] < 0x80) {
			c->pos += 1;
			*out = p[0];
			return true;
		}
		if (p[1] < 0x80) {
			c->pos += 2;
			*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			return true;
		}
	}
	uint64_t v = 0;
	*out = 0;
	for (unsigned i = 0;; i++) {
		if (!need(c, 1, "varint"))
			return false;
		uint8_t b = c->rd->buf[c->pos++];
		if (i == 9) {
			if (b > (bit64 ? 3 : 1)) {
				c->pos = start;
				return rd_fail(c->rd, start, "varint does not fit in 64 bits");
			}
			v |= (uint64_t)(b & 1) << 63;
			if (bit64)
				*bit64 = b >> 1 & 1;
			break;
		}
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*out = v;
	return true;
}

uint64_t cur_varint(Cur *c)
{
	uint64_t v;
	return varint(c, &v, NULL) ? v : 0;
}

bool cur_varint65(Cur *c, uint64_t *lo, unsigned *bit64)
{
	*bit64 = 0;
	return varint(c, lo, bit64);
}

bool cur_nested_varint(Cur *c, int depth, int max, const char *what, uint64_t *v)
{
	if (depth > max)
		return rd_fail(c->rd, c->pos, "%s nested more than %d deep", what, max);
	*v = cur_varint(c);
	return !c->rd->failed;
}

int64_t cur_svarint(Cur *c)
{
	uint64_t u = cur_varint(c);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* A count of items that each take at least min_item_bytes: bounded by what is
 * left, so no count can make us allocate more than the input justifies. */
uint32_t cur_count(Cur *c, size_t min_item_bytes, const char *what)
{
	size_t at = c->pos;
	uint64_t n = cur_varint(c);
	if (c->rd->failed)
		return 0;
	size_t cap = min_item_bytes ? cur_left(c) / min_item_bytes : UINT32_MAX;
	if (n > cap || n > UINT32_MAX - 1) {
		rd_fail(c->rd, at, "%s count %llu exceeds the %zu byte%s left", what,
			(unsigned long long)n, cur_left(c), cur_left(c) == 1 ? "" : "s");
		return 0;
	}
	return (uint32_t)n;
}

/* Skip padding up to the next multiple of `align` counted from c->origin. */
bool cur_pad(Cur *c, unsigned align)
{
	size_t n = (align - (c->pos - c->origin) % align) % align;
	if (!need(c, n, "alignment padding"))
		return false;
	c->pos += n;
	return true;
}

bool cur_skip(Cur *c, size_t n)
{
	if (!need(c, n, "data"))
		return false;
	c->pos += n;
	return true;
}

/* The span must be fully consumed. */
bool cur_done(Cur *c, const char *what)
{
	if (c->rd->failed)
		return false;
	if (c->pos != c->end)
		return rd_fail(c->rd, c->pos, "%zu unexpected trailing byte%s in %s",
			       c->end - c->pos, c->end - c->pos == 1 ? "" : "s", what);
	return true;
}
