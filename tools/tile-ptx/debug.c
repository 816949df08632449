/* debug.c: print_tko, assert, and module globals (docs/lowering.md §9).
 *
 * print_tko: a print happens once per tile block, by thread 0, through
 * vprintf(format, buffer). Tile arguments are first gathered: every
 * element's first owner writes it to the shared scratch buffer, a barrier,
 * then thread 0 reads them. A tile argument prints as nested brackets, the
 * conversion repeated for every element: "%5.2f" with a 2x2 tile becomes
 * "[[%5.2f, %5.2f], [%5.2f, %5.2f]]" (NVIDIA's spelling). The vprintf buffer
 * holds the arguments in order at their natural alignment, floats promoted
 * to double and integers narrower than 32 bits to int (sign-extended for
 * %d/%i, zero-extended for the unsigned conversions), as C varargs do; the
 * length modifier of an integer conversion is made to match the argument
 * (ll for 64-bit, none below). vprintf takes at most 32 arguments, so a
 * longer print is split into several calls, serialised across tile blocks
 * by a spin lock (atom.acquire.gpu.cas / atom.release.gpu.exch on a module
 * global) so their output does not interleave.
 *
 * assert: every element whose condition is false prints, from the thread
 * that owns it, "FILE:LINE: tile block: [x, y, z], position: [i, j]:
 * MESSAGE" (the element's tile coordinates), as NVIDIA's tileiras does; a
 * thread that printed then waits half a millisecond (so the other threads'
 * messages get out) and calls __assertfail(message, file, line, function, 1),
 * which stops the kernel with an assertion error the host sees.
 *
 * global: a module-level array in global memory (addrspace 1) with the
 * dense initializer; public (the default) is visible in the cubin, private
 * is internal. get_global: its address, in every thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "opinfo.h"
#include "irutil.h"
#include "strbuf.h"
#include "diag.h"

#define VPRINTF_MAX_ARGS 32

static LLVMTypeRef i32t(E *e) { return LLVMInt32TypeInContext(e->ctx); }
static LLVMTypeRef i64t(E *e) { return LLVMInt64TypeInContext(e->ctx); }
static LLVMValueRef ci32(E *e, int64_t v) { return LLVMConstInt(i32t(e), (unsigned long long)v, 1); }
static LLVMValueRef ci64(E *e, int64_t v) { return LLVMConstInt(i64t(e), (unsigned long long)v, 1); }
static LLVMTypeRef genptr(E *e) { return LLVMPointerTypeInContext(e->ctx, 0); }

/* ------------------------------------------------------------ strings */

/* A NUL-terminated constant string in global memory, as a generic pointer. */
static LLVMValueRef cstring(E *e, const char *s, const char *name)
{
	size_t n = strlen(s) + 1;
	LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), n);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, name, 1);
	LLVMSetInitializer(g, LLVMConstStringInContext2(e->ctx, s, n - 1, 0));
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	LLVMSetAlignment(g, 1);
	return LLVMConstAddrSpaceCast(g, genptr(e));
}

static LLVMValueRef vprintf_fn(E *e)
{
	LLVMTypeRef ps[2] = { genptr(e), genptr(e) };
	return declared(e, "vprintf", i32t(e), ps, 2);
}

/* An alloca in the entry block (so loops do not grow the stack). */
static LLVMValueRef entry_alloca(E *e, int64_t bytes)
{
	LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
	LLVMPositionBuilderBefore(e->b, e->entry_br);
	LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(e->ctx), (uint64_t)(bytes ? bytes : 8));
	LLVMValueRef a = LLVMBuildAlloca(e->b, at, "vprintfBuffer");
	LLVMSetAlignment(a, 8);
	LLVMPositionBuilderAtEnd(e->b, here);
	return a;
}

/* Lifetime markers, so the buffers of different prints share stack. */
static void lifetime(E *e, const char *name, LLVMValueRef p, int64_t bytes)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMTypeRef pt = LLVMTypeOf(p);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(e->mod, id, &pt, 1);
	LLVMValueRef args[2] = { ci64(e, bytes), p };
	if (LLVMCountParamTypes(LLVMGlobalGetValueType(f)) == 1)
		call(e, f, &p, 1);
	else
		call(e, f, args, 2);
}

/* vprintf(fmt, buffer holding vals[] at natural alignment) */
static void emit_vprintf(E *e, const char *fmt, LLVMValueRef *vals, int n)
{
	int64_t off = 0, offs[VPRINTF_MAX_ARGS + 8];
	int szs[VPRINTF_MAX_ARGS + 8];
	for (int i = 0; i < n; i++) {
		LLVMTypeRef t = LLVMTypeOf(vals[i]);
		int sz = LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 8 : (int)(LLVMGetIntTypeWidth(t) / 8);
		off = (off + sz - 1) / sz * sz;
		offs[i] = off;
		szs[i] = sz;
		off += sz;
	}
	int64_t bytes = (off + 7) / 8 * 8;
	LLVMValueRef buf = n ? entry_alloca(e, bytes) : LLVMConstNull(genptr(e));
	if (n)
		lifetime(e, "llvm.lifetime.start", buf, bytes);
	for (int i = 0; i < n; i++) {
		LLVMValueRef o = ci64(e, offs[i]);
		LLVMValueRef p = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), buf, &o, 1, "");
		LLVMSetAlignment(LLVMBuildStore(e->b, vals[i], p), (unsigned)szs[i]);
	}
	LLVMValueRef args[2] = { cstring(e, fmt, "printfFormat"), buf };
	if (n && LLVMGetPointerAddressSpace(LLVMTypeOf(buf)) != 0)
		args[1] = LLVMBuildAddrSpaceCast(e->b, buf, genptr(e), "");
	call(e, vprintf_fn(e), args, 2);
	if (n)
		lifetime(e, "llvm.lifetime.end", buf, bytes);
}

/* ------------------------------------------------------------ format parsing */

typedef struct Conv {
	size_t at, len;          /* the conversion in the format string */
	char spec;               /* d i u o x X c e E f F g G a A ... */
} Conv;

/* Split a printf format into conversions; %% stays literal. */
static int parse_format(const char *s, Conv *cv, int max)
{
	int n = 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] != '%')
			continue;
		if (s[i + 1] == '%') {
			i++;
			continue;
		}
		size_t j = i + 1;
		while (s[j] && strchr("-+ #0", s[j]))
			j++;
		while (s[j] >= '0' && s[j] <= '9')
			j++;
		if (s[j] == '.') {
			j++;
			while (s[j] >= '0' && s[j] <= '9')
				j++;
		}
		while (s[j] && strchr("hlLqjzt", s[j]))
			j++;
		if (!s[j])
			break;
		if (n < max)
			cv[n] = (Conv){ i, j + 1 - i, s[j] };
		n++;
		i = j;
	}
	return n;
}

static bool is_int_spec(char c) { return strchr("diuoxXc", c) != NULL; }

/* The conversion text with the length modifier that fits the argument. */
static void fix_conversion(StrBuf *out, const char *fmt, const Conv *c, const Type *el)
{
	size_t k = c->at + c->len - 1;            /* the spec letter */
	size_t lm = k;
	while (lm > c->at + 1 && strchr("hlLqjzt", fmt[lm - 1]))
		lm--;
	sb_putn(out, fmt + c->at, lm - c->at);
	bool wide = el->kind == TY_PTR || (el->kind == TY_SCALAR && !scalar_is_float(el->scalar) &&
					   scalar_bits(el->scalar) == 64);
	if (is_int_spec(c->spec)) {
		if (wide)
			sb_puts(out, "ll");
		else
			for (size_t i = lm; i < k; i++)
				if (fmt[i] == 'h')
					sb_putc(out, 'h');
	}
	sb_putc(out, fmt[k]);
}

/* An 8- or 4-bit float (its bits in an i8, a 4-bit one in the low nibble)
 * as the double it denotes, decoded with integer ops so that every target
 * can print it: value = mantissa * 2^(exponent - bias - mantissa bits), with
 * the implicit one unless the exponent field is 0 (subnormal; E8M0 has
 * neither sign nor mantissa, and its field 0 is 2^-127). NaN: E4M3FN
 * S.1111.111, E5M2 exponent 31 with a mantissa (else infinity), E8M0 0xff;
 * E2M1 has neither. */
static LLVMValueRef narrow_float_to_double(E *e, LLVMValueRef x, ScalarKind k)
{
	int eb = k == SC_F8E4M3FN ? 4 : k == SC_F8E5M2 ? 5 : k == SC_F8E8M0FNU ? 8 : 2;
	int mb = k == SC_F8E4M3FN ? 3 : k == SC_F8E5M2 ? 2 : k == SC_F8E8M0FNU ? 0 : 1;
	int bias = k == SC_F8E4M3FN ? 7 : k == SC_F8E5M2 ? 15 : k == SC_F8E8M0FNU ? 127 : 1;
	bool sign = k != SC_F8E8M0FNU;
	LLVMBuilderRef b = e->b;
	LLVMTypeRef d = LLVMDoubleTypeInContext(e->ctx);
	LLVMValueRef u = LLVMBuildZExt(b, x, i32t(e), "");
	LLVMValueRef m = LLVMBuildAnd(b, u, ci32(e, (1 << mb) - 1), "");
	LLVMValueRef ex = LLVMBuildAnd(b, LLVMBuildLShr(b, u, ci32(e, mb), ""), ci32(e, (1 << eb) - 1), "");
	LLVMValueRef mant = ci32(e, 1), eff = ex;
	if (mb > 0) {
		LLVMValueRef sub = LLVMBuildICmp(b, LLVMIntEQ, ex, ci32(e, 0), "");
		mant = LLVMBuildSelect(b, sub, m, LLVMBuildOr(b, m, ci32(e, 1 << mb), ""), "");
		eff = LLVMBuildSelect(b, sub, ci32(e, 1), ex, "");
	}
	LLVMValueRef bexp = LLVMBuildAdd(b, eff, ci32(e, 1023 - bias - mb), "");
	LLVMValueRef sbits = LLVMBuildShl(b, LLVMBuildZExt(b, bexp, i64t(e), ""),
					  LLVMConstInt(i64t(e), 52, 0), "");
	LLVMValueRef v = LLVMBuildFMul(b, LLVMBuildUIToFP(b, mant, d, ""), LLVMBuildBitCast(b, sbits, d, ""), "");
	LLVMValueRef nan = LLVMConstRealOfString(d, "nan");
	if (k == SC_F8E4M3FN)
		v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, u, ci32(e, 0x7f), ""),
						     ci32(e, 0x7f), ""), nan, v, "");
	else if (k == SC_F8E8M0FNU)
		v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, u, ci32(e, 0xff), ""), nan, v, "");
	else if (k == SC_F8E5M2) {
		LLVMValueRef special = LLVMBuildICmp(b, LLVMIntEQ, ex, ci32(e, 31), "");
		LLVMValueRef inf = LLVMConstRealOfString(d, "inf");
		LLVMValueRef s = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, m, ci32(e, 0), ""), inf, nan, "");
		v = LLVMBuildSelect(b, special, s, v, "");
	}
	if (sign) {
		LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, u, ci32(e, 1 << (eb + mb)), ""),
						 ci32(e, 0), "");
		v = LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, v, ""), v, "");
	}
	return v;
}

/* C varargs promotion of one element for conversion spec. */
static LLVMValueRef promote(E *e, LLVMValueRef x, const Type *el, char spec)
{
	if (el->kind == TY_PTR)
		return LLVMBuildPtrToInt(e->b, x, i64t(e), "");
	if (scalar_is_float(el->scalar)) {
		LLVMTypeRef d = LLVMDoubleTypeInContext(e->ctx);
		if (el->scalar == SC_F64)
			return x;
		if (el->scalar == SC_F16 || el->scalar == SC_BF16 || el->scalar == SC_F32 || el->scalar == SC_TF32)
			return LLVMBuildFPExt(e->b, x, d, "");
		return narrow_float_to_double(e, x, el->scalar);   /* 8-/4-bit floats */
	}
	int w = scalar_bits(el->scalar);
	if (w == 64 || w == 32)
		return x;
	bool sext = (spec == 'd' || spec == 'i') && el->scalar != SC_I1;
	return sext ? LLVMBuildSExt(e->b, x, i32t(e), "") : LLVMBuildZExt(e->b, x, i32t(e), "");
}

/* ------------------------------------------------------------ print */

typedef struct Arg {
	const Value *v;
	TV *t;
	bool local;           /* thread 0 holds every element in its own registers */
	int64_t smem_off;     /* else: where the elements were gathered */
	int64_t *reg_of;      /* local: register holding element i */
} Arg;

/* Does every thread hold every element (all lane and warp strides 0)? */
static bool all_local(const Layout *l)
{
	for (int i = l->begin[1]; i < layout_nleaves(l); i++)
		if (l->stride[i] != 0 && l->shape[i] > 1)
			return false;
	return true;
}

/* Thread 0's value of element i of argument a. */
static LLVMValueRef element(E *e, const Arg *a, int64_t i, LLVMValueRef smem)
{
	const Type *el = a->v->type->elem;
	if (a->local)
		return a->t->r[a->reg_of[i]];
	LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
	int eb = elem_bytes(el) ? elem_bytes(el) : 1;
	LLVMValueRef o = ci64(e, a->smem_off + i * eb);
	LLVMValueRef p = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), smem, &o, 1, "");
	LLVMValueRef x = LLVMBuildLoad2(e->b, mt, p, "");
	LLVMSetAlignment(x, (unsigned)eb);
	return mt != et ? LLVMBuildTrunc(e->b, x, et, "") : x;
}

/* One vprintf call being assembled. */
typedef struct Ref {        /* one vprintf argument: element idx of an argument, its spec */
	const Arg *arg;
	int64_t idx;
	char spec;
} Ref;

typedef struct Call {
	StrBuf fmt;
	Ref refs[VPRINTF_MAX_ARGS];
	int n;
} Call;

typedef struct Printer {
	E *e;
	Call *calls;
	int ncalls, cap;
} Printer;

static Call *cur(Printer *p)
{
	if (p->ncalls == 0 || p->calls[p->ncalls - 1].n == VPRINTF_MAX_ARGS) {
		if (p->ncalls == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 4;
			p->calls = realloc(p->calls, sizeof *p->calls * (size_t)p->cap);
			if (!p->calls)
				ice("out of memory");
		}
		Call *c = &p->calls[p->ncalls++];
		memset(c, 0, sizeof *c);
	}
	return &p->calls[p->ncalls - 1];
}

static void put_text(Printer *p, const char *s, size_t n)
{
	Call *c = p->ncalls ? &p->calls[p->ncalls - 1] : cur(p);
	sb_putn(&c->fmt, s, n);
}

static void put_value(Printer *p, const char *conv, const Arg *a, int64_t idx)
{
	Call *c = cur(p);
	sb_puts(&c->fmt, conv);
	c->refs[c->n++] = (Ref){ a, idx, conv[strlen(conv) - 1] };
}

/* Nested-bracket expansion of a tile argument, dims d.. of the element range at base. */
static void put_tile(Printer *p, const Arg *a, const char *conv, int d, int64_t base)
{
	const Type *t = a->v->type;
	if (d == t->rank) {
		put_value(p, conv, a, base);
		return;
	}
	int64_t inner = 1;
	for (int i = d + 1; i < t->rank; i++)
		inner *= t->shape[i];
	put_text(p, "[", 1);
	for (int64_t i = 0; i < t->shape[d]; i++) {
		if (i)
			put_text(p, ", ", 2);
		put_tile(p, a, conv, d + 1, base + i * inner);
	}
	put_text(p, "]", 1);
}

static LLVMValueRef thread0(E *e)
{
	LLVMValueRef id = e->warps > 1 ? LLVMBuildOr(e->b, e->lane, e->warp, "") : e->lane;
	return LLVMBuildICmp(e->b, LLVMIntEQ, id, ci32(e, 0), "");
}

static LLVMValueRef asm_call(E *e, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args, int n)
{
	LLVMTypeRef pt[4];
	for (int i = 0; i < n; i++)
		pt[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ft = LLVMFunctionType(ret, pt, (unsigned)n, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 1, 0,
					  LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(e->b, ft, f, args, (unsigned)n, "");
}

/* The print lock (one per module), taken and released by thread 0. */
static LLVMValueRef print_mutex(E *e)
{
	LLVMValueRef g = LLVMGetNamedGlobal(e->mod, "__tile_print_mutex");
	if (!g) {
		g = LLVMAddGlobalInAddressSpace(e->mod, i32t(e), "__tile_print_mutex", 1);
		LLVMSetInitializer(g, ci32(e, 0));
		LLVMSetLinkage(g, LLVMInternalLinkage);
		LLVMSetAlignment(g, 4);
	}
	return g;
}

static void lock(E *e, LLVMValueRef m)
{
	LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "print.lock");
	LLVMBasicBlockRef got = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "print.locked");
	LLVMBuildBr(e->b, spin);
	LLVMPositionBuilderAtEnd(e->b, spin);
	LLVMValueRef args[3] = { m, ci32(e, 0), ci32(e, 1) };
	LLVMValueRef old = asm_call(e, i32t(e), "atom.acquire.gpu.global.cas.b32 $0, [$1], $2, $3;",
				    "=r,l,r,r,~{memory}", args, 3);
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, old, ci32(e, 0), ""), got, spin);
	LLVMPositionBuilderAtEnd(e->b, got);
}

static void unlock(E *e, LLVMValueRef m)
{
	LLVMValueRef args[2] = { m, ci32(e, 0) };
	asm_call(e, i32t(e), "atom.release.gpu.global.exch.b32 $0, [$1], $2;", "=r,l,r,~{memory}", args, 2);
}

static int64_t align8(int64_t x) { return (x + 7) / 8 * 8; }

void emit_print(E *e, Op *op)
{
	const Attr *sa = op_attr(op, "str");
	const char *fmt = sa && sa->kind == AT_STRING ? sa->u.s : "";
	int as, na = op_group(op, 0, &as);
	const Value *tok = NULL;
	if (na < 0) {
		as = 0;
		na = 0;
		for (int i = 0; i < op->noperands; i++)
			na += op->operands[i]->type->kind == TY_TILE;
	}
	for (int i = 0; i < op->noperands; i++)
		if (op->operands[i]->type->kind == TY_TOKEN)
			tok = op->operands[i];
	Conv *cv = calloc((size_t)na + 1, sizeof *cv);
	Arg *args = calloc((size_t)na + 1, sizeof *args);
	if (!cv || !args)
		ice("out of memory");
	int nc = parse_format(fmt, cv, na);
	if (nc != na)
		ice("tile-ptx: print_tko format has %d conversions for %d arguments", nc, na);
	/* where each argument's elements come from */
	int64_t smem_bytes = 0;
	for (int i = 0; i < na; i++) {
		Arg *a = &args[i];
		a->v = op->operands[as + i];
		a->t = get(e, a->v);
		const Type *el = a->v->type->elem;
		int64_t n = type_num_elements(a->v->type);
		a->local = all_local(&a->t->lay);
		if (a->local) {
			a->reg_of = malloc(sizeof *a->reg_of * (size_t)n);
			if (!a->reg_of)
				ice("out of memory");
			for (int64_t k = 0; k < n; k++)
				a->reg_of[k] = -1;
			for (int k = 0; k < a->t->n; k++) {
				int64_t o = layout_eval_mode(&a->t->lay, 0, k);
				if (o >= 0 && o < n && a->reg_of[o] < 0)
					a->reg_of[o] = k;
			}
			for (int64_t k = 0; k < n; k++)
				if (a->reg_of[k] < 0)
					ice("tile-ptx: print: element %lld has no register", (long long)k);
		} else {
			a->smem_off = smem_bytes;
			smem_bytes = align8(smem_bytes + n * (elem_bytes(el) ? elem_bytes(el) : 1));
		}
	}
	LLVMValueRef smem = NULL;
	if (smem_bytes) {
		smem = smem_scratch(e, smem_bytes);
		barrier(e);
		for (int i = 0; i < na; i++) {
			Arg *a = &args[i];
			if (a->local)
				continue;
			const Type *el = a->v->type->elem;
			LLVMTypeRef mt = mem_ty(e, el), et = elem_ty(e, el);
			int eb = elem_bytes(el) ? elem_bytes(el) : 1;
			LLVMValueRef primary = lw_of(e, &a->t->lay)->primary;
			if (LLVMIsAConstantInt(primary) && LLVMConstIntGetZExtValue(primary) == 1)
				primary = NULL;
			LLVMBasicBlockRef join = NULL;
			if (primary) {
				LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "print.st");
				join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "print.st.join");
				LLVMBuildCondBr(e->b, primary, st, join);
				LLVMPositionBuilderAtEnd(e->b, st);
			}
			for (int k = 0; k < a->t->n; k++) {
				if (!layout_reg_is_primary(&a->t->lay, k))
					continue;
				LLVMValueRef off = LLVMBuildAdd(e->b, ci64(e, a->smem_off),
						LLVMBuildMul(e->b, LLVMBuildZExt(e->b, elem_offset(e, &a->t->lay, k), i64t(e), ""),
							     ci64(e, eb), ""), "");
				LLVMValueRef p = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), smem, &off, 1, "");
				LLVMValueRef v = mt != et ? LLVMBuildZExt(e->b, a->t->r[k], mt, "") : a->t->r[k];
				LLVMSetAlignment(LLVMBuildStore(e->b, v, p), (unsigned)eb);
			}
			if (join) {
				LLVMBuildBr(e->b, join);
				LLVMPositionBuilderAtEnd(e->b, join);
			}
		}
		barrier(e);
	}
	/* thread 0 prints */
	LLVMBasicBlockRef pr = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "print");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "print.done");
	LLVMBuildCondBr(e->b, thread0(e), pr, done);
	LLVMPositionBuilderAtEnd(e->b, pr);
	Printer p = { e, NULL, 0, 0 };
	size_t at = 0;
	StrBuf conv = {0};
	for (int i = 0; i <= nc; i++) {
		size_t end = i < nc ? cv[i].at : strlen(fmt);
		if (end > at)
			put_text(&p, fmt + at, end - at);
		if (i == nc)
			break;
		conv.len = 0;
		fix_conversion(&conv, fmt, &cv[i], args[i].v->type->elem);
		put_tile(&p, &args[i], sb_cstr(&conv), 0, 0);
		at = cv[i].at + cv[i].len;
	}
	if (p.ncalls == 0)
		cur(&p);
	LLVMValueRef m = p.ncalls > 1 ? print_mutex(e) : NULL;
	if (m)
		lock(e, m);
	for (int i = 0; i < p.ncalls; i++) {
		/* each call's elements are read just before it, so few stay live */
		Call *c = &p.calls[i];
		LLVMValueRef vals[VPRINTF_MAX_ARGS];
		for (int k = 0; k < c->n; k++)
			vals[k] = promote(e, element(e, c->refs[k].arg, c->refs[k].idx, smem),
					  c->refs[k].arg->v->type->elem, c->refs[k].spec);
		emit_vprintf(e, sb_cstr(&c->fmt), vals, c->n);
	}
	if (m)
		unlock(e, m);
	LLVMBuildBr(e->b, done);
	LLVMPositionBuilderAtEnd(e->b, done);
	if (smem)
		barrier(e);          /* thread 0 has read the scratch buffer */
	for (int i = 0; i < p.ncalls; i++)
		sb_free(&p.calls[i].fmt);
	free(p.calls);
	sb_free(&conv);
	/* the result token orders like the operand token: no memory is touched */
	if (op->nresults && op->results[0]->type->kind == TY_TOKEN) {
		if (tok && tok->id >= 0 && tok->id < e->nvals)
			e->tok[op->results[0]->id] = e->tok[tok->id];
		else
			mark_token(e, op->results[0], false, NULL);
	}
	for (int i = 0; i < na; i++)
		free(args[i].reg_of);
	free(args);
	free(cv);
}

/* ------------------------------------------------------------ assert */

static void escape_percent(StrBuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '%')
			sb_putc(b, '%');
		sb_putc(b, *s);
	}
}

/* Spin for about `ns` nanoseconds on %globaltimer. */
static void busy_wait(E *e, int64_t ns)
{
	LLVMValueRef t0 = call_intr(e, "llvm.nvvm.read.ptx.sreg.globaltimer", NULL, NULL, 0);
	LLVMValueRef until = LLVMBuildAdd(e->b, t0, ci64(e, ns), "");
	LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.wait");
	LLVMBasicBlockRef over = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.trap");
	LLVMBuildBr(e->b, spin);
	LLVMPositionBuilderAtEnd(e->b, spin);
	LLVMValueRef t = call_intr(e, "llvm.nvvm.read.ptx.sreg.globaltimer", NULL, NULL, 0);
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, t, until, ""), spin, over);
	LLVMPositionBuilderAtEnd(e->b, over);
}

void emit_assert(E *e, Op *op)
{
	TV *c = get(e, op->operands[0]);
	const Type *tt = op->operands[0]->type;
	const Attr *ma = op_attr(op, "message");
	const char *msg = ma && ma->kind == AT_STRING ? ma->u.s : "";
	const Loc *l = op->loc;
	const char *file = l && l->file ? l->file : "<unknown>";
	unsigned line = l && l->file ? l->line : 0;
	const char *func = l && l->func ? l->func : "";
	if (!*func) {
		const Attr *n = op_attr(op_toplevel(op), "sym_name");
		func = n && n->kind == AT_STRING ? n->u.s : "kernel";
	}
	/* "FILE:LINE: tile block: [%d, %d, %d], position: [%d, ...]: MESSAGE\n" */
	StrBuf f = {0};
	escape_percent(&f, file);
	sb_printf(&f, ":%u: tile block: [%%d, %%d, %%d], position: [", line);
	for (int d = 0; d < tt->rank; d++)
		sb_puts(&f, d ? ", %d" : "%d");
	sb_puts(&f, "]: ");
	escape_percent(&f, msg);
	sb_puts(&f, "\n");
	int shift[8];
	for (int i = 0; i < tt->rank; i++) {
		int s = 0;
		for (int j = i + 1; j < tt->rank; j++)
			for (int64_t x = tt->shape[j]; x > 1; x >>= 1)
				s++;
		shift[i] = s;
	}
	LLVMValueRef primary = lw_of(e, &c->lay)->primary;
	if (LLVMIsAConstantInt(primary) && LLVMConstIntGetZExtValue(primary) == 1)
		primary = NULL;
	LLVMValueRef failed = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0);
	static const char *const ctaid[] = { "ctaid.x", "ctaid.y", "ctaid.z" };
	for (int k = 0; k < c->n; k++) {
		if (!layout_reg_is_primary(&c->lay, k))
			continue;
		LLVMValueRef bad = LLVMBuildNot(e->b, c->r[k], "");
		if (primary)
			bad = LLVMBuildAnd(e->b, bad, primary, "");
		failed = LLVMBuildOr(e->b, failed, bad, "");
		LLVMBasicBlockRef pr = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.fail");
		LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.next");
		LLVMBuildCondBr(e->b, bad, pr, join);
		LLVMPositionBuilderAtEnd(e->b, pr);
		LLVMValueRef vals[3 + 8];
		for (int i = 0; i < 3; i++)
			vals[i] = sreg(e, ctaid[i]);
		LLVMValueRef off = elem_offset(e, &c->lay, k);
		for (int i = 0; i < tt->rank; i++)
			vals[3 + i] = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, off, ci32(e, shift[i]), ""),
						   ci32(e, tt->shape[i] - 1), "");
		emit_vprintf(e, sb_cstr(&f), vals, 3 + tt->rank);
		LLVMBuildBr(e->b, join);
		LLVMPositionBuilderAtEnd(e->b, join);
	}
	sb_free(&f);
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.abort");
	LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.ok");
	LLVMBuildCondBr(e->b, failed, fail, ok);
	LLVMPositionBuilderAtEnd(e->b, fail);
	busy_wait(e, 500000);
	LLVMTypeRef ps[5] = { genptr(e), genptr(e), i32t(e), genptr(e), i64t(e) };
	LLVMValueRef af = declared(e, "__assertfail", LLVMVoidTypeInContext(e->ctx), ps, 5);
	LLVMValueRef args[5] = { cstring(e, *msg ? msg : "assertion failed", "assertMessage"),
				 cstring(e, file, "assertFile"), ci32(e, line), cstring(e, func, "assertFunction"),
				 ci64(e, 1) };
	call(e, af, args, 5);
	LLVMBuildBr(e->b, ok);
	LLVMPositionBuilderAtEnd(e->b, ok);
}

/* ------------------------------------------------------------ globals */

static LLVMValueRef dense_const(E *e, const Type *el, const uint8_t *p, int nb)
{
	uint64_t x = 0;
	for (int k = 0; k < nb && k < 8; k++)
		x |= (uint64_t)p[k] << (8 * k);
	LLVMTypeRef mt = mem_ty(e, el);
	if (el->kind == TY_SCALAR && scalar_is_float(el->scalar) && LLVMGetTypeKind(mt) != LLVMIntegerTypeKind) {
		LLVMValueRef i = LLVMConstInt(LLVMIntTypeInContext(e->ctx, (unsigned)(nb * 8)), x, 0);
		return LLVMConstBitCast(i, mt);
	}
	return LLVMConstInt(mt, x, 0);
}

void emit_global(E *e, Op *op)
{
	const Attr *na = op_attr(op, "sym_name"), *va = op_attr(op, "value");
	if (!na || na->kind != AT_STRING || !va || va->kind != AT_DENSE || !va->type ||
	    va->type->kind != TY_TILE) {
		unsupported(e, op, "this global");
		return;
	}
	if (LLVMGetNamedGlobal(e->mod, na->u.s))
		return;
	const Type *el = va->type->elem;
	int nb = elem_bytes(el);
	if (nb == 0) {
		unsupported(e, op, "a global of 4-bit elements");
		return;
	}
	int64_t n = type_num_elements(va->type);
	LLVMTypeRef mt = mem_ty(e, el);
	LLVMValueRef *vals = malloc(sizeof *vals * (size_t)(n ? n : 1));
	if (!vals)
		ice("out of memory");
	for (int64_t i = 0; i < n; i++) {
		size_t at = va->u.dense.splat ? 0 : (size_t)i * (size_t)nb;
		vals[i] = at + (size_t)nb <= va->u.dense.n ? dense_const(e, el, va->u.dense.bytes + at, nb)
							    : LLVMConstNull(mt);
	}
	LLVMTypeRef at = LLVMArrayType2(mt, (uint64_t)n);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(e->mod, at, na->u.s, 1);
	LLVMSetInitializer(g, LLVMConstArray2(mt, vals, (uint64_t)n));
	free(vals);
	const Attr *al = op_attr(op, "alignment");
	int64_t align = al && al->kind == AT_INT && al->u.i > nb ? al->u.i : nb;
	LLVMSetAlignment(g, (unsigned)align);
	const Attr *cst = op_attr(op, "constant");
	if (cst && cst->kind == AT_BOOL && cst->u.i)
		LLVMSetGlobalConstant(g, 1);
	const Attr *vis = op_attr(op, "symbol_visibility");
	if (vis && vis->kind == AT_STRING && strcmp(vis->u.s, "private") == 0)
		LLVMSetLinkage(g, LLVMInternalLinkage);
}

void emit_get_global(E *e, Op *op)
{
	const Attr *na = op_attr(op, "name");
	LLVMValueRef g = na && na->kind == AT_STRING ? LLVMGetNamedGlobal(e->mod, na->u.s) : NULL;
	if (!g && na && na->kind == AT_STRING) {
		FOR_EACH_OP(top, &e->m->body) {
			const Attr *s = op_attr(top, "sym_name");
			if (top->info->code == CT_global && s && s->kind == AT_STRING && strcmp(s->u.s, na->u.s) == 0)
				emit_global(e, top);
		}
		g = LLVMGetNamedGlobal(e->mod, na->u.s);
	}
	TV *t = tv_new(e, op->results[0]);
	if (!g) {
		unsupported(e, op, "get_global of an unknown symbol");
		for (int k = 0; k < t->n; k++)
			t->r[k] = LLVMGetPoison(elem_ty(e, op->results[0]->type->elem));
	} else {
		for (int k = 0; k < t->n; k++)
			t->r[k] = g;
	}
	set(e, op->results[0], t);
}

/* ------------------------------------------------------------ alloca */

/* alloca: scratch memory for the tile block from the device heap, as
 * NVIDIA's tileiras does: thread 0 calls the aligned-malloc system call
 * (a null result traps), the pointer is broadcast through shared memory.
 * Every region (the entry, a loop body, an if branch) is an allocation
 * scope: leaving it frees, after a barrier, what was allocated in it, so
 * an alloca in a loop body is a malloc and a free per iteration (NVIDIA's
 * too). `yield` frees the branch's, `continue` and `break` everything since
 * the loop body began, `return` everything. The `global` flag makes no
 * difference: the heap is global memory either way. */
static struct { LLVMValueRef fn; LLVMValueRef *ptr; int n, cap; } allocas;

static void alloca_fn(E *e)
{
	if (allocas.fn != e->fn) {
		allocas.fn = e->fn;
		allocas.n = 0;
	}
}

static void alloca_push(LLVMValueRef p)
{
	if (allocas.n == allocas.cap) {
		int cap = allocas.cap ? 2 * allocas.cap : 16;
		LLVMValueRef *np = realloc(allocas.ptr, sizeof *np * (size_t)cap);
		if (!np)
			ice("out of memory");
		allocas.ptr = np;
		allocas.cap = cap;
	}
	allocas.ptr[allocas.n++] = p;
}

int alloca_depth(E *e)
{
	alloca_fn(e);
	return allocas.n;
}

void alloca_pop(E *e, int depth)
{
	alloca_fn(e);
	if (depth < allocas.n)
		allocas.n = depth;
}

void emit_alloca(E *e, Op *op)
{
	alloca_fn(e);
	const Value *res = op->results[0];
	const Type *pt = res->type->elem;
	const Attr *na = op_attr(op, "num_elem"), *al = op_attr(op, "alignment");
	TV *t = tv_new(e, res);
	set(e, res, t);
	for (int k = 0; k < t->n; k++)
		t->r[k] = LLVMGetPoison(elem_ty(e, pt));
	int64_t eb = pt->kind == TY_PTR ? elem_bytes(pt->elem) : 1;
	int64_t bytes = (na && na->kind == AT_INT ? na->u.i : 1) * (eb ? eb : 1);
	int64_t align = al && al->kind == AT_INT && al->u.i > 16 ? al->u.i : 16;
	LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "alloca");
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "alloca.null");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "alloca.join");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
	LLVMBuildCondBr(e->b, thread0(e), doit, join);
	LLVMPositionBuilderAtEnd(e->b, doit);
	LLVMTypeRef ps[2] = { i64t(e), i64t(e) };
	LLVMValueRef mf = declared(e, "__cuda_syscall_aligned_malloc", genptr(e), ps, 2);
	LLVMValueRef args[2] = { ci64(e, bytes ? bytes : 1), ci64(e, align) };
	LLVMValueRef p = call(e, mf, args, 2);
	LLVMValueRef g = LLVMBuildAddrSpaceCast(e->b, p, LLVMPointerTypeInContext(e->ctx, 1), "");
	LLVMBuildCondBr(e->b, LLVMBuildIsNull(e->b, p, ""), fail, join);
	LLVMPositionBuilderAtEnd(e->b, fail);
	call_intr(e, "llvm.trap", NULL, NULL, 0);
	LLVMBuildUnreachable(e->b);
	LLVMPositionBuilderAtEnd(e->b, join);
	LLVMValueRef phi = LLVMBuildPhi(e->b, LLVMTypeOf(g), "");
	LLVMValueRef in[2] = { LLVMGetPoison(LLVMTypeOf(g)), g };
	LLVMBasicBlockRef bbs[2] = { from, doit };
	LLVMAddIncoming(phi, in, bbs, 2);
	for (int k = 0; k < t->n; k++)
		t->r[k] = layout_reg_is_primary(&t->lay, k) ? phi : LLVMGetPoison(LLVMTypeOf(g));
	smem_broadcast(e, t, pt);
	alloca_push(t->r[0]);
}

void alloca_free_to(E *e, int depth)
{
	alloca_fn(e);
	if (depth < 0)
		depth = 0;
	if (allocas.n <= depth)
		return;
	barrier(e);
	LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "free");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "free.join");
	LLVMBuildCondBr(e->b, thread0(e), doit, join);
	LLVMPositionBuilderAtEnd(e->b, doit);
	LLVMTypeRef pt = genptr(e);
	LLVMValueRef ff = declared(e, "free", LLVMVoidTypeInContext(e->ctx), &pt, 1);
	for (int i = allocas.n - 1; i >= depth; i--) {
		LLVMValueRef p = LLVMBuildAddrSpaceCast(e->b, allocas.ptr[i], genptr(e), "");
		call(e, ff, &p, 1);
	}
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
}

void emit_alloca_free(E *e)
{
	alloca_free_to(e, 0);
}
