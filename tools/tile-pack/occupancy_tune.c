/* occupancy_tune.c: a register budget for kernels that would run with fewer
 * warps per SM than they need to (issue 17).
 *
 * ptxas fits an entry with `.minnctapersm 1` (what we emit, as NVIDIA does)
 * into as many registers as its scheduling likes: our loop_break took 48
 * (40 warps an SM on sm_90) where the same PTX under `.minnctapersm 12`
 * takes 29 with no spill, and rms_norm_fwd 72 (28 warps) where 8 CTAs give
 * 64 (32 warps, NVIDIA's). The registers were ptxas's choice, not the
 * kernel's need. So after the first ptxas run, each entry that
 *   - has no tensor-core instruction (no `mma` in its body: MMA kernels
 *     keep their registers, their accumulators are the point),
 *   - declares `.minnctapersm 1` and no `.maxnreg`,
 *   - did not spill, and whose occupancy registers limit (occupancy.c),
 * gets up to three CTAs-per-SM targets, each a register budget its
 * predecessors do not have and below its registers now: the most its CTA
 * size and shared memory allow (when that leaves it 55% of its registers
 * or more), the level of 80% of its registers, one CTA more than now
 * (layernorm_fwd: 89 registers, 5 CTAs; 6 CTAs fit in 80 registers where
 * 7 spill). The PTX is assembled again
 * with `.minnctapersm <target>` in those entries. An entry that spills or
 * grows its stack under a target moves to its next one, then back to 1;
 * the first run where no tuned entry spills is kept (at most three more
 * ptxas runs; none for a kernel already at its best occupancy, which is
 * most small kernels). ptxas runs the same way each time, so the output is
 * deterministic. TILE_PACK_NO_OCCUPANCY=1, -O0, -g and user ptxas
 * arguments turn it off (ptxas.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack.h"
#include "proc.h"
#include "xalloc.h"

enum { MAX_LEVELS = 3, MAX_RUNS = 3 };

typedef struct Entry {
	const char *name;
	size_t dir_value;        /* offset of the '1' of `.minnctapersm 1` in the PTX */
	long levels[MAX_LEVELS]; /* CTAs per SM to try, best first */
	int nlevels, step;       /* step == nlevels: back to 1 */
	long stack;              /* the first run's stack frame */
} Entry;

/* the end of the body that starts at `open` (its matching '}') */
static const char *body_end(const char *open, const char *end)
{
	int depth = 0;
	for (const char *p = open; p < end; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
	}
	return end;
}

/* the registers a thread may have with `ctas` CTAs of `warps` warps an SM
 * (64K registers, allocated per warp in units of 256) */
static long budget(long ctas, long warps)
{
	long b = 65536 / (ctas * warps * 256) * 8;
	return b > 255 ? 255 : b;
}

static bool eligible(const char *ptx, size_t len, const KernelUsage *k, Entry *e)
{
	const char *body, *h = ptx_entry_header(ptx, len, k->name, &body);
	if (!h || k->registers <= 0 || k->spill_stores != 0 || k->spill_loads != 0)
		return false;
	const char *d = memmem(h, (size_t)(body - h), ".minnctapersm 1\n", 16);
	if (!d || memmem(h, (size_t)(body - h), ".maxnreg", 8))
		return false;
	const char *be = body_end(body, ptx + len);
	if (memmem(body, (size_t)(be - body), "mma", 3))
		return false;
	long threads = ptx_cta_threads(ptx, len, k->name);
	Occupancy now, best, mid;
	if (threads <= 0 || kernel_occupancy(k, threads, &now) < 0 || strcmp(now.limiter, "registers") != 0)
		return false;
	KernelUsage t = *k;
	t.registers = 1;
	if (kernel_occupancy(&t, threads, &best) < 0)
		return false;
	t.registers = (k->registers * 4 / 5 + 7) / 8 * 8;
	if (kernel_occupancy(&t, threads, &mid) < 0)
		return false;
	*e = (Entry){ .name = k->name, .dir_value = (size_t)(d + 14 - ptx), .stack = k->stack };
	long warps = (threads + 31) / 32;
	/* best: only within reach, 55% or more of the registers (loop_break 48
	 * -> 30 and loop_accum 54 -> 32 fit; rms_norm_fwd's 72 -> 32 would spill:
	 * a ptxas run for nothing); then 80%; then one CTA more */
	long cand[3] = { best.ctas_per_sm, mid.ctas_per_sm, now.ctas_per_sm + 1 };
	for (int c = 0; c < 3; c++) {
		long n = cand[c], b = budget(n, warps);
		if (n <= now.ctas_per_sm || n > best.ctas_per_sm || b >= k->registers || (c == 0 && b * 20 < k->registers * 11))
			continue;
		bool seen = false;          /* levels with one budget compile alike */
		for (int j = 0; j < e->nlevels; j++)
			seen |= budget(e->levels[j], warps) == b;
		if (!seen)
			e->levels[e->nlevels++] = n;
	}
	return e->nlevels > 0;
}

/* the PTX with each entry's current level in its directive */
static void rewrite(const char *ptx, size_t len, const Entry *es, int ne, StrBuf *out)
{
	out->len = 0;
	size_t at = 0;
	for (int i = 0; i < ne; i++) {         /* es is in PTX order */
		sb_putn(out, ptx + at, es[i].dir_value - at);
		if (es[i].step < es[i].nlevels)
			sb_printf(out, "%ld", es[i].levels[es[i].step]);
		else
			sb_puts(out, "1");
		at = es[i].dir_value + 1;
	}
	sb_putn(out, ptx + at, len - at);
}

static int by_offset(const void *a, const void *b)
{
	size_t x = ((const Entry *)a)->dir_value, y = ((const Entry *)b)->dir_value;
	return x < y ? -1 : x > y;
}

bool occupancy_tune(const char **argv, int ptx_arg, int out_arg, bool in_process, const char *dir, const char *ptx,
		    size_t len, StrBuf *log, StrBuf *cubin, bool verbose)
{
	/* each run moves every entry that spilled one level down: with three
	 * levels, three runs reach the last */
	KernelUsage *k = NULL;
	int nk = parse_ptxas_usage(log->s ? log->s : "", &k);
	Entry *es = xcalloc((size_t)nk + 1, sizeof *es);
	int ne = 0;
	for (int i = 0; i < nk; i++)
		if (eligible(ptx, len, &k[i], &es[ne]))
			ne++;
	qsort(es, (size_t)ne, sizeof *es, by_offset);
	bool kept = false;
	StrBuf text = {0}, ptx_path = {0}, out_path = {0};
	sb_printf(&ptx_path, "%s/tuned.ptx", dir);
	sb_printf(&out_path, "%s/tuned.cubin", dir);
	for (int run = 0; run < MAX_RUNS && ne > 0; run++) {
		bool any = false;
		for (int i = 0; i < ne; i++)
			any |= es[i].step < es[i].nlevels;
		if (!any)
			break;
		rewrite(ptx, len, es, ne, &text);
		if (write_file(ptx_path.s, text.s, text.len) < 0)
			break;
		const char *av[128 + 8];
		int n = 0;
		for (; argv[n]; n++)
			av[n] = n == ptx_arg ? ptx_path.s : n == out_arg ? out_path.s : argv[n];
		av[n] = NULL;
		if (verbose)
			print_command(av);
		ProcResult pr;
		int rc = pack_assemble(av, ptx_arg, out_arg, in_process, &pr);
		StrBuf l = {0};
		sb_puts(&l, sb_cstr(&pr.out));
		sb_puts(&l, sb_cstr(&pr.err));
		proc_result_free(&pr);
		if (rc != 0) {             /* it assembled before: keep that */
			sb_free(&l);
			break;
		}
		KernelUsage *t = NULL;
		int nt = parse_ptxas_usage(l.s ? l.s : "", &t);
		bool bad = false;
		for (int i = 0; i < ne; i++) {
			if (es[i].step >= es[i].nlevels)
				continue;
			for (int j = 0; j < nt; j++)
				if (strcmp(t[j].name, es[i].name) == 0 &&
				    (t[j].spill_stores != 0 || t[j].spill_loads != 0 || t[j].stack > es[i].stack)) {
					es[i].step++;
					bad = true;
				}
		}
		free_usage(t, nt);
		if (!bad) {
			StrBuf c = {0};
			if (pack_read_file(out_path.s, &c) == 0 && c.len) {
				sb_free(cubin);
				*cubin = c;
				sb_free(log);
				*log = l;
				kept = true;
			} else {
				sb_free(&c);
				sb_free(&l);
			}
			break;
		}
		sb_free(&l);
	}
	sb_free(&text);
	sb_free(&ptx_path);
	sb_free(&out_path);
	free(es);
	free_usage(k, nk);
	return kept;
}
