/* asm_pattr.c: attributes in the dialect's text (asm_parse.h), as
 * asm_values.c prints them: integers and floats with an optional
 * ": type", true/false, strings, types, [arrays] (untyped integers only:
 * a dense integer array), {dictionaries}, dense constants
 * <f32: [1.0, 2.0]> : tile<2xf32> (or their bytes "0x..."), the assume
 * predicates, optimization hints <sm_100 = {occupancy = 2}>,
 * #cuda_tile.kind<word> enums, and bare enum words checked against
 * enums.def. Floats are read as the format's nearest value (ties to even). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "xalloc.h"
#include "reader.h"

/* ------------------------------------------------------------ floats */

/* v in the float format of k, rounded to nearest even; false when out of range */
static bool round_to(ScalarKind k, double v, uint64_t *bits)
{
	if (k == SC_F64) {
		memcpy(bits, &v, 8);
		return true;
	}
	AsmFloatSem s;
	if (!asm_float_sem(k, &s))
		return false;
	uint64_t sign = signbit(v) ? 1 : 0;
	double a = fabs(v);
	if (sign && !s.has_sign && a != 0)
		return false;
	if (!s.has_sign)
		sign = 0;
	int sh = s.ebits + s.mbits;
	uint64_t emax = (1ull << s.ebits) - 1;
	if (isnan(v)) {
		if (s.nan == 0)
			return false;
		*bits = sign << sh | emax << s.mbits |
			(s.nan == 1 ? (s.mbits ? 1ull << (s.mbits - 1) : 0) : (1ull << s.mbits) - 1);
		return true;
	}
	if (isinf(v)) {
		if (s.nan != 1)
			return false;
		*bits = sign << sh | emax << s.mbits;
		return true;
	}
	if (a == 0) {
		*bits = sign << sh;
		return true;
	}
	int e;
	frexp(a, &e);
	int E = e - 1;                         /* a = 1.f * 2^E */
	int64_t biased = E + s.bias;
	uint64_t m;
	double one = ldexp(1.0, s.mbits);
	if (biased >= 1) {
		double r = nearbyint(ldexp(a, s.mbits - E));
		if (r >= 2 * one) {
			r = one;
			biased++;
		}
		m = (uint64_t)(r - one);
	} else {
		double r = nearbyint(ldexp(a, s.mbits - (1 - s.bias)));
		if (r >= one) {
			biased = 1;
			m = (uint64_t)(r - one);
		} else {
			biased = 0;
			m = (uint64_t)r;
		}
	}
	/* the largest finite value: below the all-ones exponent (IEEE), or all
	 * ones but the NaN pattern (FN, FNU), or everything (no NaN) */
	if (s.nan == 1 && (uint64_t)biased >= emax)
		return false;
	if ((uint64_t)biased > emax || (s.nan == 2 && (uint64_t)biased == emax && m == (1ull << s.mbits) - 1))
		return false;
	*bits = sign << sh | (uint64_t)biased << s.mbits | m;
	return true;
}

/* a number token: [-]digits[.digits][e[+-]digits] or 0x hex, or inf/nan */
static size_t number_len(Parser *P, bool *is_float, bool *hex)
{
	ps_ws(P);
	const char *p = P->p, *e = P->end;
	size_t i = 0;
	*is_float = *hex = false;
	if (p + i < e && (p[i] == '-' || p[i] == '+'))
		i++;
	if (p + i + 1 < e && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X')) {
		*hex = true;
		i += 2;
		size_t d = i;
		while (p + i < e && isxdigit((unsigned char)p[i]))
			i++;
		return i > d ? i : 0;
	}
	size_t d = i;
	while (p + i < e && isdigit((unsigned char)p[i]))
		i++;
	if (i == d)
		return 0;
	if (p + i < e && p[i] == '.') {
		*is_float = true;
		i++;
		while (p + i < e && isdigit((unsigned char)p[i]))
			i++;
	}
	if (p + i < e && (p[i] == 'e' || p[i] == 'E')) {
		size_t j = i + 1;
		if (p + j < e && (p[j] == '-' || p[j] == '+'))
			j++;
		if (p + j < e && isdigit((unsigned char)p[j])) {
			*is_float = true;
			i = j;
			while (p + i < e && isdigit((unsigned char)p[i]))
				i++;
		}
	}
	return i;
}

/* the number at P->p (number_len long) as float bits of kind k */
static bool float_of(Parser *P, const char *at, size_t n, bool hex, ScalarKind k, uint64_t *bits)
{
	char buf[128];
	if (n >= sizeof buf)
		return ps_fail(P, at, "number too long");
	memcpy(buf, at, n);
	buf[n] = 0;
	if (hex) {
		*bits = strtoull(buf, NULL, 16);
		int nb = scalar_bits(k);
		if (nb < 64 && *bits >> nb)
			return ps_fail(P, at, "%s does not fit in %s", buf, scalar_name(k));
		return true;
	}
	double v = strtod(buf, NULL);
	if (!round_to(k, v, bits))
		return ps_fail(P, at, "%s is out of range for %s", buf, scalar_name(k));
	return true;
}

bool ps_float_bits(Parser *P, const char *at, ScalarKind k, uint64_t *bits)
{
	bool f, hex;
	size_t n = number_len(P, &f, &hex);
	if (!n) {
		if (ps_eat_kw(P, "inf") || ps_eat_kw(P, "nan"))
			return round_to(k, at[0] == 'i' ? INFINITY : NAN, bits) ||
			       ps_fail(P, at, "'%s' has no %.3s", scalar_name(k), at);
		return ps_fail(P, P->p, "expected a number, found %s", ps_token_text(P));
	}
	if (!float_of(P, P->p, n, hex, k, bits))
		return false;
	P->p += n;
	return true;
}

/* ------------------------------------------------------------ dense constants */

typedef struct Elems { uint8_t *b; size_t n, cap, width; ScalarKind k; } Elems;

static bool dense_elem(Parser *P, Elems *e)
{
	uint64_t v = 0;
	const char *at = (ps_ws(P), P->p);
	if (e->k == SC_I1) {
		if (ps_eat_kw(P, "true"))
			v = 1;
		else if (!ps_eat_kw(P, "false")) {
			int64_t x;
			if (!ps_int(P, &x))
				return false;
			if (x != 0 && x != 1)
				return ps_fail(P, at, "an i1 is true or false, not %lld", (long long)x);
			v = (uint64_t)x;
		}
	} else if (scalar_is_float(e->k)) {
		if (!ps_float_bits(P, at, e->k, &v))
			return false;
	} else {
		int64_t x;
		if (!ps_int(P, &x))
			return false;
		int nb = scalar_bits(e->k);
		if (nb < 64 && (x < -(INT64_C(1) << (nb - 1)) || x >= (INT64_C(1) << nb)))
			return ps_fail(P, at, "%lld does not fit in %s", (long long)x, scalar_name(e->k));
		v = (uint64_t)x;
	}
	if (e->n + e->width > e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		e->b = xrealloc(e->b, e->cap);
	}
	for (size_t i = 0; i < e->width; i++)
		e->b[e->n++] = (uint8_t)(v >> (8 * i));
	return true;
}

static bool dense_list(Parser *P, Elems *e, int depth)
{
	if (depth > MAX_RANK)
		return ps_fail(P, P->p, "dense elements nested more than %d deep", MAX_RANK);
	if (!ps_eat(P, "["))
		return dense_elem(P, e);
	if (ps_eat(P, "]"))
		return true;
	do {
		if (!dense_list(P, e, depth + 1))
			return false;
	} while (ps_eat(P, ","));
	return ps_expect(P, "]");
}

static bool hex_bytes(Parser *P, Elems *e)
{
	const char *at = (ps_ws(P), P->p);
	const char *s;
	if (!ps_string(P, &s))
		return false;
	size_t n = strlen(s);
	if (n < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || n % 2)
		return ps_fail(P, at, "dense bytes must be \"0x\" and pairs of hex digits");
	e->n = e->cap = (n - 2) / 2;
	e->b = xmalloc(e->n ? e->n : 1);
	for (size_t i = 0; i < e->n; i++) {
		char h[3] = { s[2 + 2 * i], s[3 + 2 * i], 0 };
		if (!isxdigit((unsigned char)h[0]) || !isxdigit((unsigned char)h[1]))
			return ps_fail(P, at, "dense bytes must be \"0x\" and pairs of hex digits");
		e->b[i] = (uint8_t)strtol(h, NULL, 16);
	}
	return true;
}

const Attr *ps_dense(Parser *P, const Type **type)
{
	if (!ps_expect(P, "<"))
		return NULL;
	const char *kat = (ps_ws(P), P->p);
	size_t kn = ps_ident_len(P);
	ScalarKind k;
	if (!kn || !scalar_from_name(P->p, kn, &k))
		return ps_fail(P, kat, "expected an element type, found %s", ps_token_text(P)), NULL;
	P->p += kn;
	if (!ps_expect(P, ":"))
		return NULL;
	Elems e = { .width = (size_t)(scalar_bits(k) + 7) / 8, .k = k };
	const char *vat = (ps_ws(P), P->p);
	bool hex = ps_at(P, "\"");
	bool ok = hex ? hex_bytes(P, &e) : dense_list(P, &e, 0);
	const Type *t = NULL;
	const char *tat = NULL;
	if (ok && ps_expect(P, ">") && ps_expect(P, ":")) {
		tat = (ps_ws(P), P->p);
		t = ps_type(P);
	}
	const Attr *a = NULL;
	if (t) {
		size_t n = (size_t)type_num_elements(t);
		if (t->kind != TY_TILE || t->elem->kind != TY_SCALAR || t->elem->scalar != k)
			ps_fail(P, tat, "the constant's type must be a tile of %s, not '%s'", scalar_name(k), t->str);
		else if (e.n == e.width && n > 1 && !hex)
			a = attr_dense(P->m, t, e.n, e.b, true);
		else if (e.n != n * e.width)
			ps_fail(P, vat, "%zu elements for '%s' (%zu elements)", e.n / (e.width ? e.width : 1), t->str, n);
		else
			a = attr_dense(P->m, t, e.n, e.b, false);
	}
	free(e.b);
	if (a)
		*type = t;
	return a;
}

/* ------------------------------------------------------------ others */

const Attr *ps_assumption(Parser *P)
{
	const char *at = (ps_ws(P), P->p);
	int64_t a, b, c;
	if (ps_eat_kw(P, "div_by")) {
		if (!ps_expect(P, "<") || !ps_int(P, &a))
			return NULL;
		bool every = ps_eat(P, ",");
		if (every && !(ps_expect_kw(P, "every") && ps_int(P, &b) && ps_expect_kw(P, "along") && ps_int(P, &c)))
			return NULL;
		return ps_expect(P, ">") ? attr_div_by(P->m, a, every, every ? b : 0, every ? c : 0) : NULL;
	}
	if (ps_eat_kw(P, "same_elements")) {
		int64_t v[MAX_RANK];
		int n = 0;
		if (!ps_expect(P, "<") || !ps_expect(P, "["))
			return NULL;
		if (!ps_at(P, "]"))
			do {
				if (n == MAX_RANK)
					return ps_fail(P, P->p, "same_elements has more than %d entries", MAX_RANK), NULL;
				if (!ps_int(P, &v[n++]))
					return NULL;
			} while (ps_eat(P, ","));
		return ps_expect(P, "]") && ps_expect(P, ">") ? attr_same_elements(P->m, n, v) : NULL;
	}
	if (ps_eat_kw(P, "bounded")) {
		bool hl = false, hu = false;
		a = b = 0;
		if (!ps_expect(P, "<"))
			return NULL;
		if (!ps_eat(P, "?") && !(hl = ps_int(P, &a)))
			return NULL;
		if (!ps_expect(P, ","))
			return NULL;
		if (!ps_eat(P, "?") && !(hu = ps_int(P, &b)))
			return NULL;
		return ps_expect(P, ">") ? attr_bounded(P->m, hl, a, hu, b) : NULL;
	}
	return ps_fail(P, at, "expected an assume predicate (div_by, same_elements, bounded), found %s",
		       ps_token_text(P)), NULL;
}

static const Attr *named_list(Parser *P, int depth, const char *close, bool hints)
{
	NamedAttr v[256];
	int n = 0;
	const char *at = P->p;
	if (!ps_at(P, close))
		do {
			if (n == 256)
				return ps_fail(P, P->p, "more than 256 attributes in a dictionary"), NULL;
			ps_ws(P);
			const char *kat = P->p;
			const char *k;
			if (ps_at(P, "\"")) {
				if (!ps_string(P, &k))
					return NULL;
			} else if (!(k = ps_ident(P, "an attribute name"))) {
				return NULL;
			}
			for (int i = 0; i < n; i++)
				if (strcmp(v[i].name, k) == 0)
					return ps_fail(P, kat, "duplicate attribute '%s'", k), NULL;
			v[n].name = k;
			if (!hints && !ps_at(P, "=")) {
				v[n++].attr = attr_bool(P->m, true);       /* a unit attribute */
				continue;
			}
			if (!ps_expect(P, "="))
				return NULL;
			const char *vat = (ps_ws(P), P->p);
			const Attr *a = hints ? ps_dict(P, depth + 1) : ps_attr(P, depth + 1);
			if (!a)
				return NULL;
			if (hints) {
				/* untyped integers in hints are i32, as the dialect's parser makes them */
				NamedAttr w[64];
				if (a->u.dict.n > 64)
					return ps_fail(P, vat, "more than 64 hints for one target"), NULL;
				for (int i = 0; i < a->u.dict.n; i++) {
					w[i] = a->u.dict.v[i];
					if (w[i].attr->kind == AT_INT && !w[i].attr->type)
						w[i].attr = attr_int(P->m, w[i].attr->u.i, type_scalar(P->m, SC_I32));
				}
				a = attr_dict(P->m, a->u.dict.n, w);
			}
			v[n++].attr = a;
		} while (ps_eat(P, ","));
	if (!ps_expect(P, close))
		return NULL;
	const Attr *d = attr_dict(P->m, n, v);
	if (!d)
		ps_fail(P, at, "an attribute name cannot be empty");
	return d;
}

const Attr *ps_dict(Parser *P, int depth)
{
	if (depth > PS_MAX_ATTR_DEPTH)
		return ps_fail(P, P->p, "attributes nested more than %d deep", PS_MAX_ATTR_DEPTH), NULL;
	return ps_expect(P, "{") ? named_list(P, depth, "}", false) : NULL;
}

const Attr *ps_hints(Parser *P)
{
	return ps_expect(P, "<") ? named_list(P, 0, ">", true) : NULL;
}

static const Attr *array(Parser *P, int depth)
{
	const Attr **v = NULL;
	int n = 0, cap = 0;
	bool ints = true;
	const Attr *r = NULL;
	if (!ps_at(P, "]"))
		do {
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				v = xrealloc(v, sizeof *v * (size_t)cap);
			}
			if (!(v[n] = ps_attr(P, depth + 1)))
				goto out;
			ints &= v[n]->kind == AT_INT && !v[n]->type;
			n++;
		} while (ps_eat(P, ","));
	if (!ps_expect(P, "]"))
		goto out;
	if (ints && n) {
		int64_t *iv = xmalloc(sizeof *iv * (size_t)n);
		for (int i = 0; i < n; i++)
			iv[i] = v[i]->u.i;
		r = attr_ints(P->m, n, iv);
		free(iv);
	} else {
		r = attr_array(P->m, n, v);
	}
out:
	free(v);
	return r;
}

const Attr *ps_attr(Parser *P, int depth)
{
	if (P->failed)
		return NULL;
	ps_ws(P);
	const char *at = P->p;
	if (depth > PS_MAX_ATTR_DEPTH)
		return ps_fail(P, at, "attributes nested more than %d deep", PS_MAX_ATTR_DEPTH), NULL;
	if (ps_eat_kw(P, "true"))
		return attr_bool(P->m, true);
	if (ps_eat_kw(P, "false"))
		return attr_bool(P->m, false);
	if (ps_at(P, "\"")) {
		const char *s;
		return ps_string(P, &s) ? attr_string(P->m, s) : NULL;
	}
	if (ps_eat(P, "["))
		return array(P, depth);
	if (ps_at(P, "{"))
		return ps_dict(P, depth);
	if (ps_at(P, "<")) {
		const Type *t;
		return ps_dense(P, &t);
	}
	if (ps_at_kw(P, "div_by") || ps_at_kw(P, "same_elements") || ps_at_kw(P, "bounded"))
		return ps_assumption(P);
	if (ps_eat(P, "@")) {
		const char *s;
		if (ps_at(P, "\""))
			return ps_string(P, &s) ? attr_string(P->m, s) : NULL;
		return (s = ps_ident(P, "a symbol name")) ? attr_string(P->m, s) : NULL;
	}
	if (ps_eat(P, "#")) {
		/* #cuda_tile.kind<word>: an enum attribute, kept as its word */
		const char *k = ps_ident(P, "an attribute kind");
		const char *w = k && ps_expect(P, "<") ? ps_ident(P, "an enum value") : NULL;
		return w && ps_expect(P, ">") ? attr_string(P->m, w) : NULL;
	}
	if (ps_at_type(P)) {
		const Type *t = ps_type(P);
		return t ? attr_type(P->m, t) : NULL;
	}
	bool isf, hex;
	size_t n = number_len(P, &isf, &hex);
	if (!n)
		return ps_fail(P, at, "expected an attribute, found %s", ps_token_text(P)), NULL;
	const char *num = P->p;
	P->p += n;
	const Type *t = NULL;
	if (ps_eat(P, ":")) {
		const char *tat = (ps_ws(P), P->p);
		if (!(t = ps_type(P)))
			return NULL;
		if (t->kind != TY_SCALAR)
			return ps_fail(P, tat, "a number's type must be a scalar, not '%s'", t->str), NULL;
	}
	if (isf || (t && scalar_is_float(t->scalar))) {
		ScalarKind k = t ? t->scalar : SC_F64;
		if (!scalar_is_float(k))
			return ps_fail(P, num, "a float needs a float type, not '%s'", t->str), NULL;
		uint64_t bits;
		return float_of(P, num, n, hex, k, &bits) ? attr_float(P->m, bits, type_scalar(P->m, k)) : NULL;
	}
	const char *end = P->p;
	P->p = num;
	int64_t v;
	if (!ps_int(P, &v))
		return NULL;
	P->p = end;
	if (t && t->scalar == SC_I64)
		t = NULL;     /* printed without its type, read as untyped: the same attribute */
	return attr_int(P->m, v, t);
}

bool ps_at_enum(Parser *P, EnumKind k)
{
	size_t n = ps_ident_len(P);
	if (!n || n > 63)
		return false;
	char w[64];
	memcpy(w, P->p, n);
	w[n] = 0;
	return enum_lookup(k, w) != NULL;
}

static const struct { const char *mlir, *ours; } enum_words[] = {
	{ "no_signed_wrap", "nsw" }, { "no_unsigned_wrap", "nuw" }, { "no_wrap", "nw" },
};

const Attr *ps_enum(Parser *P, EnumKind k, const char *attr)
{
	const char *at = (ps_ws(P), P->p);
	const char *w = ps_ident(P, enum_kind_what(k));
	if (!w)
		return NULL;
	for (size_t i = 0; i < sizeof enum_words / sizeof enum_words[0]; i++)
		if (strcmp(w, enum_words[i].mlir) == 0)
			w = enum_words[i].ours;
	const EnumVal *e = enum_lookup(k, w);
	if (!e) {
		char list[512];
		return ps_fail(P, at, "unknown %s '%s' for '%s' (one of: %s)", enum_kind_what(k), w, attr,
			       enum_list(k, list, sizeof list)), NULL;
	}
	if (e->since > P->version)
		return ps_fail(P, at, "%s '%s' requires bytecode version %s+, not %s", enum_kind_what(k), w,
			       bytecode_version_name(e->since), bytecode_version_name(P->version)), NULL;
	return attr_string(P->m, e->spelling);
}
