/* stagecheck.c: verifier of nv_tileaa, nv_tileas and scheduled IR (see
 * stagecheck.h). */
#include <stdlib.h>
#include <string.h>
#include "stagecheck.h"
#include "opinfo.h"
#include "irutil.h"
#include "layout.h"
#include "diag.h"
#include "xalloc.h"
#include "verify.h"
#include "mma_plan.h"
#include "target.h"

typedef struct C {
	Module *m;
	int stage;                /* 1 nv_tileaa, 2 nv_tileas, 3 scheduled */
	int warps;
	int sm;                   /* the module's target (scheduled IR) */
	unsigned char *visible;   /* by value id */
	int nvis;
	int errors;
} C;

#define ERR(op, ...) do { diag_error((op)->loc, __VA_ARGS__); c->errors++; } while (0)

static bool is_scalar_int(const Type *t)
{
	return t && t->kind == TY_TILE && t->rank == 0 && t->elem->kind == TY_SCALAR &&
	       !scalar_is_float(t->elem->scalar) && t->elem->scalar != SC_I1;
}

static bool is_token(const Type *t) { return t && t->kind == TY_TOKEN; }

static void see(C *c, Value *v)
{
	if (v->id >= 0 && v->id < c->nvis)
		c->visible[v->id] = 1;
}

static void unsee(C *c, Value *v)
{
	if (v->id >= 0 && v->id < c->nvis)
		c->visible[v->id] = 0;
}

static bool check_segments(C *c, Op *op, int ngroups, const int *fixed)
{
	const Attr *s = op_attr(op, "operand_segment_sizes");
	if (!s || s->kind != AT_INTS || s->u.ints.n != ngroups) {
		ERR(op, "'%s' op needs operand_segment_sizes with %d groups", op->info->name, ngroups);
		return false;
	}
	int total = 0;
	for (int g = 0; g < ngroups; g++) {
		int64_t n = s->u.ints.v[g];
		if (n < 0 || n > op->noperands || (fixed[g] >= 0 && n != fixed[g]) ||
		    (fixed[g] == -2 && n > 1)) {
			ERR(op, "'%s' op has a bad size %lld for operand group %d", op->info->name,
			    (long long)n, g);
			return false;
		}
		total += (int)n;
	}
	if (total != op->noperands) {
		ERR(op, "'%s' op: operand_segment_sizes add up to %d, the op has %d operands",
		    op->info->name, total, op->noperands);
		return false;
	}
	return true;
}

static bool check_results(C *c, Op *op, int n)
{
	if (op->nresults != n) {
		ERR(op, "'%s' op has %d results, expected %d", op->info->name, op->nresults, n);
		return false;
	}
	return true;
}

static const Attr *need_attr(C *c, Op *op, const char *name, AttrKind k)
{
	const Attr *a = op_attr(op, name);
	if (!a || a->kind != k) {
		ERR(op, "'%s' op needs attribute '%s' of the right kind", op->info->name, name);
		return NULL;
	}
	return a;
}

static void check_memref(C *c, Op *op)
{
	static const int seg[] = { 1, -1, -1 };
	if (!check_segments(c, op, 3, seg) || !check_results(c, op, 1))
		return;
	const Type *tv = op->results[0]->type, *p = op->operands[0]->type;
	if (tv->kind != TY_TENSOR_VIEW) {
		ERR(op, "'%s' op result must be a tensor_view", op->info->name);
		return;
	}
	if (p->kind != TY_TILE || p->rank != 0 || p->elem->kind != TY_PTR || p->elem->elem != tv->elem) {
		ERR(op, "'%s' op base must be a tile<ptr<%s>>", op->info->name, tv->elem->str);
		return;
	}
	int nd = 0, ns = 0;
	for (int i = 0; i < tv->rank; i++) {
		nd += tv->shape[i] == DYN_DIM;
		ns += tv->strides[i] == DYN_DIM;
	}
	int s0, s1;
	if (op_group(op, 1, &s0) != nd || op_group(op, 2, &s1) != ns) {
		ERR(op, "'%s' op needs one operand per dynamic size and stride", op->info->name);
		return;
	}
	for (int i = 1; i < op->noperands; i++)
		if (!is_scalar_int(op->operands[i]->type))
			ERR(op, "'%s' op sizes and strides must be scalar integer tiles", op->info->name);
	const Attr *a = need_attr(c, op, "base_align", AT_INT);
	if (a && (a->u.i < 1 || (a->u.i & (a->u.i - 1))))
		ERR(op, "'%s' op base_align must be a power of two", op->info->name);
	const char *names[] = { "shape_div_by", "stride_div_by" };
	for (int k = 0; k < 2; k++) {
		const Attr *d = need_attr(c, op, names[k], AT_INTS);
		if (d && d->u.ints.n != tv->rank)
			ERR(op, "'%s' op %s needs one entry per dimension", op->info->name, names[k]);
	}
}

static const Type *memref_of(C *c, Op *op, Value *v)
{
	if (v->type->kind != TY_TENSOR_VIEW) {
		ERR(op, "'%s' op needs a memref (tensor_view) operand", op->info->name);
		return NULL;
	}
	return v->type;
}

static void check_tiled(C *c, Op *op, bool store)
{
	int idx_group = store ? 2 : 1;
	int seg4[] = { 1, 1, -1, -2 }, seg3[] = { 1, -1, -2 };
	if (!check_segments(c, op, store ? 4 : 3, store ? seg4 : seg3))
		return;
	if (!check_results(c, op, store ? 1 : 2))
		return;
	const Type *tv = memref_of(c, op, op->operands[0]);
	if (!tv)
		return;
	int is;
	int ni = op_group(op, idx_group, &is);
	if (ni != tv->rank) {
		ERR(op, "'%s' op needs %d indices, got %d", op->info->name, tv->rank, ni);
		return;
	}
	for (int i = 0; i < ni; i++)
		if (!is_scalar_int(op->operands[is + i]->type))
			ERR(op, "'%s' op indices must be scalar integer tiles", op->info->name);
	const Type *tile = store ? op->operands[1]->type : op->results[0]->type;
	const Attr *ta = need_attr(c, op, "tile", AT_INTS);
	if (!ta)
		return;
	if (tile->kind != TY_TILE || tile->elem != tv->elem || tile->rank != ta->u.ints.n ||
	    tile->rank != tv->rank) {
		ERR(op, "'%s' op tile type %s does not match the memref %s", op->info->name,
		    tile->str, tv->str);
		return;
	}
	for (int i = 0; i < tile->rank; i++)
		if (tile->shape[i] != ta->u.ints.v[i])
			ERR(op, "'%s' op tile type %s does not match its tile attribute", op->info->name, tile->str);
	const Attr *st = op_attr(op, "step");
	if (st) {
		bool ok = st->kind == AT_INTS && st->u.ints.n == tv->rank;
		for (int i = 0; ok && i < tv->rank; i++)
			ok = st->u.ints.v[i] >= 1;
		if (!ok)
			ERR(op, "'%s' op step needs one positive entry per dimension", op->info->name);
	}
	const Attr *ib = need_attr(c, op, "in_bounds", AT_INTS);
	if (ib && ib->u.ints.n != tv->rank)
		ERR(op, "'%s' op in_bounds needs one entry per dimension", op->info->name);
	need_attr(c, op, "memory_ordering_semantics", AT_STRING);
	if (store ? !is_token(op->results[0]->type) : !is_token(op->results[1]->type))
		ERR(op, "'%s' op must produce a token", op->info->name);
	Value *tok = op_group_value(op, store ? 3 : 2);
	if (tok && !is_token(tok->type))
		ERR(op, "'%s' op token operand must be a token", op->info->name);
	if (c->stage >= 2) {
		need_attr(c, op, "copy", AT_STRING);
		need_attr(c, op, "vector_bytes", AT_INT);
	}
}

static void check_ptr_mem(C *c, Op *op, bool store)
{
	int seg4l[] = { 1, -2, -2, -2 }, seg4s[] = { 1, 1, -2, -2 };
	if (!check_segments(c, op, 4, store ? seg4s : seg4l) || !check_results(c, op, store ? 1 : 2))
		return;
	const Type *pt = op->operands[0]->type;
	const Type *vt = store ? op->operands[1]->type : op->results[0]->type;
	if (pt->kind != TY_TILE || pt->elem->kind != TY_PTR || vt->kind != TY_TILE ||
	    vt->rank != pt->rank || vt->elem != pt->elem->elem) {
		ERR(op, "'%s' op value %s does not match the pointers %s", op->info->name, vt->str, pt->str);
		return;
	}
	for (int i = 0; i < vt->rank; i++)
		if (vt->shape[i] != pt->shape[i])
			ERR(op, "'%s' op value and pointer shapes differ", op->info->name);
	Value *mask = op_group_value(op, store ? 2 : 1);
	if (mask && (mask->type->kind != TY_TILE || mask->type->elem->kind != TY_SCALAR ||
		     mask->type->elem->scalar != SC_I1 || !type_same_shape(mask->type, vt)))
		ERR(op, "'%s' op mask must be an i1 tile of the value's shape", op->info->name);
	if (!store) {
		Value *other = op_group_value(op, 2);
		if (other && other->type != vt)
			ERR(op, "'%s' op padding value must have the result type", op->info->name);
	}
	Value *tok = op_group_value(op, 3);
	if (tok && !is_token(tok->type))
		ERR(op, "'%s' op token operand must be a token", op->info->name);
	if (!is_token(op->results[store ? 0 : 1]->type))
		ERR(op, "'%s' op must produce a token", op->info->name);
	need_attr(c, op, "memory_ordering_semantics", AT_STRING);
	if (c->stage >= 2) {
		need_attr(c, op, "copy", AT_STRING);
		need_attr(c, op, "vector_bytes", AT_INT);
	}
}

/* atomic_rmw: pointers, arg, mask?, token? -> (old values, token);
 * atomic_cas: pointers, cmp, val, mask?, token? -> (old values, token). */
static void check_atomic(C *c, Op *op, bool cas)
{
	int seg4[] = { 1, 1, -2, -2 }, seg5[] = { 1, 1, 1, -2, -2 };
	if (!check_segments(c, op, cas ? 5 : 4, cas ? seg5 : seg4) || !check_results(c, op, 2))
		return;
	const Type *pt = op->operands[0]->type, *rt = op->results[0]->type;
	if (pt->kind != TY_TILE || pt->elem->kind != TY_PTR || rt->kind != TY_TILE ||
	    rt->rank != pt->rank || rt->elem != pt->elem->elem) {
		ERR(op, "'%s' op result %s does not match the pointers %s", op->info->name, rt->str, pt->str);
		return;
	}
	for (int i = 0; i < rt->rank; i++)
		if (rt->shape[i] != pt->shape[i])
			ERR(op, "'%s' op result and pointer shapes differ", op->info->name);
	for (int i = 1; i <= (cas ? 2 : 1); i++)
		if (op->operands[i]->type != rt)
			ERR(op, "'%s' op operand %d must have the result type %s", op->info->name, i, rt->str);
	Value *mask = op_group_value(op, cas ? 3 : 2);
	if (mask && (mask->type->kind != TY_TILE || mask->type->elem->kind != TY_SCALAR ||
		     mask->type->elem->scalar != SC_I1 || !type_same_shape(mask->type, rt)))
		ERR(op, "'%s' op mask must be an i1 tile of the result's shape", op->info->name);
	Value *tok = op_group_value(op, cas ? 4 : 3);
	if (tok && !is_token(tok->type))
		ERR(op, "'%s' op token operand must be a token", op->info->name);
	if (!is_token(op->results[1]->type))
		ERR(op, "'%s' op must produce a token", op->info->name);
	need_attr(c, op, "memory_ordering_semantics", AT_STRING);
	need_attr(c, op, "memory_scope", AT_STRING);
	if (!cas)
		need_attr(c, op, "mode", AT_STRING);
}

/* A tile type an nv op makes: every dimension a power of two, at most
 * TILE_MAX_ELEMS elements (the cuda_tile type rule, verify_impl.h). */
static void check_tile_shape(C *c, Op *op, const Type *t)
{
	if (t->kind != TY_TILE)
		return;
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++) {
		int64_t d = t->shape[i];
		if (d < 1 || (d & (d - 1)) || d > TILE_MAX_ELEMS || (n *= d) > TILE_MAX_ELEMS) {
			ERR(op, "'%s' op: %s must have power-of-two dimensions and at most %d elements",
			    op->info->name, t->str, TILE_MAX_ELEMS);
			return;
		}
	}
}

static void check_tiled_load(C *c, Op *op) { check_tiled(c, op, false); }
static void check_tiled_store(C *c, Op *op) { check_tiled(c, op, true); }
static void check_load(C *c, Op *op) { check_ptr_mem(c, op, false); }
static void check_store(C *c, Op *op) { check_ptr_mem(c, op, true); }
static void check_rmw(C *c, Op *op) { check_atomic(c, op, false); }
static void check_cas(C *c, Op *op) { check_atomic(c, op, true); }

static void check_new_token(C *c, Op *op)
{
	if (op->noperands != 0 || op->nresults != 1 || !is_token(op->results[0]->type))
		ERR(op, "'%s' op takes nothing and makes a token", op->info->name);
}

static void check_join_tokens(C *c, Op *op)
{
	if (op->noperands < 1 || op->nresults != 1 || !is_token(op->results[0]->type))
		ERR(op, "'%s' op joins tokens into a token", op->info->name);
	for (int i = 0; i < op->noperands; i++)
		if (!is_token(op->operands[i]->type))
			ERR(op, "'%s' op operands must be tokens", op->info->name);
}

static void check_convert_layout(C *c, Op *op)
{
	if (op->noperands != 1 || op->nresults != 1 ||
	    op->operands[0]->type != op->results[0]->type || !type_is_tile(op->results[0]->type))
		ERR(op, "'%s' op converts a tile to the same tile type", op->info->name);
}

/* the check column of dialect_nv_tile.def: one checker per rule */
static void (*const nv_checks[NVC_COUNT])(C *, Op *) = {
	[NVC_MEMREF] = check_memref,
	[NVC_TILED_LOAD] = check_tiled_load,
	[NVC_TILED_STORE] = check_tiled_store,
	[NVC_LOAD] = check_load,
	[NVC_STORE] = check_store,
	[NVC_NEW_TOKEN] = check_new_token,
	[NVC_JOIN_TOKENS] = check_join_tokens,
	[NVC_ATOMIC_RMW] = check_rmw,
	[NVC_ATOMIC_CAS] = check_cas,
	[NVC_CONVERT_LAYOUT] = check_convert_layout,
};

static void check_layouts(C *c, Op *op, Value **vals, int n)
{
	for (int i = 0; i < n; i++) {
		Value *v = vals[i];
		if (v->type->kind != TY_TILE)
			continue;
		if (!v->layout || v->layout->kind != AT_STRING) {
			ERR(op, "'%s' op: tile value %%%d has no layout", op->info->name, v->id);
			continue;
		}
		Layout l;
		const char *err = NULL;
		if (!layout_parse(v->layout->u.s, &l, &err) ||
		    !layout_check_tile(&l, type_num_elements(v->type), c->warps, &err))
			ERR(op, "'%s' op: bad layout '%s' of %%%d (%s): %s", op->info->name,
			    v->layout->u.s, v->id, v->type->str, err ? err : "?");
	}
}

/* Scheduled IR: an elementwise op and an assume work register by register,
 * so each tile operand has the layout of the result (tile-sched converts
 * where needed). */
static void check_same_layout(C *c, Op *op)
{
	if (op->nresults != 1 || !type_is_tile(op->results[0]->type))
		return;
	const Attr *rl = op->results[0]->layout;
	if (!rl || rl->kind != AT_STRING)
		return;   /* check_layouts */
	for (int i = 0; i < op->noperands; i++) {
		const Attr *ol = op->operands[i]->layout;
		if (!type_is_tile(op->operands[i]->type) || !ol || ol->kind != AT_STRING)
			continue;
		if (strcmp(ol->u.s, rl->u.s) != 0)
			ERR(op, "'%s' op: operand %d has layout '%s', the result '%s' (an elementwise "
			    "op keeps its layout)", op->info->name, i, ol->u.s, rl->u.s);
	}
}

/* Scheduled IR: a value carried by a loop or joined by an `if` keeps one
 * layout (tile-sched puts them in one class): a `for`'s or `loop`'s init
 * operand, its body's argument and its result; what a continue, break or
 * yield passes and the result it becomes. */
static bool same_carried(C *c, Op *op, const Value *a, const Value *b, const char *what, int i)
{
	if (!a || !b || !type_is_tile(a->type) || !type_is_tile(b->type))
		return true;
	const Attr *la = a->layout, *lb = b->layout;
	if (!la || !lb || la->kind != AT_STRING || lb->kind != AT_STRING)
		return true;   /* check_layouts */
	if (strcmp(la->u.s, lb->u.s) == 0)
		return true;
	ERR(op, "'%s' op: %s %d has layout '%s', the value it becomes '%s' (a carried value keeps its layout)",
	    op->info->name, what, i, la->u.s, lb->u.s);
	return false;
}

static void check_carried(C *c, Op *op)
{
	int code = op->info->code;
	if ((code == CT_for || code == CT_loop) && op->nregions && op->regions[0].first) {
		Block *body = op->regions[0].first;
		int first = code == CT_for ? 3 : 0, arg0 = code == CT_for ? 1 : 0;
		for (int i = 0; i < op->nresults && first + i < op->noperands; i++) {
			if (same_carried(c, op, op->operands[first + i], op->results[i], "init operand", i) &&
			    arg0 + i < body->nargs)
				same_carried(c, op, op->operands[first + i], body->args[arg0 + i], "init operand", i);
		}
	} else if (code == CT_continue || code == CT_break || code == CT_yield) {
		Op *to = code == CT_yield ? op_parent_op(op) : op_enclosing_loop(op);
		if (!to || (code == CT_yield && to->info->code != CT_if))
			return;   /* the verifier's; reduce / scan combiners yield scalars */
		for (int i = 0; i < op->noperands && i < to->nresults; i++)
			same_carried(c, op, op->operands[i], to->results[i], "operand", i);
	}
}

/* tile-sched's working marks (tools/tile-sched/plan.c) do not outlive it:
 * in scheduled IR what they said is the products' plans */
static const char *const working_marks[] = { "via_wgmma", "via_ldmatrix", "stages", "async_depth", "to_stage", "prefetch" };

/* scheduled IR: every product with a tiling has a well-formed plan that fits
 * it (mma_plan.h), and no op keeps a working mark */
static void check_plan(C *c, Op *op)
{
	for (size_t i = 0; i < sizeof working_marks / sizeof *working_marks; i++)
		if (op_attr(op, working_marks[i]))
			ERR(op, "'%s' op: %s is not an attribute of scheduled IR (a product's plan says it)",
			    op->info->name, working_marks[i]);
	if (op->info->code == AS_tiled_load && op_attr(op, "tma"))
		ERR(op, "'%s' op: tma on a load is not an attribute of scheduled IR (its product's plan says it)",
		    op->info->name);
	if (!mma_is_product(op)) {
		if (op_attr(op, "plan"))
			ERR(op, "'%s' op: only a tile product has an MMA plan", op->info->name);
		return;
	}
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type;
	MmaTiling t;
	MmaPlan p;
	MmaPlanWhy why;
	const char *bad;
	if (!op_attr(op, "plan")) {
		if (a->rank == 2 && b->rank == 2 && mma_product_tiling(op, c->warps, c->sm, &t, NULL))
			ERR(op, "'%s' op: a tile product needs its MMA plan in scheduled IR", op->info->name);
		return;
	}
	if (a->rank != 2 || b->rank != 2)
		ERR(op, "'%s' op: only a product of rank-2 tiles has an MMA plan", op->info->name);
	else if (!mma_plan_of(op, &p, &why))
		ERR(op, "'%s' op: %s", op->info->name, why.text);
	else if ((bad = mma_plan_check(op, &p, c->warps, c->sm, &why)))
		ERR(op, "'%s' op: %s", op->info->name, bad);
}

static void check_op(C *c, Op *op);

static void check_block(C *c, Block *b)
{
	for (int i = 0; i < b->nargs; i++)
		see(c, b->args[i]);
	FOR_EACH_OP(op, b)
		check_op(c, op);
	FOR_EACH_OP(op, b)
		for (int i = 0; i < op->nresults; i++)
			unsee(c, op->results[i]);
	for (int i = 0; i < b->nargs; i++)
		unsee(c, b->args[i]);
}

static void check_op(C *c, Op *op)
{
	const OpInfo *in = op->info;
	for (int i = 0; i < op->noperands; i++) {
		Value *v = op->operands[i];
		if (!v || v->id < 0 || v->id >= c->nvis || !c->visible[v->id])
			ERR(op, "'%s' op: operand %d is not defined here", in->name, i);
	}
	bool allowed;
	if (in->dialect == DIALECT_CUDA_TILE)
		allowed = op_kept_below(in);
	else if (in->dialect == DIALECT_NV_TILEAA)
		allowed = c->stage == 1;
	else
		allowed = c->stage >= 2 && (!op_has(in, OPT_SCHED) || c->stage == 3);
	if (!allowed)
		ERR(op, "'%s' op is not allowed at stage %s", in->name, c->m->stage);
	if (in->dialect != DIALECT_CUDA_TILE) {
		/* the verifier checks the types of cuda_tile ops' results */
		for (int i = 0; i < op->nresults; i++)
			check_tile_shape(c, op, op->results[i]->type);
		if (!nv_checks[in->nv_check])
			ice("stage_check: no checker for '%s' (its check column, dialect_nv_tile.def)", in->name);
		nv_checks[in->nv_check](c, op);
	}
	if (c->stage == 3) {
		check_layouts(c, op, op->results, op->nresults);
		if (op_is_elementwise(in) || in->code == CT_assume)
			check_same_layout(c, op);
		check_carried(c, op);
		check_plan(c, op);
	}
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r]) {
			if (c->stage == 3)
				check_layouts(c, op, b->args, b->nargs);
			check_block(c, b);
		}
	for (int i = 0; i < op->nresults; i++)
		see(c, op->results[i]);
}

int stage_check(Module *m)
{
	C cc = { .m = m }, *c = &cc;
	if (strcmp(m->stage, "nv_tileaa") == 0)
		c->stage = 1;
	else if (strcmp(m->stage, "nv_tileas") == 0)
		c->stage = 2;
	else if (strcmp(m->stage, "scheduled") == 0)
		c->stage = 3;
	else {
		diag_plain("stage_check: stage '%s' is not a lower stage", m->stage);
		return 1;
	}
	if (c->stage == 3) {
		const Attr *w = module_attr(m, "num_warps");
		if (!w || w->kind != AT_INT || w->u.i < 1 || w->u.i > 32 || (w->u.i & (w->u.i - 1))) {
			diag_plain("scheduled IR needs the module attribute num_warps (a power of two, 1..32)");
			return 1;
		}
		c->warps = (int)w->u.i;
		const Target *tg = module_target(m);
		c->sm = tg ? tg->sm : 80;
	}
	ir_number_values(m);
	FOR_EACH_OP(top, &m->body) {
		if (top->info->code == CT_global) {
			const Attr *v = op_attr(top, "value");
			if (!op_attr(top, "sym_name") || !v || v->kind != AT_DENSE) {
				diag_error(top->loc, "'%s' op needs sym_name and a dense value", top->info->name);
				c->errors++;
			}
			continue;
		}
		if (top->info->code != CT_entry) {
			diag_error(top->loc, "'%s' op is not allowed once the module is lowered (only entries and globals are)",
				   top->info->name);
			c->errors++;
			continue;
		}
		if (c->stage == 3) {
			const Attr *ew = op_attr(top, "num_warps");
			if (ew && (ew->kind != AT_INT || ew->u.i < 1 || ew->u.i > 32 || (ew->u.i & (ew->u.i - 1)))) {
				diag_error(top->loc, "an entry's num_warps must be a power of two, 1..32");
				c->errors++;
				continue;
			}
			c->warps = ew ? (int)ew->u.i : (int)module_attr(m, "num_warps")->u.i;
		}
		c->nvis = op_count_values(top) + 1;
		c->visible = xcalloc((size_t)c->nvis, 1);
		for (int r = 0; r < top->nregions; r++)
			FOR_EACH_BLOCK(b, &top->regions[r]) {
				if (c->stage == 3)
					check_layouts(c, top, b->args, b->nargs);
				check_block(c, b);
			}
		free(c->visible);
		c->visible = NULL;
	}
	/* the cuda_tile rules of the ops kept below cuda_tile, block shapes and
	 * terminators (operands are resolved values whatever their scope) */
	c->errors += verify_kept_ops(m);
	return c->errors;
}
