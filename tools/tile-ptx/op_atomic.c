/* op_atomic.c: nv_tileas.atomic_rmw and atomic_cas (op family;
 * docs/lowering.md §9).
 *
 * One PTX atomic per element, done by the element's first-owner thread
 * (replicated copies must not repeat it), as inline assembly so that the
 * ordering and scope are exactly the op's:
 *
 *   atom.<sem>.<scope>.global.<op>.<type>   d, [p], x       result used, or
 *                                                           acquire / acq_rel, or xchg
 *   red.<sem>.<scope>.global.<op>.<type>    [p], x          result unused, relaxed / release
 *   atom.<sem>.<scope>.global.cas.b32|b64   d, [p], cmp, x
 *
 * sem: relaxed, acquire, release, acq_rel; scope: tl_blk -> cta,
 * device -> gpu, sys -> sys. (LLVM's atomicrmw would drop both on NVPTX.)
 * Types: add .u32/.u64, addf .f32/.f64/.noftz.f16/.noftz.bf16,
 * and/or/xor .b32/.b64, max/min .s32/.s64, umax/umin max/min .u32/.u64,
 * xchg exch.b32/.b64. bf16 addf below sm_90 (no atom.add.bf16) is a
 * compare-and-swap loop on the 16-bit word; so is an f16/bf16 addf whose
 * result is unused in -g PTX (ptxas crashes on those red/atom forms there).
 *
 * A masked-out element does nothing; its result is cmp (cas) or 0 (rmw).
 * When the result tile is replicated over threads or registers and is
 * used, the owners' old values are broadcast through shared memory, so
 * every copy agrees (a scalar atomic on the replicated rank-0 layout is done
 * once per tile block, by thread 0). */
#include <stdio.h>
#include <stdlib.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "diag.h"

/* ORDERING_acq_rel -> ".acq_rel" */
static const char *ptx_sem(int sem)
{
	switch (sem) {
	case ORDERING_acquire: return ".acquire";
	case ORDERING_release: return ".release";
	case ORDERING_acq_rel: return ".acq_rel";
	default: return ".relaxed";
	}
}

/* SCOPE_tl_blk -> ".cta", device ".gpu", sys ".sys" */
static const char *ptx_scope(int scope)
{
	switch (scope) {
	case SCOPE_tl_blk: return ".cta";
	case SCOPE_sys: return ".sys";
	default: return ".gpu";
	}
}

typedef struct AtomKind {
	const char *op;       /* PTX operation and type, e.g. "add.u32" */
	int bits;             /* 16, 32, 64 */
	bool emulate;         /* bf16 add below sm_90: cas loop */
	bool has_red;
	char buf[32];         /* op's text when built */
} AtomKind;

static bool atom_kind(E *e, int mode, const Type *el, AtomKind *k)
{
	int bits = el->kind == TY_SCALAR ? scalar_bits(el->scalar) : 0;
	bool fl = el->kind == TY_SCALAR && scalar_is_float(el->scalar);
	k->bits = bits;
	k->emulate = false;
	k->has_red = true;
	const char *u = bits == 64 ? "u64" : "u32", *s = bits == 64 ? "s64" : "s32", *b = bits == 64 ? "b64" : "b32";
	if (bits != 16 && bits != 32 && bits != 64)
		return false;
	if (mode == RMW_MODE_addf) {
		if (!fl)
			return false;
		switch (el->scalar) {
		case SC_F32: k->op = "add.f32"; break;
		case SC_F64: k->op = "add.f64"; break;
		case SC_F16: k->op = "add.noftz.f16"; break;
		case SC_BF16:
			k->op = "add.noftz.bf16";
			k->emulate = e->o->target->sm < 90;
			break;
		default: return false;
		}
		return true;
	}
	if (bits == 16)
		return false;
	const char *o = NULL, *t = NULL;
	if (mode == RMW_MODE_xchg) { o = "exch"; t = b; k->has_red = false; }
	else if (fl) return false;
	else switch (mode) {
	case RMW_MODE_add: o = "add"; t = u; break;
	case RMW_MODE_and: o = "and"; t = b; break;
	case RMW_MODE_or: o = "or"; t = b; break;
	case RMW_MODE_xor: o = "xor"; t = b; break;
	case RMW_MODE_max: o = "max"; t = s; break;
	case RMW_MODE_min: o = "min"; t = s; break;
	case RMW_MODE_umax: o = "max"; t = u; break;
	case RMW_MODE_umin: o = "min"; t = u; break;
	default: return false;
	}
	snprintf(k->buf, sizeof k->buf, "%s.%s", o, t);
	k->op = k->buf;
	return true;
}

static char reg_class(int bits)
{
	return bits == 16 ? 'h' : bits == 64 ? 'l' : 'r';
}

/* value <-> same-width integer */
static LLVMValueRef to_bits(E *e, LLVMValueRef v, int bits)
{
	LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)bits);
	return LLVMTypeOf(v) == it ? v : LLVMBuildBitCast(e->b, v, it, "");
}

static LLVMValueRef from_bits(E *e, LLVMValueRef v, LLVMTypeRef t)
{
	return LLVMTypeOf(v) == t ? v : LLVMBuildBitCast(e->b, v, t, "");
}

static LLVMValueRef cas_bits(E *e, int sem, int scope, int bits, LLVMValueRef p,
			     LLVMValueRef cmp, LLVMValueRef val)
{
	char text[128], cons[64];
	char r = reg_class(bits);
	snprintf(text, sizeof text, "atom%s%s.global.cas.b%d $0, [$1], $2, $3;", ptx_sem(sem), ptx_scope(scope), bits);
	snprintf(cons, sizeof cons, "=%c,l,%c,%c,~{memory}", r, r, r);
	LLVMValueRef args[3] = { p, cmp, val };
	return asm_call(e, LLVMIntTypeInContext(e->ctx, (unsigned)bits), text, cons, args, 3);
}

/* f16 / bf16 atomic add as a compare-and-swap loop on the 16-bit word. */
static LLVMValueRef half_add_loop(E *e, int sem, int scope, LLVMValueRef p, LLVMValueRef x)
{
	LLVMTypeRef i16 = LLVMInt16TypeInContext(e->ctx), bf = LLVMTypeOf(x);
	LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx);
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "cas.loop");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "cas.done");
	LLVMBuildBr(e->b, loop);
	LLVMPositionBuilderAtEnd(e->b, loop);
	LLVMValueRef cur = LLVMBuildPhi(e->b, i16, "");
	LLVMValueRef sum = LLVMBuildFAdd(e->b, LLVMBuildFPExt(e->b, LLVMBuildBitCast(e->b, cur, bf, ""), f32, ""),
					 LLVMBuildFPExt(e->b, x, f32, ""), "");
	LLVMValueRef nv = LLVMBuildBitCast(e->b, LLVMBuildFPTrunc(e->b, sum, bf, ""), i16, "");
	LLVMValueRef old = cas_bits(e, sem, scope, 16, p, cur, nv);
	LLVMValueRef same = LLVMBuildICmp(e->b, LLVMIntEQ, old, cur, "");
	LLVMBuildCondBr(e->b, same, done, loop);
	LLVMValueRef in[2] = { LLVMConstInt(i16, 0, 0), old };
	LLVMBasicBlockRef from[2] = { pre, loop };
	LLVMAddIncoming(cur, in, from, 2);
	LLVMPositionBuilderAtEnd(e->b, done);
	return LLVMBuildBitCast(e->b, old, bf, "");
}

/* One element: the atomic at pointer p. Returns the old value (NULL for red). */
static LLVMValueRef one(E *e, bool cas, const AtomKind *k, int sem, int scope, bool red,
			LLVMValueRef p, LLVMValueRef x, LLVMValueRef y, LLVMTypeRef et)
{
	char text[160], cons[64];
	char r = reg_class(k->bits);
	if (cas)
		return from_bits(e, cas_bits(e, sem, scope, k->bits, p, to_bits(e, x, k->bits), to_bits(e, y, k->bits)), et);
	if (k->emulate)
		return half_add_loop(e, sem, scope, p, x);
	LLVMValueRef xb = to_bits(e, x, k->bits);
	if (red) {
		snprintf(text, sizeof text, "red%s%s.global.%s [$0], $1;", ptx_sem(sem), ptx_scope(scope), k->op);
		snprintf(cons, sizeof cons, "l,%c,~{memory}", r);
		LLVMValueRef args[2] = { p, xb };
		asm_call(e, LLVMVoidTypeInContext(e->ctx), text, cons, args, 2);
		return NULL;
	}
	snprintf(text, sizeof text, "atom%s%s.global.%s $0, [$1], $2;", ptx_sem(sem), ptx_scope(scope), k->op);
	snprintf(cons, sizeof cons, "=%c,l,%c,~{memory}", r, r);
	LLVMValueRef args[2] = { p, xb };
	return from_bits(e, asm_call(e, LLVMIntTypeInContext(e->ctx, (unsigned)k->bits), text, cons, args, 2), et);
}

void emit_atomic(E *e, Op *op)
{
	bool cas = op->info->code == AS_atomic_cas;
	const Value *res = op->results[0];
	const Type *el = res->type->elem;
	const char *mode = cas ? "cas" : op_attr_str(op, "mode", "add");      /* as written, for messages */
	const char *sems = op_attr_str(op, "memory_ordering_semantics", "acq_rel");
	int sem = op_enum_attr(op, "memory_ordering_semantics", EK_ORDERING, ORDERING_acq_rel);
	int scope = op_enum_attr(op, "memory_scope", EK_SCOPE, SCOPE_device);
	AtomKind k = { "cas", el->kind == TY_SCALAR ? scalar_bits(el->scalar) : 0, false, false, "" };
	if (sem == ORDERING_weak || (!cas && !atom_kind(e, op_enum_attr(op, "mode", EK_RMW_MODE, RMW_MODE_add), el, &k)) ||
	    (cas && k.bits != 32 && k.bits != 64)) {
		char what[96];
		snprintf(what, sizeof what, "atomic %s on %s with ordering %s", mode, el->str, sems);
		unsupported(e, op, what);
		TV *t = tv_new(e, res);
		for (int i = 0; i < t->n; i++)
			t->r[i] = LLVMGetPoison(elem_ty(e, el));
		set(e, res, t);
		return;
	}
	order_after(e, op_group_value(op, cas ? 4 : 3), op);
	TV *ptr = get(e, op->operands[0]);
	TV *x = get(e, op->operands[1]);
	TV *y = cas ? get(e, op->operands[2]) : NULL;
	Value *mv = op_group_value(op, cas ? 3 : 2);
	TV *mask = mv ? get(e, mv) : NULL;
	TV *t = tv_new(e, res);
	if (ptr->n != t->n || x->n != t->n || (y && y->n != t->n) || (mask && mask->n != t->n))
		ice("tile-ptx: '%s' operands and result have different register counts", op->info->name);
	bool used = has_uses(op_toplevel(op), (Value *)res);
	bool red = !used && !cas && k.has_red && (sem == ORDERING_relaxed || sem == ORDERING_release);
	if (k.bits == 16 && e->o->device_debug && !used) {
		/* ptxas 13.0-13.5 crashes on a 16-bit float red, or an atom whose
		 * result is dead, in debug (-g) PTX: use the cas loop there */
		red = false;
		k.emulate = true;
	}
	LLVMValueRef primary = owner_pred(e, &t->lay);
	LLVMTypeRef et = elem_ty(e, el);
	for (int r = 0; r < t->n; r++) {
		if (!layout_reg_is_primary(&t->lay, r)) {
			t->r[r] = LLVMGetPoison(et);
			continue;
		}
		LLVMValueRef pred = mask ? mask->r[r] : NULL;
		if (primary)
			pred = pred ? LLVMBuildAnd(e->b, pred, primary, "") : primary;
		LLVMValueRef fallback = cas ? x->r[r] : LLVMConstNull(et);
		if (!pred) {
			LLVMValueRef v = one(e, cas, &k, sem, scope, red, ptr->r[r], x->r[r], y ? y->r[r] : NULL, et);
			t->r[r] = v ? v : fallback;
			continue;
		}
		LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
		LLVMBasicBlockRef at = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "atom");
		LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "atom.join");
		LLVMBuildCondBr(e->b, pred, at, join);
		LLVMPositionBuilderAtEnd(e->b, at);
		LLVMValueRef v = one(e, cas, &k, sem, scope, red, ptr->r[r], x->r[r], y ? y->r[r] : NULL, et);
		LLVMBasicBlockRef at_end = LLVMGetInsertBlock(e->b);
		LLVMBuildBr(e->b, join);
		LLVMPositionBuilderAtEnd(e->b, join);
		if (v) {
			t->r[r] = phi2(e, fallback, from, v, at_end);
		} else {
			t->r[r] = fallback;
		}
	}
	if (used && lay_has_copies(&t->lay))
		smem_broadcast(e, t, el);
	set(e, res, t);
	mark_token(e, op->results[1], true, op);
}
