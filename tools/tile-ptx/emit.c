/* emit.c: scheduled IR -> LLVM IR (see ptx.h, docs/lowering.md §5).
 *
 * A tile value is held, in every thread, as the registers its layout gives
 * that thread: register r of thread (lane, warp) holds the element at
 * row-major offset V(r) + L(lane) + W(warp). V(r) is a compile-time
 * constant, L(lane) + W(warp) is computed once per layout. Elementwise ops
 * work register by register; broadcasts and reshapes are register copies
 * (tile-sched made them thread-local); loads and stores move runs of
 * consecutive registers with one vector access; convert_layout goes through
 * shared memory. Entry parameters keep NVIDIA's ABI: one LLVM parameter per
 * entry block argument, pointers as ptr addrspace(1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include "ptx.h"
#include "emit.h"
#include "opinfo.h"
#include "irutil.h"
#include "layout.h"
#include "diag.h"

/* ------------------------------------------------------------ types */

static LLVMTypeRef i32t(E *e) { return LLVMInt32TypeInContext(e->ctx); }
static LLVMTypeRef i64t(E *e) { return LLVMInt64TypeInContext(e->ctx); }
static LLVMValueRef ci32(E *e, int64_t v) { return LLVMConstInt(i32t(e), (unsigned long long)v, 1); }
static LLVMValueRef ci64(E *e, int64_t v) { return LLVMConstInt(i64t(e), (unsigned long long)v, 1); }

/* Register type of an element. */
LLVMTypeRef elem_ty(E *e, const Type *t)
{
	if (t->kind == TY_PTR)
		return LLVMPointerTypeInContext(e->ctx, 1);
	switch (t->scalar) {
	case SC_I1: return LLVMInt1TypeInContext(e->ctx);
	case SC_I4: return LLVMIntTypeInContext(e->ctx, 4);
	case SC_I8: return LLVMInt8TypeInContext(e->ctx);
	case SC_I16: return LLVMInt16TypeInContext(e->ctx);
	case SC_I32: return i32t(e);
	case SC_I64: return i64t(e);
	case SC_F16: return LLVMHalfTypeInContext(e->ctx);
	case SC_BF16: return LLVMBFloatTypeInContext(e->ctx);
	case SC_F32: case SC_TF32: return LLVMFloatTypeInContext(e->ctx);
	case SC_F64: return LLVMDoubleTypeInContext(e->ctx);
	case SC_F8E4M3FN: case SC_F8E5M2: case SC_F8E8M0FNU: case SC_F4E2M1FN: case SC_F8E5M3FNU:
		return LLVMInt8TypeInContext(e->ctx);
	default: return i32t(e);
	}
}

/* Type in memory (i1 is a byte). */
LLVMTypeRef mem_ty(E *e, const Type *t)
{
	if (t->kind == TY_SCALAR && t->scalar == SC_I1)
		return LLVMInt8TypeInContext(e->ctx);
	return elem_ty(e, t);
}

static bool is_float(const Type *t)
{
	return t->kind == TY_SCALAR && scalar_is_float(t->scalar) && t->scalar != SC_F8E4M3FN &&
	       t->scalar != SC_F8E5M2 && t->scalar != SC_F8E8M0FNU && t->scalar != SC_F4E2M1FN;
}

/* ------------------------------------------------------------ helpers */

void unsupported(E *e, const Op *op, const char *what)
{
	diag_error(op->loc, "'%s' op: %s is not supported yet", op->info->name, what);
	e->errors++;
}

static LLVMValueRef intrinsic(E *e, const char *name, LLVMTypeRef *over, int nover)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		ice("tile-ptx: LLVM has no intrinsic %s", name);
	return LLVMGetIntrinsicDeclaration(e->mod, id, over, (size_t)nover);
}

LLVMValueRef call(E *e, LLVMValueRef f, LLVMValueRef *args, int n)
{
	return LLVMBuildCall2(e->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

LLVMValueRef call_intr(E *e, const char *name, LLVMTypeRef over, LLVMValueRef *args, int n)
{
	LLVMValueRef f = intrinsic(e, name, over ? &over : NULL, over ? 1 : 0);
	return call(e, f, args, n);
}

/* A function declared by name (libdevice, or a non-overloaded intrinsic). */
LLVMValueRef declared(E *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n)
{
	LLVMValueRef f = LLVMGetNamedFunction(e->mod, name);
	if (!f)
		f = LLVMAddFunction(e->mod, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
	return f;
}

LLVMValueRef sreg(E *e, const char *name)
{
	char buf[64];
	snprintf(buf, sizeof buf, "llvm.nvvm.read.ptx.sreg.%s", name);
	return call_intr(e, buf, NULL, NULL, 0);
}

TV *tv_new(E *e, const Value *v)
{
	TV *t = calloc(1, sizeof *t);
	if (!t)
		ice("out of memory");
	if (!v->layout || v->layout->kind != AT_STRING || !layout_parse(v->layout->u.s, &t->lay, NULL))
		ice("tile-ptx: tile value without a layout (%s)", v->type->str);
	t->n = (int)layout_nregs(&t->lay);
	t->r = calloc((size_t)t->n + 1, sizeof *t->r);
	if (!t->r)
		ice("out of memory");
	if (e->nall == e->capall) {
		e->capall = e->capall ? 2 * e->capall : 64;
		e->all = realloc(e->all, sizeof *e->all * (size_t)e->capall);
		if (!e->all)
			ice("out of memory");
	}
	e->all[e->nall++] = t;
	return t;
}

TV *get(E *e, const Value *v)
{
	if (v->id < 0 || v->id >= e->nvals || !e->tv[v->id])
		ice("tile-ptx: value %%%d has no registers", v->id);
	return e->tv[v->id];
}

void set(E *e, const Value *v, TV *t)
{
	e->tv[v->id] = t;
}

LLVMValueRef scalar(E *e, const Value *v)
{
	return get(e, v)->r[0];
}

/* i64 of a scalar integer value (sign-extended). */
static LLVMValueRef as_i64(E *e, LLVMValueRef x)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	if (LLVMGetIntTypeWidth(t) == 64)
		return x;
	return LLVMBuildSExt(e->b, x, i64t(e), "");
}

/* L(lane) + W(warp) of a layout, and the "first owner" predicate for
 * replicated threads; computed once per layout in the prologue. */
LWCache *lw_of(E *e, const Layout *l)
{
	char key[512];
	layout_str(l, key, sizeof key);
	for (int i = 0; i < e->nlw; i++)
		if (strcmp(e->lw[i].key, key) == 0)
			return &e->lw[i];
	if (e->nlw == e->caplw) {
		e->caplw = e->caplw ? 2 * e->caplw : 16;
		e->lw = realloc(e->lw, sizeof *e->lw * (size_t)e->caplw);
		if (!e->lw)
			ice("out of memory");
	}
	LWCache *c = &e->lw[e->nlw++];
	c->key = strdup(key);
	LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
	LLVMPositionBuilderBefore(e->b, e->entry_br);
	LLVMValueRef off = ci32(e, 0), prim = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
	for (int m = 1; m <= 2; m++) {
		LLVMValueRef x = m == 1 ? e->lane : e->warp;
		int64_t div = 1;
		for (int i = l->begin[m]; i < l->begin[m + 1]; i++) {
			int64_t s = l->shape[i], d = l->stride[i];
			if (s > 1) {
				LLVMValueRef q = LLVMBuildUDiv(e->b, x, ci32(e, div), "");
				q = LLVMBuildURem(e->b, q, ci32(e, s), "");
				if (d != 0)
					off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, q, ci32(e, d), ""), "");
				else
					prim = LLVMBuildAnd(e->b, prim,
							    LLVMBuildICmp(e->b, LLVMIntEQ, q, ci32(e, 0), ""), "");
			}
			div *= s;
		}
	}
	c->off = off;
	c->primary = prim;
	LLVMPositionBuilderAtEnd(e->b, here);
	return c;
}

/* Row-major offset (i32) of register r of layout l in this thread. */
LLVMValueRef elem_offset(E *e, const Layout *l, int64_t r)
{
	LWCache *c = lw_of(e, l);
	return LLVMBuildAdd(e->b, c->off, ci32(e, layout_eval_mode(l, 0, r)), "");
}

/* Largest power of two v <= cap such that runs of v registers starting at
 * multiples of v hold v consecutive, v-aligned elements in every thread. */
static int chunk_width(const Layout *l, int cap)
{
	int64_t n = layout_nregs(l);
	for (int v = cap; v > 1; v /= 2) {
		if (n % v)
			continue;
		bool ok = true;
		for (int m = 1; m <= 2 && ok; m++)
			for (int i = l->begin[m]; i < l->begin[m + 1]; i++)
				if (l->stride[i] % v)
					ok = false;
		for (int64_t r = 0; r < n && ok; r += v) {
			int64_t base = layout_eval_mode(l, 0, r);
			if (base % v)
				ok = false;
			for (int k = 1; k < v && ok; k++)
				if (layout_eval_mode(l, 0, r + k) != base + k)
					ok = false;
		}
		if (ok)
			return v;
	}
	return 1;
}

/* ------------------------------------------------------------ debug info */

static void set_loc(E *e, const Loc *l)
{
	if (!e->dib)
		return;
	unsigned line = l && l->file ? l->line : e->fn_line, col = l && l->file ? l->col : 0;
	LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(e->ctx, line, col, e->sp, NULL);
	LLVMSetCurrentDebugLocation2(e->b, loc);
}

/* ------------------------------------------------------------ constants */

/* A register constant in its memory type (i1 -> i8). */
static LLVMValueRef to_mem_const(E *e, LLVMValueRef c, LLVMTypeRef mt)
{
	if (LLVMTypeOf(c) == mt)
		return c;
	return LLVMConstInt(mt, LLVMConstIntGetZExtValue(c), 0);
}

static uint64_t dense_elem(const Attr *a, int64_t i, int nb)
{
	size_t at = a->u.dense.splat ? 0 : (size_t)i * (size_t)nb;
	uint64_t x = 0;
	for (int k = 0; k < nb && at + (size_t)k < a->u.dense.n; k++)
		x |= (uint64_t)a->u.dense.bytes[at + (size_t)k] << (8 * k);
	return x;
}

/* An element's bit pattern as stored in a dense constant (MLIR's: the
 * format's own bits, in ceil(bits/8) bytes) as a register constant. */
static LLVMValueRef const_bits(E *e, const Type *elem, uint64_t bits)
{
	LLVMTypeRef t = elem_ty(e, elem);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_I1)
		return LLVMConstInt(t, bits & 1, 0);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_TF32)    /* 19 bits: the top of an f32 */
		return LLVMConstBitCast(LLVMConstInt(i32t(e), (bits & 0x7ffff) << 13, 0), t);
	if (elem->kind == TY_SCALAR && elem->scalar == SC_F4E2M1FN)  /* the low nibble */
		return LLVMConstInt(t, bits & 0xf, 0);
	if (is_float(elem)) {
		int w = elem->scalar == SC_F16 || elem->scalar == SC_BF16 ? 16 :
			elem->scalar == SC_F64 ? 64 : 32;
		LLVMValueRef i = LLVMConstInt(LLVMIntTypeInContext(e->ctx, (unsigned)w), bits, 0);
		return LLVMConstBitCast(i, t);
	}
	return LLVMConstInt(t, bits, 0);
}

static void emit_constant(E *e, Op *op)
{
	const Value *v = op->results[0];
	const Attr *a = op_attr(op, "value");
	const Type *el = v->type->elem;
	int nb = el->kind == TY_SCALAR ? (scalar_bits(el->scalar) + 7) / 8 : 0;   /* dense storage */
	TV *t = tv_new(e, v);
	if (!a || a->kind != AT_DENSE || nb == 0) {
		unsupported(e, op, "this constant");
		set(e, v, t);
		for (int k = 0; k < t->n; k++)
			t->r[k] = LLVMGetPoison(elem_ty(e, el));
		return;
	}
	bool lane_free = true;
	for (int i = t->lay.begin[1]; i < layout_nleaves(&t->lay); i++)
		lane_free &= t->lay.stride[i] == 0 || t->lay.shape[i] == 1;
	if (a->u.dense.splat || type_num_elements(v->type) == 1) {
		LLVMValueRef c = const_bits(e, el, dense_elem(a, 0, nb));
		for (int k = 0; k < t->n; k++)
			t->r[k] = c;
	} else if (lane_free) {
		for (int k = 0; k < t->n; k++)
			t->r[k] = const_bits(e, el, dense_elem(a, layout_eval_mode(&t->lay, 0, k), nb));
	} else {
		/* a table in constant memory, indexed by each register's offset */
		int64_t n = type_num_elements(v->type);
		LLVMValueRef *vals = malloc(sizeof *vals * (size_t)n);
		if (!vals)
			ice("out of memory");
		LLVMTypeRef mt = mem_ty(e, el);
		for (int64_t i = 0; i < n; i++) {
			LLVMValueRef c = const_bits(e, el, dense_elem(a, i, nb));
			vals[i] = to_mem_const(e, c, mt);
		}
		LLVMTypeRef at = LLVMArrayType2(mt, (uint64_t)n);
		LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, "__tile_const", 4);
		LLVMSetInitializer(g, LLVMConstArray2(mt, vals, (uint64_t)n));
		LLVMSetGlobalConstant(g, 1);
		LLVMSetLinkage(g, LLVMInternalLinkage);
		free(vals);
		for (int k = 0; k < t->n; k++) {
			LLVMValueRef idx[2] = { ci64(e, 0), LLVMBuildZExt(e->b, elem_offset(e, &t->lay, k), i64t(e), "") };
			LLVMValueRef p = LLVMBuildGEP2(e->b, at, g, idx, 2, "");
			LLVMValueRef x = LLVMBuildLoad2(e->b, mt, p, "");
			t->r[k] = mt == elem_ty(e, el) ? x : LLVMBuildTrunc(e->b, x, elem_ty(e, el), "");
		}
	}
	set(e, v, t);
}

static void emit_iota(E *e, Op *op)
{
	const Value *v = op->results[0];
	TV *t = tv_new(e, v);
	LLVMTypeRef et = elem_ty(e, v->type->elem);
	for (int k = 0; k < t->n; k++) {
		LLVMValueRef x = elem_offset(e, &t->lay, k);
		unsigned w = LLVMGetIntTypeWidth(et);
		t->r[k] = w > 32 ? LLVMBuildZExt(e->b, x, et, "") : w < 32 ? LLVMBuildTrunc(e->b, x, et, "") : x;
	}
	set(e, v, t);
}

/* ------------------------------------------------------------ elementwise */

static const char *str_attr(const Op *op, const char *name, const char *dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_STRING ? a->u.s : dflt;
}

static bool flag(const Op *op, const char *name)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_BOOL && a->u.i;
}

static bool is_signed(const Op *op)
{
	return strcmp(str_attr(op, "signedness", "signed"), "signed") == 0;
}

/* Name of an NVVM rounding-mode intrinsic, or NULL for the plain op. */
const char *ptx_rounding(const char *mode)
{
	if (strcmp(mode, "nearest_even") == 0) return "rn";
	return ptx_rounding_directed(mode);
}

const char *ptx_rounding_directed(const char *mode)
{
	if (strcmp(mode, "zero") == 0) return "rz";
	if (strcmp(mode, "negative_inf") == 0) return "rm";
	if (strcmp(mode, "positive_inf") == 0) return "rp";
	return NULL;
}

LLVMValueRef asm_pure1(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef x)
{
	LLVMTypeRef pt = LLVMTypeOf(x);
	LLVMTypeRef ft = LLVMFunctionType(ret, &pt, 1, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 0, 0,
					  LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(e->b, ft, f, &x, 1, "");
}

/* f16/bf16 math through f32: widen, compute, narrow. */
static LLVMValueRef widen(E *e, LLVMValueRef x, const Type *el)
{
	if (el->scalar == SC_F16 || el->scalar == SC_BF16)
		return LLVMBuildFPExt(e->b, x, LLVMFloatTypeInContext(e->ctx), "");
	return x;
}

static LLVMValueRef narrow(E *e, LLVMValueRef x, const Type *el)
{
	if (el->scalar == SC_F16 || el->scalar == SC_BF16)
		return LLVMBuildFPTrunc(e->b, x, elem_ty(e, el), "");
	return x;
}

LLVMValueRef libdevice1(E *e, const char *base, const Type *el, LLVMValueRef *args, int n)
{
	char name[64];
	bool dbl = el->scalar == SC_F64;
	snprintf(name, sizeof name, "__nv_%s%s", base, dbl ? "" : "f");
	LLVMTypeRef ft = dbl ? LLVMDoubleTypeInContext(e->ctx) : LLVMFloatTypeInContext(e->ctx);
	LLVMTypeRef ps[3] = { ft, ft, ft };
	LLVMValueRef f = declared(e, name, ft, ps, n);
	LLVMValueRef w[3];
	for (int i = 0; i < n; i++)
		w[i] = widen(e, args[i], el);
	e->needs_libdevice = true;
	return narrow(e, call(e, f, w, n), el);
}

/* An f32/f64 NVVM rounding intrinsic: llvm.nvvm.<op>.<rnd>[.ftz].<f|d>. */
static LLVMValueRef nvvm_rounded(E *e, Op *op, const char *base, const char *rnd, bool ftz,
				 const Type *el, LLVMValueRef *args, int n)
{
	if (el->scalar != SC_F32 && el->scalar != SC_F64) {
		unsupported(e, op, "a rounding mode other than nearest_even on this type");
		return LLVMGetPoison(elem_ty(e, el));
	}
	char name[96];
	bool d = el->scalar == SC_F64;
	snprintf(name, sizeof name, "llvm.nvvm.%s.%s%s.%s", base, rnd, ftz && !d ? ".ftz" : "", d ? "d" : "f");
	return call_intr(e, name, NULL, args, n);
}

static LLVMValueRef fbinop(E *e, Op *op, const Type *el, LLVMValueRef a, LLVMValueRef b)
{
	const char *mode = str_attr(op, "rounding_mode", "nearest_even");
	bool ftz = flag(op, "flush_to_zero");
	const char *rnd = ptx_rounding(mode);
	LLVMValueRef args[2] = { a, b };
	int code = op->info->code;
	if (code == CT_divf && (strcmp(mode, "approx") == 0 || strcmp(mode, "full") == 0)) {
		char name[64];
		snprintf(name, sizeof name, "llvm.nvvm.div.%s%s%s", mode, ftz ? ".ftz" : "",
			 mode[0] == 'a' ? ".f" : "");
		return call_intr(e, name, NULL, args, 2);
	}
	if (!rnd) {
		char what[96];
		snprintf(what, sizeof what, "rounding mode '%s'", mode);
		unsupported(e, op, what);
		return LLVMGetPoison(elem_ty(e, el));
	}
	if (strcmp(rnd, "rn") != 0 || ftz) {
		if (code == CT_subf) {
			args[1] = LLVMBuildFNeg(e->b, b, "");
			return nvvm_rounded(e, op, "add", rnd, ftz, el, args, 2);
		}
		return nvvm_rounded(e, op, code == CT_addf ? "add" : code == CT_mulf ? "mul" : "div",
				    rnd, ftz, el, args, 2);
	}
	switch (code) {
	case CT_addf: return LLVMBuildFAdd(e->b, a, b, "");
	case CT_subf: return LLVMBuildFSub(e->b, a, b, "");
	case CT_mulf: return LLVMBuildFMul(e->b, a, b, "");
	default: return LLVMBuildFDiv(e->b, a, b, "");
	}
}

static LLVMValueRef shift(E *e, int code, bool sgn, LLVMValueRef a, LLVMValueRef b)
{
	LLVMTypeRef t = LLVMTypeOf(a);
	unsigned w = LLVMGetIntTypeWidth(t);
	LLVMValueRef big = LLVMBuildICmp(e->b, LLVMIntUGE, b, LLVMConstInt(t, w, 0), "");
	if (code == CT_shri && sgn) {
		LLVMValueRef amt = LLVMBuildSelect(e->b, big, LLVMConstInt(t, w - 1, 0), b, "");
		return LLVMBuildAShr(e->b, a, amt, "");
	}
	LLVMValueRef s = code == CT_shli ? LLVMBuildShl(e->b, a, b, "") : LLVMBuildLShr(e->b, a, b, "");
	return LLVMBuildSelect(e->b, big, LLVMConstInt(t, 0, 0), s, "");
}

static LLVMValueRef divi(E *e, Op *op, LLVMValueRef a, LLVMValueRef b)
{
	bool sgn = is_signed(op);
	const char *rnd = str_attr(op, "rounding", "zero");
	LLVMValueRef q = sgn ? LLVMBuildSDiv(e->b, a, b, "") : LLVMBuildUDiv(e->b, a, b, "");
	if (strcmp(rnd, "zero") == 0)
		return q;
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMValueRef r = sgn ? LLVMBuildSRem(e->b, a, b, "") : LLVMBuildURem(e->b, a, b, "");
	LLVMValueRef zero = LLVMConstInt(t, 0, 0), one = LLVMConstInt(t, 1, 0);
	LLVMValueRef nz = LLVMBuildICmp(e->b, LLVMIntNE, r, zero, "");
	LLVMValueRef diffsign = sgn ? LLVMBuildICmp(e->b, LLVMIntSLT, LLVMBuildXor(e->b, r, b, ""), zero, "")
				    : LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0);
	if (strcmp(rnd, "negative_inf") == 0) {
		LLVMValueRef adj = LLVMBuildAnd(e->b, nz, diffsign, "");
		return LLVMBuildSub(e->b, q, LLVMBuildZExt(e->b, adj, t, ""), "");
	}
	LLVMValueRef same = LLVMBuildNot(e->b, diffsign, "");
	LLVMValueRef adj = LLVMBuildAnd(e->b, nz, same, "");
	(void)one;
	return LLVMBuildAdd(e->b, q, LLVMBuildZExt(e->b, adj, t, ""), "");
}

static LLVMIntPredicate ipred(Op *op)
{
	const char *p = str_attr(op, "comparison_predicate", "equal");
	bool s = is_signed(op);
	if (strcmp(p, "equal") == 0) return LLVMIntEQ;
	if (strcmp(p, "not_equal") == 0) return LLVMIntNE;
	if (strcmp(p, "less_than") == 0) return s ? LLVMIntSLT : LLVMIntULT;
	if (strcmp(p, "less_than_or_equal") == 0) return s ? LLVMIntSLE : LLVMIntULE;
	if (strcmp(p, "greater_than") == 0) return s ? LLVMIntSGT : LLVMIntUGT;
	return s ? LLVMIntSGE : LLVMIntUGE;
}

static LLVMRealPredicate fpred(Op *op)
{
	const char *p = str_attr(op, "comparison_predicate", "equal");
	bool o = strcmp(str_attr(op, "comparison_ordering", "ordered"), "ordered") == 0;
	if (strcmp(p, "equal") == 0) return o ? LLVMRealOEQ : LLVMRealUEQ;
	if (strcmp(p, "not_equal") == 0) return o ? LLVMRealONE : LLVMRealUNE;
	if (strcmp(p, "less_than") == 0) return o ? LLVMRealOLT : LLVMRealULT;
	if (strcmp(p, "less_than_or_equal") == 0) return o ? LLVMRealOLE : LLVMRealULE;
	if (strcmp(p, "greater_than") == 0) return o ? LLVMRealOGT : LLVMRealUGT;
	return o ? LLVMRealOGE : LLVMRealUGE;
}

/* One register of an elementwise op. a[] are the operands' registers. */
static LLVMValueRef ew1(E *e, Op *op, LLVMValueRef *a)
{
	const Type *rt = op->results[0]->type->elem;
	const Type *at = op->noperands ? op->operands[0]->type->elem : rt;
	LLVMTypeRef rty = elem_ty(e, rt);
	LLVMBuilderRef b = e->b;
	LLVMValueRef special;
	if (math_ew(e, op, a, &special))
		return special;
	switch (op->info->code) {
	case CT_addi: return LLVMBuildAdd(b, a[0], a[1], "");
	case CT_subi: return LLVMBuildSub(b, a[0], a[1], "");
	case CT_muli: return LLVMBuildMul(b, a[0], a[1], "");
	case CT_andi: return LLVMBuildAnd(b, a[0], a[1], "");
	case CT_ori: return LLVMBuildOr(b, a[0], a[1], "");
	case CT_xori: return LLVMBuildXor(b, a[0], a[1], "");
	case CT_negi: return LLVMBuildNeg(b, a[0], "");
	case CT_divi: return divi(e, op, a[0], a[1]);
	case CT_remi: return is_signed(op) ? LLVMBuildSRem(b, a[0], a[1], "") : LLVMBuildURem(b, a[0], a[1], "");
	case CT_shli: case CT_shri: return shift(e, op->info->code, is_signed(op), a[0], a[1]);
	case CT_absi: {
		LLVMValueRef args[2] = { a[0], LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0) };
		return call_intr(e, "llvm.abs", rty, args, 2);
	}
	case CT_maxi: case CT_mini: {
		bool s = is_signed(op), mx = op->info->code == CT_maxi;
		return call_intr(e, mx ? (s ? "llvm.smax" : "llvm.umax") : (s ? "llvm.smin" : "llvm.umin"), rty, a, 2);
	}
	case CT_mulhii: {
		unsigned w = LLVMGetIntTypeWidth(rty);
		LLVMTypeRef wt = LLVMIntTypeInContext(e->ctx, 2 * w);
		LLVMValueRef p = LLVMBuildMul(b, LLVMBuildZExt(b, a[0], wt, ""), LLVMBuildZExt(b, a[1], wt, ""), "");
		return LLVMBuildTrunc(b, LLVMBuildLShr(b, p, LLVMConstInt(wt, w, 0), ""), rty, "");
	}
	case CT_cmpi: return LLVMBuildICmp(b, ipred(op), a[0], a[1], "");
	case CT_cmpf: return LLVMBuildFCmp(b, fpred(op), a[0], a[1], "");
	case CT_select: return LLVMBuildSelect(b, a[0], a[1], a[2], "");
	case CT_addf: case CT_subf: case CT_mulf: case CT_divf: return fbinop(e, op, rt, a[0], a[1]);
	case CT_fma: {
		const char *rnd = ptx_rounding(str_attr(op, "rounding_mode", "nearest_even"));
		bool ftz = flag(op, "flush_to_zero");
		if (rnd && (strcmp(rnd, "rn") != 0 || ftz))
			return nvvm_rounded(e, op, "fma", rnd, ftz, rt, a, 3);
		return call_intr(e, "llvm.fma", rty, a, 3);
	}
	case CT_negf: return LLVMBuildFNeg(b, a[0], "");
	case CT_absf: return call_intr(e, "llvm.fabs", rty, a, 1);
	case CT_ceil: return call_intr(e, "llvm.ceil", rty, a, 1);
	case CT_floor: return call_intr(e, "llvm.floor", rty, a, 1);
	case CT_remf: return LLVMBuildFRem(b, a[0], a[1], "");
	case CT_maxf: case CT_minf: {
		bool nan = flag(op, "propagate_nan"), mx = op->info->code == CT_maxf;
		return call_intr(e, mx ? (nan ? "llvm.maximum" : "llvm.maxnum") : (nan ? "llvm.minimum" : "llvm.minnum"),
				 rty, a, 2);
	}
	case CT_sqrt: {
		const char *mode = str_attr(op, "rounding_mode", "nearest_even");
		bool ftz = flag(op, "flush_to_zero");
		if (strcmp(mode, "approx") == 0 && rt->scalar == SC_F32)
			return call_intr(e, ftz ? "llvm.nvvm.sqrt.approx.ftz.f" : "llvm.nvvm.sqrt.approx.f", NULL, a, 1);
		const char *rnd = ptx_rounding(mode);
		if (rnd && (strcmp(rnd, "rn") != 0 || ftz))
			return nvvm_rounded(e, op, "sqrt", rnd, ftz, rt, a, 1);
		if (rt->scalar == SC_F16 || rt->scalar == SC_BF16) {
			LLVMValueRef w = widen(e, a[0], rt);
			return narrow(e, call_intr(e, "llvm.sqrt", LLVMTypeOf(w), &w, 1), rt);
		}
		return call_intr(e, "llvm.sqrt", rty, a, 1);
	}
	case CT_rsqrt: return libdevice1(e, "rsqrt", rt, a, 1);
	case CT_exp:
		if (strcmp(str_attr(op, "rounding_mode", "full"), "approx") == 0 && rt->scalar == SC_F32)
			return libdevice1(e, "fast_exp", rt, a, 1);
		return libdevice1(e, "exp", rt, a, 1);
	case CT_exp2: return libdevice1(e, "exp2", rt, a, 1);
	case CT_log: return libdevice1(e, "log", rt, a, 1);
	case CT_log2: return libdevice1(e, "log2", rt, a, 1);
	case CT_pow: return libdevice1(e, "pow", rt, a, 2);
	case CT_sin: return libdevice1(e, "sin", rt, a, 1);
	case CT_cos: return libdevice1(e, "cos", rt, a, 1);
	case CT_tan: return libdevice1(e, "tan", rt, a, 1);
	case CT_sinh: return libdevice1(e, "sinh", rt, a, 1);
	case CT_cosh: return libdevice1(e, "cosh", rt, a, 1);
	case CT_tanh: return libdevice1(e, "tanh", rt, a, 1);
	case CT_atan2: return libdevice1(e, "atan2", rt, a, 2);
	case CT_fpowi: {
		bool dbl = rt->scalar == SC_F64;
		LLVMTypeRef ft = dbl ? LLVMDoubleTypeInContext(e->ctx) : LLVMFloatTypeInContext(e->ctx);
		LLVMTypeRef ps[2] = { ft, i32t(e) };
		LLVMValueRef f = declared(e, dbl ? "__nv_powi" : "__nv_powif", ft, ps, 2);
		LLVMValueRef args[2] = { widen(e, a[0], rt), a[1] };
		unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(a[1]));
		if (w != 32)
			args[1] = w > 32 ? LLVMBuildTrunc(b, a[1], i32t(e), "") : LLVMBuildSExt(b, a[1], i32t(e), "");
		e->needs_libdevice = true;
		return narrow(e, call(e, f, args, 2), rt);
	}
	case CT_exti: return is_signed(op) ? LLVMBuildSExt(b, a[0], rty, "") : LLVMBuildZExt(b, a[0], rty, "");
	case CT_trunci: return LLVMBuildTrunc(b, a[0], rty, "");
	case CT_itof:
		if (convert_is_narrow(rt)) {
			LLVMValueRef f = is_signed(op) ? LLVMBuildSIToFP(b, a[0], LLVMFloatTypeInContext(e->ctx), "")
						       : LLVMBuildUIToFP(b, a[0], LLVMFloatTypeInContext(e->ctx), "");
			return convert_float(e, op, f, type_scalar(e->m, SC_F32), rt);
		}
		return is_signed(op) ? LLVMBuildSIToFP(b, a[0], rty, "") : LLVMBuildUIToFP(b, a[0], rty, "");
	case CT_ftoi: {
		LLVMValueRef x = a[0];
		if (convert_is_narrow(at))
			x = convert_float(e, op, x, at, type_scalar(e->m, SC_F32));
		LLVMTypeRef over[2] = { rty, LLVMTypeOf(x) };
		LLVMValueRef f = intrinsic(e, is_signed(op) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", over, 2);
		return call(e, f, &x, 1);
	}
	case CT_ftof: return convert_float(e, op, a[0], at, rt);
	case CT_bitcast:
		if (LLVMTypeOf(a[0]) == rty)
			return a[0];
		return LLVMBuildBitCast(b, a[0], rty, "");
	case CT_int_to_ptr: return LLVMBuildIntToPtr(b, a[0], rty, "");
	case CT_ptr_to_int: return LLVMBuildPtrToInt(b, a[0], rty, "");
	case CT_ptr_to_ptr: return a[0];
	case CT_offset: {
		LLVMValueRef off = as_i64(e, a[1]);
		return LLVMBuildGEP2(b, mem_ty(e, rt->elem), a[0], &off, 1, "");
	}
	default:
		unsupported(e, op, "this elementwise op");
		return LLVMGetPoison(rty);
	}
}

static void emit_ew(E *e, Op *op)
{
	TV *t = tv_new(e, op->results[0]);
	TV *ops[4];
	if (op->noperands > 4)
		ice("tile-ptx: elementwise op with %d operands", op->noperands);
	for (int i = 0; i < op->noperands; i++) {
		ops[i] = get(e, op->operands[i]);
		if (ops[i]->n != t->n)
			ice("tile-ptx: '%s': operand %d has %d registers, result %d", op->info->name, i,
			    ops[i]->n, t->n);
	}
	int k = 0;
	if (op->info->code == CT_ftof)    /* the packed cvts convert two registers at once */
		for (; k + 1 < t->n; k += 2) {
			LLVMValueRef x[2] = { ops[0]->r[k], ops[0]->r[k + 1] };
			if (!convert_float_pair(e, op, x, op->operands[0]->type->elem, op->results[0]->type->elem,
						t->r + k))
				break;
		}
	for (; k < t->n; k++) {
		LLVMValueRef a[4];
		for (int i = 0; i < op->noperands; i++)
			a[i] = ops[i]->r[k];
		t->r[k] = ew1(e, op, a);
	}
	set(e, op->results[0], t);
}

/* broadcast / reshape: register copies (tile-sched made them local). */
static void emit_copy(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	const Type *d = op->results[0]->type, *st = op->operands[0]->type;
	TileMap tm = { op->info->code == CT_broadcast ? TM_BROADCAST : TM_IDENTITY, d->rank, st->rank,
		       {0}, {0}, {0} };
	for (int i = 0; i < d->rank; i++)
		tm.dst_shape[i] = d->shape[i];
	for (int i = 0; i < st->rank; i++)
		tm.src_shape[i] = st->shape[i];
	int64_t *regs = malloc(sizeof *regs * ((size_t)t->n + 1));
	if (!regs)
		ice("out of memory");
	if (!layout_local_gather(&s->lay, &t->lay, &tm, e->warps, regs))
		ice("tile-ptx: '%s' at %s is not thread-local for its layouts", op->info->name,
		    op->loc->file ? op->loc->file : "?");
	for (int k = 0; k < t->n; k++)
		t->r[k] = s->r[regs[k]];
	free(regs);
	set(e, op->results[0], t);
}

/* ------------------------------------------------------------ memory */

void barrier(E *e)
{
	LLVMValueRef z = ci32(e, 0);
	call_intr(e, "llvm.nvvm.barrier.cta.sync.aligned.all", NULL, &z, 1);
}

/* Is the element -> thread map of a layout one-to-one (no replication)? */
static bool injective_threads(const Layout *l)
{
	for (int i = 0; i < layout_nleaves(l); i++)
		if (l->stride[i] == 0 && l->shape[i] > 1)
			return false;
	return true;
}

static const Value *tiled_value(const Op *op)
{
	return op->info->code == AS_tiled_load ? op->results[0] : op->operands[1];
}

/* Do two tiled ops touch the same elements from the same threads: same
 * memref, indices, tile and layout, no replication? Then each thread only
 * reads back what it wrote itself and no barrier is needed between them. */
static bool same_footprint(const Op *a, const Op *b)
{
	bool ta = a->info->code == AS_tiled_load || a->info->code == AS_tiled_store;
	bool tb = b->info->code == AS_tiled_load || b->info->code == AS_tiled_store;
	if (!ta || !tb || a->operands[0] != b->operands[0])
		return false;
	int ia, ib;
	int na = op_group(a, a->info->code == AS_tiled_load ? 1 : 2, &ia);
	int nb = op_group(b, b->info->code == AS_tiled_load ? 1 : 2, &ib);
	if (na != nb || na < 0)
		return false;
	for (int i = 0; i < na; i++)
		if (a->operands[ia + i] != b->operands[ib + i])
			return false;
	if (op_attr(a, "dim_map") || op_attr(b, "dim_map"))
		return false;
	const Value *va = tiled_value(a), *vb = tiled_value(b);
	if (va->type != vb->type || !va->layout || !vb->layout ||
	    strcmp(va->layout->u.s, vb->layout->u.s) != 0)
		return false;
	Layout l;
	return layout_parse(va->layout->u.s, &l, NULL) && injective_threads(&l);
}

/* Order memory op `op` after the earlier ones its token depends on: a
 * barrier, unless every one of them touched exactly the same elements
 * from the same threads. */
void order_after(E *e, const Value *tok, const Op *op)
{
	if (!tok)
		return;
	if (tok->id < 0 || tok->id >= e->nvals) {
		barrier(e);
		return;
	}
	const Tok *t = &e->tok[tok->id];
	if (!t->dirty)
		return;
	bool need = t->nprod < 0;
	for (int i = 0; !need && i < t->nprod; i++)
		need = !same_footprint(t->prod[i], op);
	if (need)
		barrier(e);
}

/* A token made by memory op `prod` (NULL: after unknown memory ops). */
void mark_token(E *e, const Value *v, bool dirty, const Op *prod)
{
	if (!v || v->type->kind != TY_TOKEN)
		return;
	Tok *t = &e->tok[v->id];
	t->dirty = dirty;
	t->nprod = dirty ? (prod ? 1 : -1) : 0;
	t->prod[0] = prod;
}

static void join_tokens(E *e, Op *op)
{
	Tok *r = &e->tok[op->results[0]->id];
	*r = (Tok){ false, 0, {0} };
	for (int i = 0; i < op->noperands; i++) {
		const Value *v = op->operands[i];
		if (v->id < 0 || v->id >= e->nvals) {
			r->dirty = true;
			r->nprod = -1;
			continue;
		}
		const Tok *t = &e->tok[v->id];
		if (!t->dirty)
			continue;
		r->dirty = true;
		if (r->nprod < 0 || t->nprod < 0) {
			r->nprod = -1;
			continue;
		}
		for (int k = 0; k < t->nprod && r->nprod >= 0; k++) {
			bool have = false;
			for (int j = 0; j < r->nprod; j++)
				have |= r->prod[j] == t->prod[k];
			if (have)
				continue;
			if (r->nprod == 4)
				r->nprod = -1;
			else
				r->prod[r->nprod++] = t->prod[k];
		}
	}
}

static void emit_memref(E *e, Op *op)
{
	const Type *tv = op->results[0]->type;
	MR *mr = calloc(1, sizeof *mr);
	if (!mr)
		ice("out of memory");
	mr->base = scalar(e, op->operands[0]);
	mr->rank = tv->rank;
	int s1, s2;
	op_group(op, 1, &s1);
	op_group(op, 2, &s2);
	for (int d = 0; d < tv->rank; d++) {
		mr->shape[d] = tv->shape[d] == DYN_DIM ? as_i64(e, scalar(e, op->operands[s1++])) : ci64(e, tv->shape[d]);
		mr->stride[d] = tv->strides[d] == DYN_DIM ? as_i64(e, scalar(e, op->operands[s2++])) : ci64(e, tv->strides[d]);
	}
	e->mr[op->results[0]->id] = mr;
}

static LLVMValueRef pad_value(E *e, const Type *el, const char *pad)
{
	LLVMTypeRef t = elem_ty(e, el);
	if (!is_float(el) || !pad || strcmp(pad, "zero") == 0)
		return LLVMConstNull(t);
	double v = 0;
	if (strcmp(pad, "neg_zero") == 0)
		return LLVMConstReal(t, -0.0);
	if (strcmp(pad, "nan") == 0)
		return LLVMConstReal(t, __builtin_nan(""));
	v = __builtin_inf();
	return LLVMConstReal(t, strcmp(pad, "neg_inf") == 0 ? -v : v);
}

/* The ordering of a memory op: weak (plain access), or relaxed / acquire /
 * release at a scope (atomic access, one element at a time). */
typedef struct Order {
	LLVMAtomicOrdering ord;     /* LLVMAtomicOrderingNotAtomic for weak */
	bool scoped;
	unsigned scope;
} Order;

static Order order_of(E *e, const Op *op, bool store)
{
	Order o = { LLVMAtomicOrderingNotAtomic, false, 0 };
	const char *sem = str_attr(op, "memory_ordering_semantics", "weak");
	if (strcmp(sem, "weak") == 0)
		return o;
	if (strcmp(sem, "relaxed") == 0)
		o.ord = LLVMAtomicOrderingMonotonic;
	else if (strcmp(sem, store ? "release" : "acquire") == 0)
		o.ord = store ? LLVMAtomicOrderingRelease : LLVMAtomicOrderingAcquire;
	else {
		char what[96];
		snprintf(what, sizeof what, "memory ordering '%s'", sem);
		unsupported(e, (Op *)op, what);
		return o;
	}
	const char *scope = str_attr(op, "memory_scope", "sys");
	const char *llvm_scope = strcmp(scope, "tl_blk") == 0 ? "block" : strcmp(scope, "device") == 0 ? "device" : NULL;
	if (llvm_scope) {
		o.scoped = true;
		o.scope = LLVMGetSyncScopeID(e->ctx, llvm_scope, strlen(llvm_scope));
	}
	return o;
}

static void set_order(LLVMValueRef inst, const Order *o)
{
	if (o->ord == LLVMAtomicOrderingNotAtomic)
		return;
	LLVMSetOrdering(inst, o->ord);
	if (o->scoped)
		LLVMSetAtomicSyncScopeID(inst, o->scope);
}

/* Guarded access: if pred is NULL the access is unconditional. Loads return
 * the loaded value, or `otherwise` where pred is false. */
static LLVMValueRef guarded_load(E *e, LLVMTypeRef t, LLVMValueRef p, unsigned align, LLVMValueRef pred,
				 LLVMValueRef otherwise, const Order *o)
{
	if (!pred) {
		LLVMValueRef x = LLVMBuildLoad2(e->b, t, p, "");
		LLVMSetAlignment(x, align);
		set_order(x, o);
		return x;
	}
	LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ld");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ld.join");
	LLVMBuildCondBr(e->b, pred, ld, join);
	LLVMPositionBuilderAtEnd(e->b, ld);
	LLVMValueRef x = LLVMBuildLoad2(e->b, t, p, "");
	LLVMSetAlignment(x, align);
	set_order(x, o);
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
	LLVMValueRef phi = LLVMBuildPhi(e->b, t, "");
	LLVMValueRef vals[2] = { otherwise, x };
	LLVMBasicBlockRef bbs[2] = { from, ld };
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

static void guarded_store(E *e, LLVMValueRef v, LLVMValueRef p, unsigned align, LLVMValueRef pred,
			  const Order *o)
{
	if (!pred) {
		LLVMValueRef st = LLVMBuildStore(e->b, v, p);
		LLVMSetAlignment(st, align);
		set_order(st, o);
		return;
	}
	LLVMBasicBlockRef stbb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "st");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "st.join");
	LLVMBuildCondBr(e->b, pred, stbb, join);
	LLVMPositionBuilderAtEnd(e->b, stbb);
	LLVMValueRef st = LLVMBuildStore(e->b, v, p);
	LLVMSetAlignment(st, align);
	set_order(st, o);
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
}

static LLVMValueRef and_pred(E *e, LLVMValueRef a, LLVMValueRef b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return LLVMBuildAnd(e->b, a, b, "");
}

static int64_t int_at(const Op *op, const char *name, int i, int64_t dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_INTS && i < a->u.ints.n ? a->u.ints.v[i] : dflt;
}

/* f4E2M1FN chunks: byte k holds elements 2k (low nibble) and 2k+1 */
static LLVMValueRef f4_pack(E *e, LLVMValueRef *r, int nbytes)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
	LLVMValueRef v = nbytes > 1 ? LLVMGetUndef(LLVMVectorType(i8, (unsigned)nbytes)) : NULL;
	for (int k = 0; k < nbytes; k++) {
		LLVMValueRef lo = LLVMBuildAnd(e->b, r[2 * k], LLVMConstInt(i8, 0xf, 0), "");
		LLVMValueRef hi = LLVMBuildShl(e->b, r[2 * k + 1], LLVMConstInt(i8, 4, 0), "");
		LLVMValueRef byte = LLVMBuildOr(e->b, lo, hi, "");
		if (nbytes == 1)
			return byte;
		v = LLVMBuildInsertElement(e->b, v, byte, ci32(e, k), "");
	}
	return v;
}

static void f4_unpack(E *e, LLVMValueRef x, int nbytes, LLVMValueRef *r)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
	for (int k = 0; k < nbytes; k++) {
		LLVMValueRef byte = nbytes > 1 ? LLVMBuildExtractElement(e->b, x, ci32(e, k), "") : x;
		r[2 * k] = LLVMBuildAnd(e->b, byte, LLVMConstInt(i8, 0xf, 0), "");
		r[2 * k + 1] = LLVMBuildLShr(e->b, byte, LLVMConstInt(i8, 4, 0), "");
	}
}

/* tiled_load / tiled_store. f4E2M1FN moves whole bytes: each chunk is an
 * even run of elements at an even offset (tile-sched gives f4 tiles such
 * layouts, tile-lower checked the view packs rows on byte boundaries). */
static void emit_tiled(E *e, Op *op, bool store)
{
	MR *mr = e->mr[op->operands[0]->id];
	if (!mr)
		ice("tile-ptx: memref without a definition");
	const Value *val = store ? op->operands[1] : op->results[0];
	const Type *tt = val->type, *el = tt->elem;
	int R = tt->rank;
	int is;
	op_group(op, store ? 2 : 1, &is);
	order_after(e, op_group_value(op, store ? 3 : 2), op);
	Order ord = order_of(e, op, store);
	TV *t = store ? get(e, val) : tv_new(e, val);
	int eb = elem_bytes(el);
	bool f4 = el->kind == TY_SCALAR && el->scalar == SC_F4E2M1FN;
	const Attr *vba = op_attr(op, "vector_bytes");
	int cap = eb && vba && vba->kind == AT_INT ? (int)(vba->u.i / eb) : 1;
	if (f4)
		cap = vba && vba->kind == AT_INT ? (int)(2 * vba->u.i) : 2;
	if (cap < 1)
		cap = 1;
	bool dup_regs = false;
	for (int i = t->lay.begin[0]; i < t->lay.begin[1]; i++)
		dup_regs |= t->lay.stride[i] == 0 && t->lay.shape[i] > 1;
	int vec = dup_regs || ord.ord != LLVMAtomicOrderingNotAtomic ? 1 : chunk_width(&t->lay, cap);
	if (f4 && vec < 2) {
		unsupported(e, op, ord.ord != LLVMAtomicOrderingNotAtomic ? "an ordered f4E2M1FN access"
			    : "an f4E2M1FN access whose layout splits a byte between threads");
		if (!store) {
			for (int k = 0; k < t->n; k++)
				t->r[k] = LLVMGetPoison(elem_ty(e, el));
			set(e, val, t);
		}
		return;
	}
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	int units = f4 ? vec / 2 : vec;     /* memory elements per chunk */
	LLVMTypeRef vt = units > 1 ? LLVMVectorType(mt, (unsigned)units) : mt;
	unsigned align = (unsigned)(f4 ? units : eb ? eb * vec : 1);
	/* tile origin along each tensor dim */
	LLVMValueRef org[8];
	int shift[8];
	for (int i = 0, sh = 0; i < R; i++) {
		int s = 0;
		for (int j = i + 1; j < R; j++) {
			int64_t x = tt->shape[j];
			while (x > 1) { s++; x >>= 1; }
		}
		shift[i] = s;
		(void)sh;
		/* a strided view's tiles start every step elements, a partition's every tile */
		org[i] = LLVMBuildMul(e->b, as_i64(e, scalar(e, op->operands[is + i])),
				      ci64(e, int_at(op, "step", i, tt->shape[i])), "");
	}
	const char *pad = str_attr(op, "padding", NULL);
	LLVMValueRef primary = store ? lw_of(e, &t->lay)->primary : NULL;
	if (primary && LLVMIsAConstantInt(primary) && LLVMConstIntGetZExtValue(primary) == 1)
		primary = NULL;
	for (int r = 0; r < t->n; r += vec) {
		if (store && !layout_reg_is_primary(&t->lay, r))
			continue;
		LLVMValueRef eo = elem_offset(e, &t->lay, r);
		LLVMValueRef off = ci64(e, 0), pred = NULL;
		for (int i = 0; i < R; i++) {
			LLVMValueRef c = LLVMBuildLShr(e->b, eo, ci32(e, shift[i]), "");
			c = LLVMBuildAnd(e->b, c, ci32(e, tt->shape[i] - 1), "");
			LLVMValueRef g = LLVMBuildAdd(e->b, org[i], LLVMBuildZExt(e->b, c, i64t(e), ""), "");
			int d = (int)int_at(op, "dim_map", i, i);
			off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, g, mr->stride[d], ""), "");
			if (!int_at(op, "in_bounds", i, 0))
				pred = and_pred(e, pred, LLVMBuildICmp(e->b, LLVMIntSLT, g, mr->shape[d], ""));
		}
		if (f4)
			off = LLVMBuildAShr(e->b, off, ci64(e, 1), "");   /* the byte */
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, mr->base, &off, 1, "");
		if (store) {
			LLVMValueRef v;
			if (f4) {
				v = f4_pack(e, t->r + r, units);
			} else if (vec > 1) {
				v = LLVMGetUndef(vt);
				for (int k = 0; k < vec; k++) {
					LLVMValueRef x = t->r[r + k];
					if (mt != et)
						x = LLVMBuildZExt(e->b, x, mt, "");
					v = LLVMBuildInsertElement(e->b, v, x, ci32(e, k), "");
				}
			} else {
				v = mt != et ? LLVMBuildZExt(e->b, t->r[r], mt, "") : t->r[r];
			}
			guarded_store(e, v, p, align, and_pred(e, pred, primary), &ord);
		} else {
			LLVMValueRef padv = pad_value(e, el, pad);
			if (mt != et)
				padv = to_mem_const(e, padv, mt);
			if (f4)            /* the padding in both nibbles */
				padv = LLVMBuildOr(e->b, padv, LLVMBuildShl(e->b, padv, LLVMConstInt(mt, 4, 0), ""), "");
			LLVMValueRef other = padv;
			if (units > 1) {
				other = LLVMGetUndef(vt);
				for (int k = 0; k < units; k++)
					other = LLVMBuildInsertElement(e->b, other, padv, ci32(e, k), "");
			}
			LLVMValueRef x = guarded_load(e, vt, p, align, pred, other, &ord);
			if (f4) {
				f4_unpack(e, x, units, t->r + r);
				continue;
			}
			for (int k = 0; k < vec; k++) {
				LLVMValueRef y = vec > 1 ? LLVMBuildExtractElement(e->b, x, ci32(e, k), "") : x;
				if (mt != et)
					y = LLVMBuildTrunc(e->b, y, et, "");
				t->r[r + k] = y;
			}
		}
	}
	if (!store)
		set(e, val, t);
	mark_token(e, op->results[store ? 0 : 1], true, op);
}

/* load / store through a tile of pointers (gather / scatter) */
static void emit_ptr_mem(E *e, Op *op, bool store)
{
	order_after(e, op_group_value(op, 3), op);
	Order ord = order_of(e, op, store);
	TV *ptrs = get(e, op->operands[0]);
	Value *maskv = op_group_value(op, store ? 2 : 1);
	Value *otherv = store ? NULL : op_group_value(op, 2);
	TV *mask = maskv ? get(e, maskv) : NULL, *other = otherv ? get(e, otherv) : NULL;
	const Value *val = store ? op->operands[1] : op->results[0];
	const Type *el = val->type->elem;
	TV *t = store ? get(e, val) : tv_new(e, val);
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	unsigned align = (unsigned)(elem_bytes(el) ? elem_bytes(el) : 1);
	/* an ordered load of a replicated tile (a scalar flag, say) is done once,
	 * by each element's first owner, and broadcast: every copy must agree */
	bool bcast = !store && ord.ord != LLVMAtomicOrderingNotAtomic && !injective_threads(&t->lay);
	LLVMValueRef primary = store || bcast ? lw_of(e, &t->lay)->primary : NULL;
	if (primary && LLVMIsAConstantInt(primary) && LLVMConstIntGetZExtValue(primary) == 1)
		primary = NULL;
	for (int k = 0; k < t->n; k++) {
		LLVMValueRef pred = mask ? mask->r[k] : NULL;
		if (store) {
			if (!layout_reg_is_primary(&t->lay, k))
				continue;
			LLVMValueRef v = mt != et ? LLVMBuildZExt(e->b, t->r[k], mt, "") : t->r[k];
			guarded_store(e, v, ptrs->r[k], align, and_pred(e, pred, primary), &ord);
		} else {
			if (bcast && !layout_reg_is_primary(&t->lay, k)) {
				t->r[k] = LLVMGetPoison(et);
				continue;
			}
			LLVMValueRef o = other ? other->r[k] : LLVMConstNull(et);
			if (mt != et)
				o = LLVMBuildZExt(e->b, o, mt, "");
			LLVMValueRef x = guarded_load(e, mt, ptrs->r[k], align, bcast ? and_pred(e, pred, primary) : pred,
						      o, &ord);
			t->r[k] = mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
		}
	}
	if (bcast)
		smem_broadcast(e, t, el);       /* atomic.c */
	if (!store)
		set(e, val, t);
	mark_token(e, op->results[store ? 0 : 1], true, op);
}

/* convert_layout: every thread writes its registers to shared memory at
 * their offsets, then reads the registers of the new layout. */
static void emit_convert(E *e, Op *op)
{
	TV *s = get(e, op->operands[0]);
	TV *t = tv_new(e, op->results[0]);
	const Type *el = op->results[0]->type->elem;
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	int64_t n = type_num_elements(op->results[0]->type);
	int eb = elem_bytes(el) ? elem_bytes(el) : 1;
	if (n * eb > e->smem_bytes)
		e->smem_bytes = n * eb;
	if (!e->smem) {
		e->smem = LLVMAddGlobalInAddressSpace(e->mod, LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), 1),
						      "__tile_smem", 3);
	}
	barrier(e);      /* the buffer may still be read by an earlier conversion */
	/* one copy of each element: only its first-owner thread writes it */
	LLVMValueRef primary = lw_of(e, &s->lay)->primary;
	if (LLVMIsAConstantInt(primary) && LLVMConstIntGetZExtValue(primary) == 1)
		primary = NULL;
	Order weak = { LLVMAtomicOrderingNotAtomic, false, 0 };
	for (int k = 0; k < s->n; k++) {
		if (!layout_reg_is_primary(&s->lay, k))
			continue;
		LLVMValueRef off = LLVMBuildZExt(e->b, elem_offset(e, &s->lay, k), i64t(e), "");
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, e->smem, &off, 1, "");
		LLVMValueRef v = mt != et ? LLVMBuildZExt(e->b, s->r[k], mt, "") : s->r[k];
		guarded_store(e, v, p, (unsigned)eb, primary, &weak);
	}
	barrier(e);
	for (int k = 0; k < t->n; k++) {
		LLVMValueRef off = LLVMBuildZExt(e->b, elem_offset(e, &t->lay, k), i64t(e), "");
		LLVMValueRef p = LLVMBuildGEP2(e->b, mt, e->smem, &off, 1, "");
		LLVMValueRef x = LLVMBuildLoad2(e->b, mt, p, "");
		LLVMSetAlignment(x, (unsigned)eb);
		t->r[k] = mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
	}
	set(e, op->results[0], t);
}

/* ------------------------------------------------------------ control flow */

static void emit_block(E *e, Block *blk, Ctx *loop, Ctx *ifc);

/* One phi per register of v's tile, in the current block. */
TV *phis_for(E *e, const Value *v)
{
	TV *t = tv_new(e, v);
	LLVMTypeRef ty = elem_ty(e, v->type->elem);
	for (int k = 0; k < t->n; k++)
		t->r[k] = LLVMBuildPhi(e->b, ty, "");
	return t;
}

/* Branch to c->target, adding this block's values of term's operands. */
void branch_with(E *e, Ctx *c, Op *term)
{
	LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
	if (term->noperands != c->nvals)
		ice("tile-ptx: '%s' yields %d values, expected %d", term->info->name, term->noperands, c->nvals);
	for (int i = 0; i < c->nvals; i++) {
		if (!c->phis[i])
			continue;
		TV *s = get(e, term->operands[i]);
		if (s->n != c->phis[i]->n)
			ice("tile-ptx: '%s' value %d has %d registers, expected %d", term->info->name, i, s->n,
			    c->phis[i]->n);
		for (int k = 0; k < s->n; k++)
			LLVMAddIncoming(c->phis[i]->r[k], &s->r[k], &here, 1);
	}
	LLVMBuildBr(e->b, c->target);
}

static void emit_for(E *e, Op *op, Ctx *outer_loop)
{
	(void)outer_loop;
	Block *body = op->regions[0].first;
	int ninit = op->noperands - 3;
	LLVMValueRef lb = scalar(e, op->operands[0]), ub = scalar(e, op->operands[1]),
		     step = scalar(e, op->operands[2]);
	bool uns = flag(op, "unsignedCmp");
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.head");
	LLVMBasicBlockRef bodybb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.body");
	LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.latch");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "for.exit");
	LLVMBuildBr(e->b, head);
	LLVMPositionBuilderAtEnd(e->b, head);
	LLVMValueRef iv = LLVMBuildPhi(e->b, LLVMTypeOf(lb), "iv");
	TV **carried = calloc((size_t)ninit + 1, sizeof *carried);
	TV **latchphi = calloc((size_t)ninit + 1, sizeof *latchphi);
	if (!carried || !latchphi)
		ice("out of memory");
	for (int i = 0; i < ninit; i++) {
		const Value *init = op->operands[3 + i];
		if (init->type->kind != TY_TILE)
			continue;
		carried[i] = phis_for(e, op->results[i]);
		TV *s = get(e, init);
		if (s->n != carried[i]->n)
			ice("tile-ptx: loop init %d has %d registers, expected %d", i, s->n, carried[i]->n);
		for (int k = 0; k < s->n; k++)
			LLVMAddIncoming(carried[i]->r[k], &s->r[k], &pre, 1);
	}
	LLVMValueRef cond = LLVMBuildICmp(e->b, uns ? LLVMIntULT : LLVMIntSLT, iv, ub, "");
	LLVMBuildCondBr(e->b, cond, bodybb, exit);
	/* latch phis collect the values of every continue */
	LLVMPositionBuilderAtEnd(e->b, latch);
	for (int i = 0; i < ninit; i++)
		if (carried[i])
			latchphi[i] = phis_for(e, op->results[i]);
	LLVMValueRef next = LLVMBuildAdd(e->b, iv, step, "");
	LLVMBuildBr(e->b, head);
	LLVMAddIncoming(iv, &lb, &pre, 1);
	LLVMAddIncoming(iv, &next, &latch, 1);
	for (int i = 0; i < ninit; i++)
		if (carried[i])
			for (int k = 0; k < carried[i]->n; k++)
				LLVMAddIncoming(carried[i]->r[k], &latchphi[i]->r[k], &latch, 1);
	/* body */
	LLVMPositionBuilderAtEnd(e->b, bodybb);
	TV *ivt = tv_new(e, body->args[0]);
	for (int k = 0; k < ivt->n; k++)
		ivt->r[k] = iv;
	set(e, body->args[0], ivt);
	for (int i = 0; i < ninit; i++) {
		if (carried[i])
			set(e, body->args[i + 1], carried[i]);
		else
			mark_token(e, body->args[i + 1], true, NULL);
	}
	Ctx c = { latch, ninit, latchphi, NULL, alloca_depth(e) };
	emit_block(e, body, &c, NULL);
	alloca_pop(e, c.scope);
	LLVMPositionBuilderAtEnd(e->b, exit);
	for (int i = 0; i < op->nresults; i++) {
		if (carried[i])
			set(e, op->results[i], carried[i]);
		else
			mark_token(e, op->results[i], true, NULL);
	}
	free(carried);
	free(latchphi);
}

static void emit_if(E *e, Op *op, Ctx *loop)
{
	LLVMValueRef cond = scalar(e, op->operands[0]);
	LLVMBasicBlockRef thenbb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "if.then");
	LLVMBasicBlockRef elsebb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "if.else");
	LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "if.end");
	LLVMBuildCondBr(e->b, cond, thenbb, elsebb);
	LLVMPositionBuilderAtEnd(e->b, merge);
	TV **phis = calloc((size_t)op->nresults + 1, sizeof *phis);
	if (!phis)
		ice("out of memory");
	for (int i = 0; i < op->nresults; i++)
		if (op->results[i]->type->kind == TY_TILE)
			phis[i] = phis_for(e, op->results[i]);
	Ctx c = { merge, op->nresults, phis, NULL, alloca_depth(e) };
	LLVMPositionBuilderAtEnd(e->b, thenbb);
	emit_block(e, op->regions[0].first, loop, &c);
	alloca_pop(e, c.scope);
	LLVMPositionBuilderAtEnd(e->b, elsebb);
	if (op->nregions > 1 && op->regions[1].first) {
		emit_block(e, op->regions[1].first, loop, &c);
		alloca_pop(e, c.scope);
	} else
		LLVMBuildBr(e->b, merge);
	LLVMPositionBuilderAtEnd(e->b, merge);
	for (int i = 0; i < op->nresults; i++) {
		if (phis[i])
			set(e, op->results[i], phis[i]);
		else
			mark_token(e, op->results[i], true, NULL);
	}
	free(phis);
}

/* ------------------------------------------------------------ ops */

void emit_op(E *e, Op *op, Ctx *loop, Ctx *ifc)
{
	set_loc(e, op->loc);
	const OpInfo *in = op->info;
	if (in->dialect == DIALECT_CUDA_TILE && op_has(in, OPT_EW)) {
		emit_ew(e, op);
		return;
	}
	switch (in->code) {
	case CT_constant: emit_constant(e, op); break;
	case CT_iota: emit_iota(e, op); break;
	case CT_assume: {
		TV *s = get(e, op->operands[0]);
		TV *t = tv_new(e, op->results[0]);
		if (t->n != s->n)
			ice("tile-ptx: assume changes the layout");
		memcpy(t->r, s->r, sizeof *t->r * (size_t)t->n);
		set(e, op->results[0], t);
		break;
	}
	case CT_broadcast: case CT_reshape: emit_copy(e, op); break;
	case CT_reduce: emit_reduce(e, op); break;          /* reduce.c */
	case CT_scan: emit_scan(e, op); break;
	case CT_permute: emit_permute(e, op); break;        /* shape.c */
	case CT_cat: emit_cat(e, op); break;
	case CT_extract: emit_extract(e, op); break;
	case CT_insert: emit_insert(e, op); break;
	case CT_pack: case CT_unpack: emit_pack(e, op); break;
	case CT_get_tile_block_id: case CT_get_num_tile_blocks: {
		static const char *const id[] = { "ctaid.x", "ctaid.y", "ctaid.z" };
		static const char *const nid[] = { "nctaid.x", "nctaid.y", "nctaid.z" };
		for (int i = 0; i < 3 && i < op->nresults; i++) {
			TV *t = tv_new(e, op->results[i]);
			LLVMValueRef x = sreg(e, in->code == CT_get_tile_block_id ? id[i] : nid[i]);
			for (int k = 0; k < t->n; k++)
				t->r[k] = x;
			set(e, op->results[i], t);
		}
		break;
	}
	case CT_for: emit_for(e, op, loop); break;
	case CT_if: emit_if(e, op, loop); break;
	case CT_continue:
		if (!loop)
			ice("tile-ptx: continue outside a loop");
		alloca_free_to(e, loop->scope);   /* debug.c */
		branch_with(e, loop, op);
		break;
	case CT_yield:
		if (!ifc)
			ice("tile-ptx: yield outside an if");
		alloca_free_to(e, ifc->scope);
		branch_with(e, ifc, op);
		break;
	case CT_return:
		emit_alloca_free(e);        /* debug.c */
		LLVMBuildRetVoid(e->b);
		break;
	case AS_make_memref: emit_memref(e, op); break;
	case AS_tiled_load: emit_tiled(e, op, false); break;
	case AS_tiled_store: emit_tiled(e, op, true); break;
	case AS_load: emit_ptr_mem(e, op, false); break;
	case AS_store: emit_ptr_mem(e, op, true); break;
	case AS_create_mem_token: mark_token(e, op->results[0], false, NULL); break;
	case AS_join_mem_token: join_tokens(e, op); break;
	case AS_atomic_rmw: case AS_atomic_cas: emit_atomic(e, op); break;
	case CT_print_tko: emit_print(e, op); break;
	case CT_assert: emit_assert(e, op); break;
	case CT_get_global: emit_get_global(e, op); break;
	case CT_alloca: emit_alloca(e, op); break;
	case CT_loop: emit_loop(e, op, loop); break;
	case CT_break: emit_break(e, op, loop); break;
	case CT_gdc_wait_tko: case CT_gdc_launch_dependents_tko: case CT_memory_fence_alias_tko:
		emit_sync_op(e, op);
		break;
	case AS_convert_layout:
		if (!xchg_convert(e, op))      /* xchg.c: swizzled, barriers shared with reductions */
			emit_convert(e, op);
		break;
	default:
		diag_error(op->loc, "'%s' op is not supported yet", in->name);
		e->errors++;
		for (int i = 0; i < op->nresults; i++)
			if (op->results[i]->type->kind == TY_TILE) {
				TV *t = tv_new(e, op->results[i]);
				for (int k = 0; k < t->n; k++)
					t->r[k] = LLVMGetPoison(elem_ty(e, op->results[i]->type->elem));
				set(e, op->results[i], t);
			}
	}
}

static void emit_block(E *e, Block *blk, Ctx *loop, Ctx *ifc)
{
	FOR_EACH_OP(op, blk) {
		emit_op(e, op, loop, ifc);
		if (e->errors)
			return;
	}
}

/* ------------------------------------------------------------ kernels */

static int count_values(Op *op)
{
	int n = op->nresults;
	for (int r = 0; r < op->nregions; r++)
		FOR_EACH_BLOCK(b, &op->regions[r]) {
			n += b->nargs;
			FOR_EACH_OP(o, b)
				n += count_values(o);
		}
	return n;
}

static void emit_kernel(E *e, Op *fn)
{
	const Attr *name = op_attr(fn, "sym_name");
	Block *body = fn->regions[0].first;
	if (!name || name->kind != AT_STRING || !body)
		ice("tile-ptx: malformed entry");
	LLVMTypeRef *params = calloc((size_t)body->nargs + 1, sizeof *params);
	if (!params)
		ice("out of memory");
	for (int i = 0; i < body->nargs; i++) {
		const Type *t = body->args[i]->type;
		if (t->kind != TY_TILE || t->rank != 0) {
			diag_error(fn->loc, "entry '%s': parameter %d of type %s is not supported yet",
				   name->u.s, i, t->str);
			e->errors++;
			free(params);
			return;
		}
		params[i] = elem_ty(e, t->elem);
	}
	LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, (unsigned)body->nargs, 0);
	free(params);
	e->fn = LLVMAddFunction(e->mod, name->u.s, fty);
	LLVMSetFunctionCallConv(e->fn, LLVMPTXKernelCallConv);
	char threads[16];
	snprintf(threads, sizeof threads, "%d", 32 * e->warps);
	LLVMAddAttributeAtIndex(e->fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(e->ctx, "nvvm.reqntid", 12, threads, (unsigned)strlen(threads)));
	LLVMAddAttributeAtIndex(e->fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(e->ctx, "nvvm.minctasm", 13, "1", 1));
	if (e->dib) {
		const Loc *l = fn->loc;
		e->fn_line = l && l->file ? l->line : 0;
		LLVMMetadataRef file = e->cu_file;
		if (l && l->file) {
			const char *slash = strrchr(l->file, '/');
			const char *base = slash ? slash + 1 : l->file;
			size_t dlen = slash ? (size_t)(slash - l->file) : 0;
			file = LLVMDIBuilderCreateFile(e->dib, base, strlen(base), l->file, dlen);
		}
		LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(e->dib, file, NULL, 0, LLVMDIFlagZero);
		e->sp = LLVMDIBuilderCreateFunction(e->dib, file, name->u.s, strlen(name->u.s), name->u.s,
						    strlen(name->u.s), file, e->fn_line, sty, 0, 1, e->fn_line,
						    LLVMDIFlagZero, e->o->opt > 0);
		LLVMSetSubprogram(e->fn, e->sp);
		set_loc(e, fn->loc);
	}
	e->nvals = count_values(fn) + 1;
	e->tv = calloc((size_t)e->nvals, sizeof *e->tv);
	e->mr = calloc((size_t)e->nvals, sizeof *e->mr);
	e->tok = calloc((size_t)e->nvals, sizeof *e->tok);
	if (!e->tv || !e->mr || !e->tok)
		ice("out of memory");
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "entry");
	LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "body");
	LLVMPositionBuilderAtEnd(e->b, entry);
	LLVMValueRef tid = sreg(e, "tid.x");
	e->lane = LLVMBuildAnd(e->b, tid, ci32(e, 31), "lane");
	e->warp = e->warps > 1 ? LLVMBuildLShr(e->b, tid, ci32(e, 5), "warp") : ci32(e, 0);
	e->entry_br = LLVMBuildBr(e->b, start);
	LLVMPositionBuilderAtEnd(e->b, start);
	for (int i = 0; i < body->nargs; i++) {
		TV *t = tv_new(e, body->args[i]);
		LLVMValueRef p = LLVMGetParam(e->fn, (unsigned)i);
		for (int k = 0; k < t->n; k++)
			t->r[k] = p;
		set(e, body->args[i], t);
	}
	emit_block(e, body, NULL, NULL);
	/* an entry body ends with return; make sure the last block is closed */
	if (!e->errors && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(e->b)))
		LLVMBuildRetVoid(e->b);
	for (int i = 0; i < e->nall; i++) {
		free(e->all[i]->r);
		free(e->all[i]);
	}
	e->nall = 0;
	for (int i = 0; i < e->nvals; i++)
		free(e->mr[i]);
	free(e->tv);
	free(e->mr);
	free(e->tok);
	e->tv = NULL;
	for (int i = 0; i < e->nlw; i++)
		free(e->lw[i].key);
	e->nlw = 0;
}

LLVMModuleRef emit_module(Module *m, LLVMContextRef ctx, const PtxOpts *o, bool *needs_libdevice)
{
	E ee = { .m = m, .o = o, .ctx = ctx }, *e = &ee;
	const Attr *w = module_attr(m, "num_warps");
	e->warps = w && w->kind == AT_INT ? (int)w->u.i : 4;
	e->mod = LLVMModuleCreateWithNameInContext(m->name, ctx);
	e->b = LLVMCreateBuilderInContext(ctx);
	if (o->lineinfo) {
		e->dib = LLVMCreateDIBuilder(e->mod);
		const char *f = "<unknown>";
		FOR_EACH_OP(fn, &m->body)
			if (fn->loc && fn->loc->file) {
				f = fn->loc->file;
				break;
			}
		e->cu_file = LLVMDIBuilderCreateFile(e->dib, f, strlen(f), "", 0);
		LLVMDIBuilderCreateCompileUnit(e->dib, LLVMDWARFSourceLanguageC, e->cu_file, "tile-ptx", 8,
					       o->opt > 0, "", 0, 0, "", 0,
					       /* --lineinfo: .file/.loc only (DebugDirectivesOnly = 3, not
					        * in the C enum); LineTablesOnly and Full make LLVM print
					        * ".target ..., debug", which ptxas takes only at -O0 */
					       o->device_debug ? LLVMDWARFEmissionFull : (LLVMDWARFEmissionKind)3,
					       0, 0, 0, "", 0, "", 0);
		LLVMAddModuleFlag(e->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
				  LLVMValueAsMetadata(LLVMConstInt(i32t(e), LLVMDebugMetadataVersion(), 0)));
		LLVMAddModuleFlag(e->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
				  LLVMValueAsMetadata(ci32(e, 2)));
	}
	FOR_EACH_OP(fn, &m->body) {
		if (fn->info->code == CT_global) {
			emit_global(e, fn);
			continue;
		}
		if (fn->info->code != CT_entry) {
			diag_error(fn->loc, "'%s' op is not supported yet", fn->info->name);
			e->errors++;
			continue;
		}
		e->sp = NULL;
		LLVMSetCurrentDebugLocation2(e->b, NULL);
		const Attr *ew = op_attr(fn, "num_warps");     /* the entry's own, else the module's */
		e->warps = ew && ew->kind == AT_INT ? (int)ew->u.i : w && w->kind == AT_INT ? (int)w->u.i : 4;
		emit_kernel(e, fn);
		if (e->errors)
			break;
	}
	LLVMSetCurrentDebugLocation2(e->b, NULL);
	if (e->smem && e->smem_bytes > 48 * 1024 && !e->errors) {
		diag_plain("a layout conversion needs %lld bytes of shared memory; more than 48 KiB "
			   "(static shared memory) is not supported yet", (long long)e->smem_bytes);
		e->errors++;
	}
	if (e->smem) {
		LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(ctx), (uint64_t)e->smem_bytes);
		LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, "__tile_smem_buf", 3);
		LLVMSetInitializer(g, LLVMGetUndef(at));
		LLVMSetLinkage(g, LLVMInternalLinkage);
		LLVMSetAlignment(g, 16);
		LLVMReplaceAllUsesWith(e->smem, g);
		LLVMDeleteGlobal(e->smem);
	}
	if (e->dib) {
		LLVMDIBuilderFinalize(e->dib);
		LLVMDisposeDIBuilder(e->dib);
	}
	LLVMDisposeBuilder(e->b);
	free(e->lw);
	free(e->all);
	*needs_libdevice = e->needs_libdevice;
	if (e->errors) {
		LLVMDisposeModule(e->mod);
		return NULL;
	}
	return e->mod;
}
