/* tmap.h: TMA tensor maps as the CUDA driver's GPU reads them, and the
 * note by which tile-ptx tells tile-pack and tile-run how to fill them.
 *
 * A kernel of ours that copies with TMA (cp.async.bulk.tensor) takes each
 * map as a hidden `.param .align 64 .b8 p[128]` after the user's
 * parameters (as NVIDIA's tileiras does, docs/abi.md §5.3.1). Nobody
 * passes it: at launch the driver runs the cubin's host callback
 * (tile-pack's nvhost.c), which builds it from the user's parameters;
 * tile-run builds it the same way (tmap_encode) when it runs the PTX.
 *
 * The note: one PTX comment line per map, written by tile-ptx at the end
 * of the module,
 *   // tileiras.tensormap ENTRY HIDDEN ELEM base=pB dims=D0,D1[,D2..] stride=S1[,S2..] box=B0,B1[,B2..] swizzle=W
 * HIDDEN the map's parameter index, ELEM f16 | bf16 | f32 | tf32 (tf32: f32
 * in memory that the copy rounds to tf32, nearest even: the map NVIDIA's
 * callback writes for an f32 operand converted so), pB the base
 * pointer's parameter index, the dims D0 (innermost), D1, .. and the
 * strides S1, .. (of dims 1, .., in elements; dim 0's is 1) each a
 * parameter `pN` (u32) or a decimal constant, the box B0 x B1 x ..
 * elements (innermost first), swizzle 64 or 128 bytes. The rank (2..5) is
 * the number of dims. Only what was checked against NVIDIA's callbacks is
 * encoded: ranks 2 (matmul) and 4 (attention), f16, bf16, f32 and tf32,
 * 64- and 128-byte swizzles. */
#ifndef LIBCOMMON_TMAP_H
#define LIBCOMMON_TMAP_H
#include <stdbool.h>
#include <stdint.h>
#include "strbuf.h"

#define TMAP_NOTE "// tileiras.tensormap "
#define TMAP_BYTES 128
#define TMAP_MAX_RANK 5

/* TMAP_F32 copies f32 as it is; TMAP_TF32 is f32 rounded to tf32 (nearest
 * even) by the copy (flag bit 16; docs/abi.md §5.3.1). TMAP_F64 and TMAP_U8
 * (bytes: NVIDIA's maps of f8 operands) are maps NVIDIA's callbacks write
 * (its f64 and e4m3 matmuls) that our notes do not yet ask for. */
typedef enum TmapElem { TMAP_F16, TMAP_BF16, TMAP_F32, TMAP_TF32, TMAP_F64, TMAP_U8 } TmapElem;
#define TMAP_NELEMS 6

/* a dimension, stride or base: a parameter (param >= 0) or a constant */
typedef struct TmapVal {
	int param;
	uint64_t value;
} TmapVal;

typedef struct TmapNote {
	char entry[256];
	int hidden;             /* parameter index of the map */
	TmapElem elem;
	int base;               /* parameter index of the base pointer */
	int rank;               /* 2..TMAP_MAX_RANK */
	TmapVal dims[TMAP_MAX_RANK];    /* innermost first */
	TmapVal strides[TMAP_MAX_RANK]; /* of dims 1..rank-1, elements ([0] unused) */
	uint32_t box[TMAP_MAX_RANK];
	int swizzle;            /* bytes: 64, 128 */
} TmapNote;

/* The runtime values of a map, after the parameters were read. */
typedef struct TmapArgs {
	TmapElem elem;
	int rank;               /* 2..TMAP_MAX_RANK */
	uint64_t base;
	uint32_t dims[TMAP_MAX_RANK];
	uint32_t strides[TMAP_MAX_RANK];        /* elements, of dims 1..rank-1 ([0] unused) */
	uint32_t box[TMAP_MAX_RANK];
	int swizzle;
} TmapArgs;

/* field j of a note's 2 * rank sizes: dims 0..rank-1, then strides
 * 0..rank-1 (stride 0 the constant 1) */
static inline const TmapVal *tmap_note_field(const TmapNote *n, int j)
{
	return j < n->rank ? &n->dims[j] : &n->strides[j - n->rank];
}
/* The map a note describes, its parameters read by read(ctx, index, bytes)
 * (the base 8 bytes, the sizes 4), as a host callback builds it. */
void tmap_args_of_note(const TmapNote *n, uint64_t (*read)(const void *ctx, int param, int bytes), const void *ctx,
		       TmapArgs *a);

int tmap_elem_bytes(TmapElem e);
const char *tmap_elem_name(TmapElem e);
/* the flag word's low 32 bits except bit 21 (element type, rank, swizzle,
 * bit 18; bit 16 for tf32) */
uint32_t tmap_flags(TmapElem e, int swizzle, int rank);
/* 128 bytes the way NVIDIA's ON_ARGUMENTS_CHANGE writes them (bytes it
 * leaves alone are zeroed here) */
void tmap_encode(uint8_t out[TMAP_BYTES], const TmapArgs *a);
/* out -> a; false if out is not a map tmap_encode could have written */
bool tmap_decode(const uint8_t *in, TmapArgs *a);

void tmap_note_print(StrBuf *sb, const TmapNote *n);
/* one note line (after TMAP_NOTE, up to the end of the line); false, with
 * a reason in *why, if it is malformed */
bool tmap_note_parse(const char *line, TmapNote *n, const char **why);
/* every note in a PTX text, in order; *n notes in a malloc'd array; false
 * (with the bad line's number in *bad_line) if one is malformed */
bool tmap_notes_of(const char *ptx, size_t len, TmapNote **out, int *n, int *bad_line, const char **why);

/* A kernel parameter as the constant bank holds it: its offset from the
 * parameter block's start (byte 0 of the block the host callback gets) */
typedef struct TmapParam {
	int offset, size, align;
	bool hidden;
} TmapParam;

/* Where the parameter block starts in constant bank 0: targets.def's
 * param_cbank (ptxas's EIATTR_PARAM_CBANK: 0x210 on sm_90, 0x380 from sm_100
 * on); 0: not known */
int tmap_cbank_base(int sm);
/* entry's parameters in a PTX text (the `.entry NAME(...)` list, LLVM's or
 * NVIDIA's spelling), laid out from cbank_base as ptxas lays them out: each
 * at its alignment in the bank's absolute addresses (the 128-byte maps at
 * 64). The count (at most cap written), or -1 when the entry or its list
 * is not found or not understood. */
int tmap_param_layout(const char *ptx, size_t len, const char *entry, int cbank_base, TmapParam *out, int cap);

#endif
