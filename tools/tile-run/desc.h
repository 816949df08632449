/* desc.h: shared-memory matrix descriptors, the 64-bit operand
 * descriptions wgmma (sm_90) and tcgen05.mma (sm_100) read A and B through
 * (PTX ISA "Matrix Descriptor Format" / "Shared Memory Descriptor"), and
 * the canonical layouts they name. desc.c; used by exec_wgmma.c and
 * exec_tcgen05.c. */
#ifndef TILE_RUN_DESC_H
#define TILE_RUN_DESC_H
#include <stdbool.h>
#include <stdint.h>

typedef struct MatDesc {
	uint64_t start, lbo, sbo;       /* bytes */
	int swz;                        /* swizzle span in bytes: 0, 32, 64, 128 */
} MatDesc;

/* wgmma's descriptor: bits 0-13 start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4,
 * 49-51 base offset, 62-63 swizzle (0 none, 1 128B, 2 64B, 3 32B) */
MatDesc desc_sm90(uint64_t v);
/* tcgen05's: the same fields, bits 46-48 the constant 0b001, 52 the LBO
 * mode, 61-63 swizzle (0 none, 1 128B with 32-byte atoms, 2 128B, 4 64B,
 * 6 32B). False with *why when tile-run cannot read it. */
bool desc_sm100(uint64_t v, MatDesc *d, const char **why);
/* the shared address of element (x, k) of an operand with e-byte elements
 * (x the M row of A or the N column of B), K-major or MN-major */
uint64_t desc_elem(const MatDesc *d, bool mn_major, uint32_t e, uint32_t x, uint32_t k);
#endif
