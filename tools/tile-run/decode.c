/* decode.c: one parsed PTX instruction -> Insn.
 * The opcode's first dot-component picks the Op (ops.def); every further
 * component is looked up in the modifier table below and lands in a field
 * of Insn (type, rounding, comparison, state space, flags, mode). An
 * unknown opcode or modifier is a user error naming the PTX line: nothing
 * is ignored unless the table says it does not change the result
 * (memory-ordering semantics, scopes and cache hints: execution here is
 * sequentially consistent and has no caches).
 * Operands become register slots: registers by name, immediates and symbol
 * addresses as constant slots, special registers as per-thread slots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

static const struct { const char *name; int op; } opnames[] = {
#define O(n, e, f) { #n, OP_##e },
#include "ops.def"
#undef O
};

/* modifier classes */
enum { MC_TYPE = 1, MC_RND, MC_RNDI, MC_FLAG, MC_CMP, MC_LOGIC, MC_AOP, MC_SPACE, MC_VEC, MC_SHFL,
       MC_VOTE, MC_PRMT, MC_IGNORE, MC_BAR, MC_CP, MC_LOHI, MC_TESTP, MC_MATRIX, MC_MMA };

static const struct { const char *s; int cls; uint32_t v; } mods[] = {
	{ "rn", MC_RND, RND_RN }, { "rz", MC_RND, RND_RZ }, { "rm", MC_RND, RND_RM }, { "rp", MC_RND, RND_RP },
	{ "rna", MC_RND, RND_RNA }, { "rs", MC_RND, RND_RS },
	{ "rni", MC_RNDI, RND_RN }, { "rzi", MC_RNDI, RND_RZ }, { "rmi", MC_RNDI, RND_RM }, { "rpi", MC_RNDI, RND_RP },
	{ "ftz", MC_FLAG, F_FTZ }, { "sat", MC_FLAG, F_SAT }, { "satfinite", MC_FLAG, F_SATFINITE },
	{ "approx", MC_FLAG, F_APPROX }, { "full", MC_FLAG, F_FULL }, { "wide", MC_FLAG, F_WIDE },
	{ "cc", MC_FLAG, F_CC }, { "NaN", MC_FLAG, F_NAN }, { "abs", MC_FLAG, F_ABS },
	{ "xorsign", MC_FLAG, F_XORSIGN }, { "relu", MC_FLAG, F_RELU }, { "noftz", MC_FLAG, F_NOFTZ },
	{ "uni", MC_FLAG, F_UNI }, { "wrap", MC_FLAG, F_WRAP }, { "clamp", MC_IGNORE, 0 },
	{ "l", MC_FLAG, F_LEFT }, { "r", MC_IGNORE, 0 }, { "to", MC_FLAG, F_TO }, { "shiftamt", MC_FLAG, F_SHIFTAMT },
	{ "lo", MC_LOHI, F_LO }, { "hi", MC_LOHI, F_HI },
	{ "eq", MC_CMP, CMP_EQ }, { "ne", MC_CMP, CMP_NE }, { "lt", MC_CMP, CMP_LT }, { "le", MC_CMP, CMP_LE },
	{ "gt", MC_CMP, CMP_GT }, { "ge", MC_CMP, CMP_GE }, { "ls", MC_CMP, CMP_LS }, { "hs", MC_CMP, CMP_HS },
	{ "equ", MC_CMP, CMP_EQU }, { "neu", MC_CMP, CMP_NEU }, { "ltu", MC_CMP, CMP_LTU }, { "leu", MC_CMP, CMP_LEU },
	{ "gtu", MC_CMP, CMP_GTU }, { "geu", MC_CMP, CMP_GEU }, { "num", MC_CMP, CMP_NUM }, { "nan", MC_CMP, CMP_NAN },
	{ "and", MC_LOGIC, AOP_AND }, { "or", MC_LOGIC, AOP_OR }, { "xor", MC_LOGIC, AOP_XOR },
	{ "add", MC_AOP, AOP_ADD }, { "min", MC_AOP, AOP_MIN }, { "max", MC_AOP, AOP_MAX }, { "inc", MC_AOP, AOP_INC },
	{ "dec", MC_AOP, AOP_DEC }, { "exch", MC_AOP, AOP_EXCH }, { "cas", MC_AOP, AOP_CAS },
	{ "global", MC_SPACE, SP_GLOBAL }, { "shared", MC_SPACE, SP_SHARED }, { "shared::cta", MC_SPACE, SP_SHARED },
	{ "shared::cluster", MC_SPACE, SP_SHARED }, { "local", MC_SPACE, SP_LOCAL }, { "param", MC_SPACE, SP_PARAM },
	{ "param::entry", MC_SPACE, SP_PARAM }, { "param::func", MC_SPACE, SP_PARAM },
	{ "const", MC_SPACE, SP_CONST }, { "generic", MC_IGNORE, 0 },
	{ "v2", MC_VEC, 2 }, { "v4", MC_VEC, 4 }, { "v8", MC_VEC, 8 },
	{ "up", MC_SHFL, SHFL_UP }, { "down", MC_SHFL, SHFL_DOWN }, { "bfly", MC_SHFL, SHFL_BFLY }, { "idx", MC_SHFL, SHFL_IDX },
	{ "all", MC_VOTE, VOTE_ALL }, { "any", MC_VOTE, VOTE_ANY }, { "ballot", MC_VOTE, VOTE_BALLOT },
	{ "f4e", MC_PRMT, PRMT_F4E }, { "b4e", MC_PRMT, PRMT_B4E }, { "rc8", MC_PRMT, PRMT_RC8 },
	{ "ecl", MC_PRMT, PRMT_ECL }, { "ecr", MC_PRMT, PRMT_ECR }, { "rc16", MC_PRMT, PRMT_RC16 },
	{ "sync", MC_BAR, BAR_SYNC }, { "arrive", MC_BAR, BAR_ARRIVE }, { "red", MC_BAR, 0 }, { "popc", MC_BAR, BAR_RED_POPC },
	{ "warp", MC_BAR, BAR_WARP_SYNC },
	{ "async", MC_CP, CP_ASYNC }, { "commit_group", MC_CP, CP_COMMIT }, { "wait_group", MC_CP, CP_WAIT_GROUP },
	{ "wait_all", MC_CP, CP_WAIT_ALL },
	{ "m8n8", MC_MATRIX, 0 }, { "x1", MC_MATRIX, 1 }, { "x2", MC_MATRIX, 2 }, { "x4", MC_MATRIX, 4 },
	{ "trans", MC_FLAG, F_TRANS },
	{ "m16n8k16", MC_MMA, MMA_M16N8K16 }, { "m16n8k8", MC_MMA, MMA_M16N8K8 },
	{ "m16n8k32", MC_MMA, MMA_M16N8K32 }, { "m8n8k4", MC_MMA, MMA_M8N8K4 },
	{ "row", MC_MMA, 0 }, { "col", MC_MMA, 0 },
	{ "kind::mxf8f6f4", MC_FLAG, F_KIND_MX }, { "block_scale", MC_FLAG, F_BSCALE }, { "scale_vec::1X", MC_MMA, 0 },
	{ "finite", MC_TESTP, 1 }, { "infinite", MC_TESTP, 2 }, { "number", MC_TESTP, 3 },
	{ "notanumber", MC_TESTP, 4 }, { "normal", MC_TESTP, 5 }, { "subnormal", MC_TESTP, 6 },
	/* ordering, scopes, cache and proxy hints: no effect on a sequential machine */
	{ "aligned", MC_IGNORE, 0 }, { "relaxed", MC_IGNORE, 0 }, { "acquire", MC_IGNORE, 0 },
	{ "release", MC_IGNORE, 0 }, { "acq_rel", MC_IGNORE, 0 }, { "sc", MC_IGNORE, 0 }, { "weak", MC_IGNORE, 0 },
	{ "volatile", MC_IGNORE, 0 }, { "mmio", MC_IGNORE, 0 }, { "cta", MC_IGNORE, 0 }, { "gpu", MC_IGNORE, 0 },
	{ "sys", MC_IGNORE, 0 }, { "cluster", MC_IGNORE, 0 }, { "ca", MC_IGNORE, 0 }, { "cg", MC_IGNORE, 0 },
	{ "cs", MC_IGNORE, 0 }, { "lu", MC_IGNORE, 0 }, { "cv", MC_IGNORE, 0 }, { "wb", MC_IGNORE, 0 },
	{ "wt", MC_IGNORE, 0 }, { "nc", MC_IGNORE, 0 }, { "proxy", MC_IGNORE, 0 }, { "alias", MC_IGNORE, 0 },
	{ "L1::evict_normal", MC_IGNORE, 0 }, { "L1::evict_unchanged", MC_IGNORE, 0 },
	{ "L1::evict_first", MC_IGNORE, 0 }, { "L1::evict_last", MC_IGNORE, 0 }, { "L1::no_allocate", MC_IGNORE, 0 },
	{ "L2::evict_normal", MC_IGNORE, 0 }, { "L2::evict_first", MC_IGNORE, 0 }, { "L2::evict_last", MC_IGNORE, 0 },
	{ "L2::cache_hint", MC_IGNORE, 0 }, { "L2::64B", MC_IGNORE, 0 }, { "L2::128B", MC_IGNORE, 0 }, { "L2::256B", MC_IGNORE, 0 },
	{ "L1", MC_IGNORE, 0 }, { "L2", MC_IGNORE, 0 }, { "level::eviction_priority", MC_IGNORE, 0 },
	{ "wait", MC_IGNORE, 0 }, { "launch_dependents", MC_IGNORE, 0 }, { "inc", MC_IGNORE, 0 },
	{ "dec", MC_IGNORE, 0 }, { "gl", MC_IGNORE, 0 }, { "unified", MC_IGNORE, 0 },
	{ "tensormap", MC_IGNORE, 0 },          /* prefetch.tensormap */
	{ "mbarrier_init", MC_IGNORE, 0 },      /* fence.mbarrier_init */
};

static bool bad(DecodeCtx *dc, const char *fmt, const char *a, const char *b)
{
	char msg[300];
	snprintf(msg, sizeof msg, fmt, a, b);
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
		static Name tmp;
		tmp = *nm;
		tmp.slot = slot;
		return &tmp;
	}
	for (int k = dc->nnames - 1; k >= 0; k--)
		if (dc->names[k].kind != NM_REG && strcmp(dc->names[k].name, name) == 0)
			return &dc->names[k];
	return NULL;
}

static int sreg_id(const char *name)
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
static bool src(DecodeCtx *dc, const RawOperand *o, int ty, int32_t *slot)
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
		int id = sreg_id(o->name);
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
		return bad(dc, "unknown register '%s'%s", o->name, "");
	}
	case RO_SYM: {
		uint64_t a;
		int sp, rs;
		if (lookup_reg(dc, o->name, &rs)) {     /* a register named without % */
			*slot = rs;
			return true;
		}
		if (!sym_addr(dc, o->name, &a, &sp))
			return bad(dc, "unknown symbol '%s'%s", o->name, "");
		*slot = dc_const_slot(dc, a + (uint64_t)o->off);
		return true;
	}
	case RO_SINK:
		*slot = 1;
		return true;
	default:
		return bad(dc, "unexpected operand form%s%s", "", "");
	}
}

static bool dst(DecodeCtx *dc, const RawOperand *o, int32_t *slot)
{
	if (o->kind == RO_SINK) {
		*slot = 1;
		return true;
	}
	if (o->kind != RO_REG && o->kind != RO_SYM)
		return bad(dc, "destination must be a register%s%s", "", "");
	if (!lookup_reg(dc, o->name, slot))
		return bad(dc, "unknown register '%s'%s", o->name, "");
	return true;
}

/* [base+off]: base slot (0 for a bare number) and offset; space from a symbol */
/* the second register of a destination pair (setp's p|q, elect's r|p): o->name2 */
static bool dst_second(DecodeCtx *dc, const RawOperand *o, int32_t *slot)
{
	RawOperand q = *o;
	snprintf(q.name, sizeof q.name, "%s", o->name2);
	return dst(dc, &q, slot);
}

static bool addr(DecodeCtx *dc, const RawOperand *o, Insn *in, int32_t *slot)
{
	if (o->kind != RO_ADDR)
		return bad(dc, "expected an address operand [..]%s%s", "", "");
	if (o->nsub)
		return bad(dc, "unexpected coordinate vector in an address%s%s", "", "");
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
		return bad(dc, "unknown symbol '%s'%s", o->name, "");
	if (in->space == SP_GENERIC && sp != SP_GLOBAL && sp != SP_CONST) {
		/* a generic access through a non-global symbol: make it generic */
		if (sp == SP_SHARED)
			a += GEN_SHARED_BASE;
		else if (sp == SP_LOCAL)
			a += GEN_LOCAL_BASE;
		else
			in->space = (uint8_t)sp;
	}
	*slot = dc_const_slot(dc, a);
	return true;
}

static bool vec_or_reg(DecodeCtx *dc, const RawOperand *o, bool isdst, int ty, int32_t *slots, int want)
{
	if (o->kind == RO_VEC) {
		if (o->nsub != want)
			return bad(dc, "vector operand has the wrong number of elements%s%s", "", "");
		for (int k = 0; k < o->nsub; k++)
			if (!(isdst ? dst(dc, &o->sub[k], &slots[k]) : src(dc, &o->sub[k], ty, &slots[k])))
				return false;
		return true;
	}
	if (want != 1)
		return bad(dc, "expected a vector operand {..}%s%s", "", "");
	return isdst ? dst(dc, o, &slots[0]) : src(dc, o, ty, &slots[0]);
}

static bool need(DecodeCtx *dc, int nops, int lo, int hi, const char *opc)
{
	if (nops < lo || nops > hi)
		return bad(dc, "wrong number of operands for '%s'%s", opc, "");
	return true;
}

static int op_of(const char *base)
{
	for (size_t k = 0; k < sizeof opnames / sizeof *opnames; k++)
		if (strcmp(opnames[k].name, base) == 0)
			return opnames[k].op;
	return 0;
}

static bool add_fix(DecodeCtx *dc, const char *label)
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

static bool call(DecodeCtx *dc, Insn *in, RawOperand *ops, int nops, const char *opc)
{
	int k = 0;
	RawOperand *rets = NULL, *args = NULL;
	int nrets = 0, nargs = 0;
	if (k < nops && ops[k].kind == RO_LIST) {
		rets = ops[k].sub;
		nrets = ops[k].nsub;
		k++;
	}
	if (k >= nops || ops[k].kind != RO_SYM)
		return bad(dc, "call: expected a function name in '%s'%s", opc, "");
	const char *fname = ops[k].name;
	k++;
	if (k < nops && ops[k].kind == RO_LIST) {
		args = ops[k].sub;
		nargs = ops[k].nsub;
		k++;
	}
	/* a trailing prototype operand is allowed */
	int fi = module_lookup_func(dc->m, fname);
	if (fi < 0)
		return bad(dc, "call of unknown function '%s'%s", fname, "");
	if (nargs > 16 || nrets > 4)
		return bad(dc, "call: too many parameters%s%s", "", "");
	/* parameter symbols are call-site .param variables of this function */
	uint32_t aoff[16], asz[16], roff[4], rsz[4];
	for (int j = 0; j < nargs + nrets; j++) {
		RawOperand *o = j < nargs ? &args[j] : &rets[j - nargs];
		Name *nm = o->kind == RO_SYM ? dc_lookup(dc, o->name) : NULL;
		if (!nm || nm->kind != NM_PARAM)
			return bad(dc, "call: '%s' is not a .param variable%s", o->kind == RO_SYM ? o->name : "?", "");
		if (j < nargs) {
			aoff[j] = (uint32_t)nm->addr;
			asz[j] = (uint32_t)nm->slot;
		} else {
			roff[j - nargs] = (uint32_t)nm->addr;
			rsz[j - nargs] = (uint32_t)nm->slot;
		}
	}
	Module *m = dc->m;
	m->calls = xrealloc(m->calls, (size_t)(m->ncalls + 1) * sizeof *m->calls);
	CallInfo *ci = &m->calls[m->ncalls];
	memset(ci, 0, sizeof *ci);
	ci->func = fi;
	ci->nargs = nargs;
	ci->nrets = nrets;
	memcpy(ci->arg_off, aoff, sizeof(uint32_t) * (size_t)nargs);
	memcpy(ci->arg_size, asz, sizeof(uint32_t) * (size_t)nargs);
	memcpy(ci->ret_off, roff, sizeof(uint32_t) * (size_t)nrets);
	memcpy(ci->ret_size, rsz, sizeof(uint32_t) * (size_t)nrets);
	in->target = m->ncalls++;
	Func *f = &m->funcs[fi];
	if (strcmp(fname, "vprintf") == 0)
		in->op = OP_CALL_VPRINTF;
	else if (strcmp(fname, "malloc") == 0 || strcmp(fname, "__cuda_syscall_aligned_malloc") == 0)
		in->op = OP_CALL_MALLOC;
	else if (strcmp(fname, "free") == 0)
		in->op = OP_CALL_FREE;
	else if (strcmp(fname, "__assertfail") == 0)
		in->op = OP_CALL_ASSERT;
	else if (f->external && !f->defined)
		return bad(dc, "call of external function '%s', which tile-run does not provide%s", fname, "");
	else
		in->op = OP_CALL_FUNC;
	if (in->op == OP_CALL_VPRINTF && nargs != 2)
		return bad(dc, "vprintf takes 2 parameters%s%s", "", "");
	if (in->op == OP_CALL_ASSERT && nargs < 4)
		return bad(dc, "__assertfail takes 5 parameters%s%s", "", "");
	if (in->op == OP_CALL_MALLOC && (nargs < 1 || nrets != 1))
		return bad(dc, "malloc: bad call%s%s", "", "");
	if (in->op == OP_CALL_FREE && nargs != 1)
		return bad(dc, "free: bad call%s%s", "", "");
	return true;
}

/* 13.5's multimem.* on a multicast address, as on a machine with one GPU in
 * the multicast group (docs/tile-run.md): ld_reduce of one copy is a load,
 * red a reduction, st a store. "multimem.ld_reduce.relaxed.sys.global.add.f32"
 * -> "ld.relaxed.sys.global.f32"; "multimem.red..." -> "red..."; st alike. */
static const char *multimem_as_plain(const char *opcode, char *out, size_t n)
{
	static const char *const reds[] = { "add", "min", "max", "and", "or", "xor", NULL };
	if (strncmp(opcode, "multimem.", 9) != 0)
		return opcode;
	const char *rest = opcode + 9;
	bool ldr = strncmp(rest, "ld_reduce.", 10) == 0;
	snprintf(out, n, "%s", ldr ? "ld" : strncmp(rest, "red.", 4) == 0 ? "red" : strncmp(rest, "st.", 3) == 0 ? "st" : "multimem");
	const char *p = strchr(rest, '.');
	while (p && *p) {
		const char *q = strchr(p + 1, '.');
		size_t len = q ? (size_t)(q - p - 1) : strlen(p + 1);
		bool drop = false;
		for (int i = 0; ldr && reds[i]; i++)
			drop |= strlen(reds[i]) == len && strncmp(p + 1, reds[i], len) == 0;
		if (!drop && strlen(out) + len + 2 < n)
			snprintf(out + strlen(out), n - strlen(out), ".%.*s", (int)len, p + 1);
		p = q;
	}
	return out;
}

int decode_insn(DecodeCtx *dc, Insn *in, const char *opcode, RawOperand *ops, int nops)
{
	char buf[128], mm[128];
	opcode = multimem_as_plain(opcode, mm, sizeof mm);
	snprintf(buf, sizeof buf, "%s", opcode);
	char *parts[16];
	int np = 0;
	for (char *q = strtok(buf, "."); q && np < 16; q = strtok(NULL, "."))
		parts[np++] = q;
	/* "shared::cta" style modifiers were split at '.', not at "::": fine */
	int op = np ? op_of(parts[0]) : 0;
	if (!op)
		return bad(dc, "unsupported instruction '%s'%s", opcode, ""), -1;
	in->op = (uint16_t)op;
	in->guard = -1;
	/* Hopper's async machinery: decode_async.c */
	if (op == OP_WGMMA || op == OP_MBARRIER ||
	    (op == OP_CP && (strstr(opcode, ".bulk") || strstr(opcode, ".mbarrier"))))
		return decode_async(dc, in, opcode, parts, np, ops, nops);
	int types[5] = { 0 }, nty = 0;
	int aop = 0, logic = 0, vote = 0, bar = 0, cp = 0;
	bool shape_m8n8 = false;
	int mma_k = 0;
	for (int k = 1; k < np; k++) {
		const char *s = parts[k];
		int ty = type_from_name(s);
		if (ty) {
			if (nty == (op == OP_MMA ? 5 : 3))
				return bad(dc, "too many types in '%s'%s", opcode, ""), -1;
			types[nty++] = ty;
			continue;
		}
		size_t j;
		for (j = 0; j < sizeof mods / sizeof *mods; j++)
			if (strcmp(mods[j].s, s) == 0)
				break;
		if (j == sizeof mods / sizeof *mods) {
			if (strncmp(s, "L2::", 4) == 0 || strncmp(s, "L1::", 4) == 0)
				return bad(dc, "unsupported cache modifier .%s in '%s'", s, opcode), -1;
			return bad(dc, "unsupported modifier .%s in '%s'", s, opcode), -1;
		}
		uint32_t v = mods[j].v;
		switch (mods[j].cls) {
		case MC_RND: in->rnd = (uint8_t)v; break;
		case MC_RNDI: in->rnd = (uint8_t)v; in->flags |= F_INTRND; break;
		case MC_FLAG: in->flags |= v; break;
		case MC_LOHI:
			if (op == OP_SETP || op == OP_SET || op == OP_SLCT)
				in->cmp = v == F_LO ? CMP_LO : CMP_HI;
			else
				in->flags |= v;
			break;
		case MC_CMP: in->cmp = (uint8_t)v; break;
		case MC_LOGIC: logic = (int)v; break;
		case MC_AOP:
			if ((op == OP_MIN || op == OP_MAX) && v == AOP_ADD)
				return bad(dc, "bad modifier in '%s'%s", opcode, ""), -1;
			aop = (int)v;
			break;
		case MC_SPACE: in->space = (uint8_t)v; break;
		case MC_VEC: in->vec = (uint8_t)v; break;
		case MC_SHFL: in->mode = (uint8_t)v; break;
		case MC_VOTE: vote = (int)v; break;
		case MC_PRMT: in->mode = (uint8_t)v; break;
		case MC_TESTP: in->mode = (uint8_t)v; break;
		case MC_MATRIX: if (v) in->vec = (uint8_t)v; else shape_m8n8 = true; break;
		case MC_BAR: if (v && bar != BAR_WARP_SYNC) bar = (int)v; break;    /* bar.warp.sync: .sync does not undo .warp */
		case MC_CP: cp = (int)v; break;
		case MC_MMA:
			if (op != OP_MMA)
				return bad(dc, "unsupported modifier .%s in '%s'", s, opcode), -1;
			if (v)
				mma_k = (int)v;
			break;
		case MC_IGNORE: break;
		}
	}
	if ((in->flags & (F_BSCALE | F_KIND_MX)) && op != OP_MMA)
		return bad(dc, "unsupported modifier in '%s'%s", opcode, ""), -1;
	if (op == OP_SETP || op == OP_SET) {
		in->boolop = (uint8_t)logic;
	} else if (op == OP_ATOM || op == OP_RED || op == OP_REDUX) {
		in->mode = (uint8_t)(logic ? logic : aop);
		if (!in->mode)
			return bad(dc, "missing operation in '%s'%s", opcode, ""), -1;
	} else if (op == OP_BAR || op == OP_BARRIER) {
		if (logic == AOP_AND)
			bar = BAR_RED_AND;
		else if (logic == AOP_OR)
			bar = BAR_RED_OR;
		in->mode = (uint8_t)(bar ? bar : BAR_SYNC);
		/* "bar.warp.sync" */
		if (bar == BAR_WARP_SYNC)
			in->mode = BAR_WARP_SYNC;
	} else if (op == OP_VOTE) {
		in->mode = (uint8_t)(vote ? vote : (in->flags & F_UNI ? VOTE_UNI : 0));
		if (!in->mode)
			return bad(dc, "missing mode in '%s'%s", opcode, ""), -1;
	} else if (op == OP_MATCH) {
		in->mode = (uint8_t)(vote == VOTE_ALL ? MATCH_ALL : vote == VOTE_ANY ? MATCH_ANY : 0);
		if (!in->mode)
			return bad(dc, "missing mode in '%s'%s", opcode, ""), -1;
	} else if (op == OP_CP) {
		in->mode = (uint8_t)cp;
		if (!cp)
			return bad(dc, "unsupported instruction '%s'%s", opcode, ""), -1;
	} else if (op == OP_SETMAXNREG) {
		/* setmaxnreg.inc/.dec: register allocation only, a no-op here */
	} else if (logic || aop || vote) {
		return bad(dc, "unsupported modifier in '%s'%s", opcode, ""), -1;
	}
	if (in->rnd == RND_RS)
		return bad(dc, "stochastic rounding (.rs) is not supported: '%s'%s", opcode, ""), -1;
	in->ty = (uint8_t)types[0];
	if (op == OP_MMA) {
		/* mma.sync.aligned.SHAPE.row.col[.satfinite].D.A.B.C (exec_mma.c):
		 * in->ty the A type, cmp the B type, ty2 the D (= C) type, mode the shape */
		int na, nb, nc;
		/* block-scaled (sm_120a): .kind::mxf8f6f4.block_scale[.scale_vec::1X] ... .ue8m0 and
		 * four more operands: scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b} */
		bool bs = in->flags & F_BSCALE;
		bool f8 = types[1] == TY_E4M3 || types[1] == TY_E5M2;
		if (!mma_k || nty != (bs ? 5 : 4) || types[0] != types[3] || (bs && (types[4] != TY_UE8M0 || !f8 ||
		    types[0] != TY_F32 || mma_k != MMA_M16N8K32)) || (bs != !!(in->flags & F_KIND_MX)) ||
		    !mma_regs(mma_k, types[1], types[2], types[0], &na, &nb, &nc) || !need(dc, nops, bs ? 8 : 4, bs ? 8 : 4, opcode))
			return bad(dc, "unsupported mma shape or types: '%s'%s", opcode, ""), -1;
		in->ty = (uint8_t)types[1];
		in->cmp = (uint8_t)types[2];
		in->ty2 = (uint8_t)types[0];
		in->mode = (uint8_t)mma_k;
		int rty = types[0] == TY_F64 ? TY_F64 : types[0] == TY_F32 ? TY_F32 : TY_B32;
		int oty = types[1] == TY_F64 ? TY_F64 : TY_B32;
		if (!vec_or_reg(dc, &ops[0], true, rty, in->d, nc) || !vec_or_reg(dc, &ops[1], false, oty, in->s, na) ||
		    !vec_or_reg(dc, &ops[2], false, oty, in->s + na, nb) || !vec_or_reg(dc, &ops[3], false, rty, in->s + na + nb, nc))
			return -1;
		int ns = na + nb + nc;
		for (int g = 0; bs && g < 2; g++) {     /* scale data, then its {byte-id, thread-id} */
			if (!vec_or_reg(dc, &ops[4 + 2 * g], false, TY_B32, in->s + ns, 1) ||
			    !vec_or_reg(dc, &ops[5 + 2 * g], false, TY_B16, in->s + ns + 1, 2))
				return -1;
			ns += 3;
		}
		in->nd = (uint8_t)nc;
		in->ns = (uint8_t)ns;
		return 0;
	}
	if (op == OP_CVT) {
		if (nty != 2)
			return bad(dc, "cvt needs two types: '%s'%s", opcode, ""), -1;
		in->ty2 = (uint8_t)types[1];
	} else if (nty == 2 && (op == OP_ADD || op == OP_SUB || op == OP_FMA || op == OP_MUL || op == OP_MAD ||
				op == OP_SET || op == OP_SLCT)) {
		/* add.f32.f16 (mixed precision), set.dtype.stype, slct.dtype.s32 */
		in->ty2 = (uint8_t)types[1];
	} else if (nty > 1 && op != OP_ATOM && op != OP_RED) {
		return bad(dc, "unsupported type combination in '%s'%s", opcode, ""), -1;
	}
	if (type_bytes[in->ty] > 8 || type_bytes[in->ty2] > 8)
		return bad(dc, "128-bit operands are not supported: '%s'%s", opcode, ""), -1;
	int ty = in->ty;
	int sty = (op == OP_SET || op == OP_SLCT) ? in->ty2 : ty;
	if (op == OP_CVT)
		sty = in->ty2;
	int32_t *d = in->d, *s = in->s;
	switch (op) {
	case OP_LD: case OP_LDU: {
		if (!need(dc, nops, 2, 3, opcode))
			return -1;
		int n = in->vec ? in->vec : 1;
		if (n > 4)
			return bad(dc, "ld.v8 is not supported%s%s", "", ""), -1;
		if (!vec_or_reg(dc, &ops[0], true, ty, d, n) || !addr(dc, &ops[1], in, &s[0]))
			return -1;
		in->nd = (uint8_t)n;
		in->ns = 1;
		if (!ty)
			return bad(dc, "ld without a type: '%s'%s", opcode, ""), -1;
		return 0;
	}
	case OP_ST: {
		if (!need(dc, nops, 2, 3, opcode))
			return -1;
		int n = in->vec ? in->vec : 1;
		if (n > 4)
			return bad(dc, "st.v8 is not supported%s%s", "", ""), -1;
		if (!addr(dc, &ops[0], in, &s[0]) || !vec_or_reg(dc, &ops[1], false, ty, s + 1, n))
			return -1;
		in->ns = (uint8_t)(1 + n);
		if (!ty)
			return bad(dc, "st without a type: '%s'%s", opcode, ""), -1;
		return 0;
	}
	case OP_LDMATRIX: case OP_STMATRIX: {
		if (!shape_m8n8 || !in->vec || in->ty != TY_B16)
			return bad(dc, "unsupported matrix shape or type in '%s'%s", opcode, ""), -1;
		if (in->space == SP_GENERIC)
			in->space = SP_SHARED;
		if (!need(dc, nops, 2, 2, opcode))
			return -1;
		bool ld = op == OP_LDMATRIX;
		if (!addr(dc, &ops[ld ? 1 : 0], in, &s[0]) || !vec_or_reg(dc, &ops[ld ? 0 : 1], ld, TY_B32, ld ? d : s + 1, in->vec))
			return -1;
		in->nd = ld ? in->vec : 0;
		in->ns = (uint8_t)(ld ? 1 : 1 + in->vec);
		return 0;
	}
	case OP_ATOM:
		if (!need(dc, nops, 3, 5, opcode) || !dst(dc, &ops[0], &d[0]) || !addr(dc, &ops[1], in, &s[0]))
			return -1;
		in->nd = 1;
		for (int k = 2; k < nops && k < 4; k++)
			if (!src(dc, &ops[k], ty, &s[k - 1]))
				return -1;
		in->ns = (uint8_t)(nops - 1 > 3 ? 3 : nops - 1);
		if (in->mode == AOP_CAS && in->ns != 3)
			return bad(dc, "atom.cas needs two values%s%s", "", ""), -1;
		if (in->vec)
			return bad(dc, "vector atomics are not supported: '%s'%s", opcode, ""), -1;
		return 0;
	case OP_RED:
		if (!need(dc, nops, 2, 3, opcode) || !addr(dc, &ops[0], in, &s[0]) || !src(dc, &ops[1], ty, &s[1]))
			return -1;
		in->ns = 2;
		if (in->vec)
			return bad(dc, "vector reductions are not supported: '%s'%s", opcode, ""), -1;
		return 0;
	case OP_PREFETCH: case OP_PREFETCHU: case OP_FENCE: case OP_MEMBAR: case OP_GRIDDEPCONTROL:
	case OP_SETMAXNREG: case OP_PMEVENT: case OP_BRKPT:
		return 0;
	case OP_NANOSLEEP:
		return 0;
	case OP_CP:
		if (in->mode == CP_ASYNC) {
			if (strstr(opcode, ".bulk"))
				return bad(dc, "unsupported instruction '%s'%s", opcode, ""), -1;
			if (!need(dc, nops, 3, 5, opcode) || !addr(dc, &ops[0], in, &s[0]))
				return -1;
			int64_t doff = in->off;
			if (!addr(dc, &ops[1], in, &s[1]) || !src(dc, &ops[2], TY_U32, &s[2]))
				return -1;
			/* off holds the source offset; the destination's goes in target */
			in->target = (int32_t)doff;
			in->ns = 3;
			if (nops >= 4 && ops[3].kind != RO_ADDR) {
				if (!src(dc, &ops[3], TY_U32, &s[3]))
					return -1;
				in->flags |= F_ZFILL;
				in->ns = 4;
			}
			in->space = SP_GLOBAL;
			return 0;
		}
		if (in->mode == CP_WAIT_GROUP) {
			if (!need(dc, nops, 1, 1, opcode) || !src(dc, &ops[0], TY_U32, &s[0]))
				return -1;
			in->ns = 1;
		}
		return 0;
	case OP_BRA:
		if (!need(dc, nops, 1, 1, opcode) || ops[0].kind != RO_SYM)
			return bad(dc, "bra needs a label%s%s", "", ""), -1;
		return add_fix(dc, ops[0].name) ? 0 : -1;
	case OP_CALL:
		return call(dc, in, ops, nops, opcode) ? 0 : -1;
	case OP_RET: case OP_EXIT: case OP_TRAP:
		return need(dc, nops, 0, 0, opcode) ? 0 : -1;
	case OP_BAR: case OP_BARRIER:
		if (in->mode == BAR_WARP_SYNC) {
			if (!need(dc, nops, 1, 1, opcode) || !src(dc, &ops[0], TY_U32, &s[0]))
				return -1;
			in->ns = 1;
			return 0;
		}
		if (in->mode >= BAR_RED_POPC) {
			if (!need(dc, nops, 3, 4, opcode) || !dst(dc, &ops[0], &d[0]))
				return -1;
			in->nd = 1;
			for (int k = 1; k < nops; k++) {
				if (ops[k].neg && k == nops - 1)
					in->flags |= F_NEGB;
				if (!src(dc, &ops[k], TY_U32, &s[k - 1]))
					return -1;
			}
			in->ns = (uint8_t)(nops - 1);
			return 0;
		}
		if (nops == 0) {        /* barrier.sync with no operands: barrier 0 */
			s[0] = 0;
			in->ns = 1;
			return 0;
		}
		if (!need(dc, nops, 1, 2, opcode))
			return -1;
		for (int k = 0; k < nops; k++)
			if (!src(dc, &ops[k], TY_U32, &s[k]))
				return -1;
		in->ns = (uint8_t)nops;
		return 0;
	case OP_SHFL:
		if (!need(dc, nops, 5, 5, opcode) || !dst(dc, &ops[0], &d[0]))
			return -1;
		in->nd = 1;
		if (ops[0].pair) {
			if (!dst_second(dc, &ops[0], &d[1]))
				return -1;
			in->nd = 2;
		}
		for (int k = 1; k < 5; k++)
			if (!src(dc, &ops[k], TY_B32, &s[k - 1]))
				return -1;
		in->ns = 4;
		if (!in->mode)
			return bad(dc, "shfl without a mode%s%s", "", ""), -1;
		return 0;
	case OP_VOTE:
		if (!need(dc, nops, 3, 3, opcode) || !dst(dc, &ops[0], &d[0]) || !src(dc, &ops[1], TY_PRED, &s[0]) ||
		    !src(dc, &ops[2], TY_B32, &s[1]))
			return -1;
		if (ops[1].neg)
			in->flags |= F_NEGB;
		in->nd = 1;
		in->ns = 2;
		return 0;
	case OP_REDUX: case OP_MATCH:
		if (!need(dc, nops, 3, 3, opcode) || !dst(dc, &ops[0], &d[0]) || !src(dc, &ops[1], ty, &s[0]) ||
		    !src(dc, &ops[2], TY_B32, &s[1]))
			return -1;
		in->nd = 1;
		if (ops[0].pair) {
			if (!dst_second(dc, &ops[0], &d[1]))
				return -1;
			in->nd = 2;
		}
		in->ns = 2;
		return 0;
	case OP_ACTIVEMASK:
		if (!need(dc, nops, 1, 1, opcode) || !dst(dc, &ops[0], &d[0]))
			return -1;
		in->nd = 1;
		return 0;
	case OP_ELECT:
		if (!need(dc, nops, 2, 2, opcode) || !dst(dc, &ops[0], &d[0]) || !src(dc, &ops[1], TY_B32, &s[0]))
			return -1;
		in->nd = 1;
		d[1] = 1;
		if (ops[0].pair) {
			if (!dst_second(dc, &ops[0], &d[1]))
				return -1;
		}
		in->nd = 2;
		in->ns = 1;
		return 0;
	case OP_SETP:
		if (!need(dc, nops, 3, 4, opcode) || !dst(dc, &ops[0], &d[0]))
			return -1;
		in->nd = 1;
		if (ops[0].pair) {
			if (!dst_second(dc, &ops[0], &d[1]))
				return -1;
			in->nd = 2;
		}
		if (!src(dc, &ops[1], ty, &s[0]) || !src(dc, &ops[2], ty, &s[1]))
			return -1;
		in->ns = 2;
		if (nops == 4) {
			if (!in->boolop)
				return bad(dc, "setp with a predicate operand needs .and/.or/.xor%s%s", "", ""), -1;
			if (!src(dc, &ops[3], TY_PRED, &s[2]))
				return -1;
			if (ops[3].neg)
				in->flags |= F_NEGB;
			in->ns = 3;
		} else if (in->boolop) {
			return bad(dc, "setp.%s needs a predicate operand%s", "and/or/xor", ""), -1;
		}
		if (!in->cmp)
			return bad(dc, "setp without a comparison%s%s", "", ""), -1;
		return 0;
	case OP_MOV: {
		if (!need(dc, nops, 2, 2, opcode))
			return -1;
		if (ops[0].kind == RO_VEC || ops[1].kind == RO_VEC) {
			/* pack {a,b} -> d, or unpack d -> {a,b} */
			bool unpack = ops[0].kind == RO_VEC;
			const RawOperand *v = unpack ? &ops[0] : &ops[1];
			if (v->nsub != 2 && v->nsub != 4)
				return bad(dc, "mov: bad vector operand%s%s", "", ""), -1;
			in->vec = (uint8_t)v->nsub;
			in->mode = unpack ? 2 : 1;
			if (unpack) {
				if (!vec_or_reg(dc, &ops[0], true, ty, d, v->nsub) || !src(dc, &ops[1], ty, &s[0]))
					return -1;
				in->nd = (uint8_t)v->nsub;
				in->ns = 1;
			} else {
				if (!dst(dc, &ops[0], &d[0]) || !vec_or_reg(dc, &ops[1], false, ty, s, v->nsub))
					return -1;
				in->nd = 1;
				in->ns = (uint8_t)v->nsub;
			}
			return 0;
		}
		if (!dst(dc, &ops[0], &d[0]))
			return -1;
		in->nd = 1;
		if (ops[1].kind == RO_REG) {
			int id = sreg_id(ops[1].name);
			if (id >= SR_FIRST_LIVE) {
				in->op = OP_MOV_CLOCK;
				in->mode = (uint8_t)id;
				return 0;
			}
		}
		if (!src(dc, &ops[1], ty, &s[0]))
			return -1;
		in->ns = 1;
		return 0;
	}
	default:
		break;
	}
	/* d, a, b, ... */
	if (nops < 1 || nops > MAX_SRC + 1)
		return bad(dc, "wrong number of operands for '%s'%s", opcode, ""), -1;
	if (!dst(dc, &ops[0], &d[0]))
		return -1;
	in->nd = 1;
	if (ops[0].pair) {
		if (!dst_second(dc, &ops[0], &d[1]))
			return -1;
		in->nd = 2;
	}
	for (int k = 1; k < nops; k++) {
		int t = sty;
		if (op == OP_SELP && k == 3)
			t = TY_PRED;
		if ((op == OP_SHL || op == OP_SHR || op == OP_BFE || op == OP_BFI || op == OP_SHF || op == OP_PRMT ||
		     op == OP_LOP3) && k >= 2)
			t = TY_U32;
		if (op == OP_TESTP || op == OP_COPYSIGN)
			t = ty;
		if (ops[k].kind == RO_VEC || ops[k].kind == RO_ADDR)
			return bad(dc, "unexpected operand form in '%s'%s", opcode, ""), -1;
		if (ops[k].neg) {       /* '!p' only where set/setp/vote/bar.red take it */
			if (op != OP_SET || k != 3)
				return bad(dc, "a negated predicate operand is not allowed in '%s'%s", opcode, ""), -1;
			in->flags |= F_NEGB;
		}
		if (!src(dc, &ops[k], t, &s[k - 1]))
			return -1;
	}
	in->ns = (uint8_t)(nops - 1);
	if (!ty && op != OP_TRAP)
		return bad(dc, "instruction without a type: '%s'%s", opcode, ""), -1;
	return 0;
}

/* for decode_async.c */
bool dc_bad(DecodeCtx *dc, const char *fmt, const char *a, const char *b)
{
	return bad(dc, fmt, a, b);
}

bool dc_src(DecodeCtx *dc, const RawOperand *o, int ty, int32_t *slot)
{
	return src(dc, o, ty, slot);
}

bool dc_dst(DecodeCtx *dc, const RawOperand *o, int32_t *slot)
{
	return dst(dc, o, slot);
}

bool dc_addr(DecodeCtx *dc, const RawOperand *o, Insn *in, int32_t *slot)
{
	return addr(dc, o, in, slot);
}
