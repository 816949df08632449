/* exec_cvt.c: cvt between every pair of types PTX allows: integer widening
 * and narrowing (.sat clamps), float <-> integer (.rni/.rzi/.rmi/.rpi,
 * saturating, NaN -> 0), float <-> float (.rn/.rz/.rm/.rp/.rna, .ftz, .sat,
 * .relu, .satfinite, round-to-integral), and the packed forms: f16x2,
 * bf16x2, e4m3x2, e5m2x2, e2m1x2, ue8m0x2 from two f32 (first operand in the
 * high half), and f16x2/bf16x2 from the packed 8-bit/4-bit formats. */
#include <math.h>
#include "exec.h"

static double to_double(uint64_t v, int ty, bool ftz)
{
	switch (ty) {
	case TY_F32: {
		float f = u2f((uint32_t)v);
		return ftz ? ftz32(f) : f;
	}
	case TY_F64: return u2d(v);
	case TY_F16: case TY_BF16: case TY_E4M3: case TY_E5M2: case TY_E2M1: case TY_UE8M0: case TY_TF32:
		return small_to_double((uint32_t)v, ty);
	}
	ice("to_double: %d", ty);
}

static double round_int(double x, int rnd)
{
	switch (rnd) {
	case RND_RZ: return trunc(x);
	case RND_RM: return floor(x);
	case RND_RP: return ceil(x);
	case RND_RNA: return round(x);
	default: return nearbyint(x);   /* default mode: ties to even */
	}
}

static uint64_t float_to_int(double x, int ty, int rnd)
{
	int nb = type_bytes[ty];
	bool sg = type_kind[ty] == 'S';
	if (isnan(x))
		return 0;
	x = round_int(x, rnd ? rnd : RND_RZ);
	if (sg) {
		double lo = -ldexp(1.0, 8 * nb - 1), hi = ldexp(1.0, 8 * nb - 1);
		if (x < lo)
			return norm((uint64_t)(int64_t)lo, ty);
		if (x >= hi)
			return norm(nb == 8 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)(hi - 1), ty);
		return norm((uint64_t)(int64_t)x, ty);
	}
	double hi = ldexp(1.0, 8 * nb);
	if (x <= 0)
		return 0;
	if (x >= hi)
		return nb == 8 ? UINT64_MAX : (uint64_t)(hi - 1);
	return (uint64_t)x;
}

static uint64_t from_double(double x, const Insn *in, int dty)
{
	int rnd = in->rnd ? in->rnd : RND_RN;
	bool sat = in->flags & F_SAT;
	switch (dty) {
	case TY_F32: {
		float f;
		if (isnan(x))
			return 0x7fffffffu;
		f = round_f32(x, rnd);
		if (sat)
			f = f < 0 ? 0.0f : f > 1 ? 1.0f : f;
		if (in->flags & F_FTZ)
			f = ftz32(f);
		if ((in->flags & F_RELU) && f < 0)
			f = 0;
		return f2u(f);
	}
	case TY_F64:
		if (sat)
			x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
		return d2u(x);
	default:
		return double_to_small(x, dty, rnd, sat, in->flags & F_SATFINITE, in->flags & F_RELU);
	}
}

static int narrow_of(int ty)
{
	switch (ty) {
	case TY_F16X2: return TY_F16;
	case TY_BF16X2: return TY_BF16;
	case TY_E4M3X2: return TY_E4M3;
	case TY_E5M2X2: return TY_E5M2;
	case TY_E2M1X2: return TY_E2M1;
	case TY_UE8M0X2: return TY_UE8M0;
	}
	return 0;
}

static int exec_cvt_packed(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	int dn = narrow_of(in->ty), sn = narrow_of(in->ty2);
	if (dn && !sn) {        /* cvt.rn.f16x2.f32 d, a, b: a -> high half */
		int w = type_bytes[in->ty] * 4;
		uint64_t m = (1ull << w) - 1;
		double a = to_double(R[in->s[0]], in->ty2, false), b = to_double(R[in->s[1]], in->ty2, false);
		R[in->d[0]] = (from_double(a, in, dn) & m) << w | (from_double(b, in, dn) & m);
		return ST_NEXT;
	}
	if (dn && sn) {         /* cvt.rn.f16x2.e4m3x2 d, a: each half from one narrow element */
		int sw = type_bytes[in->ty2] * 4, dw = type_bytes[in->ty] * 4;
		if (in->ty2 == TY_E2M1X2)
			sw = 4;
		uint64_t a = R[in->s[0]], sm = (1ull << sw) - 1, dm = (1ull << dw) - 1;
		double lo = small_to_double((uint32_t)(a & sm), sn), hi = small_to_double((uint32_t)((a >> sw) & sm), sn);
		R[in->d[0]] = (from_double(hi, in, dn) & dm) << dw | (from_double(lo, in, dn) & dm);
		return ST_NEXT;
	}
	fault(t, in, "unsupported packed conversion");
	return ST_FAULT;
}

uint64_t cvt_run(const Insn *in, uint64_t a)
{
	int dty = in->ty, sty = in->ty2;
	char dk = type_kind[dty], sk = type_kind[sty];
	bool ftz = in->flags & F_FTZ;
	if (sk != 'F') {        /* integer source */
		int sb = type_bytes[sty];
		bool ssg = sk == 'S';
		int64_t sv = sx(a, sb);
		uint64_t uv = zx(a, sb);
		if (dk != 'F') {
			if (in->flags & F_SAT) {
				int db = type_bytes[dty];
				bool dsg = dk == 'S';
				__int128 v = ssg ? (__int128)sv : (__int128)uv;
				__int128 lo = dsg ? -((__int128)1 << (8 * db - 1)) : 0;
				__int128 hi = dsg ? ((__int128)1 << (8 * db - 1)) - 1 : ((__int128)1 << (8 * db)) - 1;
				v = v < lo ? lo : v > hi ? hi : v;
				return norm((uint64_t)v, dty);
			}
			return norm(ssg ? (uint64_t)sv : uv, dty);
		}
		/* int -> float */
		int rnd = in->rnd ? in->rnd : RND_RN;
		if (dty == TY_F32) {
			double x;
			if (sb == 8) {  /* 64-bit: round straight to f32 */
				volatile float r;
				if (rnd == RND_RN) {
					r = ssg ? (float)sv : (float)uv;
				} else {
					/* exact via long double (64-bit mantissa) */
					long double lx = ssg ? (long double)sv : (long double)uv;
					x = (double)lx;
					if ((long double)x == lx)
						r = round_f32(x, rnd);
					else {
						/* x is within 1 ulp(double); direction known: nudge */
						double nx = lx > (long double)x ? nextafter(x, INFINITY) : nextafter(x, -INFINITY);
						float f1 = round_f32(x, rnd), f2 = round_f32(nx, rnd);
						r = f1 == f2 ? f1 : round_f32(lx > (long double)x ? nx : x, rnd);
					}
				}
				return f2u(r);
			}
			x = ssg ? (double)sv : (double)uv;
			return from_double(x, in, dty);
		}
		if (dty == TY_F64) {
			if (sb == 8) {
				long double lx = ssg ? (long double)sv : (long double)uv;
				double x = (double)lx;   /* RN */
				if (rnd != RND_RN && (long double)x != lx) {
					bool up = (long double)x < lx;
					if (rnd == RND_RZ)
						x = (up == (lx > 0)) ? x : nextafter(x, 0.0);
					else if (rnd == RND_RM && !up)
						x = nextafter(x, -INFINITY);
					else if (rnd == RND_RP && up)
						x = nextafter(x, INFINITY);
					if (rnd == RND_RZ && fabsl((long double)x) > fabsl(lx))
						x = nextafter(x, 0.0);
				}
				return d2u(x);
			}
			return d2u(ssg ? (double)sv : (double)uv);
		}
		return from_double(ssg ? (double)sv : (double)uv, in, dty);
	}
	/* float source */
	double x = to_double(a, sty, ftz && sty == TY_F32);
	if (dk != 'F')
		return float_to_int(x, dty, in->rnd);
	if (in->flags & F_INTRND) {     /* cvt.rni.f32.f32: round to integral */
		double r = isnan(x) ? x : round_int(x, in->rnd);
		Insn tmp = *in;
		tmp.rnd = RND_RN;
		return from_double(r, &tmp, dty);
	}
	return from_double(x, in, dty);
}

int exec_cvt(Thread *t, const Insn *in)
{
	if (type_kind[in->ty] == 'X' || type_kind[in->ty2] == 'X')
		return exec_cvt_packed(t, in);
	t->R[in->d[0]] = cvt_run(in, t->R[in->s[0]]);
	return ST_NEXT;
}
