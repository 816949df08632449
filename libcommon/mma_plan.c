/* mma_plan.c: the MMA plan record (mma_plan.h): encoded to and decoded from
 * the product's `plan` dictionary by one loop over mma_plan.def's rows, and
 * checked against the product it describes. */
#include <stdio.h>
#include <string.h>
#include "mma_plan.h"
#include "irutil.h"
#include "target.h"

const char *const mma_plan_path_names[MMA_NPATHS] = { "registers", "ldmatrix", "wgmma" };
const char *const mma_staging_names[MMA_NSTAGINGS] = { "registers", "cp_async", "tma", "resident", "fragment" };

enum { K_INT, K_BOOL, K_PATH, K_ATOM, K_STAGING };

/* one row of mma_plan.def: where its value lives in an MmaPlan */
typedef struct Field {
	const char *name;
	int kind;
	int64_t lo, hi;
	size_t off;
} Field;

static const Field fields[] = {
#define PLAN(name, kind, lo, hi, doc) { #name, K_##kind, lo, hi, offsetof(MmaPlan, name) },
#include "mma_plan.def"
#undef PLAN
};
enum { NFIELDS = sizeof fields / sizeof fields[0] };

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

void mma_plan_init(MmaPlan *p, const MmaTiling *t, MmaPath path)
{
	*p = (MmaPlan){ .path = path, .atom = t->atom, .wm = t->wm, .wn = t->wn, .wrep = t->wrep, .mt = t->mt,
			.nt = t->nt, .kt = t->kt, .b_k_major = t->bk, .stages = 1 };
}

void mma_plan_set(Module *m, Op *op, const MmaPlan *p)
{
	NamedAttr v[NFIELDS];
	for (int i = 0; i < NFIELDS; i++) {
		const Field *f = &fields[i];
		const char *at = (const char *)p + f->off;
		v[i].name = f->name;
		switch (f->kind) {
		case K_INT: v[i].attr = attr_int(m, *(const int64_t *)at, NULL); break;
		case K_BOOL: v[i].attr = attr_bool(m, *(const bool *)at); break;
		case K_PATH: v[i].attr = attr_string(m, mma_plan_path_names[*(const MmaPath *)at]); break;
		case K_ATOM: v[i].attr = attr_string(m, (*(const MmaAtom *const *)at)->name); break;
		default: v[i].attr = attr_string(m, mma_staging_names[*(const MmaStaging *)at]); break;
		}
	}
	op_set_attr(m, op, "plan", attr_dict(m, NFIELDS, v));
}

/* the value of field f from attribute a into p; NULL, or what is wrong
 * (range: room for the integer rule) */
static const char *decode_field(const Field *f, const Attr *a, MmaPlan *p, char range[64])
{
	char *at = (char *)p + f->off;
	int i;
	switch (f->kind) {
	case K_INT:
		snprintf(range, 64, "must be an integer from %lld to %lld", (long long)f->lo, (long long)f->hi);
		if (a->kind != AT_INT || a->u.i < f->lo || a->u.i > f->hi)
			return range;
		*(int64_t *)at = a->u.i;
		return NULL;
	case K_BOOL:
		if (a->kind != AT_BOOL)
			return "must be a boolean";
		*(bool *)at = a->u.i != 0;
		return NULL;
	case K_PATH:
		if (a->kind != AT_STRING || (i = name_index(mma_plan_path_names, MMA_NPATHS, a->u.s)) < 0)
			return "must be a path (registers, ldmatrix, wgmma)";
		*(MmaPath *)at = (MmaPath)i;
		return NULL;
	case K_ATOM:
		for (i = 0; a->kind == AT_STRING && i < MMA_NATOMS; i++)
			if (strcmp(mma_atoms[i].name, a->u.s) == 0) {
				*(const MmaAtom **)at = &mma_atoms[i];
				return NULL;
			}
		return "must name an MMA atom (mma_atoms.def)";
	default:
		if (a->kind != AT_STRING || (i = name_index(mma_staging_names, MMA_NSTAGINGS, a->u.s)) < 0)
			return "must be a staging (registers, cp_async, tma, resident, fragment)";
		*(MmaStaging *)at = (MmaStaging)i;
		return NULL;
	}
}

bool mma_plan_of(const Op *op, MmaPlan *p, MmaPlanWhy *why)
{
	const Attr *d = op_attr(op, "plan");
	if (why)
		why->text[0] = 0;
	if (!d)
		return false;
	if (d->kind != AT_DICT || d->u.dict.n != NFIELDS) {
		if (why)
			snprintf(why->text, sizeof why->text, "its plan must be a dictionary of the %d fields of an MMA plan",
				 NFIELDS);
		return false;
	}
	for (int i = 0; i < NFIELDS; i++) {
		char range[64];
		const Attr *a = dict_get(d, fields[i].name);
		const char *e = a ? decode_field(&fields[i], a, p, range) : "is missing";
		if (e) {
			if (why)
				snprintf(why->text, sizeof why->text, "its plan's %s %s", fields[i].name, e);
			return false;
		}
	}
	return true;
}

void mma_plan_tiling(const Op *op, const MmaPlan *p, MmaTiling *t)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type;
	*t = (MmaTiling){ .atom = p->atom, .m = a->shape[0], .n = b->shape[1], .k = a->shape[1], .wm = (int)p->wm,
			  .wn = (int)p->wn, .wrep = (int)p->wrep, .mt = p->mt, .nt = p->nt, .kt = p->kt,
			  .wg = p->path == MMA_PATH_WGMMA, .bk = p->b_k_major };
}

bool mma_planned_tiling(const Op *op, MmaTiling *t)
{
	MmaPlan p;
	if (!mma_is_product(op) || !mma_plan_of(op, &p, NULL))
		return false;
	mma_plan_tiling(op, &p, t);
	return true;
}

/* why's text from f: (what, sm) when what, else (sm) */
static const char *fmt(MmaPlanWhy *why, const char *f, int sm, const char *what)
{
	if (what)
		snprintf(why->text, sizeof why->text, f, what, sm);
	else
		snprintf(why->text, sizeof why->text, f, sm);
	return why->text;
}

const char *mma_plan_check(const Op *op, const MmaPlan *p, int warps, int sm, MmaPlanWhy *why)
{
	MmaTiling want, have;
	const Type *ea = tile_elem(op->operands[0]->type);
	if (!mma_product_tiling(op, warps, sm, &want, NULL))
		return "the product has no tiling on this target";
	mma_plan_tiling(op, p, &have);
	if (have.atom != want.atom || have.wm != want.wm || have.wn != want.wn || have.wrep != want.wrep ||
	    have.mt != want.mt || have.nt != want.nt || have.kt != want.kt || have.wg != want.wg || have.bk != want.bk)
		return fmt(why, want.wg ? "its plan's tiling is not the product's on sm_%d (wgmma's)"
			    : "its plan's tiling is not the product's on sm_%d (mma.sync's)", sm, NULL);
	/* the layouts tile-ptx multiplies in: the accumulator's and the result's
	 * the atom's C fragments; on the registers path A's and B's its A and B
	 * fragments (wgmma's accumulator: its warpgroup layout, the same call) */
	Layout lc, lab;
	mma_layout_c(&have, &lc);
	const Value *acc = op->operands[2], *res = op->results[0];
	if ((acc->lay && !layout_equal(acc->lay, &lc)) || (res->lay && !layout_equal(res->lay, &lc)))
		return "its accumulator is not in its plan's C fragment layout";
	for (int k = 0; k < 2 && p->path == MMA_PATH_REGISTERS; k++) {
		const Value *v = op->operands[k];
		if (k)
			mma_layout_b(&have, &lab);
		else
			mma_layout_a(&have, &lab);
		if (v->lay && !layout_equal(v->lay, &lab))
			return "its plan multiplies in registers an operand not in the atom's fragment layout";
	}
	if (p->path == MMA_PATH_LDMATRIX && !mma_ldmatrix_ok(want.atom, ea, sm))
		return fmt(why, "its plan says ldmatrix, which cannot feed a %s product on sm_%d", sm, ea->str);
	for (int k = 0; k < 2; k++) {
		bool tf32;
		const Op *ld = mma_staged_load(op, k, &tf32);
		MmaStaging s = k ? p->b : p->a;
		const Value *v = op->operands[k];
		if (p->path == MMA_PATH_REGISTERS && s != MMA_STAGING_REGISTERS)
			return "its plan stages an operand of a product in registers";
		if (mma_staging_copies(s) && (!ld || ld->parent != op->parent))
			return "its plan copies an operand that no tiled_load of its block makes";
		if (s == MMA_STAGING_CP_ASYNC && (tf32 || sm < 80))
			return "its plan copies an operand by cp.async that cp.async cannot copy";
		if ((k ? p->b_prefetch : p->a_prefetch) && (!mma_staging_copies(s) || p->stages < 2))
			return "its plan prefetches an operand that is not a copy of a pipelined product";
		if (s == MMA_STAGING_TMA && !target_has(target_by_sm(sm), TF_TMA))
			return "its plan copies an operand by TMA on a target without TMA";
		if (s == MMA_STAGING_FRAGMENT && (p->path != MMA_PATH_WGMMA || k != 0 || !v->lay || !mma_layout_is_a(&have, v->lay)))
			return "its plan reads from registers an operand that is not wgmma's A fragment";
		if (s == MMA_STAGING_RESIDENT) {
			const Op *loop = mma_loop_of(op);
			if (!loop || value_made_inside(loop, v) || (p->path == MMA_PATH_WGMMA ? k != 0 : p->stages > 1))
				return "its plan keeps resident an operand that is not a loop-invariant operand of a product in a loop";
		}
	}
	if (p->stages > 1 && p->path == MMA_PATH_REGISTERS)
		return "its plan pipelines a product that is not staged";
	if (p->async_depth && (p->path != MMA_PATH_WGMMA || p->stages < 2))
		return "its plan keeps in flight a product that is not a pipelined wgmma";
	return NULL;
}

MmaPath mma_path(const Op *op)
{
	MmaPlan p;
	return mma_is_product(op) && mma_plan_of(op, &p, NULL) ? p.path : MMA_PATH_REGISTERS;
}

MmaStaging mma_operand_staging(const Op *op, int k)
{
	MmaPlan p;
	return mma_is_product(op) && mma_plan_of(op, &p, NULL) ? (k ? p.b : p.a) : MMA_STAGING_REGISTERS;
}

MmaStaging mma_load_staging(const Op *ld)
{
	if (op_attr_flag(ld, "to_stage"))       /* tile-sched's working marks, before plans */
		return op_attr_flag(ld, "tma") ? MMA_STAGING_TMA : MMA_STAGING_CP_ASYNC;
	int k;
	const Op *mma = ld->info->code == AS_tiled_load ? mma_product_of_load(ld, &k) : NULL;
	return mma ? mma_operand_staging(mma, k) : MMA_STAGING_REGISTERS;
}

bool mma_load_prefetch(const Op *ld)
{
	if (op_attr_flag(ld, "prefetch"))
		return true;
	int k;
	MmaPlan p;
	const Op *mma = ld->info->code == AS_tiled_load ? mma_product_of_load(ld, &k) : NULL;
	return mma && mma_plan_of(mma, &p, NULL) && (k ? p.b_prefetch : p.a_prefetch);
}

int mma_stages(const Op *op, int dflt)
{
	MmaPlan p;
	return mma_is_product(op) && mma_plan_of(op, &p, NULL) && p.stages > 1 ? (int)p.stages : dflt;
}

int mma_async_depth(const Op *op)
{
	MmaPlan p;
	return mma_is_product(op) && mma_plan_of(op, &p, NULL) ? (int)p.async_depth : 0;
}
