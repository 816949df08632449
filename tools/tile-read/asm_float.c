/* asm_float.c: floats as MLIR's printFloatValue spells them through LLVM's
 * APFloat::toString (asm.h): six significant digits in exponent form
 * ("1.500000e+00") when that reads back to the same bits, else the
 * format's natural precision ("9.99999974E-6", "523.049072"), else (NaN,
 * infinities, and what still does not read back) the bits in hex
 * ("0xFF800000"). Every float format of cuda_tile: f16, bf16, tf32, f32,
 * f64, f8E4M3FN, f8E5M2, f8E8M0FNU, f4E2M1FN. Decimal digits come from an
 * exact big-integer expansion, rounded as APFloat rounds (half up, after
 * dropping whole tens it cannot print). Pure functions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asm.h"

typedef AsmFloatSem FloatSem;

bool asm_float_sem(ScalarKind k, AsmFloatSem *s)
{
	switch (k) {
	case SC_F16: *s = (FloatSem){ 5, 10, 15, 11, true, 1 }; return true;
	case SC_BF16: *s = (FloatSem){ 8, 7, 127, 8, true, 1 }; return true;
	case SC_F32: *s = (FloatSem){ 8, 23, 127, 24, true, 1 }; return true;
	case SC_TF32: *s = (FloatSem){ 8, 10, 127, 11, true, 1 }; return true;
	case SC_F64: *s = (FloatSem){ 11, 52, 1023, 53, true, 1 }; return true;
	case SC_F8E5M2: *s = (FloatSem){ 5, 2, 15, 3, true, 1 }; return true;
	case SC_F8E4M3FN: *s = (FloatSem){ 4, 3, 7, 4, true, 2 }; return true;
	case SC_F4E2M1FN: *s = (FloatSem){ 2, 1, 1, 2, true, 0 }; return true;
	case SC_F8E8M0FNU: *s = (FloatSem){ 8, 0, 127, 1, false, 2 }; return true;
	/* NVIDIA's E5M3, no sign, no infinities, 0xFF NaN (what its tileirdisasm prints) */
	case SC_F8E5M3FNU: *s = (FloatSem){ 5, 3, 15, 4, false, 2 }; return true;
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
	if ((s->nan == 1 && e == emask) || (s->nan == 2 && e == emask && m == mmask)) {
		v.cat = s->nan == 1 && !m ? FC_INF : FC_NAN;
		return v;
	}
	if (!s->mbits) {                           /* E8M0: 2^(e-127), no zero */
		v.sig = 1;
		v.exp = (int)e - s->bias;
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
	if (!asm_float_sem(k, &s)) {
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


/* the constant-name part of a splat float ("_NaN", "_0", "_3" or ""):
 * APFloat::convertToInteger(64 bits, unsigned, toward zero) when exact */
const char *asm_float_name_part(ScalarKind k, uint64_t bits)
{
	static char buf[32];
	FloatSem fs;
	buf[0] = 0;
	if (!asm_float_sem(k, &fs))
		return buf;
	int nb = scalar_bits(k);
	if (nb < 64)
		bits &= (1ull << nb) - 1;
	FloatVal v = float_decode(&fs, bits);
	if (v.cat == FC_NAN) {
		snprintf(buf, sizeof buf, "_NaN");
	} else if (v.cat == FC_ZERO) {
		if (!v.neg)
			snprintf(buf, sizeof buf, "_0");
	} else if (v.cat == FC_NORMAL && !v.neg) {
		double dv = float_value(&v);
		if (dv == floor(dv) && dv < 18446744073709551616.0)
			snprintf(buf, sizeof buf, "_%llu", (unsigned long long)dv);
	}
	return buf;
}
