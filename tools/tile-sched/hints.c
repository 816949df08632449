/* hints.c: the CTA size an entry asks for (13.5's num_worker_warps_per_cta,
 * cuTile's @ct.kernel(num_worker_warps=N)), from its optimization_hints:
 * the dictionary under the module's target (`sm_90`, ...), else the one
 * under `default`. NVIDIA's tileiras makes the CTA 32 * N threads on every
 * target (docs/lowering.md §4). Out-of-range hints as NVIDIA's 13.5
 * (measured: tests/workers.bats): a power of two above 32 is 32 warps
 * (1024 threads); 0, a negative number or one that is not a power of two
 * is ignored (the default CTA) — with a warning from us, none from NVIDIA. */
#include <string.h>
#include "sched.h"
#include "diag.h"
#include "opinfo.h"
#include "irutil.h"

/* the num_worker_warps_per_cta attribute that applies, or NULL */
static const Attr *hint_attr(const Module *m, const Op *fn)
{
	return entry_hint(m, fn, "num_worker_warps_per_cta");
}

/* the warps a hint gives: 1..32, or 0 for "ignored" */
static int hint_warps(const Attr *w)
{
	if (w->kind != AT_INT || w->u.i < 1 || (w->u.i & (w->u.i - 1)))
		return 0;
	return w->u.i > 32 ? 32 : (int)w->u.i;
}

int entry_hint_warps(const Module *m, const Op *fn)
{
	const Attr *w = hint_attr(m, fn);
	return w ? hint_warps(w) : 0;
}

int check_hints(const Module *m)
{
	FOR_EACH_OP(fn, &m->body) {
		const Attr *w = fn->info->code == CT_entry ? hint_attr(m, fn) : NULL;
		long long n = w && w->kind == AT_INT ? (long long)w->u.i : 0;
		if (w && !hint_warps(w))
			/* cuTile's own check: "num_worker_warps should be a power of 2 in [1, 32]" */
			diag_warning(fn->loc, "num_worker_warps_per_cta %lld is not a power of two from 1 to 32: "
				     "ignored, as NVIDIA's tileiras does", n);
		else if (w && n > 32)
			diag_warning(fn->loc, "num_worker_warps_per_cta %lld is more than 32: 32 warps, as NVIDIA's "
				     "tileiras does", n);
	}
	return 0;
}
