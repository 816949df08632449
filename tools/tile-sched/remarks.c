/* remarks.c: tile-sched's optimization remarks (docs/driver.md "Remarks").
 * Reads the scheduled IR (it changes nothing) and writes, per kernel:
 *   - per global load/store (Pass Memory): the access chosen (!Passed
 *     RemarkMemory{Load,Store}InstructionSelected: vector bytes and elements
 *     per access, masked or not); when narrower than 16 bytes a !Missed
 *     RemarkMemoryVectorWidthLimited with every fact that caps it (the
 *     facts tile-lower's to_as.c weighs for vector_bytes, and the layout's
 *     per-thread run that layout_run_width gives, as tile-ptx's op_memory.c uses it); when
 *     bounds-checked a !Analysis RemarkMemoryMaskedAccess saying why;
 *   - per nv_tileas.convert_layout (Pass Layout) a !Analysis
 *     RemarkLayoutConversion: the two layouts and the shared memory the
 *     exchange may use (at most one copy of the tile; tile-ptx uses none
 *     when the elements stay in each thread or move by shuffles);
 *   - per K loop versioned on alignment (version.c; Pass Memory) a
 *     !Analysis RemarkLoopVersionedOnAlignment with its loads by TMA;
 *   - the longest-live tile values (Pass Registers, remarks_live.c). */
#include <stdio.h>
#include <string.h>
#include "sched.h"
#include "layout.h"
#include "irutil.h"
#include "remark.h"
#include "mma_plan.h"

typedef struct R { RemarkOut o; const char *func; } R;

/* One Reason per fact that caps a tiled access below 16 bytes (to_as.c's
 * tiled_vector_bytes, fact by fact). */
static void tiled_reasons(R *s, const Op *op, int eb)
{
	const Type *tv = op->operands[0]->type;
	const Op *mr = op->operands[0]->def;
	int r = tv->rank;
	if (r == 0 || eb == 0)
		return;
	bool permuted = op_attr(op, "dim_map") != NULL;
	if (permuted)      /* then the view's own facts below, which the chunks need as well */
		remark_arg(&s->o, "Reason", "the view permutes dimensions (dim_map): its contiguous runs go down a tile "
			   "column, which only a product's B staged K-major takes in chunks (attention's K^T, a TN "
			   "product's B; on sm_90 by TMA); elsewhere one element at a time");
	if (tv->strides[r - 1] != 1) {
		if (tv->strides[r - 1] == DYN_DIM)
			remark_arg(&s->o, "Reason", "innermost stride is dynamic, not known to be 1: one element per "
				   "access (a static unit stride in the tensor_view allows vectors)");
		else
			remark_arg(&s->o, "Reason", "innermost stride is %lld, not 1: elements are not contiguous",
				   (long long)tv->strides[r - 1]);
		return;
	}
	const Attr *ba = mr ? op_attr(mr, "base_align") : NULL;
	int64_t align = ba && ba->kind == AT_INT ? ba->u.i : eb;
	if (align < 16)
		remark_arg(&s->o, "Reason", "base pointer is only known to be %lld-byte aligned (assume div_by<16> on it allows 16)",
			   (long long)align);
	for (int d = 0; d < r - 1; d++) {
		int64_t k = tv->strides[d] != DYN_DIM ? pow2_factor(tv->strides[d])
						      : (mr ? op_attr_int_at(mr, "stride_div_by", d, 1) : 1);
		if (k * eb < 16)
			remark_arg(&s->o, "Reason", "stride of dim %d is only known divisible by %lld element%s (%lld bytes)",
				   d, (long long)k, k == 1 ? "" : "s", (long long)(k * eb));
	}
	/* the tile dim along the view's innermost (the last one, unless permuted) */
	int vd = permuted ? tiled_vector_dim(op, r) : r - 1;
	const Attr *ta = op_attr(op, "tile");
	int64_t tile_last = ta ? ta->u.ints.v[vd] : 1;
	int64_t step = op_attr_int_at(op, "step", vd, tile_last);
	if (pow2_factor(step) * eb < 16)
		remark_arg(&s->o, "Reason", "tiles start every %lld elements along the innermost dim (%lld bytes)",
			   (long long)step, (long long)(pow2_factor(step) * eb));
	if (tile_last * eb < 16)
		remark_arg(&s->o, "Reason", "the tile is only %lld element%s wide (%lld bytes)", (long long)tile_last,
			   tile_last == 1 ? "" : "s", (long long)(tile_last * eb));
	if (!op_attr_int_at(op, "in_bounds", vd, 0)) {
		int64_t k = tv->shape[r - 1] != DYN_DIM ? pow2_factor(tv->shape[r - 1])
							: (mr ? op_attr_int_at(mr, "shape_div_by", r - 1, 1) : 1);
		if (k * eb < 16)
			remark_arg(&s->o, "Reason", "innermost size is only known divisible by %lld element%s: a wider access "
				   "could straddle the bound (assume div_by on the size allows more)",
				   (long long)k, k == 1 ? "" : "s");
	}
}

static void memory_remark(R *s, Op *op)
{
	int code = op->info->code;
	bool store = code == AS_tiled_store || code == AS_store;
	bool tiled = code == AS_tiled_load || code == AS_tiled_store;
	Value *val = store ? op->operands[1] : op->results[0];
	const Type *el = val->type->elem;
	int eb = elem_bytes(el);
	if (eb == 0)
		return;     /* f4: packed bytes; not described yet */
	const Attr *vba = op_attr(op, "vector_bytes");
	int64_t legal = vba && vba->kind == AT_INT ? vba->u.i : eb;
	bool ordered = !op_is_weak(op);
	const Layout *l = val->lay;
	bool dup = false;
	for (int i = l ? l->begin[0] : 0; l && i < l->begin[1]; i++)
		dup |= l->stride[i] == 0 && l->shape[i] > 1;
	int vd = tiled ? tiled_vector_dim(op, val->type->rank) : val->type->rank - 1;
	int vec = !l || dup || ordered ? 1 : layout_tile_run_width(l, (int)(legal / eb), val->type->rank, val->type->shape, vd);
	int masked_dims = 0, mask = 0;
	if (tiled) {
		for (int d = 0; d < val->type->rank; d++)
			masked_dims += !op_attr_int_at(op, "in_bounds", d, 0);
	} else {
		int st;
		mask = op_group(op, 1, &st) > 0;
	}
	bool masked = masked_dims || mask;

	remark_begin(&s->o, "Passed", "Memory", store ? "RemarkMemoryStoreInstructionSelected"
		     : "RemarkMemoryLoadInstructionSelected", op->loc, s->func,
		     store ? "Store instruction selected" : "Load instruction selected");
	remark_arg(&s->o, "Instruction", store ? "Global-memory store instruction" : "Global-memory load instruction");
	remark_arg(&s->o, "VectorBytes", "%d", vec * eb);
	remark_arg(&s->o, "VectorElements", "%d", vec);
	remark_arg(&s->o, "ElementType", "%s", el->str);
	remark_arg(&s->o, "Masked", "%s", masked ? "true" : "false");
	remark_end(&s->o);

	if (vec * eb < 16) {
		char msg[160];
		snprintf(msg, sizeof msg, "%s vectorized to %d bytes, not 16", store ? "Global store" : "Global load",
			 vec * eb);
		remark_begin(&s->o, "Missed", "Memory", "RemarkMemoryVectorWidthLimited", op->loc, s->func, msg);
		remark_arg(&s->o, "VectorBytes", "%d", vec * eb);
		remark_arg(&s->o, "LegalBytes", "%lld", (long long)legal);
		if (!tiled)
			remark_arg(&s->o, "Reason", "addresses come from a tile of pointers: one element per access "
				   "(a tensor_view and a partition view vectorize)");
		else
			tiled_reasons(s, op, eb);
		if (ordered)
			remark_arg(&s->o, "Reason", "%s ordering: one element per access",
				   op_attr_str(op, "memory_ordering_semantics", "weak"));
		else if (dup)
			remark_arg(&s->o, "Reason", "the layout repeats elements in a thread's registers");
		else if (vec * eb < legal)
			remark_arg(&s->o, "Reason", "each thread holds runs of only %d consecutive element%s in its layout",
				   vec, vec == 1 ? "" : "s");
		remark_end(&s->o);
	}
	if (masked) {
		remark_begin(&s->o, "Analysis", "Memory", "RemarkMemoryMaskedAccess", op->loc, s->func,
			     store ? "Store is bounds-checked (masked)" : "Load is bounds-checked (masked)");
		if (mask)
			remark_arg(&s->o, "Reason", "the op has a mask operand");
		for (int d = 0; tiled && d < val->type->rank; d++) {
			if (op_attr_int_at(op, "in_bounds", d, 0))
				continue;
			const Type *tv = op->operands[0]->type;
			int td = d;
			const Attr *dm = op_attr(op, "dim_map");
			if (dm && dm->kind == AT_INTS && d < dm->u.ints.n)
				td = (int)dm->u.ints.v[d];
			int64_t sz = td < tv->rank ? tv->shape[td] : DYN_DIM;
			if (sz == DYN_DIM)
				remark_arg(&s->o, "Reason", "dim %d: the tensor size is dynamic and not known to be a multiple of "
					   "the tile (%lld)", d, (long long)val->type->shape[d]);
			else
				remark_arg(&s->o, "Reason", "dim %d: the tensor size %lld is not a multiple of the tile (%lld)",
					   d, (long long)sz, (long long)val->type->shape[d]);
		}
		remark_end(&s->o);
	}
}

static void convert_remark(R *s, Op *op)
{
	const Type *t = op->results[0]->type;
	int eb = elem_bytes(t->elem) ? elem_bytes(t->elem) : 1;
	const Attr *a = op->operands[0]->layout, *b = op->results[0]->layout;
	remark_begin(&s->o, "Analysis", "Layout", "RemarkLayoutConversion", op->loc, s->func,
		     "Layout conversion inserted: the value is needed in another register layout");
	remark_arg(&s->o, "Type", "%s", t->str);
	remark_arg(&s->o, "From", "%s", a && a->kind == AT_STRING ? a->u.s : "?");
	remark_arg(&s->o, "To", "%s", b && b->kind == AT_STRING ? b->u.s : "?");
	remark_arg(&s->o, "SharedMemoryBytes", "%lld", (long long)(type_num_elements(t) * eb));
	remark_end(&s->o);
}

/* an `if` version.c made: which copy runs is decided at launch */
static void version_remark(R *s, Op *op)
{
	remark_begin(&s->o, "Analysis", "Memory", "RemarkLoopVersionedOnAlignment", op->loc, s->func,
		     "Loop versioned on alignment: its operand views carry no alignment facts, so the kernel tests "
		     "them at run time and copies them by TMA when the base pointers are 16-byte aligned and the "
		     "row strides multiples of 16 bytes, else loads them through registers (assume div_by<16> on "
		     "the pointers and div_by on the strides makes the test unnecessary)");
	Op *copy = op->regions[0].first ? op->regions[0].first->first : NULL;
	int n = 0;
	for (Op *x = copy && copy->nregions ? copy->regions[0].first->first : NULL; x; x = x->next)
		n += x->info->code == AS_tiled_load && mma_load_staging(x) == MMA_STAGING_TMA;
	remark_arg(&s->o, "LoadsByTMA", "%d", n);
	remark_end(&s->o);
}

static int visit(Op *op, void *ctx)
{
	R *s = ctx;
	switch (op->info->code) {
	case CT_if:
		if (op_attr_flag(op, "versioned_for_tma"))
			version_remark(s, op);
		break;
	case AS_tiled_load: case AS_tiled_store: case AS_load: case AS_store:
		if (op->info->dialect == DIALECT_NV_TILEAS)
			memory_remark(s, op);
		break;
	case AS_convert_layout:
		if (op->info->dialect == DIALECT_NV_TILEAS)
			convert_remark(s, op);
		break;
	default: break;
	}
	return 0;
}

void sched_remarks(Module *m, StrBuf *b, bool yaml, unsigned kinds)
{
	R s = { .o = { .b = b, .yaml = yaml, .kinds = kinds } };
	for (Op *op = m->body.first; op; op = op->next) {
		if (op->nregions == 0)
			continue;
		s.func = op_attr_str(op, "sym_name", NULL);
		op_walk(op, visit, &s);
	}
	sched_live_remarks(m, &s.o);
}
