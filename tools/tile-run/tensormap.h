/* tensormap.h: tile-run's 128-byte tensor map (tensormap.c), what
 * cp.async.bulk.tensor reads through its [tensorMap, {coords}] operand. */
#ifndef TILE_RUN_TENSORMAP_H
#define TILE_RUN_TENSORMAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npy.h"

typedef struct TensorMap {
	uint64_t addr;          /* global address of element (0, ..., 0) */
	int rank;               /* 1..5; dimension 0 is the innermost (contiguous) */
	uint32_t esize;         /* element bytes */
	uint64_t dims[5];
	uint64_t strides[5];    /* bytes; strides[0] = esize */
	uint32_t box[5];
	int swizzle;            /* 0 none, 32, 64, 128 (bytes) */
	bool oob_nan;           /* out-of-bounds elements read as NaN (floats), else 0 */
	bool tf32;              /* f32 rounded to tf32 (nearest even) as it is loaded */
} TensorMap;

/* ARG "tmap:N,B0xB1..[,swizzle=32|64|128][,oob=nan][,tf32][,dims=I0.I1..]": a map
 * of array argument N (dims, strides and element size from its .npy,
 * innermost first; box in the same order) at device address addr -> 128
 * bytes; tf32: 4-byte elements rounded to tf32 as they are loaded; dims:
 * map dim j is the array's dim Ij (innermost first; I0 = 0). false after a
 * message. */
bool tensormap_from_arg(uint8_t out[128], const char *spec, const Npy *arrays, const bool *is_array, int nargs,
			const uint64_t *devs, int pos);
/* 128 bytes -> map; false if they are not one of tile-run's maps */
bool tensormap_decode(const uint8_t *p, TensorMap *tm);
/* a shared address under the map's swizzle (CUTLASS Swizzle<B,4,3>: address
 * bits [7, 7+B) xor-ed into bits [4, 4+B); B = 1, 2, 3 for 32, 64, 128 bytes) */
static inline uint64_t swizzle_addr(uint64_t a, int bytes)
{
	uint64_t mask = bytes == 128 ? 7 : bytes == 64 ? 3 : bytes == 32 ? 1 : 0;
	return a ^ (((a >> 7) & mask) << 4);
}
#endif
