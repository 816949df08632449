/* desc.c: shared-memory matrix descriptors (desc.h).
 * Element (x, k) of an operand (e the element bytes, T = 16/e elements per
 * 16-byte chunk, W the swizzle span), from the canonical layouts ("Shared
 * Memory Matrix Layout"; CUTLASS's GmmaDescriptor/UMMA::SmemDescriptor
 * comments), byte offset from the start address:
 *   K-major (no transpose), no swizzle: (x%8)*16 + (x/8)*SBO + (k%T)*e + (k/T)*LBO
 *   K-major, swizzled:                  (x%8)*W  + (x/8)*SBO + k*e
 *   MN-major (transposed), no swizzle:  (x%T)*e + (x/T)*SBO + (k%8)*16 + (k/8)*LBO
 *   MN-major, swizzled:                 (x%T)*e + ((x/T)%(W/16))*16 + (x/(T*W/16))*LBO
 *                                       + (k%8)*W + (k/8)*SBO
 * then the swizzle of the absolute shared address (tensormap.h's
 * swizzle_addr, the pattern TMA writes with); the base offset is implied by
 * using absolute addresses.
 * tcgen05's mode 1 (128 bytes, 32-byte atoms: what NVIDIA's tileiras uses
 * for an MN-major tf32 B) is read with the same pattern as mode 2: NVIDIA's
 * sm_100a tf32 matmul, whose B its TMA map writes with the 128-byte
 * swizzle, matches numpy that way (and not with bits [7,9) xor-ed into
 * [5,7)). */
#include "desc.h"
#include "tensormap.h"

MatDesc desc_sm90(uint64_t v)
{
	static const int swz[4] = { 0, 128, 64, 32 };
	MatDesc d = { (v & 0x3fff) << 4, ((v >> 16) & 0x3fff) << 4, ((v >> 32) & 0x3fff) << 4, swz[v >> 62] };
	return d;
}

bool desc_sm100(uint64_t v, MatDesc *d, const char **why)
{
	static const int swz[8] = { 0, -1, 128, -1, 64, -1, 32, -1 };
	if (((v >> 46) & 7) != 1) {
		*why = "bits 46-48 of a tcgen05 shared-memory descriptor must be 0b001";
		return false;
	}
	if ((v >> 52) & 1) {
		*why = "the absolute leading-byte-offset mode (bit 52) is not modelled";
		return false;
	}
	int s = swz[v >> 61];
	if ((v >> 61) == 1)
		s = 128;
	if (s < 0) {
		*why = "reserved swizzle mode in a tcgen05 shared-memory descriptor";
		return false;
	}
	*d = (MatDesc){ (v & 0x3fff) << 4, ((v >> 16) & 0x3fff) << 4, ((v >> 32) & 0x3fff) << 4, s };
	return true;
}

uint64_t desc_elem(const MatDesc *d, bool mn_major, uint32_t e, uint32_t x, uint32_t k)
{
	uint32_t T = 16 / e;
	uint64_t o;
	if (!mn_major)
		o = d->swz ? (x % 8) * (uint64_t)d->swz + (x / 8) * d->sbo + (uint64_t)k * e
			   : (x % 8) * 16 + (x / 8) * d->sbo + (k % T) * e + (k / T) * d->lbo;
	else if (!d->swz)
		o = (x % T) * e + (x / T) * d->sbo + (k % 8) * 16 + (k / 8) * d->lbo;
	else {
		uint32_t per = (uint32_t)d->swz / 16;
		o = (x % T) * e + ((x / T) % per) * 16 + (x / (T * per)) * d->lbo + (k % 8) * (uint64_t)d->swz +
		    (k / 8) * d->sbo;
	}
	return swizzle_addr(d->start + o, d->swz);
}
