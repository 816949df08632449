/* attrs.c: attribute payloads. Tagged ("self-contained") attributes, the
 * untagged dictionary body of optimization hints, op-inline enums and i32
 * arrays, and dense constants from the constant pool, typed by their user.
 * Every attribute built here has a JSON spelling (docs/ir.md §4). */
#include <stdlib.h>
#include <string.h>
#include "reader.h"
#include "diag.h"
#include "xalloc.h"

enum {
	ATAG_INTEGER = 1, ATAG_FLOAT, ATAG_BOOL, ATAG_TYPE, ATAG_STRING, ATAG_ARRAY,
	ATAG_DENSE, ATAG_DIV_BY, ATAG_SAME_ELEMENTS, ATAG_DICT, ATAG_HINTS, ATAG_BOUNDED,
};

static bool is_int_scalar(const Type *t)
{
	return t->kind == TY_SCALAR && !scalar_is_float(t->scalar);
}

static bool is_float_scalar(const Type *t)
{
	return t->kind == TY_SCALAR && scalar_is_float(t->scalar);
}

static uint8_t read_bool_byte(Cur *c, const char *what)
{
	size_t at = c->pos;
	uint8_t b = cur_u8(c);
	if (b > 1)
		rd_fail(c->rd, at, "%s byte is 0x%02x, expected 0 or 1", what, b);
	return b;
}

/* IntegerAttr: i1 as a byte, wider integers as the varint of the zero-extended
 * value; the JSON value is the signed interpretation (as MLIR prints it). */
static const Attr *read_integer(Cur *c)
{
	size_t at = c->pos;
	const Type *t = cur_type(c);
	if (!t)
		return NULL;
	if (!is_int_scalar(t)) {
		rd_fail(c->rd, at, "integer attribute of type '%s': expected an integer type", t->str);
		return NULL;
	}
	int w = scalar_bits(t->scalar);
	size_t vat = c->pos;
	uint64_t v = w == 1 ? read_bool_byte(c, "i1 attribute") : cur_varint(c);
	if (c->rd->failed)
		return NULL;
	if (w < 64 && v >> w) {
		rd_fail(c->rd, vat, "integer attribute value %llu does not fit in %s",
			(unsigned long long)v, t->str);
		return NULL;
	}
	int64_t s = (int64_t)v;
	if (w > 1 && w < 64 && v >> (w - 1))
		s = (int64_t)(v - (UINT64_C(1) << w));
	return attr_int(c->rd->m, s, t);
}

/* FloatAttr: the bit pattern; a byte for formats of at most 8 bits, else a
 * zig-zag varint. cuTile zig-zags the pattern as an unsigned number, so a
 * negative f64 needs 65 bits; the reference writer zig-zags it as signed.
 * Both decode to the same pattern here. */
static const Attr *read_float(Cur *c)
{
	size_t at = c->pos;
	const Type *t = cur_type(c);
	if (!t)
		return NULL;
	if (!is_float_scalar(t)) {
		rd_fail(c->rd, at, "float attribute of type '%s': expected a float type", t->str);
		return NULL;
	}
	int w = scalar_bits(t->scalar);
	size_t vat = c->pos;
	uint64_t bits;
	if (w <= 8) {
		bits = cur_u8(c);
	} else {
		uint64_t u;
		unsigned hi;
		if (!cur_varint65(c, &u, &hi))
			return NULL;
		/* zig-zag over 65 bits: value = u >> 1, negated when odd */
		uint64_t mag = u >> 1 | (uint64_t)hi << 63;
		bits = (u & 1) ? ~mag : mag;
		if (hi && (u & 1)) {
			rd_fail(c->rd, vat, "float attribute bit pattern does not fit in 64 bits");
			return NULL;
		}
	}
	if (c->rd->failed)
		return NULL;
	/* a pattern sign-extended from its width (some writers zig-zag the
	 * APInt's signed value) is the same pattern */
	if (w > 8 && w < 64 && (int64_t)bits < 0 && (int64_t)bits >= -(INT64_C(1) << (w - 1)))
		bits &= (UINT64_C(1) << w) - 1;
	if (w < 64 && bits >> w) {
		rd_fail(c->rd, vat, "float attribute bit pattern 0x%llx does not fit in %s",
			(unsigned long long)bits, t->str);
		return NULL;
	}
	return attr_float(c->rd->m, bits, t);
}

static const Attr *read_div_by(Cur *c)
{
	size_t at = c->pos;
	uint64_t d = cur_varint(c);
	size_t fat = c->pos;
	uint8_t f = cur_u8(c);
	if (c->rd->failed)
		return NULL;
	if (d > INT64_MAX) {
		rd_fail(c->rd, at, "div_by divisor %llu is too large", (unsigned long long)d);
		return NULL;
	}
	if (f & ~3u) {
		rd_fail(c->rd, fat, "div_by has unknown flags 0x%02x", f);
		return NULL;
	}
	if (f == 1 || f == 2) {
		rd_fail(c->rd, fat, "div_by needs both 'every' and 'along', or neither");
		return NULL;
	}
	int64_t every = f ? cur_svarint(c) : 0;
	int64_t along = f ? cur_svarint(c) : 0;
	if (c->rd->failed)
		return NULL;
	return attr_div_by(c->rd->m, (int64_t)d, f != 0, every, along);
}

static const Attr *read_same_elements(Cur *c)
{
	size_t at = c->pos;
	uint32_t n = cur_count(c, 8, "same_elements");
	if (c->rd->failed)
		return NULL;
	if (n > MAX_RANK) {
		rd_fail(c->rd, at, "same_elements has %u values; at most %d are supported", n, MAX_RANK);
		return NULL;
	}
	int64_t v[MAX_RANK];
	for (uint32_t i = 0; i < n; i++) {
		size_t vat = c->pos;
		v[i] = (int64_t)cur_u64(c);
		if (!c->rd->failed && (v[i] == INT64_MAX || v[i] == INT64_MIN)) {
			rd_fail(c->rd, vat, "array contains unsupported value %lld", (long long)v[i]);
			return NULL;
		}
	}
	return c->rd->failed ? NULL : attr_same_elements(c->rd->m, (int)n, v);
}

static const Attr *read_bounded(Cur *c)
{
	size_t at = c->pos;
	uint8_t f = cur_u8(c);
	if (c->rd->failed)
		return NULL;
	if (f & ~3u) {
		rd_fail(c->rd, at, "bounded has unknown flags 0x%02x", f);
		return NULL;
	}
	int64_t lb = f & 1 ? cur_svarint(c) : 0;
	int64_t ub = f & 2 ? cur_svarint(c) : 0;
	if (c->rd->failed)
		return NULL;
	return attr_bounded(c->rd->m, f & 1, lb, (f & 2) != 0, ub);
}

static const Attr *read_array(Cur *c, int depth)
{
	uint32_t n = cur_count(c, 1, "array attribute");
	if (c->rd->failed)
		return NULL;
	const Attr **v = xmalloc(sizeof *v * ((size_t)n + 1));
	for (uint32_t i = 0; i < n; i++)
		if (!(v[i] = attr_tagged(c, depth + 1))) {
			free(v);
			return NULL;
		}
	const Attr *a = attr_array(c->rd->m, (int)n, v);
	free(v);
	return a;
}

const Attr *attr_tagged(Cur *c, int depth)
{
	Reader *rd = c->rd;
	size_t at = c->pos;
	uint64_t tag;
	if (!cur_nested_varint(c, depth, MAX_ATTR_DEPTH, "attributes", &tag))
		return NULL;
	switch (tag) {
	case ATAG_INTEGER: return read_integer(c);
	case ATAG_FLOAT: return read_float(c);
	case ATAG_BOOL: {
		uint8_t b = read_bool_byte(c, "bool attribute");
		return rd->failed ? NULL : attr_bool(rd->m, b);
	}
	case ATAG_TYPE: {
		const Type *t = cur_type(c);
		return t ? attr_type(rd->m, t) : NULL;
	}
	case ATAG_STRING: {
		size_t sat = c->pos;
		uint64_t idx = cur_varint(c);
		const char *s = rd->failed ? NULL : string_get(rd, idx, sat);
		return s ? attr_string(rd->m, s) : NULL;
	}
	case ATAG_ARRAY: return read_array(c, depth);
	case ATAG_DENSE:
		rd_fail(rd, at, "dense elements attribute (tag 7) is not supported in bytecode");
		return NULL;
	case ATAG_DIV_BY: return read_div_by(c);
	case ATAG_SAME_ELEMENTS: return read_same_elements(c);
	case ATAG_DICT: return attr_dict_body(c, depth + 1, false);
	case ATAG_HINTS: return attr_dict_body(c, depth + 1, true);
	case ATAG_BOUNDED: return read_bounded(c);
	default:
		rd_fail(rd, at, "unknown attribute tag %llu", (unsigned long long)tag);
		return NULL;
	}
}

/* varint n; n x { varint key (string); tagged value }. Keys non-empty and
 * unique; for optimization hints every value is itself a dictionary. */
static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const NamedAttr *)a)->name, ((const NamedAttr *)b)->name);
}

const Attr *attr_dict_body(Cur *c, int depth, bool hints)
{
	Reader *rd = c->rd;
	size_t at = c->pos;
	if (depth > MAX_ATTR_DEPTH) {
		rd_fail(rd, c->pos, "attributes nested more than %d deep", MAX_ATTR_DEPTH);
		return NULL;
	}
	uint32_t n = cur_count(c, 2, "dictionary");
	if (rd->failed)
		return NULL;
	NamedAttr *v = xmalloc(sizeof *v * ((size_t)n + 1));
	const Attr *d = NULL;
	for (uint32_t i = 0; i < n; i++) {
		size_t kat = c->pos;
		uint64_t k = cur_varint(c);
		const char *key = rd->failed ? NULL : string_get(rd, k, kat);
		if (!key)
			goto out;
		if (!key[0]) {
			rd_fail(rd, kat, "empty attribute name for dictionary element %u", i);
			goto out;
		}
		size_t vat = c->pos;
		v[i].name = key;
		if (!(v[i].attr = attr_tagged(c, depth + 1)))
			goto out;
		if (hints && v[i].attr->kind != AT_DICT) {
			rd_fail(rd, vat, "optimization hints for '%s' must be a dictionary", key);
			goto out;
		}
	}
	/* keys are non-empty, so attr_dict fails only on a duplicate */
	if (!(d = attr_dict(rd->m, (int)n, v))) {
		qsort(v, n, sizeof *v, cmp_name);
		for (uint32_t i = 1; i < n; i++)
			if (strcmp(v[i - 1].name, v[i].name) == 0) {
				rd_fail(rd, at, "duplicate dictionary key '%s'", v[i].name);
				break;
			}
	}
out:
	free(v);
	return d;
}

const Attr *attr_predicate(Cur *c)
{
	size_t at = c->pos;
	const Attr *a = attr_tagged(c, 0);
	if (a && a->kind != AT_DIV_BY && a->kind != AT_SAME_ELEMENTS && a->kind != AT_BOUNDED) {
		rd_fail(c->rd, at, "assume predicate must be div_by, same_elements or bounded");
		return NULL;
	}
	return a;
}

const Attr *attr_enum(Cur *c, EnumKind kind, const char *name)
{
	size_t at = c->pos;
	uint64_t v = cur_varint(c);
	if (c->rd->failed)
		return NULL;
	const char *s = enum_spelling(kind, v, c->rd->version);
	if (!s) {
		rd_fail(c->rd, at, "invalid %s value %llu for '%s'", enum_kind_what(kind),
			(unsigned long long)v, name);
		return NULL;
	}
	return attr_string(c->rd->m, s);
}

/* DenseI32ArrayAttr: arr<i32>; INT32_MIN and INT32_MAX are reserved. */
const Attr *attr_i32_array(Cur *c)
{
	uint32_t n = cur_count(c, 4, "i32 array");
	if (c->rd->failed)
		return NULL;
	int64_t *v = xmalloc(sizeof *v * ((size_t)n + 1));
	const Attr *a = NULL;
	for (uint32_t i = 0; i < n; i++) {
		size_t at = c->pos;
		v[i] = (int32_t)cur_u32(c);
		if (v[i] == INT32_MIN || v[i] == INT32_MAX) {
			rd_fail(c->rd, at, "array contains unsupported value %lld", (long long)v[i]);
			goto out;
		}
	}
	if (!c->rd->failed)
		a = attr_ints(c->rd->m, (int)n, v);
out:
	free(v);
	return a;
}

/* A constant-pool entry (varint size; raw bytes) as dense elements of tile
 * type t. Element storage is ceil(bits/8) bytes; the buffer holds one element
 * (splat) or all of them. i1 also comes bit-packed (LSB first) and as a 0xFF
 * splat from older writers; it is normalized to one 00/01 byte per element. */
const Attr *attr_dense_const(Reader *rd, uint64_t idx, const Type *t, size_t at)
{
	if (idx >= rd->consts.n) {
		rd_fail(rd, at, "constant index %llu out of range (%u constants)",
			(unsigned long long)idx, rd->consts.n);
		return NULL;
	}
	if (t->kind != TY_TILE || t->elem->kind != TY_SCALAR) {
		rd_fail(rd, at, "a dense constant needs a tile of integers or floats, not '%s'", t->str);
		return NULL;
	}
	Cur c = table_entry(rd, &rd->consts, (uint32_t)idx);
	size_t sat = c.pos;
	uint64_t size = cur_varint(&c);
	if (rd->failed)
		return NULL;
	if (size != cur_left(&c)) {
		rd_fail(rd, sat, "constant %llu: size %llu does not match the %zu bytes of its entry",
			(unsigned long long)idx, (unsigned long long)size, cur_left(&c));
		return NULL;
	}
	const uint8_t *raw = rd->buf + c.pos;
	ScalarKind k = t->elem->scalar;
	size_t n = (size_t)type_num_elements(t);
	size_t storage = (size_t)(scalar_bits(k) + 7) / 8;
	if (k == SC_I1) {
		if (size == n || (size == 1 && n > 1 && (raw[0] == 0 || raw[0] == 0xff))) {
			bool splat = size == 1 && n > 1;
			uint8_t *b = xmalloc(size ? size : 1);
			for (size_t i = 0; i < size; i++)
				b[i] = raw[i] != 0;
			const Attr *a = attr_dense(rd->m, t, size, b, splat);
			free(b);
			return a;
		}
		if (size == (n + 7) / 8) {
			uint8_t *b = xmalloc(n);
			for (size_t i = 0; i < n; i++)
				b[i] = raw[i / 8] >> (i % 8) & 1;
			const Attr *a = attr_dense(rd->m, t, n, b, false);
			free(b);
			return a;
		}
	} else if (size == n * storage) {
		return attr_dense(rd->m, t, size, raw, false);
	} else if (size == storage) {
		return attr_dense(rd->m, t, size, raw, true);
	}
	rd_fail(rd, sat, "constant %llu: %llu bytes do not encode a value of type '%s'",
		(unsigned long long)idx, (unsigned long long)size, t->str);
	return NULL;
}
