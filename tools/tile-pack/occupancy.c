/* occupancy.c: theoretical occupancy of a kernel from ptxas's resource
 * report (remarks.c) and the CTA size the PTX declares (.reqntid / .maxntid).
 * The per-SM limits are the CUDA C Programming Guide's table of compute
 * capabilities: resident threads and CTAs, 64K registers allocated per warp
 * in units of 256, and shared memory per SM (1 KiB reserved per CTA from
 * sm_80 on). One row per target family; an unknown target gives no figure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include "pack.h"

static const struct { int sm, threads, ctas, smem_kib; } limits[] = {
	{ 75, 1024, 16, 64 },   { 80, 2048, 32, 164 }, { 86, 1536, 16, 100 }, { 87, 2048, 16, 164 },
	{ 89, 1536, 24, 100 },  { 90, 2048, 32, 228 }, { 100, 2048, 32, 228 }, { 103, 2048, 32, 228 },
	{ 110, 2048, 32, 228 }, { 120, 1536, 32, 100 }, { 121, 1536, 32, 100 },
};

const char *ptx_entry_header(const char *ptx, size_t len, const char *name, const char **body)
{
	size_t nl = strlen(name);
	const char *end = ptx + len;
	for (const char *p = ptx; p < end; p++) {
		p = memmem(p, (size_t)(end - p), ".entry ", 7);
		if (!p)
			return NULL;
		const char *q = p + 7;
		while (q < end && *q == ' ')
			q++;
		if ((size_t)(end - q) <= nl || memcmp(q, name, nl) != 0 || (q[nl] != '(' && q[nl] != ' ' && q[nl] != '\n'))
			continue;
		*body = memchr(q, '{', (size_t)(end - q));
		return *body ? q : NULL;
	}
	return NULL;
}

/* Threads per CTA that the PTX declares for entry `name` (.reqntid, else
 * .maxntid; products of up to three dims), or 0. */
long ptx_cta_threads(const char *ptx, size_t len, const char *name)
{
	const char *body, *q = ptx_entry_header(ptx, len, name, &body);
	if (!q)
		return 0;
	for (const char *d = q; d < body; d++) {
		if (strncmp(d, ".reqntid", 8) != 0 && strncmp(d, ".maxntid", 8) != 0)
			continue;
		const char *e = d + 8;
		long n = 1;
		for (int dim = 0; dim < 3; dim++) {
			e += strspn(e, dim ? " \t," : " \t");
			if (*e < '0' || *e > '9')
				break;
			char *x;
			n *= strtol(e, &x, 10);
			e = x;
		}
		return n;
	}
	return 0;
}

int kernel_occupancy(const KernelUsage *k, long threads, Occupancy *o)
{
	int sm = atoi(k->arch + (strncmp(k->arch, "sm_", 3) == 0 ? 3 : 0));
	int row = -1;
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
		if (limits[i].sm == sm)
			row = (int)i;
	if (row < 0 || threads <= 0 || k->registers < 0)
		return -1;
	long warps = (threads + 31) / 32;
	long max_warps = limits[row].threads / 32;
	long by_threads = max_warps / warps;
	long regs_per_warp = ((k->registers > 0 ? k->registers : 1) * 32 + 255) / 256 * 256;
	long by_regs = 65536 / (regs_per_warp * warps);
	long smem = k->smem > 0 ? k->smem : 0;
	long per_cta = smem + (sm >= 80 ? 1024 : 0);
	long by_smem = per_cta ? (long)limits[row].smem_kib * 1024 / per_cta : limits[row].ctas;
	long ctas = limits[row].ctas;
	o->limiter = "CTAs per SM";
	if (by_threads < ctas) { ctas = by_threads; o->limiter = "threads per SM"; }
	if (by_regs < ctas) { ctas = by_regs; o->limiter = "registers"; }
	if (by_smem < ctas) { ctas = by_smem; o->limiter = "shared memory"; }
	o->threads = threads;
	o->ctas_per_sm = ctas;
	o->percent = (int)(ctas * warps * 100 / max_warps);
	return 0;
}
