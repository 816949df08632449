/* exec_mma.c: warp-level matrix multiply-accumulate, mma.sync.aligned
 * (a warp collective: exec_warp.c gathers the lanes, then mma_resolve runs
 * the product for all of them at once). Written from the PTX ISA's
 * fragment tables ("Matrix Fragments for mma.m16n8k16 with floating point
 * type"), with g = lane/4 (groupID) and q = lane%4 (threadID_in_group):
 *   A (16x16, .row)  a_i: row g + 8*((i/2)%2), col 2q + i%2 + 8*(i/4)
 *                    a0..a7 two to a 32-bit register, a_{2j} in the low half
 *   B (16x8, .col)   b_i: row 2q + i%2 + 8*(i/2), col g
 *   C, D (16x8 f32)  c_i: row g + 8*(i/2), col 2q + i%2
 * Supported: m16n8k16 .f32.{f16,bf16}.{f16,bf16}.f32 (decode.c). Products
 * are exact in double and summed in double, then rounded to f32 once per
 * element: the tensor core's intermediate rounding is not modelled (it is
 * at most a few ulps of f32 for these sizes). */
#include "exec.h"

void mma_resolve(Cta *c, Thread **L, const Insn *in)
{
	double A[16][16], B[16][8], C[16][8];
	for (int t = 0; t < 32; t++) {
		if (!L[t]) {
			fault(&c->th[0], in, "lane %d of the warp has exited before mma.sync", t);
			return;
		}
		const uint64_t *R = L[t]->R;
		int g = t / 4, q = t % 4;
		for (int i = 0; i < 8; i++) {
			uint32_t w = (uint32_t)R[in->s[i / 2]];
			A[g + 8 * ((i / 2) % 2)][2 * q + i % 2 + 8 * (i / 4)] = small_to_double((w >> (16 * (i % 2))) & 0xffffu, in->ty);
		}
		for (int i = 0; i < 4; i++) {
			uint32_t w = (uint32_t)R[in->s[4 + i / 2]];
			B[2 * q + i % 2 + 8 * (i / 2)][g] = small_to_double((w >> (16 * (i % 2))) & 0xffffu, in->ty);
		}
		for (int i = 0; i < 4; i++)
			C[g + 8 * (i / 2)][2 * q + i % 2] = u2f((uint32_t)R[in->s[6 + i]]);
	}
	for (int t = 0; t < 32; t++) {
		int g = t / 4, q = t % 4;
		for (int i = 0; i < 4; i++) {
			int r = g + 8 * (i / 2), col = 2 * q + i % 2;
			double acc = C[r][col];
			for (int k = 0; k < 16; k++)
				acc += A[r][k] * B[k][col];
			L[t]->R[in->d[i]] = f2u((float)acc);
		}
	}
}
