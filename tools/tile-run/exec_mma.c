/* exec_mma.c: warp-level matrix multiply-accumulate, mma.sync.aligned
 * (a warp collective: exec_warp.c gathers the lanes, then mma_resolve runs
 * the product for all of them at once). Written from the PTX ISA's
 * fragment tables ("Matrix Fragments for mma.m16n8k16 / m16n8k8 /
 * m16n8k32 / m8n8k4"), .row A and .col B, with g = lane/4 (groupID) and
 * q = lane%4 (threadID_in_group); element i of a fragment:
 *   m16n8k16 f16/bf16  A a0..a7  row g + 8*((i/2)%2)  col 2q + i%2 + 8*(i/4)
 *                      B b0..b3  row 2q + i%2 + 8*(i/2) col g
 *   m16n8k8 f16        A a0..a3  row g + 8*(i/2)      col 2q + i%2
 *                      B b0,b1   row 2q + i           col g
 *   m16n8k8 tf32       A a0..a3  row g + 8*(i%2)      col q + 4*(i/2)
 *                      B b0,b1   row q + 4*i          col g
 *   m16n8k32 s8/u8,    A a0..a15 row g + 8*((i/4)%2)  col 4q + i%4 + 16*(i/8)
 *   e4m3/e5m2 (sm_89+: the same fragments; D f32 or f16)
 *                      B b0..b7  row 4q + i%4 + 16*(i/4) col g
 *   m16n8k*            C, D c0..c3 row g + 8*(i/2)    col 2q + i%2
 *   m8n8k4 f64         A a0 (g, q)  B b0 (q, g)  C, D c0,c1 (g, 2q + i)
 * Narrow elements are packed into 32-bit registers, element 0 in the low
 * bits; an f16 C/D two to a register. Floats: products exact in double,
 * summed in double in k order, rounded once to the D type (the tensor
 * core's internal rounding is not modelled: a few ulps of f32 at most
 * here); f64: fma in k order. Integers: exact, .satfinite clamps to s32
 * (else wraps). tf32 operands: the low 13 bits are ignored.
 *
 * Block scaling (sm_120a: .kind::mxf8f6f4.block_scale.scale_vec::1X
 * .m16n8k32 e4m3/e5m2 -> f32, .ue8m0 scales; PTX ISA "Block Scaling for
 * mma.sync"): D = (A * scale_A)(B * scale_B) + C, scale_A M x 1 and
 * scale_B 1 x N, one ue8m0 byte (2^(e-127), 0xff NaN) each, taken from the
 * scale-data registers by the {byte-id, thread-id} selectors: A's row r
 * from lane 4*(r%8) + 2*thread-id + r/8, B's column n from lane 4*n +
 * thread-id, byte byte-id of the register. This lane assignment is
 * confirmed by NVIDIA's own sm_120 PTX of tests/mma/mm_scaled_* matching
 * numpy on tile-run (scripts/check-emulator; tests/run.bats). */
#include <math.h>
#include "exec.h"

typedef struct Shape { int m, n, k; } Shape;
static const Shape shapes[] = {
	[MMA_M16N8K16] = { 16, 8, 16 }, [MMA_M16N8K8] = { 16, 8, 8 },
	[MMA_M16N8K32] = { 16, 8, 32 }, [MMA_M8N8K4] = { 8, 8, 4 },
};

static int bits_of(int ty)
{
	switch (ty) {
	case TY_F16: case TY_BF16: return 16;
	case TY_S8: case TY_U8: case TY_E4M3: case TY_E5M2: return 8;
	case TY_F64: return 64;
	default: return 32;
	}
}

bool mma_regs(int shape, int a, int b, int d, int *na, int *nb, int *nc)
{
	bool half = a == TY_F16 || a == TY_BF16;
	bool ok = false;
	switch (shape) {
	case MMA_M16N8K16:
		ok = half && b == a && (d == TY_F32 || (a == TY_F16 && d == TY_F16));
		break;
	case MMA_M16N8K8:
		ok = (a == TY_F16 && b == a && (d == TY_F32 || d == TY_F16)) || (a == TY_TF32 && b == a && d == TY_F32);
		break;
	case MMA_M16N8K32:
		ok = ((a == TY_S8 || a == TY_U8) && (b == TY_S8 || b == TY_U8) && d == TY_S32) ||
		     ((a == TY_E4M3 || a == TY_E5M2) && (b == TY_E4M3 || b == TY_E5M2) && (d == TY_F32 || d == TY_F16));
		break;
	case MMA_M8N8K4:
		ok = a == TY_F64 && b == a && d == TY_F64;
		break;
	}
	if (!ok)
		return false;
	const Shape *s = &shapes[shape];
	int per = bits_of(a) == 64 ? 1 : 32 / bits_of(a);     /* elements per register */
	*na = s->m * s->k / 32 / per;
	*nb = s->k * s->n / 32 / per;
	*nc = s->m * s->n / 32 / (d == TY_F16 ? 2 : 1);
	return true;
}

/* (row, col) of element i of lane t's A, B, C fragment */
static void a_pos(int shape, int ty, int t, int i, int *r, int *c)
{
	int g = t / 4, q = t % 4;
	switch (shape) {
	case MMA_M16N8K16: *r = g + 8 * ((i / 2) % 2); *c = 2 * q + i % 2 + 8 * (i / 4); break;
	case MMA_M16N8K8:
		if (ty == TY_TF32) {
			*r = g + 8 * (i % 2);
			*c = q + 4 * (i / 2);
		} else {
			*r = g + 8 * (i / 2);
			*c = 2 * q + i % 2;
		}
		break;
	case MMA_M16N8K32: *r = g + 8 * ((i / 4) % 2); *c = 4 * q + i % 4 + 16 * (i / 8); break;
	default: *r = g; *c = q; break;
	}
}

static void b_pos(int shape, int ty, int t, int i, int *r, int *c)
{
	int g = t / 4, q = t % 4;
	*c = g;
	switch (shape) {
	case MMA_M16N8K16: *r = 2 * q + i % 2 + 8 * (i / 2); break;
	case MMA_M16N8K8: *r = ty == TY_TF32 ? q + 4 * i : 2 * q + i; break;
	case MMA_M16N8K32: *r = 4 * q + i % 4 + 16 * (i / 4); break;
	default: *r = q; break;
	}
}

static void c_pos(int shape, int t, int i, int *r, int *c)
{
	int g = t / 4, q = t % 4;
	if (shape == MMA_M8N8K4) {
		*r = g;
		*c = 2 * q + i;
	} else {
		*r = g + 8 * (i / 2);
		*c = 2 * q + i % 2;
	}
}

/* element i of a fragment held in registers regs (elements of bits each) */
static double elem(const uint64_t *R, const int32_t *regs, int ty, int i)
{
	int bits = bits_of(ty);
	if (bits == 64)
		return u2d(R[regs[i]]);
	int per = 32 / bits;
	uint32_t w = (uint32_t)R[regs[i / per]];
	uint32_t v = bits == 32 ? w : (w >> (bits * (i % per))) & ((1u << bits) - 1);
	switch (ty) {
	case TY_F16: case TY_BF16: case TY_E4M3: case TY_E5M2: return small_to_double(v, ty);
	case TY_S8: return (double)(int8_t)v;
	case TY_U8: return (double)v;
	case TY_TF32: return u2f(v & 0xffffe000u);
	default: return u2f(v);
	}
}

void mma_resolve(Cta *c, Thread **L, const Insn *in)
{
	int shape = in->mode, aty = in->ty, bty = in->cmp, dty = in->ty2;
	const Shape *s = &shapes[shape];
	int na, nb, nc;
	if (!mma_regs(shape, aty, bty, dty, &na, &nb, &nc))
		return;
	int ea = s->m * s->k / 32, eb = s->k * s->n / 32, ec = s->m * s->n / 32;     /* elements per lane */
	double A[16][32], B[32][8], C[16][8];
	for (int t = 0; t < 32; t++) {
		if (!L[t]) {
			fault(&c->th[0], in, "lane %d of the warp has exited before mma.sync", t);
			return;
		}
		const uint64_t *R = L[t]->R;
		int r, col;
		for (int i = 0; i < ea; i++) {
			a_pos(shape, aty, t, i, &r, &col);
			A[r][col] = elem(R, in->s, aty, i);
		}
		for (int i = 0; i < eb; i++) {
			b_pos(shape, bty, t, i, &r, &col);
			B[r][col] = elem(R, in->s + na, bty, i);
		}
		for (int i = 0; i < ec; i++) {
			c_pos(shape, t, i, &r, &col);
			C[r][col] = dty == TY_S32 ? (double)(int32_t)R[in->s[na + nb + i]] : elem(R, in->s + na + nb, dty, i);
		}
	}
	if (in->flags & F_BSCALE) {
		/* operands after C: scale-a-data, byte-id-a, thread-id-a, scale-b-data, byte-id-b, thread-id-b */
		const int32_t *sel = in->s + na + nb + nc;
		uint64_t ba = L[0]->R[sel[1]], ta = L[0]->R[sel[2]], bb = L[0]->R[sel[4]], tb = L[0]->R[sel[5]];
		if (ba > 3 || bb > 3 || ta > 1 || tb > 3) {
			fault(&c->th[0], in, "mma.sync block_scale selector out of range (byte-id %d/%d, thread-id %d/%d)",
			      (int)ba, (int)bb, (int)ta, (int)tb);
			return;
		}
		for (int r = 0; r < s->m; r++) {
			uint32_t e = (uint32_t)(L[4 * (r % 8) + 2 * ta + r / 8]->R[sel[0]] >> (8 * ba)) & 0xff;
			double f = small_to_double(e, TY_UE8M0);
			for (int k = 0; k < s->k; k++)
				A[r][k] *= f;
		}
		for (int n = 0; n < s->n; n++) {
			uint32_t e = (uint32_t)(L[4 * n + tb]->R[sel[3]] >> (8 * bb)) & 0xff;
			double f = small_to_double(e, TY_UE8M0);
			for (int k = 0; k < s->k; k++)
				B[k][n] *= f;
		}
	}
	for (int t = 0; t < 32; t++) {
		uint64_t out[4] = { 0 };
		for (int i = 0; i < ec; i++) {
			int r, col;
			c_pos(shape, t, i, &r, &col);
			double acc = C[r][col];
			for (int k = 0; k < s->k; k++)
				acc = dty == TY_F64 ? fma(A[r][k], B[k][col], acc) : acc + A[r][k] * B[k][col];
			switch (dty) {
			case TY_F64: out[i] = d2u(acc); break;
			case TY_F32: out[i] = f2u((float)acc); break;
			case TY_F16: out[i / 2] |= (uint64_t)double_to_small(acc, TY_F16, RND_RN, false, false, false) << (16 * (i % 2)); break;
			default: {     /* s32: exact; .satfinite clamps, else wraps */
				int64_t v = (int64_t)acc;
				if (in->flags & F_SATFINITE)
					v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
				out[i] = (uint32_t)(int32_t)v;
				break;
			}
			}
		}
		for (int i = 0; i < nc; i++)
			L[t]->R[in->d[i]] = dty == TY_S32 ? (uint64_t)(int64_t)(int32_t)out[i] : out[i];
	}
}
