/* exec_wgmma.c: warpgroup matrix multiply-accumulate,
 * wgmma.mma_async.sync.aligned.m64nNkK with A and B in shared memory,
 * described by 64-bit matrix descriptors (PTX ISA "Matrix Descriptor
 * Format"): bits 0-13 start address >> 4, 16-29 leading dimension byte
 * offset (LBO) >> 4, 32-45 stride dimension byte offset (SBO) >> 4, 49-51
 * base offset, 62-63 swizzle (0 none, 1 128B, 2 64B, 3 32B).
 * Operand addresses: desc.c (the canonical layouts). D fragment (f32/s32; f16 packs elements 2j,
 * 2j+1 into register j): thread t of the warpgroup (w = t/32, lane l),
 * element i: row 16w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2.
 * The whole product runs at issue, each thread computing its own D
 * elements (the descriptors are warpgroup-uniform), so fence, commit_group
 * and wait_group are no-ops. A in registers ({a0..a3}, the warp's 16 rows
 * of the m64 block as mma.sync's m16 A fragment) is a warp collective
 * (exec_warp.c gathers the lanes, wgmma_resolve computes every lane's D). Floats: products exact in double, summed in k
 * order with D, rounded once (as exec_mma.c); integers exact, .satfinite
 * clamps. scale-d false: D = A*B. */
#include <math.h>
#include "exec.h"
#include "desc.h"

static bool load(Thread *t, const Insn *in, const MatDesc *d, bool mn, int ty, uint32_t x, uint32_t k, double *f, int64_t *iv)
{
	uint32_t e = type_bytes[ty];
	uint8_t *p = mem_at(t, in, SP_SHARED, desc_elem(d, mn, e, x, k), e, ACC_READ);
	if (!p)
		return false;
	uint32_t bits = 0;
	memcpy(&bits, p, e);
	if (ty == TY_S8)
		*iv = (int8_t)bits;
	else if (ty == TY_U8)
		*iv = (uint8_t)bits;
	else if (ty == TY_TF32)
		*f = small_to_double(bits & 0xffffe000u, TY_TF32);
	else
		*f = small_to_double(bits, ty);
	return true;
}

/* A in registers (a warp collective, wgmma_resolve): element (row of the
 * warp's 16, k) of the fragment mma.sync's A has for the same k (exec_mma.c):
 *   16-bit k16: lane 4(r%8) + (k%8)/2, register r/8 + 2(k/8), half k%2
 *   tf32 k8:    lane 4(r%8) + k%4,     register r/8 + 2(k/4)
 *   8-bit k32:  lane 4(r%8) + (k%16)/4, register r/8 + 2(k/16), byte k%4 */
static void a_reg(const uint32_t (*A)[4], int ty, uint32_t r, uint32_t k, double *f, int64_t *iv)
{
	uint32_t e = type_bytes[ty], lane, reg, shift;
	if (e == 2)
		lane = 4 * (r % 8) + (k % 8) / 2, reg = r / 8 + 2 * (k / 8), shift = 16 * (k % 2);
	else if (e == 4)
		lane = 4 * (r % 8) + k % 4, reg = r / 8 + 2 * (k / 4), shift = 0;
	else
		lane = 4 * (r % 8) + (k % 16) / 4, reg = r / 8 + 2 * (k / 16), shift = 8 * (k % 4);
	uint32_t bits = (A[lane][reg] >> shift) & (e == 4 ? 0xffffffffu : (1u << (8 * e)) - 1);
	if (ty == TY_S8)
		*iv = (int8_t)bits;
	else if (ty == TY_U8)
		*iv = (uint8_t)bits;
	else if (ty == TY_TF32)
		*f = small_to_double(bits & 0xffffe000u, TY_TF32);
	else
		*f = small_to_double(bits, ty);
}

/* thread t's D elements; A: the warp's A registers when A is in registers */
static int compute(Thread *t, const Insn *in, const uint32_t (*A)[4])
{
	uint64_t *R = t->R;
	const int32_t *dslot = &t->run->m->xs[in->target];
	int n = (int)in->off, kk = in->vec, aty = in->ty, bty = in->cmp, dty = in->ty2;
	MatDesc da = desc_sm90(A ? 0 : R[in->s[0]]), db = desc_sm90(R[in->s[1]]);
	bool acc = R[in->s[2]] & 1, integer = dty == TY_S32;
	bool ta = in->boolop & AF_TRANS_A, tb = in->boolop & AF_TRANS_B;
	double sa = (in->boolop & AF_NEG_A) ? -1 : 1, sb = (in->boolop & AF_NEG_B) ? -1 : 1;
	uint32_t wt = t->tid % 128, w = wt / 32, l = wt % 32;
	for (int i = 0; i < n / 2; i++) {
		uint32_t row = 16 * w + l / 4 + 8 * ((uint32_t)i / 2 % 2), col = 8 * ((uint32_t)i / 4) + 2 * (l % 4) + (uint32_t)i % 2;
		int32_t slot = dslot[dty == TY_F16 ? i / 2 : i];
		uint64_t old = R[slot];
		double s = 0;
		int64_t is = 0;
		if (acc) {
			if (integer)
				is = (int32_t)(uint32_t)old;
			else if (dty == TY_F16)
				s = small_to_double((uint32_t)(old >> (16 * (i % 2))) & 0xffff, TY_F16);
			else
				s = u2f((uint32_t)old);
		}
		for (int k = 0; k < kk; k++) {
			double fa = 0, fb = 0;
			int64_t ia = 0, ib = 0;
			if (A)
				a_reg(A, aty, row % 16, (uint32_t)k, &fa, &ia);
			else if (!load(t, in, &da, ta, aty, row, (uint32_t)k, &fa, &ia))
				return ST_FAULT;
			if (!load(t, in, &db, tb, bty, col, (uint32_t)k, &fb, &ib))
				return ST_FAULT;
			if (integer)
				is += ia * ib;
			else
				s += sa * fa * sb * fb;
		}
		if (integer) {
			if (in->flags & F_SATFINITE)
				is = is > INT32_MAX ? INT32_MAX : is < INT32_MIN ? INT32_MIN : is;
			R[slot] = (uint32_t)is;
		} else if (dty == TY_F16) {
			uint32_t h = double_to_small(s, TY_F16, RND_RN, false, false, false);
			R[slot] = (old & ~(0xffffull << (16 * (i % 2)))) << 32 >> 32 | (uint64_t)h << (16 * (i % 2));
			R[slot] &= 0xffffffffu;
		} else {
			R[slot] = f2u(round_f32(s, RND_RN));
		}
	}
	return ST_NEXT;
}

int exec_wgmma(Thread *t, const Insn *in)
{
	if (in->mode != WG_MMA)
		return ST_NEXT;
	return compute(t, in, NULL);
}

void wgmma_resolve(Cta *c, Thread **L, const Insn *in)
{
	for (int k = 0; k < 32; k++)
		if (!L[k]) {
			fault(&c->th[0], in, "lane %d of the warp has exited before a wgmma with A in registers", k);
			return;
		}
	/* every lane's A registers before any lane writes its D */
	uint32_t A[32][4];
	int nd = in->ty2 == TY_F16 ? (int)in->off / 4 : (int)in->off / 2;
	for (int k = 0; k < 32; k++)
		for (int j = 0; j < 4; j++)
			A[k][j] = (uint32_t)L[k]->R[c->run->m->xs[in->target + nd + j]];
	for (int k = 0; k < 32; k++)
		if (compute(L[k], in, (const uint32_t (*)[4])A) != ST_NEXT)
			return;
}
