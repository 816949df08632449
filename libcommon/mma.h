/* mma.h: warp-level MMA tilings (mma.sync) as register layouts of the
 * layout algebra (layout.h), shared by tile-sched (which gives the operands
 * and the accumulator these layouts) and tile-ptx (which emits one mma.sync
 * per atom over the registers they give). docs/lowering.md "MMA".
 *
 * An M x N += (M x K) * (K x N) tile product is cut into atoms of
 * atom_m x atom_n x atom_k (m16n8k16 for f16/bf16 operands); warps are laid
 * over M (wm) and N (wn), more warps than atoms replicate (wrep). Each warp
 * holds mt x nt accumulator atoms and loops over kt atoms of K. The
 * fragment layouts are the PTX ISA's (mma.sync m16n8k16, .row.col):
 *   C/D  c0,c1 row g, cols 2q,2q+1; c2,c3 row g+8      (g = lane/4, q = lane%4)
 *   A    a0,a1 row g, cols 2q,2q+1; a2,a3 row g+8; a4..a7 the same at col+8
 *   B    b0,b1 rows 2q,2q+1, col g; b2,b3 rows +8
 * so, as (V, L, W) layouts of the row-major tiles:
 *   C  V (2,2,nt,mt):(1,8N,8,16N)         L (4,8):(2,N)   W (wm,wn,wrep):(Mw*N,Nw,0)
 *   A  V (2,2,2,kt,mt):(1,8K,8,16,16K)    L (4,8):(2,K)   W (wm,wn,wrep):(Mw*K,0,0)
 *   B  V (2,2,kt,nt):(N,8N,16N,8)         L (4,8):(2N,1)  W (wm,wn,wrep):(0,Nw,0)
 * Register r of a fragment: C  c + 4*(nti + nt*mti);  A  a + 8*(kti + kt*mti);
 * B  b + 4*(kti + kt*nti). */
#ifndef TILE_MMA_H
#define TILE_MMA_H
#include <stdbool.h>
#include <stdint.h>
#include "layout.h"

typedef struct MmaTiling {
	int64_t m, n, k;              /* the tile product */
	int atom_m, atom_n, atom_k;
	int wm, wn, wrep;             /* warps over M, over N, replicated */
	int64_t mt, nt, kt;           /* atoms per warp along M, N; K atoms */
} MmaTiling;

/* The tiling of an m x n x k product with atom_k (16 for f16/bf16) over
 * `warps` warps; false (and *err) when the shape is not made of whole
 * atoms or not powers of two. */
bool mma_tiling(int64_t m, int64_t n, int64_t k, int atom_k, int warps, MmaTiling *t, const char **err);
void mma_layout_a(const MmaTiling *t, Layout *out);
void mma_layout_b(const MmaTiling *t, Layout *out);
void mma_layout_c(const MmaTiling *t, Layout *out);
#endif
