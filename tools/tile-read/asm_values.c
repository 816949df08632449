/* asm_values.c: types, attributes and constants in the cuda_tile assembly
 * syntax (asm.h), byte for byte as NVIDIA's tileirdisasm 13.5 prints them:
 * types without the !cuda_tile. prefix, MLIR's attribute spellings, dense
 * constants as <f32: 1.000000e+00> (floats by asm_float.c) and the
 * constants' SSA names. Read-only over the IR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"
#include "print.h"

/* ------------------------------------------------------------------ types */

static void put_dims32(StrBuf *b, int n, const int64_t *v, const char *sep)
{
	for (int i = 0; i < n; i++)
		sb_printf(b, "%s%lld", i ? sep : "", (long long)v[i]);
}

static void put_ptr_attr(StrBuf *b, PtrAttr a)
{
	if (a != PTR_ATTR_NONE)
		sb_printf(b, ", #cuda_tile.ptr_attr<%s>", ptr_attr_name(a));
}

/* ptr<f32, <multicast>>: the pointer's own attribute prints stripped */

static bool identity_map(int n, const int64_t *m)
{
	if (!m)
		return true;
	for (int i = 0; i < n; i++)
		if (m[i] != i)
			return false;
	return true;
}

static void put_view_tail(StrBuf *b, const Type *t)
{
	if (t->padding != PAD_NONE)
		sb_printf(b, "padding_value = %s, ", padding_name(t->padding));
	asm_type(b, t->view);
}

void asm_type(StrBuf *b, const Type *t)
{
	switch (t->kind) {
	case TY_SCALAR: sb_puts(b, scalar_name(t->scalar)); return;
	case TY_TOKEN: sb_puts(b, "token"); return;
	case TY_PTR:
		sb_puts(b, "ptr<");
		asm_type(b, t->elem);
		if (t->ptr_attr != PTR_ATTR_NONE)
			sb_printf(b, ", <%s>", ptr_attr_name(t->ptr_attr));
		sb_putc(b, '>');
		return;
	case TY_TILE:
		sb_puts(b, "tile<");
		for (int i = 0; i < t->rank; i++)
			sb_printf(b, "%lldx", (long long)t->shape[i]);
		asm_type(b, t->elem);
		sb_putc(b, '>');
		return;
	case TY_TENSOR_VIEW:
		sb_puts(b, "tensor_view<");
		for (int i = 0; i < t->rank; i++) {
			if (t->shape[i] == DYN_DIM)
				sb_puts(b, "?x");
			else
				sb_printf(b, "%lldx", (long long)t->shape[i]);
		}
		asm_type(b, t->elem);
		if (t->rank) {
			sb_puts(b, ", strides=[");
			for (int i = 0; i < t->rank; i++) {
				if (i)
					sb_putc(b, ',');
				if (t->strides[i] == DYN_DIM)
					sb_putc(b, '?');
				else
					sb_printf(b, "%lld", (long long)t->strides[i]);
			}
			sb_putc(b, ']');
		}
		put_ptr_attr(b, t->ptr_attr);
		sb_putc(b, '>');
		return;
	case TY_PARTITION_VIEW:
		sb_puts(b, "partition_view<tile=(");
		put_dims32(b, t->rank, t->shape, "x");
		sb_puts(b, "), ");
		put_view_tail(b, t);
		if (!identity_map(t->rank, t->dim_map)) {
			sb_puts(b, ", dim_map=[");
			put_dims32(b, t->rank, t->dim_map, ", ");
			sb_putc(b, ']');
		}
		sb_putc(b, '>');
		return;
	case TY_STRIDED_VIEW:
		sb_puts(b, "strided_view<tile=(");
		put_dims32(b, t->rank, t->shape, "x");
		sb_puts(b, "), traversal_strides=[");
		put_dims32(b, t->rank, t->strides, ",");
		sb_puts(b, "], ");
		put_view_tail(b, t);
		if (!identity_map(t->rank, t->dim_map)) {
			sb_puts(b, ", dim_map=[");
			put_dims32(b, t->rank, t->dim_map, ", ");
			sb_putc(b, ']');
		}
		sb_putc(b, '>');
		return;
	case TY_GATHER_SCATTER_VIEW:
		sb_puts(b, "gather_scatter_view<tile=(");
		put_dims32(b, t->rank, t->shape, "x");
		sb_puts(b, "), ");
		put_view_tail(b, t);
		sb_printf(b, ", sparse_dim=%d>", t->sparse_dim);
		return;
	case TY_FUNC:
		sb_putc(b, '(');
		for (int i = 0; i < t->nin; i++) {
			if (i)
				sb_puts(b, ", ");
			asm_type(b, t->ins[i]);
		}
		sb_puts(b, ") -> (");
		for (int i = 0; i < t->nout; i++) {
			if (i)
				sb_puts(b, ", ");
			asm_type(b, t->outs[i]);
		}
		sb_putc(b, ')');
		return;
	}
}

/* ------------------------------------------------------------------ attributes */

void asm_string(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			sb_puts(b, "\\\\");
		else if (*p >= 0x20 && *p < 0x7f && *p != '"')
			sb_putc(b, (char)*p);
		else
			sb_printf(b, "\\%02X", *p);
	}
	sb_putc(b, '"');
}

static bool bare_identifier(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '$' || *p == '.'))
			return false;
	return true;
}

void asm_symbol(StrBuf *b, const char *name)
{
	sb_putc(b, '@');
	if (bare_identifier(name))
		sb_puts(b, name);
	else
		asm_string(b, name);
}

/* How an attribute named in a declarative format prints, when not as
 * asm_attr prints it: our string attributes are enums (bare) unless listed. */
enum { AS_STRING = 1, AS_SYMBOL, AS_ENUM_ATTR, AS_HINTS };
static const struct { const char *attr; int style; } attr_styles[] = {
	{ "message", AS_STRING },             /* StrAttr: "..." */
	{ "str", AS_STRING },
	{ "name", AS_SYMBOL },                /* FlatSymbolRefAttr, SymbolNameAttr: @name */
	{ "sym_name", AS_SYMBOL },
	{ "overflow", AS_ENUM_ATTR },         /* EnumAttr with its own `<$value>` format */
	{ "rounding", AS_ENUM_ATTR },
	{ "optimization_hints", AS_HINTS },   /* OptimizationHintsAttr: <sm_100 = {...}> */
};

void asm_hints(StrBuf *b, const Attr *a)
{
	sb_putc(b, '<');
	for (int i = 0; a && a->kind == AT_DICT && i < a->u.dict.n; i++) {
		sb_printf(b, "%s%s = ", i ? ", " : "", a->u.dict.v[i].name);
		asm_attr(b, a->u.dict.v[i].attr, false);
	}
	sb_putc(b, '>');
}

void asm_format_attr(StrBuf *b, const char *name, const Attr *a)
{
	int style = 0;
	for (size_t i = 0; i < sizeof attr_styles / sizeof attr_styles[0]; i++)
		if (strcmp(attr_styles[i].attr, name) == 0)
			style = attr_styles[i].style;
	if (style == AS_HINTS) {
		asm_hints(b, a);
		return;
	}
	if (a->kind != AT_STRING) {
		asm_attr(b, a, true);
		return;
	}
	switch (style) {
	case AS_STRING: asm_string(b, a->u.s); return;
	case AS_SYMBOL: asm_symbol(b, a->u.s); return;
	case AS_ENUM_ATTR: sb_printf(b, "<%s>", asm_enum(name, a->u.s)); return;
	default: sb_puts(b, asm_enum(name, a->u.s)); return;
	}
}

static const struct { const char *attr, *ours, *mlir; } enum_names[] = {
	{ "overflow", "nsw", "no_signed_wrap" },
	{ "overflow", "nuw", "no_unsigned_wrap" },
	{ "overflow", "nw", "no_wrap" },
};

const char *asm_enum(const char *attr_name, const char *s)
{
	for (size_t i = 0; i < sizeof enum_names / sizeof enum_names[0]; i++)
		if (strcmp(enum_names[i].attr, attr_name) == 0 && strcmp(enum_names[i].ours, s) == 0)
			return enum_names[i].mlir;
	return s;
}

void asm_attr(StrBuf *b, const Attr *a, bool with_type)
{
	switch (a->kind) {
	case AT_INT:
		if (a->type && a->type->kind == TY_SCALAR && a->type->scalar == SC_I1) {
			sb_puts(b, a->u.i ? "true" : "false");
			return;
		}
		sb_printf(b, "%lld", (long long)a->u.i);
		if (with_type && a->type && !(a->type->kind == TY_SCALAR && a->type->scalar == SC_I64))
			sb_printf(b, " : %s", a->type->str);
		return;
	case AT_FLOAT: {
		/* FloatAttr leaves out f64 unless the value went out in hex */
		size_t at = b->len;
		asm_float(b, a->type->scalar, a->u.bits);
		bool hex = b->len > at + 1 && b->s[at] == '0' && b->s[at + 1] == 'x';
		if (with_type && (a->type->scalar != SC_F64 || hex))
			sb_printf(b, " : %s", a->type->str);
		return;
	}
	case AT_BOOL: sb_puts(b, a->u.i ? "true" : "false"); return;
	case AT_STRING: asm_string(b, a->u.s); return;
	case AT_TYPE: asm_type(b, a->type); return;
	case AT_INTS:
		sb_putc(b, '[');
		for (int i = 0; i < a->u.ints.n; i++)
			sb_printf(b, "%s%lld", i ? ", " : "", (long long)a->u.ints.v[i]);
		sb_putc(b, ']');
		return;
	case AT_ARRAY:
		sb_putc(b, '[');
		for (int i = 0; i < a->u.array.n; i++) {
			if (i)
				sb_puts(b, ", ");
			asm_attr(b, a->u.array.v[i], true);
		}
		sb_putc(b, ']');
		return;
	case AT_DICT:
		sb_putc(b, '{');
		for (int i = 0; i < a->u.dict.n; i++) {
			sb_printf(b, "%s%s = ", i ? ", " : "", a->u.dict.v[i].name);
			asm_attr(b, a->u.dict.v[i].attr, with_type);
		}
		sb_putc(b, '}');
		return;
	case AT_DENSE:
		asm_dense(b, a, a->type);
		return;
	case AT_DIV_BY: case AT_SAME_ELEMENTS: case AT_BOUNDED:
		print_assumption(b, a);
		return;
	}
}

/* ------------------------------------------------------------------ dense constants */

static uint64_t elem_bits(const Attr *d, size_t i, size_t width)
{
	uint64_t v = 0;
	const uint8_t *p = d->u.dense.bytes + (d->u.dense.splat ? 0 : i * width);
	for (size_t k = 0; k < width && k < 8; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

static void put_elem(StrBuf *b, ScalarKind k, uint64_t bits)
{
	int nb = scalar_bits(k);
	if (scalar_is_float(k)) {
		if (nb < 64)
			bits &= (1ull << nb) - 1;
		asm_float(b, k, bits);
	} else if (k == SC_I1) {
		sb_puts(b, bits & 1 ? "true" : "false");
	} else {
		int64_t v = (int64_t)bits;
		if (nb < 64)
			v = (int64_t)(bits << (64 - nb)) >> (64 - nb);
		sb_printf(b, "%lld", (long long)v);
	}
}

/* all elements equal (MLIR keeps such dense data as a splat) */
static bool all_same(const Attr *d, size_t n, size_t width)
{
	if (d->u.dense.splat)
		return true;
	for (size_t i = 1; i < n; i++)
		if (memcmp(d->u.dense.bytes, d->u.dense.bytes + i * width, width))
			return false;
	return true;
}

void asm_dense(StrBuf *b, const Attr *d, const Type *tile)
{
	ScalarKind k = tile->elem->scalar;
	size_t width = (size_t)(scalar_bits(k) + 7) / 8;
	size_t n = (size_t)type_num_elements(tile);
	sb_printf(b, "<%s: ", scalar_name(k));
	if (all_same(d, n, width)) {
		put_elem(b, k, elem_bits(d, 0, width));
	} else if (n > 100) {
		sb_puts(b, "\"0x");
		for (size_t i = 0; i < d->u.dense.n; i++)
			sb_printf(b, "%02X", d->u.dense.bytes[i]);
		sb_putc(b, '"');
	} else {
		int rank = tile->rank;
		int64_t counter[16] = {0};
		int open = 0;
		for (size_t i = 0; i < n; i++) {
			if (i)
				sb_puts(b, ", ");
			while (open++ < rank)
				sb_putc(b, '[');
			open = rank;
			put_elem(b, k, elem_bits(d, i, width));
			counter[rank - 1]++;
			for (int j = rank - 1; j > 0; j--)
				if (counter[j] >= tile->shape[j]) {
					counter[j] = 0;
					counter[j - 1]++;
					open--;
					sb_putc(b, ']');
				}
		}
		while (open-- > 0)
			sb_putc(b, ']');
	}
	sb_puts(b, "> : ");
	asm_type(b, tile);
}

const char *asm_constant_name(Arena *a, const Attr *d)
{
	const Type *tile = d->type;
	ScalarKind k = tile->elem->scalar;
	size_t width = (size_t)(scalar_bits(k) + 7) / 8;
	size_t n = (size_t)type_num_elements(tile);
	bool same = all_same(d, n, width);
	if (k == SC_I1) {
		bool any1 = false, any0 = false;
		for (size_t i = 0; i < (d->u.dense.splat ? 1 : n); i++) {
			if (elem_bits(d, i, width) & 1)
				any1 = true;
			else
				any0 = true;
		}
		return any1 && !any0 ? "true" : !any1 ? "false" : "cst_i1";
	}
	StrBuf s = {0};
	sb_puts(&s, "cst");
	if (same) {
		uint64_t bits = elem_bits(d, 0, width);
		int nb = scalar_bits(k);
		if (!scalar_is_float(k)) {
			int64_t v = (int64_t)bits;
			if (nb < 64)
				v = (int64_t)(bits << (64 - nb)) >> (64 - nb);
			sb_printf(&s, "_%lld", (long long)v);
		} else {
			sb_puts(&s, asm_float_name_part(k, bits));
		}
	}
	sb_printf(&s, "_%s", scalar_name(k));
	const char *r = arena_strdup(a, sb_cstr(&s));
	sb_free(&s);
	return r;
}
