/* types.c: interned types, their canonical spelling and its parser.
 * The spelling is the interning key, so building a type means printing it
 * first; equal spellings give the same pointer. Grammar: docs/ir.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "ir.h"
#include "diag.h"
#include "strbuf.h"
#include "xalloc.h"

struct TypeTable { size_t cap, n; const Type **slot; };

static const struct { const char *name; int bits; bool isfloat; } scalars[SC_COUNT] = {
#define SCALAR(id, spelling, bits, isfloat) [SC_##id] = { spelling, bits, isfloat },
#include "scalars.def"
#undef SCALAR
};

const char *scalar_name(ScalarKind k) { return scalars[k].name; }
int scalar_bits(ScalarKind k) { return scalars[k].bits; }
bool scalar_is_float(ScalarKind k) { return scalars[k].isfloat; }

bool scalar_from_name(const char *s, size_t n, ScalarKind *out)
{
	for (int k = 0; k < SC_COUNT; k++)
		if (strlen(scalars[k].name) == n && memcmp(scalars[k].name, s, n) == 0) {
			*out = (ScalarKind)k;
			return true;
		}
	return false;
}

static const char *const padding_names[] = { "zero", "neg_zero", "nan", "pos_inf", "neg_inf" };
const char *padding_name(PaddingValue p)
{
	return p >= PAD_ZERO && p <= PAD_NEG_INF ? padding_names[p] : "none";
}

int64_t type_num_elements(const Type *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		if (__builtin_mul_overflow(n, t->shape[i], &n))
			return INT64_MAX;       /* a malformed type's: saturated, never a valid tile's count */
	return n;
}

bool type_is_view(const Type *t)
{
	return t->kind == TY_PARTITION_VIEW || t->kind == TY_STRIDED_VIEW ||
	       t->kind == TY_GATHER_SCATTER_VIEW;
}

bool type_same_shape(const Type *a, const Type *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return false;
	return true;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Look `proto->str` up; if absent, copy proto into the arena and insert it. */
static const Type *intern(Module *m, const Type *proto)
{
	TypeTable *tt = m->types;
	if (!tt) {
		tt = m->types = arena_alloc(m->arena, sizeof *tt);
	}
	if (tt->n * 2 >= tt->cap) {
		size_t cap = tt->cap ? tt->cap * 2 : 64;
		const Type **slot = xcalloc(cap, sizeof *slot);
		for (size_t i = 0; i < tt->cap; i++) {
			if (!tt->slot[i])
				continue;
			size_t j = hash_str(tt->slot[i]->str) & (cap - 1);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = tt->slot[i];
		}
		free(tt->slot);
		tt->slot = slot;
		tt->cap = cap;
	}
	size_t j = hash_str(proto->str) & (tt->cap - 1);
	for (; tt->slot[j]; j = (j + 1) & (tt->cap - 1))
		if (strcmp(tt->slot[j]->str, proto->str) == 0)
			return tt->slot[j];
	Type *t = arena_alloc(m->arena, sizeof *t);
	*t = *proto;
	t->str = arena_strdup(m->arena, proto->str);
	tt->slot[j] = t;
	tt->n++;
	return t;
}

void type_table_free(TypeTable *tt)
{
	if (tt)
		free(tt->slot);
}

static const int64_t *copy_i64(Module *m, int n, const int64_t *v)
{
	if (!v || n <= 0)
		return NULL;
	int64_t *p = arena_alloc(m->arena, sizeof *p * (size_t)n);
	memcpy(p, v, sizeof *p * (size_t)n);
	return p;
}

static void put_dims(StrBuf *b, int rank, const int64_t *v, char sep)
{
	for (int i = 0; i < rank; i++) {
		if (i)
			sb_putc(b, sep);
		if (v[i] == DYN_DIM)
			sb_putc(b, '?');
		else
			sb_printf(b, "%lld", (long long)v[i]);
	}
}

static bool is_identity(int rank, const int64_t *map)
{
	if (!map)
		return true;
	for (int i = 0; i < rank; i++)
		if (map[i] != i)
			return false;
	return true;
}

static const Type *finish(Module *m, Type *proto, StrBuf *b)
{
	proto->str = sb_cstr(b);
	const Type *t = intern(m, proto);
	sb_free(b);
	return t;
}

const Type *type_scalar(Module *m, ScalarKind k)
{
	Type p = { .kind = TY_SCALAR, .scalar = k, .padding = PAD_NONE };
	StrBuf b = {0};
	sb_puts(&b, scalar_name(k));
	return finish(m, &p, &b);
}

const char *ptr_attr_name(PtrAttr a)
{
	return a == PTR_ATTR_UNICAST ? "unicast" : a == PTR_ATTR_MULTICAST ? "multicast" : "";
}

const Type *type_ptr_attr(Module *m, const Type *pointee, PtrAttr a)
{
	Type p = { .kind = TY_PTR, .elem = pointee, .padding = PAD_NONE, .ptr_attr = a };
	StrBuf b = {0};
	sb_printf(&b, "ptr<%s%s%s>", pointee->str, a ? ", " : "", ptr_attr_name(a));
	return finish(m, &p, &b);
}

const Type *type_ptr(Module *m, const Type *pointee)
{
	return type_ptr_attr(m, pointee, PTR_ATTR_NONE);
}

const Type *type_tile(Module *m, const Type *elem, int rank, const int64_t *shape)
{
	Type p = { .kind = TY_TILE, .elem = elem, .rank = rank, .padding = PAD_NONE };
	StrBuf b = {0};
	sb_puts(&b, "tile<");
	put_dims(&b, rank, shape, 'x');
	sb_printf(&b, "%s%s>", rank ? "x" : "", elem->str);
	p.shape = copy_i64(m, rank, shape);
	return finish(m, &p, &b);
}

const Type *type_tensor_view(Module *m, const Type *elem, int rank,
			     const int64_t *shape, const int64_t *strides)
{
	return type_tensor_view_attr(m, elem, rank, shape, strides, PTR_ATTR_NONE);
}

const Type *type_tensor_view_attr(Module *m, const Type *elem, int rank, const int64_t *shape,
				  const int64_t *strides, PtrAttr a)
{
	Type p = { .kind = TY_TENSOR_VIEW, .elem = elem, .rank = rank, .padding = PAD_NONE, .ptr_attr = a };
	StrBuf b = {0};
	sb_puts(&b, "tensor_view<");
	put_dims(&b, rank, shape, 'x');
	sb_printf(&b, "%s%s", rank ? "x" : "", elem->str);
	if (rank) {
		sb_puts(&b, ", strides=[");
		put_dims(&b, rank, strides, ',');
		sb_putc(&b, ']');
	}
	if (a)
		sb_printf(&b, ", %s", ptr_attr_name(a));
	sb_putc(&b, '>');
	p.shape = copy_i64(m, rank, shape);
	p.strides = copy_i64(m, rank, strides);
	return finish(m, &p, &b);
}

static void put_view_head(StrBuf *b, const char *kw, int rank, const int64_t *tile)
{
	sb_printf(b, "%s<tile=(", kw);
	put_dims(b, rank, tile, 'x');
	sb_putc(b, ')');
}

static void put_view_tail(StrBuf *b, int rank, const Type *tv, const int64_t *dim_map, PaddingValue pad)
{
	if (pad != PAD_NONE)
		sb_printf(b, ", padding_value=%s", padding_name(pad));
	sb_printf(b, ", %s", tv->str);
	if (!is_identity(rank, dim_map)) {
		sb_puts(b, ", dim_map=[");
		put_dims(b, rank, dim_map, ',');
		sb_putc(b, ']');
	}
}

const Type *type_partition_view(Module *m, int rank, const int64_t *tile,
				const Type *tv, const int64_t *dim_map, PaddingValue pad)
{
	Type p = { .kind = TY_PARTITION_VIEW, .elem = tv->elem, .rank = rank, .view = tv, .padding = pad };
	StrBuf b = {0};
	put_view_head(&b, "partition_view", rank, tile);
	put_view_tail(&b, rank, tv, dim_map, pad);
	sb_putc(&b, '>');
	p.shape = copy_i64(m, rank, tile);
	p.dim_map = is_identity(rank, dim_map) ? NULL : copy_i64(m, rank, dim_map);
	return finish(m, &p, &b);
}

const Type *type_strided_view(Module *m, int rank, const int64_t *tile, const int64_t *traversal,
			      const Type *tv, const int64_t *dim_map, PaddingValue pad)
{
	Type p = { .kind = TY_STRIDED_VIEW, .elem = tv->elem, .rank = rank, .view = tv, .padding = pad };
	StrBuf b = {0};
	put_view_head(&b, "strided_view", rank, tile);
	sb_puts(&b, ", traversal_strides=[");
	put_dims(&b, rank, traversal, ',');
	sb_putc(&b, ']');
	put_view_tail(&b, rank, tv, dim_map, pad);
	sb_putc(&b, '>');
	p.shape = copy_i64(m, rank, tile);
	p.strides = copy_i64(m, rank, traversal);
	p.dim_map = is_identity(rank, dim_map) ? NULL : copy_i64(m, rank, dim_map);
	return finish(m, &p, &b);
}

const Type *type_gather_scatter_view(Module *m, int rank, const int64_t *tile,
				     const Type *tv, int sparse_dim, PaddingValue pad)
{
	Type p = { .kind = TY_GATHER_SCATTER_VIEW, .elem = tv->elem, .rank = rank, .view = tv,
		   .sparse_dim = sparse_dim, .padding = pad };
	StrBuf b = {0};
	put_view_head(&b, "gather_scatter_view", rank, tile);
	put_view_tail(&b, rank, tv, NULL, pad);
	sb_printf(&b, ", sparse_dim=%d>", sparse_dim);
	p.shape = copy_i64(m, rank, tile);
	return finish(m, &p, &b);
}

const Type *type_token(Module *m)
{
	Type p = { .kind = TY_TOKEN, .padding = PAD_NONE };
	StrBuf b = {0};
	sb_puts(&b, "token");
	return finish(m, &p, &b);
}

const Type *type_func(Module *m, int nin, const Type *const *ins, int nout, const Type *const *outs)
{
	Type p = { .kind = TY_FUNC, .nin = nin, .nout = nout, .padding = PAD_NONE };
	StrBuf b = {0};
	sb_putc(&b, '(');
	for (int i = 0; i < nin; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", ins[i]->str);
	sb_puts(&b, ") -> (");
	for (int i = 0; i < nout; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", outs[i]->str);
	sb_putc(&b, ')');
	const Type **ci = arena_alloc(m->arena, sizeof *ci * (size_t)(nin + 1));
	const Type **co = arena_alloc(m->arena, sizeof *co * (size_t)(nout + 1));
	for (int i = 0; i < nin; i++)
		ci[i] = ins[i];
	for (int i = 0; i < nout; i++)
		co[i] = outs[i];
	p.ins = ci;
	p.outs = co;
	return finish(m, &p, &b);
}

/* ------------------------------------------------------------ parser */

#define MAX_RANK 16

typedef struct P { Module *m; const char *s, *p; const char *err; } P;

static bool fail(P *ps, const char *msg)
{
	if (!ps->err)
		ps->err = msg;
	return false;
}

static void ws(P *ps) { while (*ps->p == ' ') ps->p++; }

static bool lit(P *ps, const char *s)
{
	ws(ps);
	size_t n = strlen(s);
	if (strncmp(ps->p, s, n) != 0)
		return false;
	ps->p += n;
	return true;
}

static bool expect(P *ps, const char *s)
{
	if (lit(ps, s))
		return true;
	return fail(ps, arena_printf(ps->m->arena, "expected '%s'", s));
}

/* integer or '?' (when allow_dyn) */
static bool num(P *ps, int64_t *out, bool allow_dyn)
{
	ws(ps);
	if (allow_dyn && *ps->p == '?') {
		ps->p++;
		*out = DYN_DIM;
		return true;
	}
	const char *q = ps->p;
	bool neg = *q == '-';
	if (neg)
		q++;
	if (!isdigit((unsigned char)*q))
		return fail(ps, "expected an integer");
	uint64_t v = 0;
	for (; isdigit((unsigned char)*q); q++) {
		if (v > (UINT64_C(1) << 62))
			return fail(ps, "integer out of range");
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (v > (UINT64_C(1) << 62))
		return fail(ps, "integer out of range");
	*out = neg ? -(int64_t)v : (int64_t)v;
	ps->p = q;
	return true;
}

/* "4x8x" dims followed by an element, as in tile<4x8xf32>: reads dims while
 * the next token is a number followed by 'x'. */
static int dims_then(P *ps, int64_t *dims, bool allow_dyn)
{
	int n = 0;
	for (;;) {
		ws(ps);
		const char *save = ps->p;
		int64_t v;
		if (!(isdigit((unsigned char)*ps->p) || (allow_dyn && *ps->p == '?')))
			return n;
		if (!num(ps, &v, allow_dyn))
			return -1;
		if (*ps->p != 'x') {
			ps->p = save;
			return n;
		}
		ps->p++;
		if (n == MAX_RANK) {
			fail(ps, "rank too large");
			return -1;
		}
		dims[n++] = v;
	}
}

static int list(P *ps, int64_t *v, char sep, const char *close, bool allow_dyn)
{
	int n = 0;
	if (lit(ps, close))
		return 0;
	for (;;) {
		if (n == MAX_RANK) {
			fail(ps, "rank too large");
			return -1;
		}
		if (!num(ps, &v[n++], allow_dyn))
			return -1;
		ws(ps);
		if (*ps->p == sep) {
			ps->p++;
			continue;
		}
		if (!expect(ps, close))
			return -1;
		return n;
	}
}

static const Type *parse_type(P *ps, int depth);

static const Type *parse_scalar(P *ps)
{
	ws(ps);
	const char *q = ps->p;
	while (isalnum((unsigned char)*q))
		q++;
	ScalarKind k;
	if (q == ps->p || !scalar_from_name(ps->p, (size_t)(q - ps->p), &k)) {
		fail(ps, "unknown element type");
		return NULL;
	}
	ps->p = q;
	return type_scalar(ps->m, k);
}

/* an optional ", unicast" / ", multicast" before the closing '>' */
static PtrAttr parse_ptr_attr(P *ps)
{
	if (lit(ps, ", multicast"))
		return PTR_ATTR_MULTICAST;
	if (lit(ps, ", unicast"))
		return PTR_ATTR_UNICAST;
	return PTR_ATTR_NONE;
}

static const Type *parse_elem(P *ps, int depth)
{
	if (lit(ps, "ptr<")) {
		const Type *e = parse_scalar(ps);
		PtrAttr a = e ? parse_ptr_attr(ps) : PTR_ATTR_NONE;
		if (!e || !expect(ps, ">"))
			return NULL;
		return type_ptr_attr(ps->m, e, a);
	}
	(void)depth;
	return parse_scalar(ps);
}

static bool parse_padding(P *ps, PaddingValue *pad)
{
	for (int i = 0; i <= PAD_NEG_INF; i++)
		if (lit(ps, padding_names[i])) {
			*pad = (PaddingValue)i;
			return true;
		}
	return fail(ps, "unknown padding_value");
}

static const Type *parse_view(P *ps, TypeKind kind, int depth)
{
	int64_t tile[MAX_RANK], trav[MAX_RANK], map[MAX_RANK];
	int ntrav = 0, nmap = -1;
	int64_t sparse = 0;
	PaddingValue pad = PAD_NONE;
	if (!expect(ps, "tile=("))
		return NULL;
	int rank = dims_then(ps, tile, false);
	if (rank < 0)
		return NULL;
	/* last dim has no trailing 'x' */
	if (rank == MAX_RANK) {
		fail(ps, "rank too large");
		return NULL;
	}
	if (!num(ps, &tile[rank++], false) || !expect(ps, ")"))
		return NULL;
	if (kind == TY_STRIDED_VIEW) {
		if (!expect(ps, ",") || !expect(ps, "traversal_strides=[") ||
		    (ntrav = list(ps, trav, ',', "]", false)) < 0)
			return NULL;
	}
	if (!expect(ps, ","))
		return NULL;
	if (lit(ps, "padding_value=")) {
		if (!parse_padding(ps, &pad) || !expect(ps, ","))
			return NULL;
	}
	const Type *tv = parse_type(ps, depth + 1);
	if (!tv)
		return NULL;
	if (tv->kind != TY_TENSOR_VIEW) {
		fail(ps, "a view must be built on a tensor_view");
		return NULL;
	}
	if (lit(ps, ",")) {
		if (kind == TY_GATHER_SCATTER_VIEW) {
			if (!expect(ps, "sparse_dim=") || !num(ps, &sparse, false))
				return NULL;
		} else {
			if (!expect(ps, "dim_map=[") || (nmap = list(ps, map, ',', "]", false)) < 0)
				return NULL;
		}
	} else if (kind == TY_GATHER_SCATTER_VIEW) {
		fail(ps, "expected ', sparse_dim='");
		return NULL;
	}
	if (!expect(ps, ">"))
		return NULL;
	if (kind == TY_STRIDED_VIEW && ntrav != rank) {
		fail(ps, "traversal_strides must have one entry per tile dimension");
		return NULL;
	}
	if (nmap >= 0 && nmap != rank) {
		fail(ps, "dim_map must have one entry per tile dimension");
		return NULL;
	}
	if (sparse < 0 || sparse >= rank) {
		fail(ps, "sparse_dim out of range");
		return NULL;
	}
	const int64_t *dm = nmap >= 0 ? map : NULL;
	switch (kind) {
	case TY_PARTITION_VIEW: return type_partition_view(ps->m, rank, tile, tv, dm, pad);
	case TY_STRIDED_VIEW: return type_strided_view(ps->m, rank, tile, trav, tv, dm, pad);
	default: return type_gather_scatter_view(ps->m, rank, tile, tv, (int)sparse, pad);
	}
}

static const Type *parse_type(P *ps, int depth)
{
	if (depth > 8) {
		fail(ps, "type nested too deeply");
		return NULL;
	}
	int64_t shape[MAX_RANK], strides[MAX_RANK];
	if (lit(ps, "tile<")) {
		int rank = dims_then(ps, shape, false);
		if (rank < 0)
			return NULL;
		const Type *e = parse_elem(ps, depth);
		if (!e || !expect(ps, ">"))
			return NULL;
		return type_tile(ps->m, e, rank, shape);
	}
	if (lit(ps, "tensor_view<")) {
		int rank = dims_then(ps, shape, true);
		if (rank < 0)
			return NULL;
		const Type *e = parse_scalar(ps);
		if (!e)
			return NULL;
		if (rank) {
			int ns;
			if (!expect(ps, ",") || !expect(ps, "strides=[") ||
			    (ns = list(ps, strides, ',', "]", true)) < 0)
				return NULL;
			if (ns != rank) {
				fail(ps, "strides must have one entry per dimension");
				return NULL;
			}
		}
		PtrAttr a = parse_ptr_attr(ps);
		if (!expect(ps, ">"))
			return NULL;
		return type_tensor_view_attr(ps->m, e, rank, shape, strides, a);
	}
	if (lit(ps, "partition_view<"))
		return parse_view(ps, TY_PARTITION_VIEW, depth);
	if (lit(ps, "strided_view<"))
		return parse_view(ps, TY_STRIDED_VIEW, depth);
	if (lit(ps, "gather_scatter_view<"))
		return parse_view(ps, TY_GATHER_SCATTER_VIEW, depth);
	if (lit(ps, "token"))
		return type_token(ps->m);
	if (lit(ps, "(")) {
		/* no fixed cap: a kernel gets one input per array pointer, shape
		 * and stride, so real kernels have hundreds */
		const Type **io[2] = { NULL, NULL };
		int n[2] = { 0, 0 }, cap[2] = { 0, 0 };
		const Type *result = NULL;
		for (int side = 0; side < 2; side++) {
			if (side && (!expect(ps, "->") || !expect(ps, "(")))
				goto out;
			if (lit(ps, ")"))
				continue;
			for (;;) {
				const Type *t = parse_type(ps, depth + 1);
				if (!t)
					goto out;
				if (t->kind == TY_FUNC) {
					fail(ps, "function types cannot nest");
					goto out;
				}
				if (n[side] == cap[side]) {
					cap[side] = cap[side] ? 2 * cap[side] : 16;
					const Type **p = xrealloc(io[side], sizeof *p * (size_t)cap[side]);
					io[side] = p;
				}
				io[side][n[side]++] = t;
				if (lit(ps, ","))
					continue;
				if (!expect(ps, ")"))
					goto out;
				break;
			}
		}
		result = type_func(ps->m, n[0], io[0], n[1], io[1]);
	out:
		free(io[0]);
		free(io[1]);
		return result;
	}
	return parse_elem(ps, depth);
}

const Type *type_parse(Module *m, const char *s, const char **err)
{
	P ps = { m, s, s, NULL };
	const Type *t = parse_type(&ps, 0);
	if (t) {
		ws(&ps);
		if (*ps.p) {
			fail(&ps, "trailing characters after type");
			t = NULL;
		}
	}
	if (t && strcmp(t->str, s) != 0) {
		/* accepted, but not spelled canonically: strict readers refuse it,
		 * and say what the one spelling is */
		if (err)
			*err = arena_printf(m->arena, "type is not in canonical spelling (it is '%s')", t->str);
		return NULL;
	}
	if (!t && err)
		*err = arena_printf(m->arena, "%s at column %d", ps.err ? ps.err : "bad type",
				    (int)(ps.p - s) + 1);
	return t;
}
