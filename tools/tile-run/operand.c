/* operand.c: the decoder's operands -> register slots (decode.c,
 * decode_async.c and parse.c call it; it calls nothing of theirs).
 * Registers by name (ranges %r<N> included), special registers as
 * per-thread slots, immediates (typed by the instruction) and symbol
 * addresses as constant slots, deduplicated; the sink '_' is slot 1 and
 * the constant 0 slot 0. Every failure is one message naming the PTX line
 * (dc_bad) and false. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

bool dc_bad(DecodeCtx *dc, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_plain("%s:%u: %s", dc->m->path, dc->line, msg);
	return false;
}

int dc_new_slot(DecodeCtx *dc)
{
	if (dc->nslots == dc->capinit) {
		dc->capinit = dc->capinit ? dc->capinit * 2 : 256;
		dc->init = xrealloc(dc->init, (size_t)dc->capinit * sizeof *dc->init);
	}
	dc->init[dc->nslots] = 0;
	return dc->nslots++;
}

int dc_const_slot(DecodeCtx *dc, uint64_t v)
{
	if (v == 0)
		return 0;
	for (int k = 0; k < dc->nconsts; k++)
		if (dc->consts[k] == v)
			return dc->const_slot[k];
	if (dc->nconsts == dc->capconsts) {
		dc->capconsts = dc->capconsts ? dc->capconsts * 2 : 64;
		dc->consts = xrealloc(dc->consts, (size_t)dc->capconsts * sizeof *dc->consts);
		dc->const_slot = xrealloc(dc->const_slot, (size_t)dc->capconsts * sizeof *dc->const_slot);
	}
	int s = dc_new_slot(dc);
	dc->init[s] = v;
	dc->consts[dc->nconsts] = v;
	dc->const_slot[dc->nconsts++] = s;
	return s;
}

int dc_shared_slot(DecodeCtx *dc, uint64_t v)
{
	for (int k = 0; k < dc->nsconsts; k++)
		if (dc->sconsts[k] == v)
			return dc->sconst_slot[k];
	if (dc->nsconsts == dc->capsconsts) {
		dc->capsconsts = dc->capsconsts ? dc->capsconsts * 2 : 16;
		dc->sconsts = xrealloc(dc->sconsts, (size_t)dc->capsconsts * sizeof *dc->sconsts);
		dc->sconst_slot = xrealloc(dc->sconst_slot, (size_t)dc->capsconsts * sizeof *dc->sconst_slot);
	}
	int s = dc_new_slot(dc);
	dc->init[s] = v;
	dc->sconsts[dc->nsconsts] = v;
	dc->sconst_slot[dc->nsconsts++] = s;
	return s;
}

Var *module_lookup_var(Module *m, const char *name, int *index)
{
	for (int k = m->nvars - 1; k >= 0; k--)
		if (strcmp(m->vars[k].name, name) == 0) {
			if (index)
				*index = k;
			return &m->vars[k];
		}
	return NULL;
}

int module_lookup_func(Module *m, const char *name)
{
	for (int k = 0; k < m->nfuncs; k++)
		if (strcmp(m->funcs[k].name, name) == 0)
			return k;
	return -1;
}

/* the register entry for name (ranges: %r12 in %r<N>); NULL if none.
 * *slot gets the register's slot. */
static Name *lookup_reg(DecodeCtx *dc, const char *name, int *slot)
{
	for (int k = dc->nnames - 1; k >= 0; k--) {
		Name *nm = &dc->names[k];
		if (nm->kind != NM_REG)
			continue;
		if (nm->space == 1) {   /* range */
			size_t pl = strlen(nm->name);
			if (strncmp(name, nm->name, pl) == 0 && name[pl] >= '0' && name[pl] <= '9') {
				const char *q = name + pl;
				if (q[0] == '0' && q[1])
					continue;
				char *end;
				unsigned long i = strtoul(q, &end, 10);
				if (*end == 0 && i < nm->addr) {
					*slot = nm->slot + (int)i;
					return nm;
				}
			}
		} else if (strcmp(nm->name, name) == 0) {
			*slot = nm->slot;
			return nm;
		}
	}
	return NULL;
}

Name *dc_lookup(DecodeCtx *dc, const char *name)
{
	int slot;
	Name *nm = lookup_reg(dc, name, &slot);
	if (nm) {
		dc->found = *nm;
		dc->found.slot = slot;
		return &dc->found;
	}
	for (int k = dc->nnames - 1; k >= 0; k--)
		if (dc->names[k].kind != NM_REG && strcmp(dc->names[k].name, name) == 0)
			return &dc->names[k];
	return NULL;
}

int dc_sreg_id(const char *name)
{
	static const char *const names[] = {
#define S(n, e) n,
		SREGS(S)
#undef S
	};
	for (int k = 0; k < SR_COUNT; k++)
		if (strcmp(names[k], name) == 0)
			return k;
	return -1;
}

static int sreg_slot(DecodeCtx *dc, int id)
{
	if (dc->f->sreg_slot[id] < 0)
		dc->f->sreg_slot[id] = dc_new_slot(dc);
	return dc->f->sreg_slot[id];
}

/* the address of a symbol in its state space (and the space) */
static bool sym_addr(DecodeCtx *dc, const char *name, uint64_t *addr, int *space)
{
	Name *nm = dc_lookup(dc, name);
	if (nm && (nm->kind == NM_VAR || nm->kind == NM_PARAM)) {
		*addr = nm->addr;
		*space = nm->space;
		return true;
	}
	int vi;
	if (module_lookup_var(dc->m, name, &vi)) {
		Var *v = &dc->m->vars[vi];
		*addr = v->addr;
		*space = v->space;
		return true;
	}
	int fi = module_lookup_func(dc->m, name);
	if (fi >= 0) {
		*addr = 0xF000000000000000ull | (uint64_t)fi;
		*space = SP_GLOBAL;
		return true;
	}
	return false;
}

static float to_f32(double d)
{
	return (float)d;
}

/* an immediate's bits for an instruction of type ty */
static uint64_t imm_bits(const Imm *im, int ty)
{
	switch (im->kind) {
	case TK_FLOAT:
		if (ty == TY_F64) {
			uint64_t u;
			memcpy(&u, &im->f, 8);
			return u;
		} else if (ty == TY_F32 || ty == TY_F32X2) {
			float f = to_f32(im->f);
			uint32_t u;
			memcpy(&u, &f, 4);
			return u;
		}
		return (uint64_t)(int64_t)im->f;
	case TK_F32:
		if (ty == TY_F64) {     /* 0f literal in an f64 instruction: widen */
			uint32_t u = (uint32_t)im->bits;
			float f;
			memcpy(&f, &u, 4);
			double d = f;
			uint64_t r;
			memcpy(&r, &d, 8);
			return r;
		}
		return im->bits;
	case TK_F64:
		if (ty == TY_F32) {
			double d;
			memcpy(&d, &im->bits, 8);
			float f = (float)d;
			uint32_t u;
			memcpy(&u, &f, 4);
			return u;
		}
		return im->bits;
	default:
		return im->bits;
	}
}

/* a source operand -> slot; ty types immediates */
bool dc_src(DecodeCtx *dc, const RawOperand *o, int ty, int32_t *slot)
{
	switch (o->kind) {
	case RO_IMM:
		*slot = dc_const_slot(dc, imm_bits(&o->imm, ty));
		return true;
	case RO_REG: {
		int s;
		if (lookup_reg(dc, o->name, &s)) {
			*slot = s;
			return true;
		}
		int id = dc_sreg_id(o->name);
		if (id >= 0) {
			*slot = sreg_slot(dc, id);
			return true;
		}
		if (strncmp(o->name, "%envreg", 7) == 0 || strncmp(o->name, "%pm", 3) == 0 ||
		    strncmp(o->name, "%reserved_smem", 14) == 0 || strcmp(o->name, "%warpsz") == 0) {
			uint64_t v = strcmp(o->name, "%warpsz") == 0 ? 32 : 0;
			*slot = dc_const_slot(dc, v);
			return true;
		}
		return dc_bad(dc, "unknown register '%s'", o->name);
	}
	case RO_SYM: {
		uint64_t a;
		int sp, rs;
		if (lookup_reg(dc, o->name, &rs)) {     /* a register named without % */
			*slot = rs;
			return true;
		}
		if (!sym_addr(dc, o->name, &a, &sp))
			return dc_bad(dc, "unknown symbol '%s'", o->name);
		*slot = sp == SP_SHARED ? dc_shared_slot(dc, a + (uint64_t)o->off) : dc_const_slot(dc, a + (uint64_t)o->off);
		return true;
	}
	case RO_SINK:
		*slot = 1;
		return true;
	default:
		return dc_bad(dc, "unexpected operand form");
	}
}

bool dc_dst(DecodeCtx *dc, const RawOperand *o, int32_t *slot)
{
	if (o->kind == RO_SINK) {
		*slot = 1;
		return true;
	}
	if (o->kind != RO_REG && o->kind != RO_SYM)
		return dc_bad(dc, "destination must be a register");
	if (!lookup_reg(dc, o->name, slot))
		return dc_bad(dc, "unknown register '%s'", o->name);
	return true;
}

/* the second register of a destination pair (setp's p|q, elect's r|p): o->name2 */
bool dc_dst_second(DecodeCtx *dc, const RawOperand *o, int32_t *slot)
{
	RawOperand q = *o;
	snprintf(q.name, sizeof q.name, "%s", o->name2);
	return dc_dst(dc, &q, slot);
}

/* [base+off]: base slot (0 for a bare number) and offset; space from a symbol */
bool dc_addr(DecodeCtx *dc, const RawOperand *o, Insn *in, int32_t *slot)
{
	if (o->kind != RO_ADDR)
		return dc_bad(dc, "expected an address operand [..]");
	if (o->nsub)
		return dc_bad(dc, "unexpected coordinate vector in an address");
	in->off = o->off;
	if (!o->name[0]) {
		in->off += (int64_t)o->imm.bits;
		*slot = 0;
		return true;
	}
	int s;
	if (lookup_reg(dc, o->name, &s)) {
		*slot = s;
		return true;
	}
	uint64_t a;
	int sp;
	if (!sym_addr(dc, o->name, &a, &sp))
		return dc_bad(dc, "unknown symbol '%s'", o->name);
	if (in->space == SP_GENERIC && sp != SP_GLOBAL && sp != SP_CONST) {
		/* a generic access through a non-global symbol: make it generic */
		if (sp == SP_SHARED)
			a += GEN_SHARED_BASE;
		else if (sp == SP_LOCAL)
			a += GEN_LOCAL_BASE;
		else
			in->space = (uint8_t)sp;
	}
	*slot = sp == SP_SHARED ? dc_shared_slot(dc, a) : dc_const_slot(dc, a);
	return true;
}

bool dc_vec_or_reg(DecodeCtx *dc, const RawOperand *o, bool isdst, int ty, int32_t *slots, int want)
{
	if (o->kind == RO_VEC) {
		if (o->nsub != want)
			return dc_bad(dc, "vector operand has the wrong number of elements");
		for (int k = 0; k < o->nsub; k++)
			if (!(isdst ? dc_dst(dc, &o->sub[k], &slots[k]) : dc_src(dc, &o->sub[k], ty, &slots[k])))
				return false;
		return true;
	}
	if (want != 1)
		return dc_bad(dc, "expected a vector operand {..}");
	return isdst ? dc_dst(dc, o, &slots[0]) : dc_src(dc, o, ty, &slots[0]);
}

bool dc_need(DecodeCtx *dc, int nops, int lo, int hi, const char *opc)
{
	if (nops < lo || nops > hi)
		return dc_bad(dc, "wrong number of operands for '%s'", opc);
	return true;
}

bool dc_add_fix(DecodeCtx *dc, const char *label)
{
	if (dc->nfix == dc->capfix) {
		dc->capfix = dc->capfix ? dc->capfix * 2 : 32;
		dc->fix = xrealloc(dc->fix, (size_t)dc->capfix * sizeof *dc->fix);
	}
	dc->fix[dc->nfix].insn = dc->f->ncode;
	dc->fix[dc->nfix].label = xstrdup(label);
	dc->fix[dc->nfix].line = dc->line;
	dc->nfix++;
	return true;
}
