/* tensormap.c: tile-run's tensor maps. The driver's CUtensorMap is an
 * opaque 128-byte object (cuTensorMapEncodeTiled fills it); PTX only
 * passes its address to cp.async.bulk.tensor and prefetch.tensormap, so
 * tile-run uses its own 128-byte encoding, filled from a "tmap:" argument:
 *   0  u32 magic 'TRTM'     4 u32 rank        8 u64 global address
 *   16 u64 dims[5]          56 u64 strides[4] (bytes, dims 1..rank-1)
 *   88 u32 box[5]           108 u8 element bytes  109 u8 swizzle (0 none, 1 32B, 2 64B, 3 128B)
 *   110 u8 oob (1: NaN)     111 u8 tf32 (1: f32 rounded to tf32, nearest even, as loaded)
 *   rest zero
 * Constraints checked as cuTensorMapEncodeTiled's: rank 1..5, global address
 * and strides multiples of 16, box 1..256 per dimension, inner box bytes a
 * multiple of 16 and at most the swizzle span. A map that is not one of
 * these is read as the driver's encoding of a 2-D f16/bf16/f32/tf32 map (what our
 * host callback writes, libcommon tmap.c), the form tile-run fills for
 * the hidden parameters tile-ptx's tensor-map notes describe (cli.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "tensormap.h"
#include "tmap.h"

#define MAGIC 0x4d545254u

bool tensormap_from_arg(uint8_t out[128], const char *spec, const Npy *arrays, const bool *is_array, int nargs,
			const uint64_t *devs, int pos)
{
	const char *p = spec + 5;
	char *end;
	long n = strtol(p, &end, 10);
	if (end == p || *end != ',' || n < 0 || n >= nargs || n == pos || !is_array[n]) {
		diag_plain("argument %d: '%s': expected tmap:N,BOX (N an array argument before or after it)", pos, spec);
		return false;
	}
	const Npy *a = &arrays[n];
	TensorMap tm = { 0 };
	tm.rank = a->ndim;
	tm.esize = a->itemsize;
	tm.addr = devs[n];
	if (tm.rank < 1 || tm.rank > 5) {
		diag_plain("argument %d: array argument %ld has %d dimensions (a tensor map takes 1 to 5)", pos, n, a->ndim);
		return false;
	}
	uint64_t adims[5], astrides[5];     /* the array's, innermost first */
	int perm[5];                        /* map dim j is array dim perm[j] (dims=) */
	for (int j = 0; j < tm.rank; j++) {
		adims[j] = a->shape[tm.rank - 1 - j];
		astrides[j] = j ? astrides[j - 1] * adims[j - 1] : tm.esize;
		perm[j] = j;
	}
	p = end + 1;
	for (int j = 0; j < tm.rank; j++) {
		unsigned long b = strtoul(p, &end, 10);
		if (end == p || b < 1 || b > 256 || (j < tm.rank - 1 ? *end != 'x' : (*end && *end != ','))) {
			diag_plain("argument %d: '%s': the box needs %d sizes 1..256, innermost first (e.g. 64x32)", pos, spec,
				  tm.rank);
			return false;
		}
		tm.box[j] = (uint32_t)b;
		p = end + (*end == 'x');
	}
	while (*p == ',') {
		p++;
		if (strncmp(p, "swizzle=", 8) == 0) {
			tm.swizzle = (int)strtol(p + 8, &end, 10);
			if (tm.swizzle != 0 && tm.swizzle != 32 && tm.swizzle != 64 && tm.swizzle != 128)
				break;
			p = end;
		} else if (strncmp(p, "oob=nan", 7) == 0) {
			tm.oob_nan = true;
			p += 7;
		} else if (strncmp(p, "tf32", 4) == 0 && tm.esize == 4) {
			tm.tf32 = true;
			p += 4;
		} else if (strncmp(p, "dims=", 5) == 0) {
			/* the map's dims in another order (NVIDIA's maps of a
			 * [B, H, S, D] view take B before H): dims=0.1.3.2 */
			unsigned seen = 0;
			p += 5;
			for (int j = 0; j < tm.rank; j++) {
				long d = strtol(p, &end, 10);
				if (end == p || d < 0 || d >= tm.rank || (seen & 1u << d) || (j == 0) != (d == 0) ||
				    (j < tm.rank - 1 ? *end != '.' : (*end && *end != ','))) {
					diag_plain("argument %d: '%s': dims= names each of the %d array dims once, innermost "
						  "first and first (e.g. dims=0.1.3.2)", pos, spec, tm.rank);
					return false;
				}
				seen |= 1u << d;
				perm[j] = (int)d;
				p = end + (*end == '.');
			}
		} else {
			break;
		}
	}
	if (*p) {
		diag_plain("argument %d: '%s': unknown tensor-map option '%s' (swizzle=32|64|128, oob=nan, tf32 for 4-byte "
			  "elements, dims=I0.I1..)", pos, spec, p);
		return false;
	}
	for (int j = 0; j < tm.rank; j++) {
		tm.dims[j] = adims[perm[j]];
		tm.strides[j] = astrides[perm[j]];
	}
	uint64_t inner = (uint64_t)tm.box[0] * tm.esize;
	if (tm.addr % 16 || inner % 16 || (tm.swizzle && inner > (uint64_t)tm.swizzle)) {
		diag_plain("argument %d: '%s': the inner box is %llu bytes (a multiple of 16, at most the swizzle span)", pos,
			  spec, (unsigned long long)inner);
		return false;
	}
	for (int j = 1; j < tm.rank; j++)
		if (tm.strides[j] % 16) {
			diag_plain("argument %d: '%s': global stride %d is %llu bytes, not a multiple of 16", pos, spec, j,
				  (unsigned long long)tm.strides[j]);
			return false;
		}
	memset(out, 0, 128);
	uint32_t u32;
	u32 = MAGIC;
	memcpy(out, &u32, 4);
	u32 = (uint32_t)tm.rank;
	memcpy(out + 4, &u32, 4);
	memcpy(out + 8, &tm.addr, 8);
	memcpy(out + 16, tm.dims, 40);
	memcpy(out + 56, tm.strides + 1, 32);
	memcpy(out + 88, tm.box, 20);
	out[108] = (uint8_t)tm.esize;
	out[109] = (uint8_t)(tm.swizzle == 32 ? 1 : tm.swizzle == 64 ? 2 : tm.swizzle == 128 ? 3 : 0);
	out[110] = tm.oob_nan;
	out[111] = tm.tf32;
	return true;
}

/* the driver's encoding, as our host callback writes it (libcommon tmap.c) */
static bool driver_map(const uint8_t *p, TensorMap *tm)
{
	TmapArgs a;
	if (!tmap_decode(p, &a))
		return false;
	memset(tm, 0, sizeof *tm);
	tm->rank = a.rank;
	tm->esize = (uint32_t)tmap_elem_bytes(a.elem);
	tm->addr = a.base;
	for (int i = 0; i < a.rank; i++) {
		tm->dims[i] = a.dims[i];
		tm->strides[i] = (uint64_t)(i ? a.strides[i] : 1) * tm->esize;
		tm->box[i] = a.box[i];
	}
	tm->swizzle = a.swizzle;
	tm->tf32 = a.elem == TMAP_TF32;
	return true;
}

bool tensormap_decode(const uint8_t *p, TensorMap *tm)
{
	uint32_t magic, rank;
	memcpy(&magic, p, 4);
	memcpy(&rank, p + 4, 4);
	if (magic != MAGIC)
		return driver_map(p, tm);
	if (rank < 1 || rank > 5)
		return false;
	memset(tm, 0, sizeof *tm);
	tm->rank = (int)rank;
	memcpy(&tm->addr, p + 8, 8);
	memcpy(tm->dims, p + 16, 40);
	memcpy(tm->strides + 1, p + 56, 32);
	memcpy(tm->box, p + 88, 20);
	tm->esize = p[108];
	tm->strides[0] = tm->esize;
	tm->swizzle = p[109] ? 16 << p[109] : 0;
	tm->oob_nan = p[110];
	tm->tf32 = p[111];
	if (tm->tf32 && tm->esize != 4)
		return false;
	return tm->esize == 1 || tm->esize == 2 || tm->esize == 4 || tm->esize == 8;
}
