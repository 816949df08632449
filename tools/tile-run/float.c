/* float.c: floating-point formats and rounding.
 * Narrow formats (f16, bf16, tf32, e4m3, e5m2, e2m1, ue8m0) are encoded and
 * decoded in software from exact double values, with every PTX rounding
 * mode and .satfinite/.relu. f32/f64 arithmetic with a directed rounding
 * mode runs under fesetround with volatile operands, so the compiler
 * cannot move the operation out of the rounding-mode window. */
#include <fenv.h>
#include <math.h>
#include "exec.h"

float ftz32(float f)
{
	if (fpclassify(f) == FP_SUBNORMAL)
		return signbit(f) ? -0.0f : 0.0f;
	return f;
}

typedef struct Fmt {
	int ebits, mbits, bias;
	bool inf, nan, sign, zero;
	uint32_t nanbits;
	double max;
} Fmt;

static const Fmt *fmt_of(int ty)
{
	static const Fmt f16 = { 5, 10, 15, true, true, true, true, 0x7fff, 65504.0 };
	static const Fmt bf16 = { 8, 7, 127, true, true, true, true, 0x7fff, 3.3895313892515355e38 };
	static const Fmt tf32 = { 8, 10, 127, true, true, true, true, 0x7fffffff, 3.4011621342146535e38 };
	static const Fmt e4m3 = { 4, 3, 7, false, true, true, true, 0x7f, 448.0 };
	static const Fmt e5m2 = { 5, 2, 15, true, true, true, true, 0x7f, 57344.0 };
	static const Fmt e2m1 = { 2, 1, 1, false, false, true, true, 0x7, 6.0 };
	switch (ty) {
	case TY_F16: return &f16;
	case TY_BF16: return &bf16;
	case TY_TF32: return &tf32;
	case TY_E4M3: return &e4m3;
	case TY_E5M2: return &e5m2;
	case TY_E2M1: return &e2m1;
	}
	ice("fmt_of: type %d", ty);
}

double small_to_double(uint32_t bits, int ty)
{
	if (ty == TY_UE8M0) {
		bits &= 0xff;
		if (bits == 0xff)
			return NAN;
		return ldexp(1.0, (int)bits - 127);
	}
	if (ty == TY_TF32)
		return (double)u2f(bits);
	const Fmt *f = fmt_of(ty);
	int w = f->ebits + f->mbits;
	bool neg = (bits >> w) & 1;
	uint32_t e = (bits >> f->mbits) & ((1u << f->ebits) - 1);
	uint32_t m = bits & ((1u << f->mbits) - 1);
	double v;
	uint32_t emax = (1u << f->ebits) - 1;
	if (ty == TY_E4M3 && e == emax && m == 7) {
		v = NAN;
	} else if (f->inf && e == emax) {
		v = m ? NAN : INFINITY;
	} else if (e == 0) {
		v = ldexp((double)m, 1 - f->bias - f->mbits);
	} else {
		v = ldexp((double)(m | (1u << f->mbits)), (int)e - f->bias - f->mbits);
	}
	return neg ? -v : v;
}

/* round q (>= 0) to an integer; neg tells the sign of the value */
static double round_mag(double q, int rnd, bool neg)
{
	switch (rnd) {
	case RND_RZ: return trunc(q);
	case RND_RM: return neg ? ceil(q) : floor(q);
	case RND_RP: return neg ? floor(q) : ceil(q);
	case RND_RNA: return round(q);
	default: {
		double fl = floor(q), d = q - fl;
		if (d > 0.5 || (d == 0.5 && fmod(fl, 2.0) != 0))
			return fl + 1;
		return fl;
	}
	}
}

uint32_t double_to_small(double x, int ty, int rnd, bool sat, bool satfinite, bool relu)
{
	if (ty == TY_UE8M0) {
		if (isnan(x))
			return 0xff;
		x = fabs(x);    /* the sign is ignored (as cuda_fp8.hpp's conversion does) */
		if (x == 0 || isinf(x))
			return x == 0 ? 0 : 0xfe;
		int e;
		double m = frexp(x, &e);        /* x = m 2^e, m in [0.5,1) */
		int lg = e - 1;                 /* floor(log2 x) */
		bool exact = m == 0.5;
		if (!exact && rnd == RND_RP)
			lg++;
		int enc = lg + 127;
		if (enc < 0)
			enc = 0;
		if (enc > 254)
			enc = 254;
		return (uint32_t)enc;
	}
	const Fmt *f = fmt_of(ty);
	int w = f->ebits + f->mbits;
	if (isnan(x))
		return ty == TY_E2M1 ? 0x7 : f->nanbits;
	bool neg = signbit(x);
	if (relu && (neg || x == 0))
		return 0;
	double a = fabs(x);
	if (sat && !isnan(x)) {
		if (a > 1)
			a = 1;
		if (neg)
			a = 0, neg = false;
	}
	uint32_t sbit = neg ? 1u << w : 0;
	uint32_t emax = (1u << f->ebits) - 1;
	uint32_t maxenc = ty == TY_E4M3 ? 0x7e : f->inf ? ((emax - 1) << f->mbits) | ((1u << f->mbits) - 1)
				 : (emax << f->mbits) | ((1u << f->mbits) - 1);
	if (isinf(a)) {
		if (f->inf && !satfinite)
			return sbit | (emax << f->mbits);
		return sbit | maxenc;
	}
	if (a == 0)
		return sbit;
	int e;
	frexp(a, &e);
	int ue = e - 1;
	int qexp = ue < 1 - f->bias ? 1 - f->bias - f->mbits : ue - f->mbits;
	double q = ldexp(a, -qexp);
	double r = ldexp(round_mag(q, rnd, neg), qexp);
	if (r > f->max) {
		if (f->inf && !satfinite) {
			bool tomax = rnd == RND_RZ || (rnd == RND_RM && !neg) || (rnd == RND_RP && neg);
			return sbit | (tomax ? maxenc : emax << f->mbits);
		}
		return sbit | maxenc;
	}
	if (r == 0)
		return sbit;
	frexp(r, &e);
	ue = e - 1;
	uint32_t enc;
	if (ue < 1 - f->bias) {
		enc = (uint32_t)ldexp(r, f->bias - 1 + f->mbits);
	} else {
		uint32_t mant = (uint32_t)(ldexp(r, f->mbits - ue) - ldexp(1.0, f->mbits));
		enc = ((uint32_t)(ue + f->bias) << f->mbits) | mant;
	}
	if (ty == TY_TF32)      /* stored as an f32 bit pattern */
		return (neg ? 0x80000000u : 0) | (((enc >> 10) & 0xff) << 23) | ((enc & 0x3ff) << 13);
	return sbit | enc;
}

static int fe_mode(int rnd)
{
	switch (rnd) {
	case RND_RZ: return FE_TOWARDZERO;
	case RND_RM: return FE_DOWNWARD;
	case RND_RP: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

float round_f32(double x, int rnd)
{
	if (rnd == RND_RN || rnd == RND_DEFAULT)
		return (float)x;
	volatile double vx = x;
	volatile float r;
	fesetround(fe_mode(rnd));
	r = (float)vx;
	fesetround(FE_TONEAREST);
	return r;
}

/* op on exact inputs computed in T and rounded with rnd: the operands are
 * volatile, so the operation stays inside the rounding-mode window */
#define FP_OP(name, T, fmaT, sqrtT) \
	static double name(int op, double a, double b, double c, int rnd) \
	{ \
		bool directed = rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP; \
		volatile T va = (T)a, vb = (T)b, vc = (T)c; \
		volatile T r = 0; \
		if (directed) \
			fesetround(fe_mode(rnd)); \
		switch (op) { \
		case OP_ADD: r = va + vb; break; \
		case OP_SUB: r = va - vb; break; \
		case OP_MUL: r = va * vb; break; \
		case OP_DIV: r = va / vb; break; \
		case OP_FMA: case OP_MAD: r = fmaT(va, vb, vc); break; \
		case OP_SQRT: r = sqrtT(va); break; \
		default: ice("fp_op %d", op); \
		} \
		if (directed) \
			fesetround(FE_TONEAREST); \
		return r; \
	}
FP_OP(fp_op_f32, float, fmaf, sqrtf)
FP_OP(fp_op_f64, double, fma, sqrt)
#undef FP_OP

/* op on exact inputs, rounded to ty (F32 or F64) with rnd */
double fp_op(int op, double a, double b, double c, int ty, int rnd)
{
	return ty == TY_F32 ? fp_op_f32(op, a, b, c, rnd) : fp_op_f64(op, a, b, c, rnd);
}
