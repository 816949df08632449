/* exec_math.c: sqrt rsqrt rcp ex2 lg2 sin cos tanh.
 * Precision: .rn/.rz/.rm/.rp forms are correctly rounded (IEEE). The
 * .approx forms are computed in double precision and rounded to the
 * result type (round to nearest), i.e. at least as accurate as the
 * hardware's documented bounds (ex2.approx.f32: 2 ulp; lg2, sin, cos: 2^-22
 * absolute error; rcp/rsqrt/sqrt.approx: 1 ulp; tanh: 2^-11 relative);
 * results can differ from a GPU's in the last bits. .ftz flushes f32
 * subnormal inputs and results; f16/bf16 (scalar and x2) go through
 * double and one rounding. */
#include <math.h>
#include "exec.h"

static double fn(int op, double x)
{
	switch (op) {
	case OP_SQRT: return sqrt(x);
	case OP_RSQRT: return 1.0 / sqrt(x);
	case OP_RCP: return 1.0 / x;
	case OP_EX2: return exp2(x);
	case OP_LG2: return log2(x);
	case OP_SIN: return sin(x);
	case OP_COS: return cos(x);
	case OP_TANH: return tanh(x);
	}
	ice("math op %d", op);
}

static uint64_t elem(const Insn *in, int ety, uint64_t v)
{
	bool ftz = in->flags & F_FTZ;
	if (ety == TY_F32) {
		float x = u2f((uint32_t)v);
		if (ftz)
			x = ftz32(x);
		float r;
		if (!(in->flags & F_APPROX) && (in->op == OP_SQRT || in->op == OP_RCP)) {
			/* IEEE: sqrt via fp_op, rcp as 1/x, rounded as asked */
			r = in->op == OP_SQRT ? (float)fp_op(OP_SQRT, x, 0, 0, TY_F32, in->rnd ? in->rnd : RND_RN)
					      : (float)fp_op(OP_DIV, 1.0, x, 0, TY_F32, in->rnd ? in->rnd : RND_RN);
		} else {
			r = (float)fn(in->op, x);
		}
		if (ftz)
			r = ftz32(r);
		return f2u(r);
	}
	if (ety == TY_F64) {
		double x = u2d(v), r;
		if (!(in->flags & F_APPROX) && in->op == OP_SQRT)
			r = fp_op(OP_SQRT, x, 0, 0, TY_F64, in->rnd ? in->rnd : RND_RN);
		else if (!(in->flags & F_APPROX) && in->op == OP_RCP)
			r = fp_op(OP_DIV, 1.0, x, 0, TY_F64, in->rnd ? in->rnd : RND_RN);
		else if (in->op == OP_RCP && (in->flags & F_FTZ)) /* rcp.approx.ftz.f64 */
			r = 1.0 / x;
		else
			r = fn(in->op, x);
		return d2u(r);
	}
	double x = small_to_double((uint32_t)v, ety);
	return double_to_small(fn(in->op, x), ety, RND_RN, false, false, false);
}

int exec_math(Thread *t, const Insn *in)
{
	uint64_t a = t->R[in->s[0]];
	switch (in->ty) {
	case TY_F16X2: case TY_BF16X2: {
		int ety = in->ty == TY_F16X2 ? TY_F16 : TY_BF16;
		t->R[in->d[0]] = (elem(in, ety, a & 0xffff) & 0xffff) | (elem(in, ety, (a >> 16) & 0xffff) & 0xffff) << 16;
		return ST_NEXT;
	}
	case TY_F16: case TY_BF16: case TY_F32: case TY_F64:
		t->R[in->d[0]] = elem(in, in->ty, a);
		return ST_NEXT;
	}
	fault(t, in, "unsupported type for this math instruction");
	return ST_FAULT;
}
