/* bc_out.c: byte-buffer encodings and the interning table (bc_out.h). */
#include <stdlib.h>
#include <string.h>
#include "bc_out.h"
#include "xalloc.h"

void bo_u8(StrBuf *b, unsigned v)
{
	sb_putc(b, (char)(v & 0xff));
}

void bo_u32(StrBuf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		bo_u8(b, v >> (8 * i));
}

void bo_u64(StrBuf *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		bo_u8(b, (unsigned)(v >> (8 * i)));
}

void bo_varint(StrBuf *b, uint64_t v)
{
	do {
		unsigned byte = v & 0x7f;
		v >>= 7;
		bo_u8(b, byte | (v ? 0x80 : 0));
	} while (v);
}

void bo_svarint(StrBuf *b, int64_t v)
{
	bo_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void bo_zigzag_bits(StrBuf *b, uint64_t bits)
{
	/* the 65-bit number bits * 2 */
	uint64_t lo = bits << 1;
	unsigned hi = (unsigned)(bits >> 63);
	do {
		unsigned byte = lo & 0x7f;
		lo = lo >> 7 | (uint64_t)hi << 57;
		hi = 0;
		bo_u8(b, byte | (lo ? 0x80 : 0));
	} while (lo);
}

void bo_pad(StrBuf *b, size_t origin, unsigned align)
{
	while ((b->len - origin) % align)
		bo_u8(b, 0xcb);
}

void bo_bytes(StrBuf *b, const void *p, size_t n)
{
	sb_putn(b, (const char *)p, n);
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t h = UINT64_C(1469598103934665603);
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * UINT64_C(1099511628211);
	return h;
}

static void grow(Intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	InternSlot *s = xcalloc(cap, sizeof *s);
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i].key)
			continue;
		size_t j = t->slot[i].hash & (cap - 1);
		while (s[j].key)
			j = (j + 1) & (cap - 1);
		s[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	t->keys = xrealloc(t->keys, sizeof *t->keys * cap);
	t->lens = xrealloc(t->lens, sizeof *t->lens * cap);
}

uint32_t intern_put(Intern *t, const void *key, size_t len, bool *added)
{
	static const char empty[1];
	if (!key)
		key = empty;
	if (2 * ((size_t)t->n + 1) > t->cap)
		grow(t);
	uint64_t h = hash_bytes(key, len);
	size_t j = h & (t->cap - 1);
	for (; t->slot[j].key; j = (j + 1) & (t->cap - 1))
		if (t->slot[j].hash == h && t->slot[j].len == len && memcmp(t->slot[j].key, key, len) == 0) {
			if (added)
				*added = false;
			return t->slot[j].id;
		}
	t->slot[j].key = key;
	t->slot[j].len = len;
	t->slot[j].hash = h;
	t->slot[j].id = t->n;
	t->keys[t->n] = key;
	t->lens[t->n] = len;
	if (added)
		*added = true;
	return t->n++;
}

int64_t intern_find(const Intern *t, const void *key, size_t len)
{
	if (!t->cap)
		return -1;
	uint64_t h = hash_bytes(key ? key : "", len);
	for (size_t j = h & (t->cap - 1); t->slot[j].key; j = (j + 1) & (t->cap - 1))
		if (t->slot[j].hash == h && t->slot[j].len == len && memcmp(t->slot[j].key, key, len) == 0)
			return t->slot[j].id;
	return -1;
}

void intern_free(Intern *t)
{
	free(t->slot);
	free(t->keys);
	free(t->lens);
	*t = (Intern){ 0 };
}
