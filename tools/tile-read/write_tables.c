/* write_tables.c: the bytecode writer's tables (writer.h): strings, types
 * and dense constants, each numbered in first-use order without duplicates
 * (a type's parts before it), their section payloads, and tagged attributes.
 * The inverse of sections.c, types.c and attrs.c (docs/bytecode.md §3.1-3.3,
 * §4.5). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "writer.h"
#include "diag.h"
#include "xalloc.h"

bool wr_fail(Writer *w, const char *fmt, ...)
{
	if (w->failed)
		return false;
	va_list ap;
	va_start(ap, fmt);
	diag_verror(NULL, "error", fmt, ap);
	va_end(ap);
	w->failed = true;
	return false;
}

bool wr_need(Writer *w, int since, const char *fmt, ...)
{
	if (since <= w->version || w->failed)
		return !w->failed;
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return wr_fail(w, "%s needs bytecode version %s or newer; cannot write version %s", what,
		       bytecode_version_name(since), bytecode_version_name(w->version));
}

uint32_t wr_string(Writer *w, const char *s)
{
	return intern_put(&w->strs, s, strlen(s), NULL);
}

/* ------------------------------------------------------------ types */

/* scalar kind -> type tag and first version (types.c's table, inverted) */
static const struct { int tag, since; } scalar_tags[SC_COUNT] = {
	[SC_I1] = { 0, 1301 }, [SC_I8] = { 1, 1301 }, [SC_I16] = { 2, 1301 },
	[SC_I32] = { 3, 1301 }, [SC_I64] = { 4, 1301 }, [SC_F16] = { 5, 1301 },
	[SC_BF16] = { 6, 1301 }, [SC_F32] = { 7, 1301 }, [SC_TF32] = { 8, 1301 },
	[SC_F64] = { 9, 1301 }, [SC_F8E4M3FN] = { 10, 1301 }, [SC_F8E5M2] = { 11, 1301 },
	[SC_F8E8M0FNU] = { 18, 1302 }, [SC_F4E2M1FN] = { 19, 1303 }, [SC_I4] = { 22, 1303 },
	[SC_F8E5M3FNU] = { 130, 1304 },
};

static void dims(StrBuf *b, int n, const int64_t *v, unsigned width)
{
	bo_varint(b, (uint64_t)n);
	for (int i = 0; i < n; i++) {
		if (width == 4)
			bo_u32(b, (uint32_t)(int32_t)v[i]);
		else
			bo_u64(b, (uint64_t)v[i]);
	}
}

static void ptr_attr(Writer *w, StrBuf *b, const Type *t, bool flags_first)
{
	if (t->ptr_attr != PTR_ATTR_NONE)
		wr_need(w, 1305, "type '%s' (a pointer attribute)", t->str);
	if (flags_first)
		bo_varint(b, t->ptr_attr != PTR_ATTR_NONE);
	else if (t->ptr_attr != PTR_ATTR_NONE)
		bo_varint(b, (uint64_t)t->ptr_attr);
}

static void view(Writer *w, StrBuf *b, const Type *t, uint32_t tv)
{
	bool unified = t->kind != TY_PARTITION_VIEW || w->version >= 1303;
	bool pad = t->padding != PAD_NONE;
	if (t->kind != TY_PARTITION_VIEW)
		wr_need(w, 1303, "type '%s'", t->str);
	bo_varint(b, t->kind == TY_PARTITION_VIEW ? 15 : t->kind == TY_STRIDED_VIEW ? 21 : 20);
	if (unified)
		bo_varint(b, pad);
	dims(b, t->rank, t->shape, 4);
	if (t->kind == TY_STRIDED_VIEW)
		dims(b, t->rank, t->strides, 4);
	bo_varint(b, tv);
	if (t->kind == TY_GATHER_SCATTER_VIEW)
		bo_varint(b, (uint64_t)t->sparse_dim);
	else if (t->dim_map)
		dims(b, t->rank, t->dim_map, 4);
	else {
		/* the identity, spelled out as cuTile writes it */
		int64_t id[64];
		for (int i = 0; i < t->rank && i < 64; i++)
			id[i] = i;
		dims(b, t->rank, id, 4);
	}
	if (!unified)
		bo_u8(b, pad);
	if (pad)
		bo_varint(b, (uint64_t)t->padding);
}

uint32_t wr_type(Writer *w, const Type *t)
{
	int64_t have = intern_find(&w->types, t->str, strlen(t->str));
	if (have >= 0)
		return (uint32_t)have;
	/* the parts first */
	uint32_t part = 0;
	uint32_t *io = NULL;
	switch (t->kind) {
	case TY_PTR: case TY_TILE: case TY_TENSOR_VIEW:
		part = wr_type(w, t->elem);
		break;
	case TY_PARTITION_VIEW: case TY_STRIDED_VIEW: case TY_GATHER_SCATTER_VIEW:
		part = wr_type(w, t->view);
		break;
	case TY_FUNC:
		io = xmalloc(sizeof *io * ((size_t)t->nin + (size_t)t->nout + 1));
		for (int i = 0; i < t->nin; i++)
			io[i] = wr_type(w, t->ins[i]);
		for (int i = 0; i < t->nout; i++)
			io[t->nin + i] = wr_type(w, t->outs[i]);
		break;
	default:
		break;
	}
	StrBuf e = { 0 };
	switch (t->kind) {
	case TY_SCALAR:
		wr_need(w, scalar_tags[t->scalar].since, "type '%s'", t->str);
		bo_varint(&e, (uint64_t)scalar_tags[t->scalar].tag);
		break;
	case TY_TOKEN:
		bo_varint(&e, 17);
		break;
	case TY_PTR:
		bo_varint(&e, 12);
		if (w->version >= 1304)
			ptr_attr(w, &e, t, true);
		bo_varint(&e, part);
		ptr_attr(w, &e, t, false);
		break;
	case TY_TILE:
		bo_varint(&e, 13);
		bo_varint(&e, part);
		dims(&e, t->rank, t->shape, 8);
		break;
	case TY_TENSOR_VIEW:
		bo_varint(&e, 14);
		if (w->version >= 1304)
			ptr_attr(w, &e, t, true);
		bo_varint(&e, part);
		dims(&e, t->rank, t->shape, 8);
		dims(&e, t->rank, t->strides, 8);
		ptr_attr(w, &e, t, false);
		break;
	case TY_PARTITION_VIEW: case TY_STRIDED_VIEW: case TY_GATHER_SCATTER_VIEW:
		view(w, &e, t, part);
		break;
	case TY_FUNC:
		bo_varint(&e, (uint64_t)t->nin);
		for (int i = 0; i < t->nin; i++)
			bo_varint(&e, io[i]);
		bo_varint(&e, (uint64_t)t->nout);
		for (int i = 0; i < t->nout; i++)
			bo_varint(&e, io[t->nin + i]);
		break;
	}
	if (t->kind == TY_FUNC) {
		/* the tag goes first */
		StrBuf f = { 0 };
		bo_varint(&f, 16);
		bo_bytes(&f, e.s, e.len);
		sb_free(&e);
		e = f;
	}
	free(io);
	uint32_t id = intern_put(&w->types, t->str, strlen(t->str), NULL);
	w->type_start = xrealloc(w->type_start, sizeof *w->type_start * ((size_t)id + 1));
	w->type_start[id] = (uint32_t)w->type_data.len;
	bo_bytes(&w->type_data, e.s, e.len);
	sb_free(&e);
	return id;
}

/* ------------------------------------------------------------ constants */

/* Element storage is ceil(bits/8) bytes; i1 goes bit-packed (LSB first) when
 * not a splat and as one 00/FF byte when a splat, as cuTile writes it. */
uint32_t wr_const(Writer *w, const Attr *a)
{
	StrBuf raw = { 0 };
	const Type *e = a->type->elem;
	if (e->kind == TY_SCALAR && e->scalar == SC_I1 && a->u.dense.n > 1 && !a->u.dense.splat) {
		size_t n = a->u.dense.n;
		for (size_t i = 0; i < n; i += 8) {
			unsigned byte = 0;
			for (size_t j = i; j < n && j < i + 8; j++)
				byte |= (a->u.dense.bytes[j] != 0) << (j - i);
			bo_u8(&raw, byte);
		}
	} else if (e->kind == TY_SCALAR && e->scalar == SC_I1 && a->u.dense.splat) {
		bo_u8(&raw, a->u.dense.bytes[0] ? 0xff : 0);
	} else {
		bo_bytes(&raw, a->u.dense.bytes, a->u.dense.n);
	}
	StrBuf blob = { 0 };
	bo_varint(&blob, raw.len);
	bo_bytes(&blob, raw.s, raw.len);
	sb_free(&raw);
	bool added;
	uint32_t id = intern_put(&w->consts, blob.s, blob.len, &added);
	if (!added)
		sb_free(&blob);
	return id;
}

/* ------------------------------------------------------------ attributes */

enum {
	ATAG_INTEGER = 1, ATAG_FLOAT, ATAG_BOOL, ATAG_TYPE, ATAG_STRING, ATAG_ARRAY,
	ATAG_DENSE, ATAG_DIV_BY, ATAG_SAME_ELEMENTS, ATAG_DICT, ATAG_HINTS, ATAG_BOUNDED,
};

void wr_dict_body(Writer *w, StrBuf *b, const Attr *d)
{
	bo_varint(b, (uint64_t)d->u.dict.n);
	for (int i = 0; i < d->u.dict.n; i++) {
		bo_varint(b, wr_string(w, d->u.dict.v[i].name));
		wr_tagged(w, b, d->u.dict.v[i].attr, false);
	}
}

void wr_tagged(Writer *w, StrBuf *b, const Attr *a, bool hints)
{
	switch (a->kind) {
	case AT_INT: {
		const Type *t = a->type ? a->type : type_scalar((Module *)w->m, SC_I64);
		int bits = scalar_bits(t->scalar);
		bo_varint(b, ATAG_INTEGER);
		bo_varint(b, wr_type(w, t));
		if (bits == 1)
			bo_u8(b, a->u.i != 0);
		else
			bo_varint(b, bits < 64 ? (uint64_t)a->u.i & ((UINT64_C(1) << bits) - 1) : (uint64_t)a->u.i);
		return;
	}
	case AT_FLOAT:
		bo_varint(b, ATAG_FLOAT);
		bo_varint(b, wr_type(w, a->type));
		if (scalar_bits(a->type->scalar) <= 8)
			bo_u8(b, (unsigned)a->u.bits);
		else
			bo_zigzag_bits(b, a->u.bits);
		return;
	case AT_BOOL:
		bo_varint(b, ATAG_BOOL);
		bo_u8(b, a->u.i != 0);
		return;
	case AT_TYPE:
		bo_varint(b, ATAG_TYPE);
		bo_varint(b, wr_type(w, a->type));
		return;
	case AT_STRING:
		bo_varint(b, ATAG_STRING);
		bo_varint(b, wr_string(w, a->u.s));
		return;
	case AT_ARRAY:
		bo_varint(b, ATAG_ARRAY);
		bo_varint(b, (uint64_t)a->u.array.n);
		for (int i = 0; i < a->u.array.n; i++)
			wr_tagged(w, b, a->u.array.v[i], false);
		return;
	case AT_DICT:
		bo_varint(b, hints ? ATAG_HINTS : ATAG_DICT);
		wr_dict_body(w, b, a);
		return;
	case AT_DIV_BY:
		bo_varint(b, ATAG_DIV_BY);
		bo_varint(b, (uint64_t)a->u.div_by.divisor);
		bo_u8(b, a->u.div_by.has_every ? 3 : 0);
		if (a->u.div_by.has_every) {
			bo_svarint(b, a->u.div_by.every);
			bo_svarint(b, a->u.div_by.along);
		}
		return;
	case AT_SAME_ELEMENTS:
		bo_varint(b, ATAG_SAME_ELEMENTS);
		dims(b, a->u.ints.n, a->u.ints.v, 8);
		return;
	case AT_BOUNDED:
		bo_varint(b, ATAG_BOUNDED);
		bo_u8(b, (unsigned)a->u.bounded.has_lb | (unsigned)a->u.bounded.has_ub << 1);
		if (a->u.bounded.has_lb)
			bo_svarint(b, a->u.bounded.lb);
		if (a->u.bounded.has_ub)
			bo_svarint(b, a->u.bounded.ub);
		return;
	case AT_INTS:
	case AT_DENSE:
		break;
	}
	wr_fail(w, "an attribute of this kind (%s) has no bytecode form",
		a->kind == AT_INTS ? "an integer array" : "dense elements");
}

/* ------------------------------------------------------------ sections */

/* varint n; pad to width; start[n]; data */
static void table(StrBuf *p, const Intern *t, const uint32_t *starts, const StrBuf *data,
		  unsigned width)
{
	bo_varint(p, t->n);
	bo_pad(p, 0, width);
	size_t off = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		uint64_t s = starts ? starts[i] : off;
		if (width == 4)
			bo_u32(p, (uint32_t)s);
		else
			bo_u64(p, s);
		off += t->lens[i];
	}
	if (data) {
		bo_bytes(p, data->s, data->len);
		return;
	}
	for (uint32_t i = 0; i < t->n; i++)
		bo_bytes(p, t->keys[i], t->lens[i]);
}

void wr_string_section(Writer *w, StrBuf *p)
{
	table(p, &w->strs, NULL, NULL, 4);
}

void wr_type_section(Writer *w, StrBuf *p)
{
	table(p, &w->types, w->type_start, &w->type_data, 4);
}

void wr_const_section(Writer *w, StrBuf *p)
{
	table(p, &w->consts, NULL, NULL, 8);
}

void wr_tables_free(Writer *w)
{
	for (uint32_t i = 0; i < w->consts.n; i++)
		free((void *)w->consts.keys[i]);
	intern_free(&w->strs);
	intern_free(&w->types);
	intern_free(&w->consts);
	sb_free(&w->type_data);
	free(w->type_start);
}
