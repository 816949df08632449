/* asm_ptype.c: types in the dialect's text (asm_parse.h), as asm_values.c
 * prints them: i32, f8E4M3FN, token, ptr<f32[, <multicast>]>,
 * tile<8x16xf32>, tensor_view<?x16xf32, strides=[16,1]>,
 * partition_view<tile=(4x8), [padding_value = zero, ]tensor_view<..>[, dim_map=[1, 0]]>,
 * strided_view<tile=(..), traversal_strides=[..], ...>,
 * gather_scatter_view<tile=(..), ..., sparse_dim=0>; the !cuda_tile.
 * prefix of MLIR's generic form is accepted. The checks are the bytecode
 * reader's (types.c): ranks, power-of-two tile dimensions, element kinds,
 * dim_map permutations. */
#include <ctype.h>
#include <string.h>
#include "asm_parse.h"
#include "reader.h"

#define MAX_TILE_ELEMENTS (1 << 24)

static const Type *type_at(Parser *P, int depth);

static bool is_number(const Type *t) { return t->kind == TY_SCALAR; }

/* "8x16x" dimensions up to the element type ('?' when dyn); returns rank */
static int dims_x(Parser *P, int64_t *d, bool dyn)
{
	int n = 0;
	for (;;) {
		ps_ws(P);
		const char *p = P->p;
		if (p >= P->end)
			return n;
		bool q = dyn && *p == '?';
		if (!q && !isdigit((unsigned char)*p))
			return n;
		/* a digit that starts an element type cannot happen: types start with a letter */
		if (n >= MAX_RANK) {
			ps_fail(P, p, "more than %d dimensions", MAX_RANK);
			return -1;
		}
		if (q) {
			d[n++] = DYN_DIM;
			P->p++;
		} else if (!ps_int(P, &d[n++])) {
			return -1;
		}
		if (P->p >= P->end || *P->p != 'x') {
			if (!dyn)
				return n;     /* tile=(8x4): the last has no x */
			ps_fail(P, P->p, "expected 'x' after a dimension");
			return -1;
		}
		P->p++;
	}
}

static bool check_dims(Parser *P, const char *at, int rank, const int64_t *d, int64_t *elements)
{
	int64_t total = 1;
	for (int i = 0; i < rank; i++) {
		if (d[i] <= 0 || (d[i] & (d[i] - 1)))
			return ps_fail(P, at, "tile dimension %d is %lld; tile dimensions must be positive "
				       "powers of two", i, (long long)d[i]);
		if (d[i] > MAX_TILE_ELEMENTS || (total *= d[i]) > MAX_TILE_ELEMENTS)
			return ps_fail(P, at, "tile has more than %d elements", MAX_TILE_ELEMENTS);
	}
	if (elements)
		*elements = total;
	return true;
}

/* "[1, 2]" or "[16,1]" with '?' when dyn; returns the count */
static int int_list(Parser *P, int64_t *v, bool dyn, const char *what)
{
	if (!ps_expect(P, "["))
		return -1;
	int n = 0;
	if (ps_eat(P, "]"))
		return 0;
	do {
		if (n >= MAX_RANK) {
			ps_fail(P, P->p, "%s has more than %d entries", what, MAX_RANK);
			return -1;
		}
		if (dyn && ps_eat(P, "?"))
			v[n++] = DYN_DIM;
		else if (!ps_int(P, &v[n++]))
			return -1;
	} while (ps_eat(P, ","));
	return ps_expect(P, "]") ? n : -1;
}

static PtrAttr ptr_attr(Parser *P)
{
	const char *at = P->p;
	const char *s = ps_ident(P, "a pointer attribute");
	if (!s)
		return PTR_ATTR_NONE;
	if (strcmp(s, "unicast") == 0)
		return PTR_ATTR_UNICAST;
	if (strcmp(s, "multicast") == 0)
		return PTR_ATTR_MULTICAST;
	ps_fail(P, at, "unknown pointer attribute '%s'", s);
	return PTR_ATTR_NONE;
}

/* ", #cuda_tile.ptr_attr<x>" or ", <x>" */
static PtrAttr opt_ptr_attr(Parser *P)
{
	if (ps_eat(P, "#cuda_tile.ptr_attr<") || ps_eat(P, "<")) {
		PtrAttr a = ptr_attr(P);
		return ps_expect(P, ">") ? a : PTR_ATTR_NONE;
	}
	ps_fail(P, P->p, "expected a pointer attribute, found %s", ps_token_text(P));
	return PTR_ATTR_NONE;
}

static bool key(Parser *P, const char *k)
{
	return ps_expect_kw(P, k) && ps_expect(P, "=");
}

static PaddingValue padding(Parser *P)
{
	const char *at = P->p;
	const char *s = ps_ident(P, "a padding value");
	if (!s)
		return PAD_NONE;
	for (int i = PAD_ZERO; i <= PAD_NEG_INF; i++)
		if (strcmp(padding_name((PaddingValue)i), s) == 0)
			return (PaddingValue)i;
	ps_fail(P, at, "unknown padding_value '%s'", s);
	return PAD_NONE;
}

static const Type *view_type(Parser *P, const char *kind, int depth)
{
	Module *m = P->m;
	int64_t tile[MAX_RANK], trav[MAX_RANK], map[MAX_RANK];
	int ntrav = 0, nmap = 0;
	int64_t sparse = 0;
	PaddingValue pad = PAD_NONE;
	bool strided = strcmp(kind, "strided_view") == 0, gather = strcmp(kind, "gather_scatter_view") == 0;
	if (!ps_expect(P, "<") || !key(P, "tile") || !ps_expect(P, "("))
		return NULL;
	const char *tile_at = P->p;
	int rank = dims_x(P, tile, false);
	if (rank < 0 || !ps_expect(P, ")") || !ps_expect(P, ","))
		return NULL;
	const char *trav_at = P->p;
	if (strided && (!key(P, "traversal_strides") || (ntrav = int_list(P, trav, false, "traversal_strides")) < 0 ||
			!ps_expect(P, ",")))
		return NULL;
	if (ps_at_kw(P, "padding_value")) {
		if (!key(P, "padding_value"))
			return NULL;
		pad = padding(P);
		if (!ps_expect(P, ","))
			return NULL;
	}
	const char *tv_at = P->p;
	const Type *tv = type_at(P, depth + 1);
	if (!tv)
		return NULL;
	if (tv->kind != TY_TENSOR_VIEW)
		return ps_fail(P, tv_at, "%s must be built on a tensor_view, got '%s'", kind, tv->str), NULL;
	const char *map_at = P->p;
	if (gather) {
		if (!ps_expect(P, ",") || !key(P, "sparse_dim"))
			return NULL;
		map_at = P->p;
		if (!ps_int(P, &sparse))
			return NULL;
	} else if (ps_eat(P, ",")) {
		map_at = P->p;
		if (!key(P, "dim_map") || (nmap = int_list(P, map, false, "dim_map")) < 0)
			return NULL;
	}
	if (!ps_expect(P, ">"))
		return NULL;
	if (rank == 0 || rank != tv->rank)
		return ps_fail(P, tile_at, "%s tile rank %d must be positive and equal the tensor_view rank %d",
			       kind, rank, tv->rank), NULL;
	if (!check_dims(P, tile_at, rank, tile, NULL))
		return NULL;
	if (gather) {
		if (sparse < 0 || sparse >= rank)
			return ps_fail(P, map_at, "sparse_dim %lld out of range for a rank-%d view",
				       (long long)sparse, rank), NULL;
		return type_gather_scatter_view(m, rank, tile, tv, (int)sparse, pad);
	}
	if (nmap && nmap != rank)
		return ps_fail(P, map_at, "dim_map has %d entries for a rank-%d view", nmap, rank), NULL;
	bool seen[MAX_RANK] = { false };
	for (int i = 0; i < nmap; i++) {
		if (map[i] < 0 || map[i] >= rank || seen[map[i]])
			return ps_fail(P, map_at, "dim_map [%d] = %lld is not a permutation of [0, %d)", i,
				       (long long)map[i], rank), NULL;
		seen[map[i]] = true;
	}
	if (strided) {
		if (ntrav != rank)
			return ps_fail(P, trav_at, "traversal_strides has %d entries for a rank-%d view", ntrav,
				       rank), NULL;
		for (int i = 0; i < ntrav; i++)
			if (trav[i] <= 0)
				return ps_fail(P, trav_at, "traversal_strides[%d] = %lld must be positive", i,
					       (long long)trav[i]), NULL;
		return type_strided_view(m, rank, tile, trav, tv, nmap ? map : NULL, pad);
	}
	return type_partition_view(m, rank, tile, tv, nmap ? map : NULL, pad);
}

static const Type *tensor_view(Parser *P, int depth)
{
	int64_t shape[MAX_RANK], strides[MAX_RANK];
	if (!ps_expect(P, "<"))
		return NULL;
	const char *sat = P->p;
	int rank = dims_x(P, shape, true);
	if (rank < 0)
		return NULL;
	const char *eat = P->p;
	const Type *e = type_at(P, depth + 1);
	if (!e)
		return NULL;
	if (!is_number(e))
		return ps_fail(P, eat, "tensor_view of '%s': the element must be a number type", e->str), NULL;
	int ns = 0;
	PtrAttr pa = PTR_ATTR_NONE;
	const char *tat = P->p;
	while (ps_eat(P, ",")) {
		if (ps_at_kw(P, "strides")) {
			tat = P->p;
			if (!key(P, "strides") || (ns = int_list(P, strides, true, "strides")) < 0)
				return NULL;
		} else {
			pa = opt_ptr_attr(P);
		}
		if (P->failed)
			return NULL;
	}
	if (!ps_expect(P, ">"))
		return NULL;
	if (ns != rank)
		return ps_fail(P, tat, "tensor_view has %d dimensions but %d strides", rank, ns), NULL;
	for (int i = 0; i < 2 * rank; i++) {
		int64_t v = i < rank ? shape[i] : strides[i - rank];
		if (v != DYN_DIM && (v <= 0 || v > (INT64_C(1) << 62)))
			return ps_fail(P, i < rank ? sat : tat, "tensor_view %s[%d] = %lld must be positive "
				       "(or dynamic)", i < rank ? "shape" : "strides", i % rank, (long long)v), NULL;
	}
	return type_tensor_view_attr(P->m, e, rank, shape, strides, pa);
}

static const Type *type_at(Parser *P, int depth)
{
	if (P->failed)
		return NULL;
	ps_ws(P);
	const char *at = P->p;
	if (depth > MAX_TYPE_DEPTH)
		return ps_fail(P, at, "types nested more than %d deep", MAX_TYPE_DEPTH), NULL;
	ps_eat(P, "!cuda_tile.");
	size_t n = ps_ident_len(P);
	if (!n)
		return ps_fail(P, at, "expected a type, found %s", ps_token_text(P)), NULL;
	const char *w = P->p;
	P->p += n;
	ScalarKind k;
#define IS(s) (n == strlen(s) && memcmp(w, s, n) == 0)
	if (scalar_from_name(w, n, &k))
		return type_scalar(P->m, k);
	if (IS("token"))
		return type_token(P->m);
	if (IS("ptr")) {
		if (!ps_expect(P, "<"))
			return NULL;
		const char *eat = P->p;
		const Type *e = type_at(P, depth + 1);
		if (!e)
			return NULL;
		if (!is_number(e))
			return ps_fail(P, eat, "pointer to '%s': the pointee must be a number type", e->str), NULL;
		PtrAttr pa = ps_eat(P, ",") ? opt_ptr_attr(P) : PTR_ATTR_NONE;
		return ps_expect(P, ">") ? type_ptr_attr(P->m, e, pa) : NULL;
	}
	if (IS("tile")) {
		int64_t shape[MAX_RANK], elements;
		if (!ps_expect(P, "<"))
			return NULL;
		const char *sat = P->p;
		int rank = dims_x(P, shape, true);
		if (rank < 0)
			return NULL;
		for (int i = 0; i < rank; i++)
			if (shape[i] == DYN_DIM)
				return ps_fail(P, sat, "a tile has no dynamic dimensions"), NULL;
		const char *eat = P->p;
		const Type *e = type_at(P, depth + 1);
		if (!e || !ps_expect(P, ">"))
			return NULL;
		if (e->kind != TY_SCALAR && e->kind != TY_PTR)
			return ps_fail(P, eat, "tile of '%s': the element must be a scalar or pointer type", e->str), NULL;
		if (!check_dims(P, sat, rank, shape, &elements))
			return NULL;
		if (e->kind == TY_SCALAR && e->scalar == SC_F4E2M1FN && elements % 2)
			return ps_fail(P, sat, "a tile of f4E2M1FN needs an even number of elements"), NULL;
		return type_tile(P->m, e, rank, shape);
	}
	if (IS("tensor_view"))
		return tensor_view(P, depth);
	if (IS("partition_view") || IS("strided_view") || IS("gather_scatter_view")) {
		char kind[32];
		memcpy(kind, w, n);
		kind[n] = 0;
		return view_type(P, kind, depth);
	}
#undef IS
	return ps_fail(P, at, "unknown type '%.*s'", (int)(n > 60 ? 60 : n), w), NULL;
}

const Type *ps_type(Parser *P) { return type_at(P, 0); }

bool ps_at_type(Parser *P)
{
	size_t n = ps_ident_len(P);
	ScalarKind k;
	if (!n)
		return ps_at(P, "!cuda_tile.");
	const char *w = P->p;
	static const char *const kinds[] = { "token", "ptr", "tile", "tensor_view", "partition_view",
					     "strided_view", "gather_scatter_view" };
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (n == strlen(kinds[i]) && memcmp(w, kinds[i], n) == 0)
			return true;
	return scalar_from_name(w, n, &k);
}
