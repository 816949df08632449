/* shape.c: a launch's kernel and shape checked before anything is
 * allocated (internal.h tilerun_shape): the entry, the block (given, else
 * .reqntid, else .maxntid, else 128 threads), the grid, the kernel's shared
 * and local memory against what a GPU has, and the cluster (given, else
 * .reqnctapercluster, else none; with .blocksareclusters the grid counts
 * clusters, as the driver launches such a kernel). The messages are the
 * tile-run command's (docs/tile-run.md), said through diag. */
#include <string.h>
#include "internal.h"

/* s's cluster shape from opt (given if have) and f's directives; RUN_OK, or
 * after the message RUN_INPUT (the kernel's directives or grid disagree) or
 * RUN_USAGE (the given shape does) */
static int cluster_shape(Shape *s, const Func *f, bool have, const uint32_t opt[3])
{
	const uint32_t *req = f->reqncluster;
	if (have && req[0] && (opt[0] != req[0] || opt[1] != req[1] || opt[2] != req[2])) {
		diag_plain("the kernel requires a cluster of %ux%ux%u (.reqnctapercluster), not %ux%ux%u", req[0], req[1], req[2],
			   opt[0], opt[1], opt[2]);
		return RUN_INPUT;
	}
	if (!have && !req[0] && f->explicitcluster) {
		diag_plain("the kernel must be launched with a cluster (.explicitcluster): give --cluster X[,Y[,Z]]");
		return RUN_INPUT;
	}
	int bad = have ? RUN_USAGE : RUN_INPUT;
	const uint32_t *cs = have ? opt : req;
	uint32_t one[3] = { 1, 1, 1 };
	if (!cs[0])
		cs = one;
	uint64_t n = (uint64_t)cs[0] * cs[1] * cs[2];
	const char *src = have ? "--cluster" : ".reqnctapercluster";
	if (n == 0 || n > 16) {
		diag_plain("a cluster of %ux%ux%u CTAs (%s): 1 to 16 CTAs", cs[0], cs[1], cs[2], src);
		return bad;
	}
	if (f->maxclusterrank && n > f->maxclusterrank) {
		diag_plain("a cluster of %llu CTAs, over the kernel's .maxclusterrank %u", (unsigned long long)n, f->maxclusterrank);
		return RUN_INPUT;
	}
	if (f->blocksareclusters)
		for (int k = 0; k < 3; k++) {
			if ((uint64_t)s->grid[k] * cs[k] > 0x7fffffffu) {
				diag_plain("the grid of %ux%ux%u clusters (.blocksareclusters) has too many CTAs", s->grid[0],
					   s->grid[1], s->grid[2]);
				return RUN_USAGE;
			}
			s->grid[k] *= cs[k];
		}
	if (s->grid[0] % cs[0] || s->grid[1] % cs[1] || s->grid[2] % cs[2]) {
		diag_plain("the grid %ux%ux%u is not a whole number of %ux%ux%u clusters (%s)", s->grid[0], s->grid[1],
			   s->grid[2], cs[0], cs[1], cs[2], src);
		return bad;
	}
	memcpy(s->cluster, cs, sizeof s->cluster);
	s->explicit_cluster = have || req[0];
	return RUN_OK;
}

/* the kernel to run: its index in m->funcs, or -1 after the message */
static int pick_entry(const TilerunModule *tm, const char *entry)
{
	const Module *m = tm->m;
	int fidx = -1, nentries = 0;
	for (int k = 0; k < m->nfuncs; k++) {
		if (!m->funcs[k].entry || !m->funcs[k].defined)
			continue;
		nentries++;
		if (entry ? strcmp(m->funcs[k].name, entry) == 0 : true)
			fidx = entry || fidx < 0 ? k : fidx;
	}
	if (entry && fidx < 0) {
		diag_plain("%s: no kernel named '%s'", tm->name, entry);
		return -1;
	}
	if (nentries == 0) {
		diag_plain("%s: no kernel (.entry) in the module", tm->name);
		return -1;
	}
	if (!entry && nentries > 1) {
		StrBuf names = { 0 };
		for (int k = 0; k < m->nfuncs; k++)
			if (m->funcs[k].entry && m->funcs[k].defined)
				sb_printf(&names, " %s", m->funcs[k].name);
		diag_plain("%s has %d kernels; choose one with --entry:%s", tm->name, nentries, sb_cstr(&names));
		sb_free(&names);
		return -1;
	}
	return fidx;
}

int tilerun_shape(const TilerunModule *tm, const TilerunLaunch *l, bool cli, Shape *s)
{
	const Module *m = tm->m;
	int contra = cli ? RUN_INPUT : RUN_USAGE;       /* a launch that contradicts itself or the kernel */
	memset(s, 0, sizeof *s);
	if ((s->fidx = pick_entry(tm, l->entry)) < 0)
		return RUN_INPUT;
	const Func *f = &m->funcs[s->fidx];
	memcpy(s->grid, l->grid, sizeof s->grid);
	memcpy(s->block, l->block, sizeof s->block);
	if (!s->block[0] && !s->block[1] && !s->block[2]) {
		const uint32_t *src = f->reqntid[0] ? f->reqntid : f->maxntid[0] ? f->maxntid : NULL;
		if (src)
			memcpy(s->block, src, sizeof s->block);
		else
			s->block[0] = 128, s->block[1] = s->block[2] = 1;
	}
	const uint32_t *g = s->grid, *b = s->block;
	if (!g[0] || !g[1] || !g[2]) {
		diag_plain("the grid %ux%ux%u is empty", g[0], g[1], g[2]);
		return contra;
	}
	uint64_t nthreads = (uint64_t)b[0] * b[1] * b[2];
	if (nthreads == 0 || nthreads > 1024) {
		diag_plain("the block %ux%ux%u has %llu threads (1 to 1024)", b[0], b[1], b[2], (unsigned long long)nthreads);
		return contra;
	}
	if (f->reqntid[0] && (b[0] != f->reqntid[0] || b[1] != f->reqntid[1] || b[2] != f->reqntid[2])) {
		diag_plain("the kernel requires a block of %ux%ux%u (.reqntid), not %ux%ux%u", f->reqntid[0], f->reqntid[1],
			   f->reqntid[2], b[0], b[1], b[2]);
		return contra;
	}
	/* no GPU gives a CTA more shared memory than 227 KiB (sm_90, sm_100) or a
	 * thread more local memory than 512 KiB: larger declarations are refused
	 * before the CTA is allocated (racecheck keeps state per shared byte) */
	uint32_t smem = f->shared_end > m->shared_static ? f->shared_end : m->shared_static;
	if (smem > 232448) {
		diag_plain("the kernel declares %u bytes of shared memory; a CTA has at most 232448 (227 KiB)", smem);
		return RUN_INPUT;
	}
	if ((uint64_t)smem + l->dynamic_shared > 232448) {
		diag_plain("%u bytes of dynamic shared memory on top of the kernel's %u: a CTA has at most 232448 (227 KiB)",
			   l->dynamic_shared, smem);
		return contra;
	}
	if (m->local_total > 512 * 1024) {
		diag_plain("the kernel declares %u bytes of local memory a thread; a thread has at most 524288 (512 KiB)",
			   m->local_total);
		return RUN_INPUT;
	}
	bool have = l->cluster[0] || l->cluster[1] || l->cluster[2];
	return cluster_shape(s, f, have, l->cluster);
}
