/* mma.h: warp-level MMA (mma.sync, and an FMA fallback) as register
 * layouts of the layout algebra (layout.h), shared by tile-sched (which
 * gives the operands and the accumulator these layouts) and tile-ptx
 * (which emits one instruction per atom over the registers they give).
 * docs/lowering.md "MMA".
 *
 * An M x N += (M x K)(K x N) tile product is cut into atoms (mma_atoms.def:
 * m16n8k16 for f16/bf16, m16n8k8 tf32 and sm_75 f16, m16n8k32 i8, m8n8k4
 * f64, FMA for f32). Warps are laid over M (wm) and N (wn); more warps than
 * atoms replicate (wrep). Each warp holds mt x nt accumulator atoms and
 * loops over kt atoms of K. A fragment layout is the atom's value leaves,
 * then the atom repeats, as (V, L, W) over the row-major tile:
 *   A  V (atom A values, kt:atom_k, mt:atom_m*K)   L (q, g)   W (wm:Mw*K, wn:0, wrep:0)
 *   B  V (atom B values, kt:atom_k*N, nt:atom_n)   L (q, g)   W (wm:0, wn:Nw, wrep:0)
 *   C  V (atom C values, nt:atom_n, mt:atom_m*N)   L (q, g)   W (wm:Mw*N, wn:Nw, wrep:0)
 * so register r of atom (mi, ni, ki) is, with na/nb/nc values per atom:
 *   A  na*(ki + kt*mi) + v    B  nb*(ki + kt*ni) + v    C  nc*(ni + nt*mi) + v */
#ifndef TILE_MMA_H
#define TILE_MMA_H
#include <stdbool.h>
#include <stdint.h>
#include "layout.h"
#include "ir.h"

typedef enum MmaAtomId {
#define ATOM(id, m, n, k, A, B, C) MMA_##id,
#include "mma_atoms.def"
#undef ATOM
	MMA_NATOMS
} MmaAtomId;

typedef struct MmaFrag {
	int nleaf;
	int shape[4], drow[4], dcol[4];
	int q_drow, q_dcol, g_drow, g_dcol;
} MmaFrag;

typedef struct MmaAtom {
	MmaAtomId id;
	const char *name;
	int m, n, k;
	MmaFrag a, b, c;
} MmaAtom;

extern const MmaAtom mma_atoms[MMA_NATOMS];
int mma_frag_values(const MmaFrag *f);       /* values per thread of one atom */

typedef struct MmaTiling {
	const MmaAtom *atom;
	int64_t m, n, k;              /* the tile product */
	int wm, wn, wrep;             /* warps over M, over N, replicated */
	int64_t mt, nt, kt;           /* atoms per warp along M, N; K atoms */
	bool wg;                      /* a wgmma tiling (below): wm, wn count warpgroups */
	bool bk;                      /* B read down its columns by its load (a transposed view
				       * with 16-byte facts, or by TMA), staged K-major where the
				       * chunks land whole (mma_product_tiling; wgmma or ldmatrix
				       * tilings) */
} MmaTiling;

/* The atom for operand element a, accumulator element c on target sm
 * (mmaf and mmai); NULL when there is none yet. */
const MmaAtom *mma_atom_for(const Type *a, const Type *c, int sm);
/* Is an m x n x k product smaller than atom in some dimension? NVIDIA's
 * tileiras computes such a product by FMA (f16, bf16, f8, tf32 in f32, i8 in
 * i32, f64 in f64: measured on its PTX for 2x2x2 .. 16x16x16 products,
 * docs/lowering.md "MMA"), and so does mma_choose. */
bool mma_below_atom(const MmaAtom *atom, int64_t m, int64_t n, int64_t k);
/* Does an m x n x k product of a x a -> c on sm run by FMA (mma_choose's
 * atom is MMA_FMA)? */
bool mma_fma_product(const Type *a, const Type *c, int64_t m, int64_t n, int64_t k, int sm);
/* The tiling of an m x n x k product by atom over `warps` warps; false
 * (and *err) when the shape is not made of whole atoms or not powers of two.
 * The FMA atom takes M and N below its 8 x 8: its fragments repeat the
 * tile's rows and columns there (copies at stride 0). */
bool mma_tiling(const MmaAtom *atom, int64_t m, int64_t n, int64_t k, int warps, MmaTiling *t, const char **err);
/* The tiling of an mmaf / mmai on target sm over `warps` warps: the
 * wgmma one where the target has wgmma and the product fits it, else the
 * mma.sync one; false (and *err) when there is none. Every stage that needs
 * the product's layouts calls this, so they agree. */
bool mma_choose(const Type *a, const Type *c, int64_t m, int64_t n, int64_t k, int warps, int sm, MmaTiling *t,
		const char **err);
/* mma_choose for product op (mma_is_product: operands A, B, acc): false
 * unless A and B are of rank 2 (a batched product is sliced by tile-lower) */
bool mma_product_tiling(const Op *op, int warps, int sm, MmaTiling *t, const char **err);
/* The tiled_load that makes operand k of product op, directly or through a
 * reshape that only drops leading unit dims ([1, 1, tn, D] -> [tn, D], as
 * attention loads K and V); else NULL. */
const Op *mma_operand_tiled_load(const Op *op, int k);
/* The load of product op's B whose rows run along K — through a
 * transposed view (attention's K^T), or an [N, K] tile a permute [1, 0]
 * transposes — or NULL (always with TILE_NO_KMAJOR_B set). It is read down
 * B's columns; MmaTiling.bk when its chunks are 16 bytes or it comes by TMA
 * (`tma`). */
const Op *mma_b_column_load(const Op *op);
/* the product (mma_is_product) after ld in its block that takes ld's tile
 * as operand 0 or 1 (*k), as it is or through an ftof mma_tf32_round holds for */
Op *mma_product_of_load(const Op *ld, int *k);

/* the `for` whose body block holds op itself, or NULL */
Op *mma_loop_of(const Op *op);

/* Is cv an f32 -> tf32 ftof with rounding nearest_even (what a tf32 map's
 * copy does itself)? */
bool mma_tf32_round(const Op *cv);

/* the tiled_load that makes operand k of mma: its definition, through a
 * reshape that drops unit leading dims (mma_operand_tiled_load) or a
 * permute [1, 0] (mma_operand_transposed), or (*tf32)
 * that of the ftof mma_tf32_round holds for that makes it; else NULL */
Op *mma_staged_load(const Op *mma, int k, bool *tf32);

/* Is operand k of product op a permute [1, 0] of a rank-2 tile (a TN
 * product's B^T, loaded as [N, K] and transposed)? */
bool mma_operand_transposed(const Op *op, int k);

/* Warpgroup MMA (sm_90 wgmma.mma_async m64nNk*, A and B from shared
 * memory): warps in groups of four, wm warpgroups over M and wn over N;
 * each warpgroup computes (M/wm) x (N/wn) with mt = M/wm/64 instructions
 * of n = N/wn (8..256) per K step of the atom's k (16 for 16-bit, 8 tf32,
 * 32 for 8-bit: 32 bytes of K each); kt K steps. Warp w of a group holds
 * rows 16w..16w+15 of each of its m64 blocks, in each 8 columns the
 * mma.sync m16n8 accumulator fragment (PTX ISA "wgmma .m64nNk16 register
 * fragment D"), so the C layout is
 *   V (atom C values, nt:8, mt:64*N)  L (q, g)  W (4:16*N, wm:(M/wm)*N, wn:N/wn)
 * with D register i of instruction j at register j*nt*4 + i; mma_layout_a
 * of such a tiling is wgmma's A-in-registers fragment (the atom's A
 * fragment per warp's 16 rows, kt:atom k, mt:64*K; replicated over wn),
 * which the C layout of a product of the same shape already is. False when
 * the target, types or shape do not fit (M not a multiple of 64 per
 * warpgroup row, warps not a multiple of 4, N/wn not 8..256). */
bool mma_wgmma_tiling(const MmaAtom *atom, int64_t m, int64_t n, int64_t k, int warps, MmaTiling *t);
/* the warpgroup path on a tcgen05 target (sm_100/103/110, TILE_TCGEN05):
 * the same tiling and staging as wgmma's, tcgen05.mma into tensor memory
 * (tile-ptx util_wgmma.c); the tensor-memory columns a product's
 * accumulators take (one a D element, every warpgroup's m64 blocks) */
bool mma_tcgen05_target(int sm);
int64_t mma_tcgen05_columns(const MmaTiling *t);
/* wgmma's shared-memory operand layouts, swizzled: an R x C tile of e-byte
 * elements in rows of W bytes (32, 64 or 128: the descriptor's swizzle
 * mode), C beyond W/e in further R x W blocks; element (r, c) at byte
 *   (c*e / W) * R*W + r*W + (c*e % W), then ^ (((b >> 7) & (W/16 - 1)) << 4)
 * (CuTe's Swizzle<log2(W/16),4,3>, on an address 1024-byte aligned).
 * K-major (A as M x K, B transposed as N x K): W = min(128, K*e), SBO 8*W.
 * MN-major (16-bit B as K x N, wgmma's transpose-B): W = min(128, n*e) for
 * the instruction's n, LBO = K*W (the next W bytes of N), SBO 8*W. */
int64_t mma_wgmma_offset(int64_t r, int64_t c, int64_t rows, int w, int eb);
static inline int mma_wgmma_row_bytes(int64_t cols, int eb)
{
	return cols * eb >= 128 ? 128 : (int)(cols * eb);
}

/* Whether operand k (0 = A, 1 = B) of a product staged in shared memory
 * (via_ldmatrix, via_wgmma) is staged as it is (row-major, possibly
 * swizzled) rather than transposed: A always; B when its elements are 16
 * bits (ldmatrix .trans; wgmma MN-major, which also needs the instruction's
 * n * 2 >= 32 bytes). Only an operand staged as it is can be copied straight
 * from global memory in 16-byte chunks (cp.async). */
bool mma_stage_as_is(const MmaTiling *t, int k, const Type *el);
/* wgmma's row bytes W (mma_wgmma_offset) of operand k staged for tiling t:
 * A and transposed B min(128, K * eb), MN-major B min(128, n * eb) */
int mma_wgmma_stage_w(const MmaTiling *t, int k, const Type *el);
/* The warpgroup path's staged operands, as util_wgmma.c stages them (w, wb:
 * A's and B's row bytes, mma_wgmma_stage_w; bmn: B staged MN-major; eb: the
 * element bytes): how far apart two warpgroups' A rows and B parts start
 * (mma_wgmma_group_strides: warpgroup (gi, gj)'s at gi * *a, gj * *b), and
 * where m64 block j's K step kk starts within them (mma_wgmma_step_offsets),
 * in bytes from the staged A and B */
void mma_wgmma_group_strides(const MmaTiling *t, int w, bool bmn, int eb, int64_t *a, int64_t *b);
void mma_wgmma_step_offsets(const MmaTiling *t, int w, int wb, bool bmn, int64_t kk, int64_t j, int64_t *a, int64_t *b);

/* A tile product: mmaf, mmai, or an mmaf_scaled the lower stages kept
 * for the block-scaled mma.sync (operands x, y, acc, x_scale, y_scale:
 * the first three as mmaf's). */
bool mma_is_product(const Op *op);
/* Whether mmaf_scaled op runs as block-scaled mma.sync on target sm
 * (tile-lower keeps it then, else rewrites it to decoded f32 operands):
 * sm_120/sm_121 (sm_120a/sm_121a: mma.sync.aligned.kind::mxf8f6f4
 * .block_scale.scale_vec::1X.m16n8k32 ... .f32.{e4m3,e5m2}.{e4m3,e5m2}.f32
 * .ue8m0, NVIDIA's choice there), e4m3/e5m2 operands, f8E8M0FNU scales
 * with a block of 32 (one scale per row of A and column of B per
 * instruction), an f32 accumulator of rank 2, M, N, K powers of two of at
 * least the atom's 16 x 8 x 32. */
bool mma_block_scaled_ok(const Op *op, int sm);
/* The register layouts of a block-scaled product's scales (tiling t of
 * the m16n8k32 atom, one scale per K atom): x_scale [M, K/32] and y_scale
 * [K/32, N], register ki + kt*mi (ki + kt*ni) holding the scale of atom
 * (mi, ki) (of (ni, ki)) in the lanes the instruction reads it from with
 * selectors {byte-id 0, thread-id 0} (tile-run's exec_mma.c, checked on
 * NVIDIA's PTX): A's row g from lane 4g, row g+8 from lane 4g+1; B's
 * column g from lane 4g. The other lanes hold copies (stride 0):
 *   SA  V (kt:1, mt:16*Ks)   L (2:8*Ks, 2:0, 8:Ks)   W (wm:(M/wm)*Ks, wn:0, wrep:0)
 *   SB  V (kt:N, nt:8)       L (4:0, 8:1)            W (wm:0, wn:N/wn, wrep:0) */
void mma_layout_scale_a(const MmaTiling *t, Layout *out);
void mma_layout_scale_b(const MmaTiling *t, Layout *out);

void mma_layout_a(const MmaTiling *t, Layout *out);
/* Is have (a layout of the product's A) the A fragment mma_layout_a gives,
 * up to canonical form? (wgmma reads such an A from registers) */
bool mma_layout_is_a(const MmaTiling *t, const Layout *have);
void mma_layout_b(const MmaTiling *t, Layout *out);
void mma_layout_c(const MmaTiling *t, Layout *out);

/* Operands staged in shared memory for ldmatrix (docs/lowering.md "MMA"):
 * an operand tile, row-major with rows of row_bytes, is stored at
 * mma_swizzle(byte offset, mma_swizzle_shift(row_bytes)): the 16-byte
 * chunk bits [4, 7) XORed with the three offset bits from `shift` up
 * (CuTe's Swizzle<3,4,shift>), shift = max(7, log2 row_bytes), so the
 * eight 16-byte rows of an 8x8 matrix that ldmatrix reads land in eight
 * different chunks of a 128-byte line: no bank conflict. A bijection on
 * every 128-byte-aligned range; 16-byte chunks stay whole. */
int mma_swizzle_shift(int64_t row_bytes);
static inline int64_t mma_swizzle(int64_t byte_off, int shift)
{
	return byte_off ^ (((byte_off >> shift) & 7) << 4);
}
/* Whether ldmatrix can load the atom's fragments: 8 rows of 16 bytes, a
 * thread's 4-byte register at row lane/4, bytes 4*(lane%4): A (.row) from
 * the row-major tile; B from the row-major K x N tile with .trans for
 * 16-bit elements (f16, bf16: sm_75+), else from its transpose, staged
 * N x K (i8 m16n8k32, tf32 m16n8k8: sm_80+). */
bool mma_ldmatrix_ok(const MmaAtom *atom, const Type *a, int sm);
/* l (offsets into a rows x cols row-major tile) as offsets into its
 * transpose (cols x rows); false when a leaf runs across rows. */
bool mma_layout_transpose(const Layout *l, int64_t rows, int64_t cols, Layout *out);
/* Shared memory for a kernel's MMA staging on sm (bytes): what tile-sched
 * may give a pipelined product's stages (budget: 160 KiB on sm_90, as
 * NVIDIA's sm_90 matmul cubins have 100-190 KB, launched by cuTile on an
 * H100, docs/benchmarks.md "On the GPU"; 40 KiB elsewhere), and the most a
 * product's staging may take at all (limit: the target's static shared
 * memory, target_smem_limit: 163 KiB on sm_80, 99 KiB on sm_86/89/120, 227
 * KiB on sm_90/100). */
int64_t mma_stage_budget(int sm);
int64_t mma_stage_limit(int sm);
/* The most stages a pipelined product may have (its `stages`; a ring's
 * phase bits are one word, its barriers at most 16 a product). */
#define MMA_MAX_STAGES 8

#endif
