/* layout.h: CuTe layouts (shape:stride), the one layout algebra every stage
 * uses (docs/codegen.md §1, docs/ir.md §4.3).
 *
 * A Layout is a function from a coordinate to an integer index, written
 * "shape:stride", e.g. "((4,2),32,4):((1,512),4,128)". It has top-level
 * modes; each mode is one leaf ("32:4") or a flat tuple of leaves
 * ("(4,2):(1,512)"). Deeper nesting is not needed by any stage and is
 * rejected. A coordinate of a mode is an integer in [0, size(mode)) and is
 * split over the leaves colexicographically (leftmost leaf fastest), as in
 * CuTe; the index is the sum over leaves of leaf-coordinate * leaf-stride.
 *
 * Register layouts of tile values (tile-sched) have exactly three modes,
 * (V, L, W) = (register number, lane, warp), and map to the row-major linear
 * offset of an element in its tile. A stride-0 leaf replicates: threads (or
 * registers) that differ only in that coordinate hold the same element.
 *
 * All functions are pure; none allocates. Errors are reported by returning
 * false (or -1) and, where a message helps, in *err. */
#ifndef TILE_LAYOUT_H
#define TILE_LAYOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

#define LAYOUT_MAX_MODES 8
#define LAYOUT_MAX_LEAVES 48
/* the largest size and |stride| layout_parse accepts: no tile is larger, and
 * every product of layout_size and layout_cosize then fits in 63 bits */
#define LAYOUT_MAX_EXTENT (INT64_C(1) << 31)

typedef struct Layout {
	int nmodes;
	int begin[LAYOUT_MAX_MODES + 1];   /* leaves of mode m: [begin[m], begin[m+1]) */
	bool tuple[LAYOUT_MAX_MODES];      /* mode printed as a tuple "(..)" */
	int64_t shape[LAYOUT_MAX_LEAVES];
	int64_t stride[LAYOUT_MAX_LEAVES];
} Layout;

/* ---- building, parsing, printing */
void layout_init(Layout *l);                        /* no modes */
/* Append a mode of n leaves; false if the layout is full. */
bool layout_add_mode(Layout *l, int n, const int64_t *shape, const int64_t *stride);
bool layout_parse(const char *s, Layout *out, const char **err);
void layout_print(StrBuf *b, const Layout *l);
const char *layout_str(const Layout *l, char *buf, size_t n);   /* into buf */
bool layout_equal(const Layout *a, const Layout *b);             /* same spelling */
static inline int layout_nleaves(const Layout *l) { return l->begin[l->nmodes]; }

/* ---- evaluation */
int64_t layout_size(const Layout *l);                /* product of all shapes */
int64_t layout_mode_size(const Layout *l, int m);
int64_t layout_cosize(const Layout *l);              /* 1 + largest index */
/* Index of a coordinate given per mode (coord[m] in [0, mode size)). */
int64_t layout_eval_modes(const Layout *l, const int64_t *coord);
/* Contribution of mode m at coordinate c. */
int64_t layout_eval_mode(const Layout *l, int m, int64_t c);
/* Index of a linear (colexicographic over all leaves) coordinate. */
int64_t layout_eval(const Layout *l, int64_t c);

/* ---- algebra (CuTe) */
/* Canonical form of each top-level mode: size-1 leaves dropped, adjacent
 * leaves merged when the second continues the first (d1 == s0*d0, or both
 * strides 0); an empty mode becomes 1:0. Keeps the number of modes. */
void layout_canonicalize(Layout *l);
/* Flatten to one mode and coalesce it (CuTe coalesce). */
void layout_coalesce(Layout *l);
/* r = a o b (CuTe composition: r(c) = a(b(c))), computed by mode of b, one
 * result mode per mode of b. False if not admissible (shape divisibility). */
bool layout_compose(const Layout *a, const Layout *b, Layout *r);
/* CuTe complement of a (flattened) with respect to cosize m: the layout
 * that, concatenated after a, covers [0, m) with a's strides. False when a is
 * not injective/sorted-admissible or m is not a multiple. */
bool layout_complement(const Layout *a, int64_t m, Layout *r);
/* CuTe logical_divide(a, b) = a o (b, complement(b, size(a))): two modes,
 * "inside a tile of b" and "which tile". */
bool layout_logical_divide(const Layout *a, const Layout *b, Layout *r);
/* True if the layout is one-to-one on [0, size) (brute force; size <= 2^20). */
bool layout_is_injective(const Layout *l);

/* ---- register layouts of tiles (modes V, L, W) */
/* The blocked layout of an n-element tile for `warps` warps: each thread
 * holds runs of `vec` consecutive elements, consecutive lanes take
 * consecutive runs, then warps, then the pattern repeats in registers;
 * threads beyond the tile replicate (stride 0). n, vec, warps powers of 2. */
bool layout_blocked(int64_t n, int64_t vec, int warps, Layout *out);
/* The fully replicated layout of a one-element tile: (1,32,W):(0,0,0). */
void layout_replicated(int warps, Layout *out);
/* Check that l is a register layout for a tile of n elements and `warps`
 * warps: three modes, lane mode of size 32, warp mode of size `warps`, every
 * element of [0, n) held by some thread, no index >= n. */
bool layout_check_tile(const Layout *l, int64_t n, int warps, const char **err);
/* Number of registers (size of mode V). */
static inline int64_t layout_nregs(const Layout *l) { return layout_mode_size(l, 0); }
/* Number of consecutive registers starting at register r that hold
 * consecutive elements (stride-1 run), capped at `cap`. */
int64_t layout_contiguous_regs(const Layout *l, int64_t r, int64_t cap);
/* Largest power of two v <= cap such that runs of v registers starting at
 * multiples of v hold v consecutive, v-aligned elements in every thread:
 * the vector width of a global access in layout l. */
int layout_run_width(const Layout *l, int cap);
/* The vector width of an access whose chunks run along tile dim d of a
 * row-major tile of `rank` dims `shape`: layout_run_width when d is the
 * last dim (or rank is 0); else runs of v registers at offsets x, x + s,
 * .., x + (v-1) s (s the dim's tile-linear stride), x's coordinate along
 * the dim a multiple of v in every thread (a transposed view's vectors run
 * down a column). */
int layout_tile_run_width(const Layout *l, int cap, int rank, const int64_t *shape, int d);
/* Is (lane, warp, register) the first owner of its element? Used to let one
 * thread store a replicated element: true iff every stride-0 coordinate is 0. */
bool layout_reg_is_primary(const Layout *l, int64_t r);

/* ---- maps between tiles (reshape, broadcast, permute, identity) */
typedef enum TileMapKind { TM_IDENTITY, TM_BROADCAST, TM_PERMUTE } TileMapKind;
typedef struct TileMap {
	TileMapKind kind;
	int rank_dst, rank_src;
	int64_t dst_shape[8], src_shape[8];
	int perm[8];        /* TM_PERMUTE: dst dim i is src dim perm[i] */
} TileMap;
/* Source linear offset of the element at destination linear offset e. */
int64_t tilemap_apply(const TileMap *m, int64_t e);
/* The layout a source tile should have so that, in every thread, each
 * register of a destination in layout dst finds its element in a register
 * of the source: dst's strides mapped through m, duplicated registers
 * dropped. Needs power-of-two leaves. */
bool layout_derive_source(const Layout *dst, const TileMap *m, Layout *src);
/* If every register r of dst (in every thread) can be read from a register
 * of src in the same thread, fill regs[r] with that register and return
 * true. regs has layout_nregs(dst) entries. */
bool layout_local_gather(const Layout *src, const Layout *dst, const TileMap *m, int warps, int64_t *regs);

#endif
