/* parse.c: PTX tokens -> Module.
 * Accepts the PTX ISA subset compilers emit: module directives (.version
 * .target .address_size .language .file .section .pragma), variables in
 * .global .const .shared .local with initializers, .entry and .func with
 * parameters and performance directives, and bodies with .reg (incl. %r<N>
 * ranges), .local/.shared/.param declarations, nested { } scopes, labels,
 * .loc, guards and instructions. Each instruction is handed to decode.c.
 * Guarantees: every function's branch targets resolve; errors name
 * path:line and stop the load (NULL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

typedef struct P {
	const char *path;
	Token *t;
	int n, i;
	Module *m;
	uint32_t cur_loc;
} P;

#define TK(p) (&(p)->t[(p)->i])

static bool is(P *p, const char *s)
{
	Token *t = TK(p);
	size_t n = strlen(s);
	return (t->kind == TK_IDENT || t->kind == TK_PUNCT) && t->len == n && memcmp(t->s, s, n) == 0;
}

static bool accept(P *p, const char *s)
{
	if (is(p, s)) {
		p->i++;
		return true;
	}
	return false;
}

static bool fail(P *p, const char *fmt, const char *arg)
{
	char msg[512];
	snprintf(msg, sizeof msg, fmt, arg);
	diag_plain("%s:%u: %s", p->path, TK(p)->line, msg);
	return false;
}

/* a token as an error message quotes it: its own text (at most 40 bytes;
 * t->s runs on into the rest of the source), control bytes as '?' so the
 * message stays one line */
static const char *tok_text(const Token *t, char *buf, size_t cap)
{
	if (t->kind == TK_EOF) {
		snprintf(buf, cap, "end");
		return buf;
	}
	size_t n = t->len > 40 ? 40 : t->len;
	if (n >= cap)
		n = cap - 1;
	for (size_t k = 0; k < n; k++)
		buf[k] = (unsigned char)t->s[k] < 0x20 || t->s[k] == 0x7f ? '?' : t->s[k];
	buf[n] = 0;
	return buf;
}

static bool expect(P *p, const char *s)
{
	if (accept(p, s))
		return true;
	char got[64];
	Token *t = TK(p);
	tok_text(t, got, sizeof got);
	char msg[160];
	snprintf(msg, sizeof msg, "expected '%s', found '%s'", s, got);
	return fail(p, "%s", msg);
}

static bool ident(P *p, char *buf, size_t cap)
{
	Token *t = TK(p);
	if (t->kind != TK_IDENT || t->s[0] == '.')
		return fail(p, "expected a name%s", "");
	if (t->len >= cap)
		return fail(p, "name too long%s", "");
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
	p->i++;
	return true;
}

static bool integer(P *p, uint64_t *v)
{
	bool neg = accept(p, "-");
	if (TK(p)->kind != TK_INT)
		return fail(p, "expected an integer%s", "");
	*v = neg ? 0 - TK(p)->ival : TK(p)->ival;
	p->i++;
	return true;
}

static bool skip_to_semi(P *p)
{
	while (TK(p)->kind != TK_EOF && !is(p, ";"))
		p->i++;
	return expect(p, ";");
}

static int space_of(const char *s, size_t n)
{
#define SP(str, v) if (n == strlen(str) && memcmp(s, str, n) == 0) return v;
	SP(".global", SP_GLOBAL) SP(".shared", SP_SHARED) SP(".local", SP_LOCAL)
	SP(".param", SP_PARAM) SP(".const", SP_CONST)
#undef SP
	return -1;
}

static int tok_type(P *p)
{
	Token *t = TK(p);
	if (t->kind != TK_IDENT || t->s[0] != '.' || t->len > 16)
		return 0;
	char buf[20];
	memcpy(buf, t->s + 1, t->len - 1);
	buf[t->len - 1] = 0;
	return type_from_name(buf);
}

/* ---- variable declarations ---- */

typedef struct Decl {
	int space, ty, vec;
	uint32_t align, count;  /* count: array elements (1 for scalars); 0 for [] */
	bool array, unsized, ptr;
	char name[256];
} Decl;

/* attributes, type and name: [.align N] [.ptr] [.vN] .type name[N]... */
static bool decl_head(P *p, Decl *d)
{
	d->align = 0;
	d->ty = 0;
	d->vec = 1;
	d->ptr = false;
	for (;;) {
		if (accept(p, ".align")) {
			uint64_t a;
			if (!integer(p, &a))
				return false;
			if (a == 0 || (a & (a - 1)) || a > 4096)
				return fail(p, "bad .align%s", "");
			d->align = (uint32_t)a;
		} else if (accept(p, ".ptr")) {
			d->ptr = true;
		} else if (accept(p, ".v2")) {
			d->vec = 2;
		} else if (accept(p, ".v4")) {
			d->vec = 4;
		} else if (accept(p, ".v8")) {
			d->vec = 8;
		} else if (TK(p)->kind == TK_IDENT && space_of(TK(p)->s, TK(p)->len) >= 0) {
			p->i++;     /* .param .u64 .ptr .global: the pointee space */
		} else if (is(p, ".attribute")) {
			p->i++;
			if (!expect(p, "("))
				return false;
			while (TK(p)->kind != TK_EOF && !is(p, ")"))
				p->i++;
			if (!expect(p, ")"))
				return false;
		} else if (tok_type(p)) {
			if (d->ty)
				return fail(p, "two types in a declaration%s", "");
			d->ty = tok_type(p);
			p->i++;
		} else {
			break;
		}
	}
	if (!d->ty)
		return fail(p, "declaration without a type%s", "");
	if (!ident(p, d->name, sizeof d->name))
		return false;
	d->count = 1;
	d->array = false;
	d->unsized = false;
	while (accept(p, "[")) {
		d->array = true;
		if (accept(p, "]")) {
			d->unsized = true;
			d->count = 0;
			continue;
		}
		uint64_t n;
		if (!integer(p, &n) || !expect(p, "]"))
			return false;
		if (n > (1u << 30) || (uint64_t)d->count * n * type_bytes[d->ty] * (uint64_t)d->vec > (1u << 30))
			return fail(p, "array too large%s", "");
		d->count *= (uint32_t)n;
	}
	if (!d->align)
		d->align = type_bytes[d->ty] * (uint32_t)d->vec;
	if (d->align == 0)
		d->align = 1;
	return true;
}

static uint32_t decl_size(const Decl *d)
{
	return type_bytes[d->ty] * (uint32_t)d->vec * d->count;
}

static void put_elem(uint8_t *buf, uint32_t size, uint32_t at, int ty, const Token *t, bool neg)
{
	uint32_t eb = type_bytes[ty];
	uint64_t v = t->ival;
	if (t->kind == TK_FLOAT || ((ty == TY_F32 || ty == TY_F64) && t->kind == TK_INT)) {
		double f = t->kind == TK_FLOAT ? t->fval : (double)t->ival;
		if (neg)
			f = -f;
		if (ty == TY_F32) {
			float x = (float)f;
			uint32_t u;
			memcpy(&u, &x, 4);
			v = u;
		} else {
			memcpy(&v, &f, 8);
		}
	} else if (neg) {
		v = 0 - v;
	}
	for (uint32_t k = 0; k < eb && at + k < size; k++)
		buf[at + k] = (uint8_t)(v >> (8 * k));
}

static bool initializer(P *p, const Decl *d, uint8_t **out)
{
	uint32_t size = decl_size(d);
	uint8_t *buf = xcalloc(size ? size : 1, 1);
	uint32_t eb = type_bytes[d->ty], at = 0;
	int depth = 0;
	do {
		if (accept(p, "{")) {
			depth++;
			continue;
		}
		if (accept(p, "}")) {
			depth--;
			accept(p, ",");
			continue;
		}
		bool neg = accept(p, "-");
		Token *t = TK(p);
		if (t->kind != TK_INT && t->kind != TK_F32 && t->kind != TK_F64 && t->kind != TK_FLOAT) {
			free(buf);
			return fail(p, "unsupported initializer (only numbers)%s", "");
		}
		if (at + eb > size) {
			free(buf);
			return fail(p, "too many initializers%s", "");
		}
		put_elem(buf, size, at, d->ty, t, neg);
		at += eb;
		p->i++;
		if (depth > 0 && !is(p, "}") && !expect(p, ",")) {
			free(buf);
			return false;
		}
	} while (depth > 0 && TK(p)->kind != TK_EOF);
	*out = buf;
	return true;
}

static Var *add_var(Module *m)
{
	m->vars = xrealloc(m->vars, (size_t)(m->nvars + 1) * sizeof *m->vars);
	Var *v = &m->vars[m->nvars++];
	memset(v, 0, sizeof *v);
	return v;
}

static uint32_t align_up32(uint32_t x, uint32_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* a module-level (or function-level .shared) variable */
static Name *new_name(DecodeCtx *dc, const char *name, int kind)
{
	if (dc->nnames == dc->capnames) {
		dc->capnames = dc->capnames ? dc->capnames * 2 : 64;
		dc->names = xrealloc(dc->names, (size_t)dc->capnames * sizeof *dc->names);
	}
	Name *nm = &dc->names[dc->nnames++];
	memset(nm, 0, sizeof *nm);
	nm->name = xstrdup(name);
	nm->kind = kind;
	nm->scope = dc->scope;
	return nm;
}

static bool var_decl(P *p, int space, bool visible, bool external, DecodeCtx *dc)
{
	Decl d;
	if (!decl_head(p, &d))
		return false;
	Var *v = add_var(p->m);
	v->name = xstrdup(d.name);
	v->space = space;
	v->align = d.align;
	v->size = decl_size(&d);
	v->visible = visible;
	v->external = external || d.unsized;
	if (space == SP_GLOBAL || space == SP_CONST) {
		uint32_t a = d.align < 16 ? 16 : d.align;
		p->m->vars_bytes = (p->m->vars_bytes + a - 1) / a * a;
		v->addr = DEV_VARS_BASE + p->m->vars_bytes;
		p->m->vars_bytes += (v->size ? v->size : 1) + 64;
	}
	if (accept(p, "=")) {
		if (!initializer(p, &d, &v->init))
			return false;
	}
	if (space == SP_SHARED && dc) {
		/* a kernel's own .shared variables: after the module's, and
		 * overlapping other kernels' (one kernel runs at a time) */
		Func *f = dc->f;
		if (!f->entry)
			return fail(p, "a .shared variable declared in a .func is not supported%s", "");
		if (f->shared_end < p->m->shared_static)
			f->shared_end = p->m->shared_static;
		if ((uint64_t)f->shared_end + d.align + v->size > (1u << 31))
			return fail(p, "too much shared memory%s", "");
		v->addr = align_up32(f->shared_end, d.align);
		f->shared_end = (uint32_t)v->addr + v->size;
	} else if (space == SP_SHARED) {
		/* module scope: after everything laid out so far */
		uint32_t end = p->m->shared_static;
		for (int k = 0; k < p->m->nfuncs; k++)
			if (p->m->funcs[k].shared_end > end)
				end = p->m->funcs[k].shared_end;
		if ((uint64_t)end + d.align + v->size > (1u << 31))
			return fail(p, "too much shared memory%s", "");
		v->addr = align_up32(end, d.align);
		p->m->shared_static = (uint32_t)v->addr + v->size;
	}
	if (dc) {       /* function scope: a name for it */
		Name *nm = new_name(dc, d.name, NM_VAR);
		nm->space = space;
		nm->addr = v->addr;
		nm->slot = p->m->nvars - 1;
	}
	return expect(p, ";");
}

/* ---- functions ---- */

static bool param_list(P *p, Param **out, int *n, uint32_t *pbytes)
{
	if (!expect(p, "("))
		return false;
	while (!accept(p, ")")) {
		bool hidden = accept(p, ".hidden");
		if (!accept(p, ".param") && !accept(p, ".reg"))
			return fail(p, "expected .param in a parameter list%s", "");
		Decl d;
		if (!decl_head(p, &d))
			return false;
		*out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
		Param *pa = &(*out)[(*n)++];
		memset(pa, 0, sizeof *pa);
		pa->hidden = hidden;
		pa->name = xstrdup(d.name);
		pa->ty = d.ty;
		pa->size = decl_size(&d);
		pa->align = d.array ? d.align : type_bytes[d.ty];
		if (pa->align < 1)
			pa->align = 1;
		if (d.array && d.align)
			pa->align = d.align;
		pa->ptr = d.ptr;
		pa->offset = align_up32(*pbytes, pa->align);
		*pbytes = pa->offset + pa->size;
		if (!is(p, ")") && !expect(p, ","))
			return false;
	}
	return true;
}

static bool reg_decl(P *p, DecodeCtx *dc)
{
	int vec = 1;
	if (accept(p, ".v2"))
		vec = 2;
	else if (accept(p, ".v4"))
		vec = 4;
	int ty = tok_type(p);
	if (!ty)
		return fail(p, "expected a register type%s", "");
	if (vec != 1)
		return fail(p, "vector registers are not supported%s", "");
	p->i++;
	do {
		char name[256];
		if (!ident(p, name, sizeof name))
			return false;
		uint64_t count = 0;
		bool range = false;
		if (accept(p, "<")) {
			if (!integer(p, &count) || !expect(p, ">"))
				return false;
			if (count > 1000000)
				return fail(p, "register range too large%s", "");
			range = true;
		}
		Name *nm = new_name(dc, name, NM_REG);
		nm->ty = ty;
		nm->slot = dc->nslots;
		/* a range %r<N> is kept as one entry: addr holds the count, space=1 */
		if (range) {
			nm->addr = count;
			nm->space = 1;
			for (uint64_t k = 0; k < count; k++)
				dc_new_slot(dc);
		} else {
			dc_new_slot(dc);
		}
	} while (accept(p, ","));
	return expect(p, ";");
}

/* a declaration in a function body: its head and a name of kind for it */
static Name *body_decl(P *p, DecodeCtx *dc, int kind, Decl *d)
{
	return decl_head(p, d) ? new_name(dc, d->name, kind) : NULL;
}

static bool body_param(P *p, DecodeCtx *dc)
{
	Decl d;
	Name *nm = body_decl(p, dc, NM_PARAM, &d);
	if (!nm)
		return false;
	Func *f = dc->f;
	uint32_t al = d.align ? d.align : 1;
	nm->addr = align_up32(f->pbytes, al);
	nm->space = SP_PARAM;
	nm->ty = d.ty;
	f->pbytes = (uint32_t)nm->addr + decl_size(&d);
	nm->slot = (int)decl_size(&d);
	return expect(p, ";");
}

static bool body_local(P *p, DecodeCtx *dc)
{
	Decl d;
	Name *nm = body_decl(p, dc, NM_VAR, &d);
	if (!nm)
		return false;
	Func *f = dc->f;
	if ((uint64_t)f->lbase + f->lbytes + d.align + 16 + decl_size(&d) > (1u << 31))
		return fail(p, "too much local memory%s", "");
	uint32_t off = align_up32(f->lbytes, d.align < 16 ? 16 : d.align);
	f->lbytes = off + decl_size(&d);
	nm->addr = f->lbase + off;
	nm->space = SP_LOCAL;
	if (accept(p, "="))
		return fail(p, "initialized .local variables are not supported%s", "");
	return expect(p, ";");
}

/* operands of one instruction, up to ';' */
static bool operand(P *p, RawOperand *o);
static void free_ops(RawOperand *ops, int n);

static bool operand_list(P *p, RawOperand **out, int *n, const char *close)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	if (is(p, close))
		return true;
	do {
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		if (!operand(p, &(*out)[*n])) {
			free_ops(*out, *n + 1);     /* the failed one too: its sub-list */
			free(*out);
			*out = NULL;
			*n = 0;
			return false;
		}
		(*n)++;
	} while (accept(p, ","));
	return true;
}

static bool imm_token(P *p, Imm *im, bool neg)
{
	Token *t = TK(p);
	im->kind = t->kind;
	im->bits = t->ival;
	im->f = t->fval;
	if (neg) {
		if (t->kind == TK_INT)
			im->bits = 0 - t->ival;
		else if (t->kind == TK_FLOAT)
			im->f = -t->fval;
		else if (t->kind == TK_F32)
			im->bits ^= 0x80000000u;
		else
			im->bits ^= 0x8000000000000000ull;
	}
	p->i++;
	return true;
}

static bool operand(P *p, RawOperand *o)
{
	memset(o, 0, sizeof *o);
	Token *t = TK(p);
	if (accept(p, "[")) {
		o->kind = RO_ADDR;
		if (TK(p)->kind == TK_IDENT) {
			if (!ident(p, o->name, sizeof o->name))
				return false;
		} else if (TK(p)->kind == TK_INT) {
			o->imm.kind = TK_INT;
			o->imm.bits = TK(p)->ival;
			p->i++;
		}
		while (is(p, "+") || is(p, "-")) {
			bool neg = accept(p, "-");
			if (!neg)
				p->i++;
			if (accept(p, "-"))
				neg = !neg;
			if (TK(p)->kind != TK_INT)
				return fail(p, "expected an address offset%s", "");
			uint64_t v = TK(p)->ival;
			o->off = (int64_t)((uint64_t)o->off + (neg ? 0 - v : v));
			p->i++;
		}
		if (accept(p, ",")) {   /* [tensorMap, {c0, c1, ...}] of cp.async.bulk.tensor */
			if (!accept(p, "{"))
				return fail(p, "expected a coordinate vector {..} in an address%s", "");
			if (!operand_list(p, &o->sub, &o->nsub, "}") || !expect(p, "}"))
				return false;
		}
		return expect(p, "]");
	}
	if (accept(p, "{")) {
		o->kind = RO_VEC;
		return operand_list(p, &o->sub, &o->nsub, "}") && expect(p, "}");
	}
	if (accept(p, "(")) {
		o->kind = RO_LIST;
		return operand_list(p, &o->sub, &o->nsub, ")") && expect(p, ")");
	}
	if (accept(p, "!")) {
		if (!ident(p, o->name, sizeof o->name))
			return false;
		o->kind = RO_REG;
		o->neg = true;
		return true;
	}
	bool neg = accept(p, "-");
	t = TK(p);
	if (t->kind == TK_INT || t->kind == TK_F32 || t->kind == TK_F64 || t->kind == TK_FLOAT) {
		o->kind = RO_IMM;
		return imm_token(p, &o->imm, neg);
	}
	if (neg)
		return fail(p, "expected a number after '-'%s", "");
	if (t->kind != TK_IDENT)
		return fail(p, "expected an operand%s", "");
	if (t->len == 1 && t->s[0] == '_') {
		p->i++;
		o->kind = RO_SINK;
		return true;
	}
	if (!ident(p, o->name, sizeof o->name))
		return false;
	o->kind = o->name[0] == '%' ? RO_REG : RO_SYM;
	if (accept(p, "|")) {
		if (!ident(p, o->name2, sizeof o->name2))
			return false;
		o->pair = true;
	}
	if (o->kind == RO_SYM && (is(p, "+") || is(p, "-"))) {
		bool n2 = accept(p, "-");
		if (!n2)
			p->i++;
		if (TK(p)->kind != TK_INT)
			return fail(p, "expected an offset%s", "");
		o->off = (int64_t)(n2 ? 0 - TK(p)->ival : TK(p)->ival);
		p->i++;
	}
	return true;
}

static void free_ops(RawOperand *ops, int n)
{
	for (int k = 0; k < n; k++)
		if (ops[k].sub) {
			free_ops(ops[k].sub, ops[k].nsub);
			free(ops[k].sub);
			ops[k].sub = NULL;
		}
}

static bool instruction(P *p, DecodeCtx *dc)
{
	int guard = -1;
	bool gneg = false;
	uint32_t line = TK(p)->line;
	if (accept(p, "@")) {
		gneg = accept(p, "!");
		char g[256];
		if (!ident(p, g, sizeof g))
			return false;
		dc->line = line;
		Name *nm = dc_lookup(dc, g);
		if (!nm || nm->kind != NM_REG)
			return fail(p, "unknown guard predicate '%s'", g);
		guard = nm->slot;
		if (nm->space == 1) {   /* range entry: dc_lookup returns the element slot in slot */
		}
	}
	Token *t = TK(p);
	if (t->kind != TK_IDENT || t->s[0] == '.' || t->s[0] == '%')
		return fail(p, "expected an instruction%s", "");
	char opcode[128];
	if (t->len >= sizeof opcode)
		return fail(p, "opcode too long%s", "");
	memcpy(opcode, t->s, t->len);
	opcode[t->len] = 0;
	p->i++;
	RawOperand *ops;
	int nops;
	if (!operand_list(p, &ops, &nops, ";"))
		return false;
	if (!expect(p, ";")) {
		free_ops(ops, nops);
		free(ops);
		return false;
	}
	Func *f = dc->f;
	f->code = xrealloc(f->code, (size_t)(f->ncode + 1) * sizeof *f->code);
	Insn *in = &f->code[f->ncode];
	memset(in, 0, sizeof *in);
	in->line = line;
	in->loc = p->cur_loc;
	dc->line = line;
	int rc = decode_insn(dc, in, opcode, ops, nops);
	free_ops(ops, nops);
	free(ops);
	if (rc != 0)
		return false;
	in->guard = guard;
	in->gneg = gneg;
	in->line = line;
	in->loc = p->cur_loc;
	f->ncode++;
	return true;
}

/* .loc FILE LINE [COL][, ...] (the .loc read): the current source location */
static bool body_loc(P *p, DecodeCtx *dc)
{
	uint32_t line = p->t[p->i - 1].line;
	uint64_t file, ln, col = 0;
	if (!integer(p, &file) || !integer(p, &ln))
		return false;
	if (TK(p)->kind == TK_INT && TK(p)->line == line)
		integer(p, &col);
	/* optional ", function_name ..., inlined_at ..." on the same line */
	while (TK(p)->kind != TK_EOF && TK(p)->line == line)
		p->i++;
	Module *m = p->m;
	if (ln == 0) {
		p->cur_loc = 0;
		return true;
	}
	m->locs = xrealloc(m->locs, (size_t)(m->nlocs + 1) * sizeof *m->locs);
	m->locs[m->nlocs] = (Loc){ (uint32_t)file, (uint32_t)ln, (uint32_t)col };
	p->cur_loc = (uint32_t)m->nlocs++;
	return true;
}

static bool body_shared(P *p, DecodeCtx *dc)
{
	return var_decl(p, SP_SHARED, false, false, dc);
}

static bool body_pragma(P *p, DecodeCtx *dc)
{
	return skip_to_semi(p);
}

/* a directive in a function body: 1 read, 0 not one, -1 after a message */
static int body_directive(P *p, DecodeCtx *dc)
{
	static const struct { const char *name; bool (*read)(P *p, DecodeCtx *dc); } dirs[] = {
		{ ".reg", reg_decl }, { ".param", body_param }, { ".local", body_local }, { ".shared", body_shared },
		{ ".loc", body_loc }, { ".pragma", body_pragma },
	};
	for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
		if (accept(p, dirs[k].name))
			return dirs[k].read(p, dc) ? 1 : -1;
	return 0;
}

static bool body(P *p, DecodeCtx *dc)
{
	int depth = 1;
	while (depth > 0) {
		Token *t = TK(p);
		if (t->kind == TK_EOF)
			return fail(p, "unterminated function body%s", "");
		if (accept(p, "{")) {
			depth++;
			dc->scope++;
			continue;
		}
		if (accept(p, "}")) {
			depth--;
			if (depth > 0) {        /* close a scope: its names go */
				while (dc->nnames > 0 && dc->names[dc->nnames - 1].scope == dc->scope) {
					free(dc->names[dc->nnames - 1].name);
					dc->nnames--;
				}
				dc->scope--;
			}
			continue;
		}
		int dir = body_directive(p, dc);
		if (dir < 0)
			return false;
		if (dir > 0)
			continue;
		if (t->kind == TK_IDENT && t->s[0] != '.' && t->s[0] != '%' && p->t[p->i + 1].kind == TK_PUNCT &&
		    p->t[p->i + 1].s[0] == ':') {
			char name[128];
			if (!ident(p, name, sizeof name))
				return false;
			p->i++;
			Name *nm = new_name(dc, name, NM_LABEL);
			nm->slot = dc->f->ncode;
			nm->scope = 0;
			continue;
		}
		if (t->kind == TK_IDENT && t->s[0] == '.')
			return fail(p, "unsupported directive in a function body: %s", tok_text(t, (char[64]){0}, 64));
		if (!instruction(p, dc))
			return false;
	}
	return true;
}

static bool resolve_labels(P *p, DecodeCtx *dc)
{
	for (int k = 0; k < dc->nfix; k++) {
		Name *nm = NULL;
		for (int j = 0; j < dc->nnames; j++)
			if (dc->names[j].kind == NM_LABEL && strcmp(dc->names[j].name, dc->fix[k].label) == 0)
				nm = &dc->names[j];
		if (!nm) {
			diag_plain("%s:%u: unknown label '%s'", p->path, dc->fix[k].line, dc->fix[k].label);
			return false;
		}
		dc->f->code[dc->fix[k].insn].target = nm->slot;
		free(dc->fix[k].label);
		dc->fix[k].label = NULL;
	}
	return true;
}

static Func *add_func(Module *m, const char *name, int *idx)
{
	int k = module_lookup_func(m, name);
	if (k >= 0) {
		*idx = k;
		return &m->funcs[k];
	}
	m->funcs = xrealloc(m->funcs, (size_t)(m->nfuncs + 1) * sizeof *m->funcs);
	Func *f = &m->funcs[m->nfuncs];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	*idx = m->nfuncs++;
	return f;
}

static void free_params(Param *ps, int n)
{
	for (int k = 0; k < n; k++)
		free(ps[k].name);
	free(ps);
}

static bool function(P *p, bool entry, bool external)
{
	uint32_t line = TK(p)->line;
	Param *rets = NULL, *params = NULL;
	int nrets = 0, nparams = 0;
	uint32_t pbytes = 0;
	char name[256];
	if ((!entry && is(p, "(") && !param_list(p, &rets, &nrets, &pbytes)) || !ident(p, name, sizeof name) ||
	    (is(p, "(") && !param_list(p, &params, &nparams, &pbytes))) {
		free_params(rets, nrets);
		free_params(params, nparams);
		return false;
	}
	int idx;
	Func *f = add_func(p->m, name, &idx);
	if (f->defined) {
		free_params(rets, nrets);
		free_params(params, nparams);
		return fail(p, "function '%s' defined twice", name);
	}
	for (int k = 0; k < f->nparams; k++)
		free(f->params[k].name);
	for (int k = 0; k < f->nrets; k++)
		free(f->rets[k].name);
	free(f->params);
	free(f->rets);
	f->entry = entry;
	f->external = external;
	f->params = params;
	f->nparams = nparams;
	f->rets = rets;
	f->nrets = nrets;
	f->pbytes = pbytes;
	f->line = line;
	/* performance directives */
	for (;;) {
		if (accept(p, ".maxntid") || accept(p, ".reqntid")) {
			bool req = p->t[p->i - 1].len == 8 && memcmp(p->t[p->i - 1].s, ".reqntid", 8) == 0;
			uint32_t *dst = req ? f->reqntid : f->maxntid;
			dst[0] = dst[1] = dst[2] = 1;
			for (int k = 0; k < 3; k++) {
				uint64_t v;
				if (!integer(p, &v))
					return false;
				if (v == 0 || v > 1024)
					return fail(p, "bad thread count%s", "");
				dst[k] = (uint32_t)v;
				if (!accept(p, ","))
					break;
			}
			continue;
		}
		if (accept(p, ".reqnctapercluster")) {  /* the cluster shape (sched.c) */
			f->reqncluster[0] = f->reqncluster[1] = f->reqncluster[2] = 1;
			for (int k = 0; k < 3; k++) {
				uint64_t v;
				if (!integer(p, &v))
					return false;
				if (v == 0 || v > 1024)
					return fail(p, "bad cluster size%s", "");
				f->reqncluster[k] = (uint32_t)v;
				if (!accept(p, ","))
					break;
			}
			continue;
		}
		if (accept(p, ".maxclusterrank")) {
			uint64_t v;
			if (!integer(p, &v))
				return false;
			f->maxclusterrank = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
			continue;
		}
		if (accept(p, ".explicitcluster") || accept(p, ".blocksareclusters")) {
			bool *flag = p->t[p->i - 1].s[1] == 'e' ? &f->explicitcluster : &f->blocksareclusters;
			*flag = true;
			continue;
		}
		if (accept(p, ".minnctapersm") || accept(p, ".maxnreg") || accept(p, ".maxnctapersm")) {
			while (TK(p)->kind == TK_INT || is(p, ","))
				p->i++;
			continue;
		}
		if (accept(p, ".noreturn"))
			continue;
		if (accept(p, ".language")) {
			uint64_t lang;
			if (!integer(p, &lang))
				return false;
			continue;
		}
		if (accept(p, ".pragma")) {
			if (!skip_to_semi(p))
				return false;
			continue;
		}
		break;
	}
	if (accept(p, ";"))
		return true;    /* a declaration */
	if (!expect(p, "{"))
		return false;
	f->defined = true;
	f->external = false;
	f->lbase = p->m->local_total;
	DecodeCtx dc = { .m = p->m, .f = f, .fidx = idx };
	dc.nslots = 0;
	dc_new_slot(&dc);       /* slot 0: constant zero */
	dc_new_slot(&dc);       /* slot 1: sink for '_' */
	f->sreg_slot = xcalloc(SR_COUNT, sizeof *f->sreg_slot);
	for (int k = 0; k < SR_COUNT; k++)
		f->sreg_slot[k] = -1;
	for (int k = 0; k < nparams; k++) {
		Name *nm = new_name(&dc, params[k].name, NM_PARAM);
		nm->addr = params[k].offset;
		nm->space = SP_PARAM;
		nm->ty = params[k].ty;
		nm->slot = (int)params[k].size;
	}
	for (int k = 0; k < nrets; k++) {
		Name *nm = new_name(&dc, rets[k].name, NM_PARAM);
		nm->addr = rets[k].offset;
		nm->space = SP_PARAM;
		nm->ty = rets[k].ty;
		nm->slot = (int)rets[k].size;
	}
	bool ok = body(p, &dc) && resolve_labels(p, &dc);
	f->lbytes = align_up32(f->lbytes, 16);
	p->m->local_total = f->lbase + f->lbytes;
	f->nslots = dc.nslots;
	f->init = dc.init;
	f->rank_slots = dc.sconst_slot;
	f->nrank_slots = dc.nsconsts;
	free(dc.sconsts);
	for (int k = 0; k < dc.nnames; k++)
		free(dc.names[k].name);
	free(dc.names);
	free(dc.consts);
	free(dc.const_slot);
	for (int k = 0; k < dc.nfix; k++)
		free(dc.fix[k].label);
	free(dc.fix);
	if (ok && f->ncode == 0) {
		/* an empty body still returns */
		f->code = xcalloc(1, sizeof *f->code);
		f->code[0].op = OP_RET;
		f->code[0].guard = -1;
		f->code[0].line = line;
		f->ncode = 1;
	} else if (ok) {
		/* past the last instruction (no ret or exit there, or a branch to a
		 * label at the end): a fault at the body's closing line, not a read
		 * past the code (an instruction the body does not count) */
		f->code = xrealloc(f->code, (size_t)(f->ncode + 1) * sizeof *f->code);
		Insn *end = &f->code[f->ncode];
		memset(end, 0, sizeof *end);
		end->op = OP_TRAP;
		end->mode = TRAP_FELL_OFF;
		end->guard = -1;
		end->line = p->i > 0 ? p->t[p->i - 1].line : line;
	}
	return ok;
}

static bool module(P *p)
{
	Module *m = p->m;
	bool seen_version = false;
	while (TK(p)->kind != TK_EOF) {
		if (accept(p, ".version")) {
			if (TK(p)->kind != TK_FLOAT && TK(p)->kind != TK_INT)
				return fail(p, "bad .version%s", "");
			p->i++;
			seen_version = true;
			continue;
		}
		if (!seen_version)
			return fail(p, "not PTX: expected .version first%s", "");
		if (accept(p, ".target")) {
			char name[64];
			if (!ident(p, name, sizeof name))
				return false;
			if (strncmp(name, "sm_", 3) != 0)
				return fail(p, "unsupported .target '%s'", name);
			m->sm = atoi(name + 3);
			while (accept(p, ",")) {
				char extra[64];
				if (!ident(p, extra, sizeof extra))
					return false;
			}
			continue;
		}
		if (accept(p, ".address_size")) {
			uint64_t a;
			if (!integer(p, &a))
				return false;
			if (a != 64)
				return fail(p, "only .address_size 64 is supported%s", "");
			continue;
		}
		if (accept(p, ".language")) {
			uint64_t a;
			if (!integer(p, &a))
				return false;
			continue;
		}
		if (accept(p, ".file")) {
			uint64_t k;
			if (!integer(p, &k))
				return false;
			if (TK(p)->kind != TK_STRING)
				return fail(p, "expected a file name%s", "");
			if (k > 100000)
				return fail(p, "bad .file index%s", "");
			if ((int)k >= m->nfiles) {
				m->files = xrealloc(m->files, (k + 1) * sizeof *m->files);
				for (int j = m->nfiles; j <= (int)k; j++)
					m->files[j] = NULL;
				m->nfiles = (int)k + 1;
			}
			free(m->files[k]);
			m->files[k] = xstrndup(TK(p)->s, TK(p)->len);
			p->i++;
			while (accept(p, ",")) {
				if (TK(p)->kind != TK_INT)
					return fail(p, "bad .file attributes%s", "");
				p->i++;
			}
			continue;
		}
		if (accept(p, ".section")) {
			while (TK(p)->kind != TK_EOF && !is(p, "{"))
				p->i++;
			int depth = 0;
			do {
				if (is(p, "{"))
					depth++;
				else if (is(p, "}"))
					depth--;
				p->i++;
			} while (depth > 0 && TK(p)->kind != TK_EOF);
			continue;
		}
		if (accept(p, ".pragma")) {
			if (!skip_to_semi(p))
				return false;
			continue;
		}
		bool visible = false, external = false;
		for (;;) {
			if (accept(p, ".visible"))
				visible = true;
			else if (accept(p, ".extern"))
				external = true;
			else if (accept(p, ".weak") || accept(p, ".common"))
				visible = true;
			else
				break;
		}
		if (accept(p, ".entry")) {
			if (!function(p, true, external))
				return false;
			continue;
		}
		if (accept(p, ".func")) {
			if (!function(p, false, external))
				return false;
			continue;
		}
		Token *t = TK(p);
		int sp = t->kind == TK_IDENT ? space_of(t->s, t->len) : -1;
		if (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_SHARED) {
			p->i++;
			if (!var_decl(p, sp, visible, external, NULL))
				return false;
			continue;
		}
		return fail(p, "unexpected '%s' at module level", tok_text(t, (char[64]){0}, 64));
	}
	if (!seen_version)
		return fail(p, "not PTX: no .version directive%s", "");
	return true;
}

void ptx_module_free(Module *m)
{
	if (!m)
		return;
	for (int k = 0; k < m->nvars; k++) {
		free(m->vars[k].name);
		free(m->vars[k].init);
	}
	free(m->vars);
	for (int k = 0; k < m->nfuncs; k++) {
		Func *f = &m->funcs[k];
		for (int j = 0; j < f->nparams; j++)
			free(f->params[j].name);
		for (int j = 0; j < f->nrets; j++)
			free(f->rets[j].name);
		free(f->params);
		free(f->rets);
		free(f->name);
		free(f->code);
		free(f->init);
		free(f->rank_slots);
		free(f->sreg_slot);
	}
	free(m->funcs);
	for (int k = 0; k < m->nfiles; k++)
		free(m->files[k]);
	free(m->files);
	free(m->locs);
	free(m->calls);
	free(m->xs);
	free(m->path);
	free(m);
}

Module *ptx_parse(const char *path, const char *text, size_t len)
{
	Lexer lx = { .path = path, .p = text, .end = text + len, .line = 1 };
	P p = { .path = path };
	int cap = 1024;
	p.t = xcalloc((size_t)cap, sizeof *p.t);
	for (;;) {
		if (p.n == cap) {
			cap *= 2;
			p.t = xrealloc(p.t, (size_t)cap * sizeof *p.t);
		}
		if (!lex_next(&lx, &p.t[p.n])) {
			free(p.t);
			return NULL;
		}
		if (p.t[p.n++].kind == TK_EOF)
			break;
	}
	/* padding so lookahead past EOF stays on EOF */
	p.t = xrealloc(p.t, (size_t)(p.n + 2) * sizeof *p.t);
	p.t[p.n] = p.t[p.n - 1];
	p.t[p.n + 1] = p.t[p.n - 1];
	Module *m = xcalloc(1, sizeof *m);
	m->path = xstrdup(path);
	m->locs = xcalloc(1, sizeof *m->locs);     /* loc 0: none */
	m->nlocs = 1;
	p.m = m;
	bool ok = module(&p);
	free(p.t);
	if (!ok) {
		ptx_module_free(m);
		return NULL;
	}
	return m;
}
