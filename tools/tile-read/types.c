/* types.c: the type table. Entries are decoded lazily on first reference
 * (forward references are legal) with a cycle check and a depth cap, then
 * interned in the module. The checks here are the type verifiers the
 * reference reader runs while building types, plus the limits of the JSON
 * type grammar (docs/ir.md §3), so every type read can be written back.
 * requires: rd->types, rd->type_cache, rd->type_state. */
#include <string.h>
#include "reader.h"

enum {
	TAG_I1, TAG_I8, TAG_I16, TAG_I32, TAG_I64, TAG_F16, TAG_BF16, TAG_F32, TAG_TF32,
	TAG_F64, TAG_F8E4M3FN, TAG_F8E5M2, TAG_PTR, TAG_TILE, TAG_TENSOR_VIEW,
	TAG_PARTITION_VIEW, TAG_FUNC, TAG_TOKEN, TAG_F8E8M0FNU, TAG_F4E2M1FN,
	TAG_GATHER_SCATTER_VIEW, TAG_STRIDED_VIEW, TAG_I4,
	TAG_F8E5M3FNU = 130,
};

#define MAX_TILE_ELEMENTS (1 << 24)

/* tag -> (scalar kind or -1, first version) */
static const struct { int scalar; int since; const char *name; } tags[] = {
	[TAG_I1] = { SC_I1, 1301, "i1" },
	[TAG_I8] = { SC_I8, 1301, "i8" },
	[TAG_I16] = { SC_I16, 1301, "i16" },
	[TAG_I32] = { SC_I32, 1301, "i32" },
	[TAG_I64] = { SC_I64, 1301, "i64" },
	[TAG_F16] = { SC_F16, 1301, "f16" },
	[TAG_BF16] = { SC_BF16, 1301, "bf16" },
	[TAG_F32] = { SC_F32, 1301, "f32" },
	[TAG_TF32] = { SC_TF32, 1301, "tf32" },
	[TAG_F64] = { SC_F64, 1301, "f64" },
	[TAG_F8E4M3FN] = { SC_F8E4M3FN, 1301, "f8E4M3FN" },
	[TAG_F8E5M2] = { SC_F8E5M2, 1301, "f8E5M2" },
	[TAG_PTR] = { -1, 1301, "ptr" },
	[TAG_TILE] = { -1, 1301, "tile" },
	[TAG_TENSOR_VIEW] = { -1, 1301, "tensor_view" },
	[TAG_PARTITION_VIEW] = { -1, 1301, "partition_view" },
	[TAG_FUNC] = { -1, 1301, "function" },
	[TAG_TOKEN] = { -1, 1301, "token" },
	[TAG_F8E8M0FNU] = { SC_F8E8M0FNU, 1302, "f8E8M0FNU" },
	[TAG_F4E2M1FN] = { SC_F4E2M1FN, 1303, "f4E2M1FN" },
	[TAG_GATHER_SCATTER_VIEW] = { -1, 1303, "gather_scatter_view" },
	[TAG_STRIDED_VIEW] = { -1, 1303, "strided_view" },
	[TAG_I4] = { SC_I4, 1303, "i4" },
	[TAG_F8E5M3FNU] = { SC_F8E5M3FNU, 1304, "fnv8E5M3FNU" },
};

bool type_is_value(const Type *t)
{
	return t->kind != TY_SCALAR && t->kind != TY_PTR && t->kind != TY_FUNC;
}

/* A "number" element: any scalar but i4 (ptr pointee, tensor_view element). */
static bool is_number(const Type *t)
{
	return t->kind == TY_SCALAR && t->scalar != SC_I4;
}

/* varint optional-field flags; bits beyond `known` are an error. */
static uint64_t opt_flags(Cur *c, uint64_t known, const char *what)
{
	size_t at = c->pos;
	uint64_t f = cur_varint(c);
	if (f & ~known)
		rd_fail(c->rd, at, "%s has unknown optional-field flags 0x%llx", what,
			(unsigned long long)f);
	return f;
}

/* arr<i32> or arr<i64>: varint n, then n fixed-width values. */
static int read_dims(Cur *c, unsigned width, int64_t *out, const char *what)
{
	size_t at = c->pos;
	uint32_t n = cur_count(c, width, what);
	if (c->rd->failed)
		return -1;
	if (n > MAX_RANK) {
		rd_fail(c->rd, at, "%s has %u entries; at most %d are supported", what, n, MAX_RANK);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] = width == 4 ? (int64_t)(int32_t)cur_u32(c) : (int64_t)cur_u64(c);
	return (int)n;
}

/* Tile dimensions: positive powers of two, at most 2^24 elements in all. */
static bool check_tile_dims(Cur *c, size_t at, int rank, const int64_t *d, const char *what,
			    int64_t *elements)
{
	int64_t total = 1;
	for (int i = 0; i < rank; i++) {
		if (d[i] <= 0 || (d[i] & (d[i] - 1)))
			return rd_fail(c->rd, at, "%s dimension %d is %lld; tile dimensions must be "
				       "positive powers of two", what, i, (long long)d[i]);
		if (d[i] > MAX_TILE_ELEMENTS || (total *= d[i]) > MAX_TILE_ELEMENTS)
			return rd_fail(c->rd, at, "%s has more than %d elements", what, MAX_TILE_ELEMENTS);
	}
	if (elements)
		*elements = total;
	return true;
}

static bool read_padding(Cur *c, PaddingValue *pad)
{
	size_t at = c->pos;
	uint64_t v = cur_varint(c);
	if (v > PAD_NEG_INF)
		return rd_fail(c->rd, at, "unknown padding_value %llu", (unsigned long long)v);
	*pad = (PaddingValue)v;
	return !c->rd->failed;
}

/* Pointer attribute (13.4+): 0 none (13.4's "default"), 1 unicast, 2
 * multicast (13.5: the multimem ops' views need it; NVIDIA's tileirdisasm
 * reads exactly these three). */
static PtrAttr read_ptr_attr(Cur *c)
{
	size_t at = c->pos;
	uint64_t v = cur_varint(c);
	if (v > PTR_ATTR_MULTICAST) {
		rd_fail(c->rd, at, "unknown pointer attribute %llu", (unsigned long long)v);
		return PTR_ATTR_NONE;
	}
	if (v && c->rd->version < 1305) {
		rd_fail(c->rd, at, "pointer attribute '%s' requires bytecode version 13.5+, file version is %s",
			ptr_attr_name((PtrAttr)v), bytecode_version_name(c->rd->version));
		return PTR_ATTR_NONE;
	}
	return (PtrAttr)v;
}

static const Type *ref(Cur *c, int depth)
{
	size_t at = c->pos;
	uint64_t idx = cur_varint(c);
	if (c->rd->failed)
		return NULL;
	return type_get(c->rd, idx, at, depth + 1);
}

static const Type *need_tensor_view(Cur *c, int depth, const char *what)
{
	size_t at = c->pos;
	const Type *tv = ref(c, depth);
	if (tv && tv->kind != TY_TENSOR_VIEW) {
		rd_fail(c->rd, at, "%s must be built on a tensor_view, got '%s'", what, tv->str);
		return NULL;
	}
	return tv;
}

/* dim_map: empty (identity) or a permutation of [0, rank). */
static const int64_t *check_dim_map(Cur *c, size_t at, int nmap, const int64_t *map, int rank)
{
	if (nmap == 0)
		return NULL;
	if (nmap != rank) {
		rd_fail(c->rd, at, "dim_map has %d entries for a rank-%d view", nmap, rank);
		return NULL;
	}
	bool seen[MAX_RANK] = { false };
	for (int i = 0; i < nmap; i++) {
		if (map[i] < 0 || map[i] >= rank || seen[map[i]]) {
			rd_fail(c->rd, at, "dim_map [%d] = %lld is not a permutation of [0, %d)", i,
				(long long)map[i], rank);
			return NULL;
		}
		seen[map[i]] = true;
	}
	return map;
}

static const Type *read_view(Cur *c, int tag, int depth)
{
	Reader *rd = c->rd;
	Module *m = rd->m;
	const char *what = tags[tag].name;
	int64_t tile[MAX_RANK], trav[MAX_RANK], map[MAX_RANK];
	int ntrav = 0, nmap = 0;
	uint64_t flags = 0, sparse = 0;
	PaddingValue pad = PAD_NONE;
	bool unified = tag != TAG_PARTITION_VIEW || rd->version >= 1303;
	if (unified)
		flags = opt_flags(c, 1, what);
	size_t tile_at = c->pos;
	int rank = read_dims(c, 4, tile, "view tile shape");
	if (rank < 0)
		return NULL;
	size_t trav_at = c->pos;
	if (tag == TAG_STRIDED_VIEW && (ntrav = read_dims(c, 4, trav, "traversal_strides")) < 0)
		return NULL;
	const Type *tv = need_tensor_view(c, depth, what);
	if (!tv)
		return NULL;
	size_t map_at = c->pos;
	if (tag == TAG_GATHER_SCATTER_VIEW) {
		sparse = cur_varint(c);
		if (!rd->failed && sparse >= (uint64_t)(rank > 0 ? rank : 1))
			rd_fail(rd, map_at, "sparse_dim %llu out of range for a rank-%d view",
				(unsigned long long)sparse, rank);
	} else if ((nmap = read_dims(c, 4, map, "dim_map")) < 0) {
		return NULL;
	}
	if (unified) {
		if (flags & 1)
			read_padding(c, &pad);
	} else {
		size_t at = c->pos;
		uint8_t present = cur_u8(c);
		if (present > 1)
			rd_fail(rd, at, "padding_value presence byte is %u, expected 0 or 1", present);
		else if (present)
			read_padding(c, &pad);
	}
	if (rd->failed)
		return NULL;
	if (rank == 0 || rank != tv->rank) {
		rd_fail(rd, tile_at, "%s tile rank %d must be positive and equal the tensor_view rank %d",
			what, rank, tv->rank);
		return NULL;
	}
	if (!check_tile_dims(c, tile_at, rank, tile, "view tile", NULL))
		return NULL;
	if (tag == TAG_STRIDED_VIEW) {
		if (ntrav != rank) {
			rd_fail(rd, trav_at, "traversal_strides has %d entries for a rank-%d view", ntrav, rank);
			return NULL;
		}
		for (int i = 0; i < ntrav; i++)
			if (trav[i] <= 0) {
				rd_fail(rd, trav_at, "traversal_strides[%d] = %lld must be positive", i,
					(long long)trav[i]);
				return NULL;
			}
	}
	const int64_t *dm = NULL;
	if (tag != TAG_GATHER_SCATTER_VIEW) {
		dm = check_dim_map(c, map_at, nmap, map, rank);
		if (rd->failed)
			return NULL;
	}
	switch (tag) {
	case TAG_PARTITION_VIEW: return type_partition_view(m, rank, tile, tv, dm, pad);
	case TAG_STRIDED_VIEW: return type_strided_view(m, rank, tile, trav, tv, dm, pad);
	default: return type_gather_scatter_view(m, rank, tile, tv, (int)sparse, pad);
	}
}

static const Type *read_func(Cur *c, int depth)
{
	const Type *io[2][MAX_FUNC_TYPES];
	uint32_t n[2];
	for (int side = 0; side < 2; side++) {
		size_t at = c->pos;
		n[side] = cur_count(c, 1, side ? "function results" : "function inputs");
		if (c->rd->failed)
			return NULL;
		if (n[side] > MAX_FUNC_TYPES) {
			rd_fail(c->rd, at, "function type has %u %s; at most %d are supported", n[side],
				side ? "results" : "inputs", MAX_FUNC_TYPES);
			return NULL;
		}
		for (uint32_t i = 0; i < n[side]; i++) {
			size_t tat = c->pos;
			const Type *t = ref(c, depth);
			if (!t)
				return NULL;
			if (!type_is_value(t)) {
				rd_fail(c->rd, tat, "function %s %u has type '%s', which is not a value type",
					side ? "result" : "input", i, t->str);
				return NULL;
			}
			io[side][i] = t;
		}
	}
	return type_func(c->rd->m, (int)n[0], io[0], (int)n[1], io[1]);
}

static const Type *read_entry(Cur *c, int depth)
{
	Reader *rd = c->rd;
	Module *m = rd->m;
	size_t at = c->pos;
	uint64_t tag = cur_varint(c);
	if (rd->failed)
		return NULL;
	if (tag >= sizeof tags / sizeof tags[0] || !tags[tag].name) {
		rd_fail(rd, at, "unknown type tag %llu", (unsigned long long)tag);
		return NULL;
	}
	if (tags[tag].since > rd->version) {
		rd_fail(rd, at, "type '%s' requires bytecode version %s+, file version is %s",
			tags[tag].name, bytecode_version_name(tags[tag].since), bytecode_version_name(rd->version));
		return NULL;
	}
	if (tags[tag].scalar >= 0)
		return type_scalar(m, (ScalarKind)tags[tag].scalar);
	switch (tag) {
	case TAG_TOKEN:
		return type_token(m);
	case TAG_PTR: {
		uint64_t flags = rd->version >= 1304 ? opt_flags(c, 1, "pointer type") : 0;
		size_t pat = c->pos;
		const Type *e = ref(c, depth);
		PtrAttr pa = flags & 1 ? read_ptr_attr(c) : PTR_ATTR_NONE;
		if (!e || rd->failed)
			return NULL;
		if (!is_number(e)) {
			rd_fail(rd, pat, "pointer to '%s': the pointee must be a number type", e->str);
			return NULL;
		}
		return type_ptr_attr(m, e, pa);
	}
	case TAG_TILE: {
		int64_t shape[MAX_RANK];
		size_t eat = c->pos;
		const Type *e = ref(c, depth);
		if (!e)
			return NULL;
		if (e->kind != TY_SCALAR && e->kind != TY_PTR) {
			rd_fail(rd, eat, "tile of '%s': the element must be a scalar or pointer type", e->str);
			return NULL;
		}
		size_t sat = c->pos;
		int64_t elements;
		int rank = read_dims(c, 8, shape, "tile shape");
		if (rank < 0 || !check_tile_dims(c, sat, rank, shape, "tile", &elements))
			return NULL;
		if (e->kind == TY_SCALAR && e->scalar == SC_F4E2M1FN && elements % 2) {
			rd_fail(rd, sat, "a tile of f4E2M1FN needs an even number of elements");
			return NULL;
		}
		if (e->kind == TY_PTR && e->elem->kind == TY_SCALAR && e->elem->scalar == SC_F4E2M1FN && rank > 0) {
			rd_fail(rd, sat, "tiles of ptr<f4E2M1FN> must have rank 0; use an f4 tile view for memory accesses");
			return NULL;
		}
		return type_tile(m, e, rank, shape);
	}
	case TAG_TENSOR_VIEW: {
		int64_t shape[MAX_RANK], strides[MAX_RANK];
		uint64_t flags = rd->version >= 1304 ? opt_flags(c, 1, "tensor_view type") : 0;
		size_t eat = c->pos;
		const Type *e = ref(c, depth);
		if (!e)
			return NULL;
		if (!is_number(e)) {
			rd_fail(rd, eat, "tensor_view of '%s': the element must be a number type", e->str);
			return NULL;
		}
		size_t sat = c->pos;
		int rank = read_dims(c, 8, shape, "tensor_view shape");
		size_t tat = c->pos;
		int ns = rank < 0 ? -1 : read_dims(c, 8, strides, "tensor_view strides");
		PtrAttr pa = flags & 1 ? read_ptr_attr(c) : PTR_ATTR_NONE;
		if (ns < 0 || rd->failed)
			return NULL;
		if (ns != rank) {
			rd_fail(rd, tat, "tensor_view has %d dimensions but %d strides", rank, ns);
			return NULL;
		}
		for (int i = 0; i < 2 * rank; i++) {
			int64_t v = i < rank ? shape[i] : strides[i - rank];
			if (v != DYN_DIM && (v <= 0 || v > (INT64_C(1) << 62))) {
				rd_fail(rd, i < rank ? sat : tat, "tensor_view %s[%d] = %lld must be positive "
					"(or dynamic)", i < rank ? "shape" : "strides", i % rank, (long long)v);
				return NULL;
			}
		}
		return type_tensor_view_attr(m, e, rank, shape, strides, pa);
	}
	case TAG_FUNC:
		return read_func(c, depth);
	default:
		return read_view(c, (int)tag, depth);
	}
}

const Type *type_get(Reader *rd, uint64_t idx, size_t at, int depth)
{
	if (rd->failed)
		return NULL;
	if (idx >= rd->types.n) {
		rd_fail(rd, at, "type index %llu out of range (%u types)", (unsigned long long)idx,
			rd->types.n);
		return NULL;
	}
	if (rd->type_state[idx] == 2)
		return rd->type_cache[idx];
	if (rd->type_state[idx] == 1) {
		rd_fail(rd, at, "type %llu refers to itself", (unsigned long long)idx);
		return NULL;
	}
	if (depth > MAX_TYPE_DEPTH) {
		rd_fail(rd, at, "types nested more than %d deep", MAX_TYPE_DEPTH);
		return NULL;
	}
	rd->type_state[idx] = 1;
	Cur c = table_entry(rd, &rd->types, (uint32_t)idx);
	const Type *t = read_entry(&c, depth);
	if (t && !cur_done(&c, "type entry"))
		t = NULL;
	if (!t)
		return NULL;
	rd->type_state[idx] = 2;
	return rd->type_cache[idx] = t;
}

const Type *cur_type(Cur *c)
{
	size_t at = c->pos;
	uint64_t idx = cur_varint(c);
	if (c->rd->failed)
		return NULL;
	return type_get(c->rd, idx, at, 0);
}
