/* layout_map.h: bit maps between the row-major offsets of power-of-two
 * tiles, and what they do to register layouts (layout.h). The layout maths
 * of reduce, scan and the shape ops (permute, reshape, broadcast, cat,
 * extract, pack/unpack) that tile-sched and tile-ptx share
 * (docs/lowering.md §8).
 *
 * Every tile dim is a power of two, so the row-major offset of an element is
 * the concatenation of its coordinates' bits, and every shape op moves whole
 * bits: a BitMap sends bit i of an offset in its domain to bit to[i] of an
 * offset in its codomain, or drops it (-1). The register layouts tile-sched
 * makes have power-of-two leaves and strides, so each leaf is a run of
 * offset bits, and a map acts on a layout bit by bit (layout_push).
 *
 * All functions are pure; none allocates except layout_gather_map's
 * scratch. */
#ifndef TILE_LAYOUT_MAP_H
#define TILE_LAYOUT_MAP_H
#include <stdbool.h>
#include <stdint.h>
#include "layout.h"

#define BITMAP_MAX 32

typedef struct BitMap {
	int nbits;                    /* domain: offsets in [0, 2^nbits) */
	signed char to[BITMAP_MAX];   /* domain bit i -> codomain bit, or -1 */
} BitMap;

/* OR over the set bits i of x of (1 << to[i]). */
int64_t bitmap_apply(const BitMap *m, int64_t x);
/* log2 of a power of two (-1 if not one). */
int ilog2_exact(int64_t x);

/* Maps of the shape ops; shapes are powers of two, rank <= 8. False when
 * a shape is not a power of two or the arguments do not fit. */
bool bitmap_identity(BitMap *m, int nbits);
/* broadcast: result offset -> source offset (broadcast dims dropped). */
bool bitmap_broadcast(BitMap *m, int rank, const int64_t *res_shape, const int64_t *src_shape);
/* permute: result offset -> source offset; result dim i is source dim perm[i]. */
bool bitmap_permute(BitMap *m, int rank, const int64_t *src_shape, const int64_t *perm);
/* reduce along dim: source offset -> result offset (that dim's bits dropped). */
bool bitmap_reduce(BitMap *m, int rank, const int64_t *src_shape, int dim);
/* cat along dim of two operands of shape op_shape: result offset -> operand
 * offset; the top bit of dim (which operand) goes to bit log2(operand size)
 * when `region` (so operand j lives at j * size), else is dropped. */
bool bitmap_cat(BitMap *m, int rank, const int64_t *op_shape, int dim, bool region);
/* extract: result offset -> source offset inside the first sub-tile; add
 * extract_offset() for the sub-tile at block coordinates idx. */
bool bitmap_extract(BitMap *m, int rank, const int64_t *res_shape, const int64_t *src_shape);
int64_t extract_offset(int rank, const int64_t *res_shape, const int64_t *src_shape, const int64_t *idx);
/* The offset bits of dim `dim` of a row-major tile: [*lo, *lo + *nb). */
void tile_dim_bits(int rank, const int64_t *shape, int dim, int *lo, int *nb);

/* Push layout l (over the map's domain) through m: each leaf bit's stride
 * goes through m; a stride that maps to nothing is dropped in the register
 * mode (the register repeats another) and replicates (stride 0) in the
 * lane and warp modes. Canonical result. False if a leaf is not a power of
 * two. */
bool layout_push(const Layout *l, const BitMap *m, Layout *out);

/* Can every register of dst (a layout over m's domain) be read, in every
 * thread, from a register of src (over m's codomain) at offset
 * m(dst offset) + add? Then regs[r] (layout_nregs(dst) entries) names it.
 * `add` must have no bit in common with m's image. */
bool layout_gather_map(const Layout *src, const Layout *dst, const BitMap *m, int64_t add,
		       int64_t *regs);

/* Where each offset bit lives in a register layout with power-of-two
 * leaves: mode (0 registers, 1 lanes, 2 warps; -1 none) and the bit of that
 * mode's coordinate (register number, lane, warp). False if a leaf is not
 * a power of two or two leaves share an offset bit. */
typedef struct BitOwner { signed char mode, bit; } BitOwner;
bool layout_bit_owners(const Layout *l, int nbits, BitOwner *own);

/* Does l hold the offset bits [lo, lo+nb) (one tile dim) as some register
 * bits, then consecutive lane bits, then consecutive warp bits, then
 * register bits again (each group possibly empty), lowest offset bit
 * first? That is the shape tile-ptx's scan works on. */
bool layout_scan_ok(const Layout *l, int lo, int nb);

/* Element-width reinterpretation (pack/unpack): the layout of the same
 * bytes as elements 2^k times narrower (expand: each element becomes 2^k
 * consecutive registers) or wider (contract: needs the low k offset bits in
 * the register mode, as the lowest register bits' run). */
bool layout_expand(const Layout *l, int k, Layout *out);
bool layout_contract(const Layout *l, int k, Layout *out);

/* Shared-memory banks (32 x 4 bytes) for elements of eb bytes: offset bits
 * [*blo, *blo + *nbank) pick the bank (the 4-byte word for eb <= 4, the
 * bank pair for 8-byte elements); lower bits stay in one word; a warp
 * access is checked over its first *lanes lane bits (8-byte accesses go in
 * two half-warp phases). */
void smem_banks(int eb, int *blo, int *nbank, int *lanes);
/* An XOR swizzle for a buffer of 2^abits elements, physical = offset ^
 * (S(offset) << blo) with S(offset) = XOR of sw[p] over the set high bits
 * p >= blo + nbank: chosen so that in each of the nphases warp accesses
 * (phases[k][b] = the offset bit lane bit b moves, or -1) the lanes hit
 * distinct banks or the same word. sw has 64 entries; all zero when no
 * swizzle is needed or none is found. */
void smem_swizzle(int eb, int nphases, int (*phases)[5], unsigned *sw, int abits);
/* A padding that makes the same accesses conflict-free with no extra
 * instructions: physical = offset + (offset >> p) (one element every 2^p).
 * Returns p, -1 when the accesses are conflict-free unpadded, -2 when no
 * padding works (use the swizzle). */
int smem_pad(int eb, int nphases, int (*phases)[5], int abits);

#endif
