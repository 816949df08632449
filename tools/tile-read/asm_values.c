/* asm_values.c: types, attributes and constants in the cuda_tile assembly
 * syntax (asm.h), byte for byte as NVIDIA's tileirdisasm 13.5 prints them:
 * types without the !cuda_tile. prefix, MLIR's attribute spellings, dense
 * constants as <f32: 1.000000e+00>, and floats as LLVM's
 * APFloat::toString and MLIR's printFloatValue write them (six digits in
 * exponent form when that reads back to the same bits, else the shortest
 * natural precision, else the bits in hex). Read-only over the IR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"

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

/* ------------------------------------------------------------------ floats */

/* A float format as APFloat sees it: precision counts the integer bit. */
typedef struct FloatSem {
	int ebits, mbits, bias, precision;
	bool has_sign, ieee_special;   /* ieee_special: all-ones exponent is inf/NaN */
} FloatSem;

static bool float_sem(ScalarKind k, FloatSem *s)
{
	switch (k) {
	case SC_F16: *s = (FloatSem){ 5, 10, 15, 11, true, true }; return true;
	case SC_BF16: *s = (FloatSem){ 8, 7, 127, 8, true, true }; return true;
	case SC_F32: *s = (FloatSem){ 8, 23, 127, 24, true, true }; return true;
	case SC_TF32: *s = (FloatSem){ 8, 10, 127, 11, true, true }; return true;
	case SC_F64: *s = (FloatSem){ 11, 52, 1023, 53, true, true }; return true;
	case SC_F8E5M2: *s = (FloatSem){ 5, 2, 15, 3, true, true }; return true;
	case SC_F8E4M3FN: *s = (FloatSem){ 4, 3, 7, 4, true, false }; return true;
	case SC_F4E2M1FN: *s = (FloatSem){ 2, 1, 1, 2, true, false }; return true;
	case SC_F8E8M0FNU: *s = (FloatSem){ 8, 0, 127, 1, false, false }; return true;
	default: return false;
	}
}

enum { FC_ZERO, FC_NORMAL, FC_INF, FC_NAN };

/* value = sig * 2^exp (sig < 2^precision) */
typedef struct FloatVal { int cat; bool neg; uint64_t sig; int exp; } FloatVal;

static FloatVal float_decode(const FloatSem *s, uint64_t bits)
{
	FloatVal v = { FC_NORMAL, false, 0, 0 };
	uint64_t mmask = s->mbits ? (1ull << s->mbits) - 1 : 0;
	uint64_t emask = (1ull << s->ebits) - 1;
	uint64_t m = bits & mmask, e = bits >> s->mbits & emask;
	if (s->has_sign)
		v.neg = bits >> (s->mbits + s->ebits) & 1;
	if (!s->has_sign) {                        /* E8M0: 2^(e-127), 0xFF NaN */
		if (e == emask)
			v.cat = FC_NAN;
		v.sig = 1;
		v.exp = (int)e - s->bias;
		return v;
	}
	if (s->ieee_special && e == emask) {
		v.cat = m ? FC_NAN : FC_INF;
		return v;
	}
	if (!s->ieee_special && s->ebits == 4 && e == emask && m == mmask) {  /* E4M3FN NaN */
		v.cat = FC_NAN;
		return v;
	}
	if (e == 0) {
		if (m == 0) {
			v.cat = FC_ZERO;
			return v;
		}
		v.sig = m;
		v.exp = 1 - s->bias - s->mbits;
		return v;
	}
	v.sig = m | (1ull << s->mbits);
	v.exp = (int)e - s->bias - s->mbits;
	return v;
}

static double float_value(const FloatVal *v)
{
	switch (v->cat) {
	case FC_ZERO: return v->neg ? -0.0 : 0.0;
	case FC_INF: return v->neg ? -INFINITY : INFINITY;
	case FC_NAN: return NAN;
	}
	double d = ldexp((double)v->sig, v->exp);
	return v->neg ? -d : d;
}

/* A big unsigned integer, enough for f64's 2^1074 scale (5^1074 ~ 2^2494). */
#define BIG_LIMBS 96
typedef struct Big { uint32_t l[BIG_LIMBS]; int n; } Big;

static void big_set(Big *a, uint64_t v)
{
	memset(a, 0, sizeof *a);
	a->l[0] = (uint32_t)v;
	a->l[1] = (uint32_t)(v >> 32);
	a->n = a->l[1] ? 2 : a->l[0] ? 1 : 0;
}

static void big_mul_small(Big *a, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < a->n; i++) {
		uint64_t t = (uint64_t)a->l[i] * m + carry;
		a->l[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry && a->n < BIG_LIMBS)
		a->l[a->n++] = (uint32_t)carry;
}

static void big_shl(Big *a, int k)
{
	while (k >= 32 && a->n) {
		memmove(a->l + 1, a->l, (size_t)(BIG_LIMBS - 1) * sizeof a->l[0]);
		a->l[0] = 0;
		if (a->n < BIG_LIMBS)
			a->n++;
		k -= 32;
	}
	if (k && a->n) {
		uint32_t carry = 0;
		for (int i = 0; i < a->n; i++) {
			uint32_t nc = a->l[i] >> (32 - k);
			a->l[i] = a->l[i] << k | carry;
			carry = nc;
		}
		if (carry && a->n < BIG_LIMBS)
			a->l[a->n++] = carry;
	}
}

static uint32_t big_divmod_small(Big *a, uint32_t d)
{
	uint64_t rem = 0;
	for (int i = a->n - 1; i >= 0; i--) {
		uint64_t cur = rem << 32 | a->l[i];
		a->l[i] = (uint32_t)(cur / d);
		rem = cur % d;
	}
	while (a->n && !a->l[a->n - 1])
		a->n--;
	return (uint32_t)rem;
}

static unsigned big_active_bits(const Big *a)
{
	if (!a->n)
		return 0;
	uint32_t top = a->l[a->n - 1];
	unsigned bits = 0;
	while (top) {
		bits++;
		top >>= 1;
	}
	return (unsigned)(a->n - 1) * 32 + bits;
}

/* APFloat's toStringImpl for a finite non-zero value */
static void apfloat_to_string(StrBuf *out, const FloatVal *v, int sem_precision,
			      unsigned fprec, unsigned max_pad, bool trunc_zero)
{
	if (v->neg)
		sb_putc(out, '-');
	if (!fprec)
		fprec = 2 + (unsigned)sem_precision * 59 / 196;
	uint64_t sig = v->sig;
	int exp = v->exp;
	while (!(sig & 1)) {
		sig >>= 1;
		exp++;
	}
	Big n;
	big_set(&n, sig);
	if (exp > 0) {
		big_shl(&n, exp);
		exp = 0;
	} else if (exp < 0) {
		for (int i = 0; i < -exp; i++)
			big_mul_small(&n, 5);
	}
	/* AdjustToPrecision on the integer: drop whole tens we cannot print */
	unsigned bits = big_active_bits(&n);
	unsigned required = (fprec * 196 + 58) / 59;
	if (bits > required) {
		unsigned tens = (bits - required) * 59 / 196;
		exp += (int)tens;
		for (unsigned i = 0; i < tens; i++)
			big_divmod_small(&n, 10);
	}
	char buf[1024];               /* digits, least significant first */
	unsigned nd = 0;
	bool in_trail = true;
	while (n.n && nd < sizeof buf) {
		unsigned d = big_divmod_small(&n, 10);
		if (in_trail && !d) {
			exp++;
		} else {
			buf[nd++] = (char)('0' + d);
			in_trail = false;
		}
	}
	/* AdjustToPrecision on the digits: round half up */
	if (nd > fprec) {
		unsigned first = nd - fprec;
		if (buf[first - 1] < '5') {
			while (first < nd && buf[first] == '0')
				first++;
		} else {
			unsigned i;
			for (i = first; i != nd; i++) {
				if (buf[i] == '9') {
					first++;
				} else {
					buf[i]++;
					break;
				}
			}
			if (first == nd) {
				exp += (int)first;
				buf[0] = '1';
				nd = 1;
				goto digits_done;
			}
		}
		exp += (int)first;
		memmove(buf, buf + first, nd - first);
		nd -= first;
	}
digits_done:;
	bool sci;
	if (!max_pad) {
		sci = true;
	} else if (exp >= 0) {
		sci = (unsigned)exp > max_pad || nd + (unsigned)exp > fprec;
	} else {
		int msd = exp + (int)(nd - 1);
		sci = msd >= 0 ? false : (unsigned)-msd > max_pad;
	}
	if (sci) {
		exp += (int)(nd - 1);
		sb_putc(out, buf[nd - 1]);
		sb_putc(out, '.');
		if (nd == 1 && trunc_zero)
			sb_putc(out, '0');
		else
			for (unsigned i = 1; i != nd; i++)
				sb_putc(out, buf[nd - 1 - i]);
		if (!trunc_zero && fprec > nd - 1)
			for (unsigned i = 0; i < fprec - nd + 1; i++)
				sb_putc(out, '0');
		sb_putc(out, trunc_zero ? 'E' : 'e');
		sb_putc(out, exp >= 0 ? '+' : '-');
		if (exp < 0)
			exp = -exp;
		if (!trunc_zero && exp < 10)
			sb_putc(out, '0');
		sb_printf(out, "%d", exp);
		return;
	}
	if (exp >= 0) {
		for (unsigned i = 0; i != nd; i++)
			sb_putc(out, buf[nd - 1 - i]);
		for (int i = 0; i < exp; i++)
			sb_putc(out, '0');
		return;
	}
	int whole = exp + (int)nd;
	unsigned i = 0;
	if (whole > 0) {
		for (; i != (unsigned)whole; i++)
			sb_putc(out, buf[nd - i - 1]);
		sb_putc(out, '.');
	} else {
		sb_puts(out, "0.");
		for (int z = 1; z != 1 - whole; z++)
			sb_putc(out, '0');
	}
	for (; i != nd; i++)
		sb_putc(out, buf[nd - i - 1]);
}

/* Does the decimal text s read back (round to nearest even) as bits? */
static bool reads_back(ScalarKind k, const FloatSem *s, uint64_t bits, const char *text)
{
	if (k == SC_F32) {
		float f = strtof(text, NULL);
		uint32_t u;
		memcpy(&u, &f, sizeof u);
		return u == (uint32_t)bits;
	}
	if (k == SC_F64) {
		double d = strtod(text, NULL);
		uint64_t u;
		memcpy(&u, &d, sizeof u);
		return u == bits;
	}
	/* small formats: every value and midpoint is exact in a double; compare
	 * the parsed double against the midpoints to the neighbours */
	double x = strtod(text, NULL);
	FloatVal v = float_decode(s, bits);
	double dv = float_value(&v);
	if (x == dv)
		return !(x == 0 && signbit(x) != signbit(dv));
	int total = s->ebits + s->mbits + (s->has_sign ? 1 : 0);
	uint64_t mag_mask = (s->has_sign ? (1ull << (total - 1)) : (1ull << total)) - 1;
	uint64_t mag = bits & mag_mask, sign = bits & ~mag_mask;
	if (x < 0 ? !v.neg && dv != 0 : v.neg)
		return false;
	double ax = fabs(x), adv = fabs(dv);
	/* the neighbours of |v|; past the largest finite value, one more step */
	double adown = 0;
	if (mag) {
		FloatVal dn = float_decode(s, sign | (mag - 1));
		adown = fabs(float_value(&dn));
	}
	FloatVal up = float_decode(s, sign | (mag + 1));
	double aup = mag + 1 <= mag_mask && up.cat == FC_NORMAL ? fabs(float_value(&up)) : 2 * adv - adown;
	double hi = (adv + aup) / 2, lo = (adv + adown) / 2;
	bool even = !(mag & 1);
	if (ax > lo && ax < hi)
		return true;
	if ((ax == lo && mag) || ax == hi)
		return even;
	return false;
}

void asm_float(StrBuf *b, ScalarKind k, uint64_t bits)
{
	FloatSem s;
	if (!float_sem(k, &s)) {
		sb_printf(b, "0x%llX", (unsigned long long)bits);
		return;
	}
	FloatVal v = float_decode(&s, bits);
	if (v.cat == FC_ZERO) {
		sb_puts(b, v.neg ? "-0.000000e+00" : "0.000000e+00");
		return;
	}
	if (v.cat == FC_NORMAL) {
		StrBuf t = {0};
		apfloat_to_string(&t, &v, s.precision, 6, 0, false);
		if (reads_back(k, &s, bits, sb_cstr(&t))) {
			sb_puts(b, sb_cstr(&t));
			sb_free(&t);
			return;
		}
		t.len = 0;
		apfloat_to_string(&t, &v, s.precision, 0, 3, true);
		if (strchr(sb_cstr(&t), '.')) {
			sb_puts(b, sb_cstr(&t));
			sb_free(&t);
			return;
		}
		sb_free(&t);
	}
	sb_printf(b, "0x%llX", (unsigned long long)bits);
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
	case AT_DIV_BY:
		sb_printf(b, "div_by<%lld", (long long)a->u.div_by.divisor);
		if (a->u.div_by.has_every)
			sb_printf(b, ", every %lld along %lld", (long long)a->u.div_by.every,
				  (long long)a->u.div_by.along);
		sb_putc(b, '>');
		return;
	case AT_SAME_ELEMENTS:
		sb_puts(b, "same_elements<[");
		for (int i = 0; i < a->u.ints.n; i++)
			sb_printf(b, "%s%lld", i ? ", " : "", (long long)a->u.ints.v[i]);
		sb_puts(b, "]>");
		return;
	case AT_BOUNDED:
		sb_puts(b, "bounded<");
		if (a->u.bounded.has_lb)
			sb_printf(b, "%lld", (long long)a->u.bounded.lb);
		else
			sb_putc(b, '?');
		sb_puts(b, ", ");
		if (a->u.bounded.has_ub)
			sb_printf(b, "%lld", (long long)a->u.bounded.ub);
		else
			sb_putc(b, '?');
		sb_putc(b, '>');
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
		FloatSem fs;
		if (!scalar_is_float(k)) {
			int64_t v = (int64_t)bits;
			if (nb < 64)
				v = (int64_t)(bits << (64 - nb)) >> (64 - nb);
			sb_printf(&s, "_%lld", (long long)v);
		} else if (float_sem(k, &fs)) {
			if (nb < 64)
				bits &= (1ull << nb) - 1;
			FloatVal v = float_decode(&fs, bits);
			if (v.cat == FC_NAN) {
				sb_puts(&s, "_NaN");
			} else if (v.cat == FC_ZERO) {
				if (!v.neg)
					sb_puts(&s, "_0");
			} else if (v.cat == FC_NORMAL && !v.neg) {
				/* convertToInteger(64 bits, unsigned, toward zero): exact only
				 * for whole numbers below 2^64 */
				double dv = float_value(&v);
				if (dv == floor(dv) && dv < 18446744073709551616.0)
					sb_printf(&s, "_%llu", (unsigned long long)dv);
			}
		}
	}
	sb_printf(&s, "_%s", scalar_name(k));
	const char *r = arena_strdup(a, sb_cstr(&s));
	sb_free(&s);
	return r;
}
