/* bc_out.h: what the bytecode writer (write*.c) builds bytes with: a
 * growable byte buffer with the container's primitive encodings
 * (docs/bytecode.md §1: LEB128 varints, zig-zag, fixed-width little-endian,
 * 0xCB alignment padding) and an interning table that numbers distinct keys
 * (strings, types, constant blobs) in first-use order.
 * Never fails: out of memory is ice() (xalloc.h). */
#ifndef TILE_READ_BC_OUT_H
#define TILE_READ_BC_OUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

void bo_u8(StrBuf *b, unsigned v);
void bo_u32(StrBuf *b, uint32_t v);
void bo_u64(StrBuf *b, uint64_t v);
void bo_varint(StrBuf *b, uint64_t v);
/* zig-zag of a signed value */
void bo_svarint(StrBuf *b, int64_t v);
/* zig-zag of a bit pattern taken as unsigned (65 bits: cuTile's float
 * attributes; attrs.c's reader takes both forms) */
void bo_zigzag_bits(StrBuf *b, uint64_t bits);
/* 0xCB bytes until (b->len - origin) is a multiple of align */
void bo_pad(StrBuf *b, size_t origin, unsigned align);
void bo_bytes(StrBuf *b, const void *p, size_t n);

/* Distinct byte strings numbered 0, 1, ... in first-insertion order. */
typedef struct InternSlot { const void *key; size_t len; uint64_t hash; uint32_t id; } InternSlot;
typedef struct Intern {
	InternSlot *slot;
	size_t cap;
	uint32_t n;
	const void **keys;          /* keys[id], as inserted (not copied) */
	size_t *lens;
} Intern;

/* The number of key[0..len); *added says whether it is new. The key is not
 * copied: it must outlive the table. */
uint32_t intern_put(Intern *t, const void *key, size_t len, bool *added);
/* The number of key, or -1 when it is not in t. */
int64_t intern_find(const Intern *t, const void *key, size_t len);
void intern_free(Intern *t);

#endif
