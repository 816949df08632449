/* exec_mma.c: warp-level matrix multiply-accumulate, mma.sync.aligned
 * .m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (D = A B + C; A 16x16
 * row-major, B 16x8 column-major, C/D 16x8 f32), a warp collective: the
 * 32 lanes' fragments are gathered, multiplied and scattered back by
 * mma_resolve() (called from exec_warp.c when the whole warp has arrived).
 * Fragment layout (PTX ISA): g = lane / 4, q = lane % 4; A element i of 8
 * (two per register) is at row g + 8 * (i / 2 % 2), column 2q + i % 2 + 8 * (i / 4);
 * B element i of 4 at row 2q + i % 2 + 8 * (i / 2), column g; C/D element i
 * of 4 at row g + 8 * (i / 2), column 2q + i % 2.
 * Precision: products are exact and summed in double with C, then rounded
 * once to f32; hardware sums with a different order and rounding, so
 * results may differ from a GPU's in the last bits. */
#include "exec.h"

static double half(uint32_t reg, int idx, int ty)
{
	return small_to_double((reg >> (16 * idx)) & 0xffff, ty);
}

void mma_resolve(Thread **L, const Insn *in)
{
	double A[16][16], B[16][8], C[16][8];
	for (int lane = 0; lane < 32; lane++) {
		const uint32_t *f = L[lane]->frag;
		int g = lane / 4, q = lane % 4;
		for (int i = 0; i < 8; i++)
			A[g + 8 * (i / 2 % 2)][2 * q + i % 2 + 8 * (i / 4)] = half(f[i / 2], i % 2, in->ty2);
		for (int i = 0; i < 4; i++)
			B[2 * q + i % 2 + 8 * (i / 2)][g] = half(f[4 + i / 2], i % 2, in->ty3);
		for (int i = 0; i < 4; i++)
			C[g + 8 * (i / 2)][2 * q + i % 2] = u2f(f[6 + i]);
	}
	for (int lane = 0; lane < 32; lane++) {
		int g = lane / 4, q = lane % 4;
		for (int i = 0; i < 4; i++) {
			int r = g + 8 * (i / 2), col = 2 * q + i % 2;
			double acc = C[r][col];
			for (int k = 0; k < 16; k++)
				acc += A[r][k] * B[k][col];
			L[lane]->R[in->d[i]] = f2u((float)acc);
		}
	}
}
