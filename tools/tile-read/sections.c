/* sections.c: the container. Header (magic, version), the section headers,
 * the offset-indexed tables inside sections, and the string table.
 * requires: nothing; establishes rd->version, rd->sec[], rd->strings. */
#include <stdio.h>
#include <string.h>
#include "reader.h"
#include "tile_read.h"

static const uint8_t magic[8] = { 0x7f, 'T', 'i', 'l', 'e', 'I', 'R', 0 };

static const char *const sec_names[SEC_COUNT] = {
	"end", "string", "function", "debug", "constant", "type", "global", "producer",
};

/* Alignment the reference reader requires of a section (0: none required). */
static const unsigned sec_align[SEC_COUNT] = { 0, 4, 8, 8, 8, 4, 0, 0 };

static bool read_header(Reader *rd, Cur *c)
{
	for (size_t i = 0; i < sizeof magic; i++) {
		if (rd->len == 0)
			return rd_fail(rd, 0, "the file is empty (a Tile IR bytecode file starts with 7f 'TileIR' 00)");
		if (i >= rd->len)
			return rd_fail(rd, i, "unexpected end of file in the magic number "
				       "(a Tile IR bytecode file starts with 7f 'TileIR' 00)");
		if (rd->buf[i] != magic[i])
			return rd_fail(rd, i, "invalid magic number: byte %zu is 0x%02x, expected 0x%02x "
				       "(not a Tile IR bytecode file)", i, rd->buf[i], magic[i]);
	}
	c->pos = sizeof magic;
	if (cur_left(c) < 4)
		return rd_fail(rd, c->pos, "unexpected end of file in the version (need 4 bytes, %zu left)",
			       cur_left(c));
	unsigned major = rd->buf[8], minor = rd->buf[9];
	unsigned tag = (unsigned)rd->buf[10] | (unsigned)rd->buf[11] << 8;
	if (minor >= 100 || !bytecode_version_known((int)(major * 100 + minor)))
		return rd_fail(rd, 8, "unsupported Tile version %u.%u.%u; "
			       "this reader supports bytecode versions %s", major, minor, tag,
			       bytecode_version_list());
	rd->version = (int)(major * 100 + minor);
	c->pos += 4;
	return true;
}

/* Scan every section header; payloads are decoded later, in dependency order. */
bool sections_scan(Reader *rd)
{
	Cur c = cur_span(rd, 0, rd->len);
	if (!read_header(rd, &c))
		return false;
	for (;;) {
		size_t at = c.pos;
		if (cur_left(&c) == 0)
			return rd_fail(rd, at, "unexpected end of file: missing the end-of-bytecode marker");
		uint8_t idb = cur_u8(&c);
		unsigned id = idb & 0x7f;
		bool aligned = idb & 0x80;
		if (id == SEC_END) {
			if (aligned)
				return rd_fail(rd, at, "end-of-bytecode marker has the alignment flag set");
			if (cur_left(&c))
				return rd_fail(rd, c.pos, "end-of-bytecode marker is not the last section "
					       "(%zu more byte%s)",
					       cur_left(&c), cur_left(&c) == 1 ? "" : "s");
			break;
		}
		if (id >= SEC_COUNT)
			return rd_fail(rd, at, "unknown section ID: %u", id);
		if (rd->sec[id].present)
			return rd_fail(rd, at, "duplicate %s section", sec_names[id]);
		if (id == SEC_PRODUCER && rd->version < 1303)
			return rd_fail(rd, at, "producer section requires bytecode version 13.3+, "
				       "file version is %s", bytecode_version_name(rd->version));
		size_t len_at = c.pos;
		uint64_t len = cur_varint(&c);
		uint64_t align = 1;
		if (aligned) {
			size_t align_at = c.pos;
			align = cur_varint(&c);
			if (rd->failed)
				return false;
			if (align == 0 || (align & (align - 1)) || align > 65536)
				return rd_fail(rd, align_at, "%s section alignment %llu is not a power of two "
					       "in [1, 65536]", sec_names[id], (unsigned long long)align);
			c.origin = 0;
			if (!cur_pad(&c, (unsigned)align))
				return false;
		}
		if (rd->failed)
			return false;
		if (sec_align[id] && (!aligned || align % sec_align[id]))
			return rd_fail(rd, at, "%s section must have an alignment that is a multiple "
				       "of %u bytes", sec_names[id], sec_align[id]);
		if (len > cur_left(&c))
			return rd_fail(rd, len_at, "%s section length %llu runs past the end of the file "
				       "(%zu bytes left)", sec_names[id], (unsigned long long)len,
				       cur_left(&c));
		rd->sec[id] = (Span){ c.pos, (size_t)len, true };
		c.pos += (size_t)len;
	}
	if (!rd->sec[SEC_STRING].present)
		return rd_fail(rd, rd->len - 1, "missing string section (it is mandatory)");
	if (!rd->sec[SEC_FUNC].present)
		return rd_fail(rd, rd->len - 1, "missing function section (it is mandatory)");
	return true;
}

/* count, padding, start[count] of `width` bytes, then the entries' data up to
 * the end of c. Writers pad after the count even when it is zero (cuTile
 * does), so the padding is skipped whenever bytes remain. */
bool table_parse(Cur *c, unsigned width, Table *t, const char *what, bool check)
{
	Reader *rd = c->rd;
	memset(t, 0, sizeof *t);
	t->width = width;
	uint32_t n = cur_count(c, width, what);
	if (rd->failed)
		return false;
	if (cur_left(c) && !cur_pad(c, width))
		return false;
	if (n == 0)
		return cur_done(c, what);
	if (cur_left(c) / width < n)
		return rd_fail(rd, c->pos, "%s of %u entries runs past the end of its section",
			       what, n);
	t->n = n;
	t->index = c->pos;
	t->data = c->pos + (size_t)n * width;
	t->data_end = c->end;
	c->pos = c->end;
	if (!check)
		return true;
	uint64_t prev = 0, size = t->data_end - t->data;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = rd->buf + t->index + (size_t)i * width;
		uint64_t s = width == 4 ? le32(p) : le64(p);
		if (s < prev || s > size)
			return rd_fail(rd, t->index + (size_t)i * width,
				       "%s entry %u starts at %llu, outside [%llu, %llu]", what, i,
				       (unsigned long long)s, (unsigned long long)prev,
				       (unsigned long long)size);
		prev = s;
	}
	return true;
}

bool table_read(Reader *rd, int sec, unsigned width, Table *t, const char *what, bool check)
{
	memset(t, 0, sizeof *t);
	t->width = width;
	if (!rd->sec[sec].present)
		return true;
	Cur c = cur_span(rd, rd->sec[sec].start, rd->sec[sec].len);
	return table_parse(&c, width, t, what, check);
}

Cur table_entry(Reader *rd, const Table *t, uint32_t i)
{
	const uint8_t *p = rd->buf + t->index + (size_t)i * t->width;
	uint64_t s = t->width == 4 ? le32(p) : le64(p);
	uint64_t e = t->data_end - t->data;
	if (i + 1 < t->n) {
		p += t->width;
		e = t->width == 4 ? le32(p) : le64(p);
	}
	return cur_span(rd, t->data + (size_t)s, (size_t)(e - s));
}

/* RFC 3629 UTF-8 (no overlong forms, no surrogates, at most U+10FFFF), no NUL:
 * what a JSON string can carry. */
static size_t bad_utf8(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t b = s[i];
		if (b == 0)
			return i + 1;
		if (b < 0x80) {
			i++;
			continue;
		}
		size_t len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
		if (!len || b > 0xf4 || i + len > n)
			return i + 1;
		uint32_t cp = b & (0x3f >> (len - 1));
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i + 1;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return i + 1;
		i += len;
	}
	return 0;
}

const char *string_get(Reader *rd, uint64_t idx, size_t at)
{
	if (rd->failed)
		return NULL;
	if (idx >= rd->strings.n) {
		rd_fail(rd, at, "string index %llu out of range (%u strings)",
			(unsigned long long)idx, rd->strings.n);
		return NULL;
	}
	if (rd->str_cache[idx])
		return rd->str_cache[idx];
	/* string offsets are checked on use, as the reference reader does */
	const Table *t = &rd->strings;
	size_t ip = t->index + (size_t)idx * 4;
	uint64_t b = le32(rd->buf + ip), e = t->data_end - t->data;
	if (idx + 1 < t->n)
		e = le32(rd->buf + ip + 4);
	if (b > e || e > t->data_end - t->data) {
		rd_fail(rd, ip, "string %llu spans [%llu, %llu), outside the %zu bytes of string data",
			(unsigned long long)idx, (unsigned long long)b, (unsigned long long)e,
			t->data_end - t->data);
		return NULL;
	}
	const uint8_t *s = rd->buf + t->data + b;
	size_t n = (size_t)(e - b);
	size_t bad = bad_utf8(s, n);
	if (bad) {
		rd_fail(rd, (size_t)(s - rd->buf) + bad - 1, "string %llu %s", (unsigned long long)idx,
			s[bad - 1] ? "is not valid UTF-8" : "contains a NUL byte");
		return NULL;
	}
	return rd->str_cache[idx] = arena_strndup(rd->m->arena, (const char *)s, n);
}
