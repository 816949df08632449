/* op_print.c: print_tko (op family; docs/lowering.md §9).
 *
 * A print happens once per tile block, by thread 0, through
 * vprintf(format, buffer) (util_printf.c). Tile arguments are first
 * gathered: every element's first owner writes it to the scratch buffer, a
 * barrier, then thread 0 reads them (a tile every thread holds whole is
 * read from thread 0's registers). A tile argument prints as nested
 * brackets, the conversion repeated for every element: "%5.2f" with a 2x2
 * tile becomes "[[%5.2f, %5.2f], [%5.2f, %5.2f]]" (NVIDIA's spelling). The
 * vprintf buffer holds the arguments in order at their natural alignment,
 * floats promoted to double and integers narrower than 32 bits to int
 * (sign-extended for %d/%i, zero-extended for the unsigned conversions), as
 * C varargs do; the length modifier of an integer conversion is made to
 * match the argument (ll for 64-bit, none below). vprintf takes at most 32
 * arguments, so a longer print is split into several calls, serialised
 * across tile blocks by a spin lock (atom.acquire.gpu.cas /
 * atom.release.gpu.exch on a module global) so their output does not
 * interleave. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "strbuf.h"
#include "diag.h"
#include "xalloc.h"

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
	LLVMValueRef u = LLVMBuildZExt(b, x, ty_i32(e), "");
	LLVMValueRef m = LLVMBuildAnd(b, u, c_i32(e, (1 << mb) - 1), "");
	LLVMValueRef ex = LLVMBuildAnd(b, LLVMBuildLShr(b, u, c_i32(e, mb), ""), c_i32(e, (1 << eb) - 1), "");
	LLVMValueRef mant = c_i32(e, 1), eff = ex;
	if (mb > 0) {
		LLVMValueRef sub = LLVMBuildICmp(b, LLVMIntEQ, ex, c_i32(e, 0), "");
		mant = LLVMBuildSelect(b, sub, m, LLVMBuildOr(b, m, c_i32(e, 1 << mb), ""), "");
		eff = LLVMBuildSelect(b, sub, c_i32(e, 1), ex, "");
	}
	LLVMValueRef bexp = LLVMBuildAdd(b, eff, c_i32(e, 1023 - bias - mb), "");
	LLVMValueRef sbits = LLVMBuildShl(b, LLVMBuildZExt(b, bexp, ty_i64(e), ""),
					  LLVMConstInt(ty_i64(e), 52, 0), "");
	LLVMValueRef v = LLVMBuildFMul(b, LLVMBuildUIToFP(b, mant, d, ""), LLVMBuildBitCast(b, sbits, d, ""), "");
	LLVMValueRef nan = LLVMConstRealOfString(d, "nan");
	if (k == SC_F8E4M3FN)
		v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, u, c_i32(e, 0x7f), ""),
						     c_i32(e, 0x7f), ""), nan, v, "");
	else if (k == SC_F8E8M0FNU)
		v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, u, c_i32(e, 0xff), ""), nan, v, "");
	else if (k == SC_F8E5M2) {
		LLVMValueRef special = LLVMBuildICmp(b, LLVMIntEQ, ex, c_i32(e, 31), "");
		LLVMValueRef inf = LLVMConstRealOfString(d, "inf");
		LLVMValueRef s = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, m, c_i32(e, 0), ""), inf, nan, "");
		v = LLVMBuildSelect(b, special, s, v, "");
	}
	if (sign) {
		LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, u, c_i32(e, 1 << (eb + mb)), ""),
						 c_i32(e, 0), "");
		v = LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, v, ""), v, "");
	}
	return v;
}

/* C varargs promotion of one element for conversion spec. */
static LLVMValueRef promote(E *e, LLVMValueRef x, const Type *el, char spec)
{
	if (el->kind == TY_PTR)
		return LLVMBuildPtrToInt(e->b, x, ty_i64(e), "");
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
	return sext ? LLVMBuildSExt(e->b, x, ty_i32(e), "") : LLVMBuildZExt(e->b, x, ty_i32(e), "");
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
	LLVMValueRef o = c_i64(e, a->smem_off + i * eb);
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
			p->calls = xrealloc(p->calls, sizeof *p->calls * (size_t)p->cap);
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

/* The print lock (one per module), taken and released by thread 0. */
static LLVMValueRef print_mutex(E *e)
{
	LLVMValueRef g = LLVMGetNamedGlobal(e->mod, "__tile_print_mutex");
	if (!g) {
		g = LLVMAddGlobalInAddressSpace(e->mod, ty_i32(e), "__tile_print_mutex", 1);
		LLVMSetInitializer(g, c_i32(e, 0));
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
	LLVMValueRef args[3] = { m, c_i32(e, 0), c_i32(e, 1) };
	LLVMValueRef old = asm_call(e, ty_i32(e), "atom.acquire.gpu.global.cas.b32 $0, [$1], $2, $3;",
				    "=r,l,r,r,~{memory}", args, 3);
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, old, c_i32(e, 0), ""), got, spin);
	LLVMPositionBuilderAtEnd(e->b, got);
}

static void unlock(E *e, LLVMValueRef m)
{
	LLVMValueRef args[2] = { m, c_i32(e, 0) };
	asm_call(e, ty_i32(e), "atom.release.gpu.global.exch.b32 $0, [$1], $2;", "=r,l,r,~{memory}", args, 2);
}

static int64_t align8(int64_t x) { return (x + 7) / 8 * 8; }

void emit_print(E *e, Op *op)
{
	const char *fmt = op_attr_str(op, "str", "");
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
	Conv *cv = xcalloc((size_t)na + 1, sizeof *cv);
	Arg *args = xcalloc((size_t)na + 1, sizeof *args);
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
			a->reg_of = xmalloc(sizeof *a->reg_of * (size_t)n);
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
			LLVMValueRef primary = owner_pred(e, &a->t->lay);
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
				LLVMValueRef off = LLVMBuildAdd(e->b, c_i64(e, a->smem_off),
						LLVMBuildMul(e->b, LLVMBuildZExt(e->b, elem_offset(e, &a->t->lay, k), ty_i64(e), ""),
							     c_i64(e, eb), ""), "");
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
	token_like(e, op->nresults ? op->results[0] : NULL, tok, false);
	for (int i = 0; i < na; i++)
		free(args[i].reg_of);
	free(args);
	free(cv);
}

