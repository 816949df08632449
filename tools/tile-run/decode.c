/* decode.c: one parsed PTX instruction -> Insn.
 * The opcode's first dot-component picks the row of ops.def; every further
 * component is looked up in the modifier table below and lands in a field
 * of Insn (type, rounding, comparison, state space, flags, mode). An
 * unknown opcode or modifier is a user error naming the PTX line: nothing
 * is ignored unless the table says it does not change the result
 * (memory-ordering semantics, scopes and cache hints: execution here is
 * sequentially consistent and has no caches).
 * The operands are read as the row says (ops.def): by its signature, one
 * loop for every instruction of a fixed form (operands()), or by a dec_*()
 * below for the forms a signature cannot say. Each operand becomes a
 * register slot (operand.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

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

/* one instruction being decoded: what the opcode's modifiers said beyond
 * the Insn fields, and its operands */
typedef struct Dec {
	DecodeCtx *dc;
	Insn *in;
	const char *opcode;     /* as written (multimem.* as its plain form) */
	RawOperand *ops;
	int nops;
	int types[5], nty;      /* the type modifiers in order */
	int aop, logic, vote, bar, cp;  /* modifier classes folded into in->mode (resolve_mode) */
	bool m8n8;              /* ldmatrix/stmatrix .m8n8 */
	int mma_shape;          /* mma.sync .mMnNkK: MMA_* */
} Dec;

#define BAD(x, ...) dc_bad((x)->dc, __VA_ARGS__)

/* ---- operand forms that do not fit a signature (ops.def SPECIAL) ---- */

/* ld/ldu/st: a vector of .vN registers (one without .vN) and an address;
 * a third operand (a cache policy) is ignored */
static bool dec_ldst(Dec *x)
{
	Insn *in = x->in;
	bool ld = in->op != OP_ST;
	const char *what = ld ? "ld" : "st";
	if (!dc_need(x->dc, x->nops, 2, 3, x->opcode))
		return false;
	int n = in->vec ? in->vec : 1;
	if (n > 4)
		return BAD(x, "%s.v8 is not supported", what);
	if (ld ? !dc_vec_or_reg(x->dc, &x->ops[0], true, in->ty, in->d, n) || !dc_addr(x->dc, &x->ops[1], in, &in->s[0])
	       : !dc_addr(x->dc, &x->ops[0], in, &in->s[0]) ||
		 !dc_vec_or_reg(x->dc, &x->ops[1], false, in->ty, in->s + 1, n))
		return false;
	in->nd = (uint8_t)(ld ? n : 0);
	in->ns = (uint8_t)(ld ? 1 : 1 + n);
	if (!in->ty)
		return BAD(x, "%s without a type: '%s'", what, x->opcode);
	return true;
}

/* ldmatrix/stmatrix.m8n8.xN[.trans].b16: N b32 registers and a shared address */
static bool dec_matrix(Dec *x)
{
	Insn *in = x->in;
	if (!x->m8n8 || !in->vec || in->ty != TY_B16)
		return BAD(x, "unsupported matrix shape or type in '%s'", x->opcode);
	if (in->space == SP_GENERIC)
		in->space = SP_SHARED;
	if (!dc_need(x->dc, x->nops, 2, 2, x->opcode))
		return false;
	bool ld = in->op == OP_LDMATRIX;
	if (!dc_addr(x->dc, &x->ops[ld ? 1 : 0], in, &in->s[0]) ||
	    !dc_vec_or_reg(x->dc, &x->ops[ld ? 0 : 1], ld, TY_B32, ld ? in->d : in->s + 1, in->vec))
		return false;
	in->nd = ld ? in->vec : 0;
	in->ns = (uint8_t)(ld ? 1 : 1 + in->vec);
	return true;
}

/* mma.sync.aligned.SHAPE.row.col[.satfinite].D.A.B.C (exec_mma.c): in->ty
 * the A type, cmp the B type, ty2 the D (= C) type, mode the shape.
 * Block-scaled (sm_120a): .kind::mxf8f6f4.block_scale[.scale_vec::1X] ...
 * .ue8m0 and four more operands: scale-a-data, {byte-id-a, thread-id-a},
 * scale-b-data, {byte-id-b, thread-id-b} */
static bool dec_mma(Dec *x)
{
	Insn *in = x->in;
	const int *ty = x->types;
	int na, nb, nc;
	bool bs = in->flags & F_BSCALE;
	bool f8 = ty[1] == TY_E4M3 || ty[1] == TY_E5M2;
	if (!x->mma_shape || x->nty != (bs ? 5 : 4) || ty[0] != ty[3] ||
	    (bs && (ty[4] != TY_UE8M0 || !f8 || ty[0] != TY_F32 || x->mma_shape != MMA_M16N8K32)) ||
	    (bs != !!(in->flags & F_KIND_MX)) || !mma_regs(x->mma_shape, ty[1], ty[2], ty[0], &na, &nb, &nc) ||
	    !dc_need(x->dc, x->nops, bs ? 8 : 4, bs ? 8 : 4, x->opcode))
		return BAD(x, "unsupported mma shape or types: '%s'", x->opcode);
	in->ty = (uint8_t)ty[1];
	in->cmp = (uint8_t)ty[2];
	in->ty2 = (uint8_t)ty[0];
	in->mode = (uint8_t)x->mma_shape;
	int rty = ty[0] == TY_F64 ? TY_F64 : ty[0] == TY_F32 ? TY_F32 : TY_B32;
	int oty = ty[1] == TY_F64 ? TY_F64 : TY_B32;
	RawOperand *o = x->ops;
	if (!dc_vec_or_reg(x->dc, &o[0], true, rty, in->d, nc) || !dc_vec_or_reg(x->dc, &o[1], false, oty, in->s, na) ||
	    !dc_vec_or_reg(x->dc, &o[2], false, oty, in->s + na, nb) ||
	    !dc_vec_or_reg(x->dc, &o[3], false, rty, in->s + na + nb, nc))
		return false;
	int ns = na + nb + nc;
	for (int g = 0; bs && g < 2; g++) {     /* scale data, then its {byte-id, thread-id} */
		if (!dc_vec_or_reg(x->dc, &o[4 + 2 * g], false, TY_B32, in->s + ns, 1) ||
		    !dc_vec_or_reg(x->dc, &o[5 + 2 * g], false, TY_B16, in->s + ns + 1, 2))
			return false;
		ns += 3;
	}
	in->nd = (uint8_t)nc;
	in->ns = (uint8_t)ns;
	return true;
}

/* cp.async.ca/cg [d], [s], size[, src-size] (Insn.off the source offset,
 * target the destination's), cp.async.wait_group N, commit_group/wait_all */
static bool dec_cp(Dec *x)
{
	Insn *in = x->in;
	int32_t *s = in->s;
	RawOperand *o = x->ops;
	if (in->mode == CP_ASYNC) {
		if (strstr(x->opcode, ".bulk"))
			return BAD(x, "unsupported instruction '%s'", x->opcode);
		if (!dc_need(x->dc, x->nops, 3, 5, x->opcode) || !dc_addr(x->dc, &o[0], in, &s[0]))
			return false;
		int64_t doff = in->off;
		if (!dc_addr(x->dc, &o[1], in, &s[1]) || !dc_src(x->dc, &o[2], TY_U32, &s[2]))
			return false;
		in->target = (int32_t)doff;
		in->ns = 3;
		if (x->nops >= 4 && o[3].kind != RO_ADDR) {
			if (!dc_src(x->dc, &o[3], TY_U32, &s[3]))
				return false;
			in->flags |= F_ZFILL;
			in->ns = 4;
		}
		in->space = SP_GLOBAL;
		return true;
	}
	if (in->mode == CP_WAIT_GROUP) {
		if (!dc_need(x->dc, x->nops, 1, 1, x->opcode) || !dc_src(x->dc, &o[0], TY_U32, &s[0]))
			return false;
		in->ns = 1;
	}
	return true;
}

static bool dec_bra(Dec *x)
{
	if (!dc_need(x->dc, x->nops, 1, 1, x->opcode))
		return false;
	if (x->ops[0].kind != RO_SYM)
		return BAD(x, "bra needs a label");
	return dc_add_fix(x->dc, x->ops[0].name);
}

/* bar/barrier: .warp.sync mask; .red.popc/.and/.or d, id, [count,] {!}p;
 * .sync/.arrive [id[, count]] (no operand: barrier 0);
 * barrier.cluster.arrive[.release|.relaxed] / .wait[.acquire] (exec_cluster.c) */
static bool dec_bar(Dec *x)
{
	Insn *in = x->in;
	RawOperand *o = x->ops;
	int nops = x->nops;
	if (strncmp(x->opcode, "barrier.cluster.", 16) == 0) {  /* .arrive[.release|.relaxed] / .wait[.acquire] */
		bool arrive = strstr(x->opcode, ".arrive") != NULL, wait = strstr(x->opcode, ".wait") != NULL;
		if (arrive == wait || strstr(x->opcode, ".sync") || (wait && (strstr(x->opcode, ".release") ||
									      strstr(x->opcode, ".relaxed"))) ||
		    (arrive && strstr(x->opcode, ".acquire")))
			return BAD(x, "unsupported instruction '%s'", x->opcode);
		in->mode = arrive ? BAR_CLUSTER_ARRIVE : BAR_CLUSTER_WAIT;
		in->boolop = strstr(x->opcode, ".relaxed") != NULL;
		return dc_need(x->dc, nops, 0, 0, x->opcode);
	}
	if (in->mode == BAR_WARP_SYNC) {
		if (!dc_need(x->dc, nops, 1, 1, x->opcode) || !dc_src(x->dc, &o[0], TY_U32, &in->s[0]))
			return false;
		in->ns = 1;
		return true;
	}
	if (in->mode >= BAR_RED_POPC) {
		if (!dc_need(x->dc, nops, 3, 4, x->opcode) || !dc_dst(x->dc, &o[0], &in->d[0]))
			return false;
		in->nd = 1;
		for (int k = 1; k < nops; k++) {
			if (o[k].neg && k == nops - 1)
				in->flags |= F_NEGB;
			if (!dc_src(x->dc, &o[k], TY_U32, &in->s[k - 1]))
				return false;
		}
		in->ns = (uint8_t)(nops - 1);
		return true;
	}
	if (nops == 0) {        /* barrier.sync with no operands: barrier 0 */
		in->s[0] = 0;
		in->ns = 1;
		return true;
	}
	if (!dc_need(x->dc, nops, 1, 2, x->opcode))
		return false;
	for (int k = 0; k < nops; k++)
		if (!dc_src(x->dc, &o[k], TY_U32, &in->s[k]))
			return false;
	in->ns = (uint8_t)nops;
	return true;
}

/* mov d, a; mov d, {a, b[, c, d]} (pack, mode 1); mov {a, b..}, d (unpack,
 * mode 2); mov d, %clock... (OP_MOV_CLOCK: read live, exec_move.c) */
static bool dec_mov(Dec *x)
{
	Insn *in = x->in;
	RawOperand *o = x->ops;
	int ty = in->ty;
	if (!dc_need(x->dc, x->nops, 2, 2, x->opcode))
		return false;
	if (o[0].kind == RO_VEC || o[1].kind == RO_VEC) {
		bool unpack = o[0].kind == RO_VEC;
		const RawOperand *v = unpack ? &o[0] : &o[1];
		if (v->nsub != 2 && v->nsub != 4)
			return BAD(x, "mov: bad vector operand");
		in->vec = (uint8_t)v->nsub;
		in->mode = unpack ? 2 : 1;
		if (unpack ? !dc_vec_or_reg(x->dc, &o[0], true, ty, in->d, v->nsub) || !dc_src(x->dc, &o[1], ty, &in->s[0])
			   : !dc_dst(x->dc, &o[0], &in->d[0]) || !dc_vec_or_reg(x->dc, &o[1], false, ty, in->s, v->nsub))
			return false;
		in->nd = (uint8_t)(unpack ? v->nsub : 1);
		in->ns = (uint8_t)(unpack ? 1 : v->nsub);
		return true;
	}
	if (!dc_dst(x->dc, &o[0], &in->d[0]))
		return false;
	in->nd = 1;
	int id = o[1].kind == RO_REG ? dc_sreg_id(o[1].name) : -1;
	if (id >= SR_FIRST_LIVE) {
		in->op = OP_MOV_CLOCK;
		in->mode = (uint8_t)id;
		return true;
	}
	if (!dc_src(x->dc, &o[1], ty, &in->s[0]))
		return false;
	in->ns = 1;
	return true;
}

/* call [(rets),] func[, (args)][, proto]: the parameter symbols' offsets and
 * sizes in a CallInfo (Insn.target); vprintf, malloc, free and
 * __assertfail are tile-run's own */
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
		return dc_bad(dc, "call: expected a function name in '%s'", opc);
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
		return dc_bad(dc, "call of unknown function '%s'", fname);
	if (nargs > 16 || nrets > 4)
		return dc_bad(dc, "call: too many parameters");
	/* parameter symbols are call-site .param variables of this function */
	uint32_t aoff[16], asz[16], roff[4], rsz[4];
	for (int j = 0; j < nargs + nrets; j++) {
		RawOperand *o = j < nargs ? &args[j] : &rets[j - nargs];
		Name *nm = o->kind == RO_SYM ? dc_lookup(dc, o->name) : NULL;
		if (!nm || nm->kind != NM_PARAM)
			return dc_bad(dc, "call: '%s' is not a .param variable", o->kind == RO_SYM ? o->name : "?");
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
		return dc_bad(dc, "call of external function '%s', which tile-run does not provide", fname);
	else
		in->op = OP_CALL_FUNC;
	if (in->op == OP_CALL_VPRINTF && nargs != 2)
		return dc_bad(dc, "vprintf takes 2 parameters");
	if (in->op == OP_CALL_ASSERT && nargs < 4)
		return dc_bad(dc, "__assertfail takes 5 parameters");
	if (in->op == OP_CALL_MALLOC && (nargs < 1 || nrets != 1))
		return dc_bad(dc, "malloc: bad call");
	if (in->op == OP_CALL_FREE && nargs != 1)
		return dc_bad(dc, "free: bad call");
	return true;
}

static bool dec_call(Dec *x)
{
	return call(x->dc, x->in, x->ops, x->nops, x->opcode);
}

/* ---- what a signature cannot say (ops.def SIG_THEN) ---- */

static bool check_none(Dec *x)
{
	return true;
}

/* every SIG() instruction */
static bool check_typed(Dec *x)
{
	if (!x->in->ty)
		return BAD(x, "instruction without a type: '%s'", x->opcode);
	return true;
}

static bool check_setp(Dec *x)
{
	Insn *in = x->in;
	if (x->nops == 4 && !in->boolop)
		return BAD(x, "setp with a predicate operand needs .and/.or/.xor");
	if (x->nops == 3 && in->boolop)
		return BAD(x, "setp.%s needs a predicate operand", "and/or/xor");
	if (!in->cmp)
		return BAD(x, "setp without a comparison");
	return true;
}

static bool check_shfl(Dec *x)
{
	if (!x->in->mode)
		return BAD(x, "shfl without a mode");
	return true;
}

static bool check_atom(Dec *x)
{
	if (x->in->mode == AOP_CAS && x->in->ns != 3)
		return BAD(x, "atom.cas needs two values");
	if (x->in->vec)
		return BAD(x, "vector atomics are not supported: '%s'", x->opcode);
	return true;
}

static bool check_red(Dec *x)
{
	if (x->in->vec)
		return BAD(x, "vector reductions are not supported: '%s'", x->opcode);
	return true;
}

/* elect.sync d[|p], mask: without p the predicate goes to the sink */
/* setmaxnreg.inc/.dec.sync.aligned.u32 N: N an immediate, 24..256, a multiple of 8 */
static bool check_setmaxnreg(Dec *x)
{
	const RawOperand *o = &x->ops[0];
	if (o->kind != RO_IMM || o->imm.kind != TK_INT || o->imm.bits < 24 || o->imm.bits > 256 || o->imm.bits % 8)
		return BAD(x, "'%s' takes a register count from 24 to 256, a multiple of 8", x->opcode);
	return true;
}

static bool check_elect(Dec *x)
{
	if (x->in->nd == 1)
		x->in->d[x->in->nd++] = 1;
	return true;
}

/* ---- the table ---- */

static const struct OpRow {
	const char *name;
	int op;
	const char *sig;                /* SIG, SIG_THEN */
	bool (*check)(Dec *x);          /* SIG, SIG_THEN */
	bool (*special)(Dec *x);        /* SPECIAL */
	bool async;                     /* ASYNC */
} optab[] = {
#define SIG(s) .sig = s, .check = check_typed
#define SIG_THEN(s, f) .sig = s, .check = check_##f
#define SPECIAL(f) .special = dec_##f
#define ASYNC .async = true
#define O(n, e, f, operands) { .name = #n, .op = OP_##e, operands },
#include "ops.def"
#undef O
#undef ASYNC
#undef SPECIAL
#undef SIG_THEN
#undef SIG
};

static const struct OpRow *op_row(const char *base)
{
	for (size_t k = 0; k < sizeof optab / sizeof *optab; k++)
		if (strcmp(optab[k].name, base) == 0)
			return &optab[k];
	return NULL;
}

/* the operand type a signature letter asks for */
static int sig_type(const Insn *in, char c)
{
	switch (c) {
	case 't': return in->ty2;
	case 'u': return TY_U32;
	case 'b': return TY_B32;
	case 'p': case 'n': return TY_PRED;
	default: return in->ty;
	}
}

/* the operands by the signature sig (ops.def); false after a message */
static bool operands(Dec *x, const char *sig)
{
	Insn *in = x->in;
	if (strcmp(sig, "*") == 0)
		return true;
	int lo = 0, hi = 0;
	for (const char *c = sig; *c; c++)
		if (*c != '?') {
			hi++;
			lo += !strchr(sig, '?') || c < strchr(sig, '?');
		}
	if (!dc_need(x->dc, x->nops, lo, hi, x->opcode))
		return false;
	const RawOperand *o = x->ops;
	for (const char *c = sig; *c && o < x->ops + x->nops; c++) {
		switch (*c) {
		case '?':
			continue;
		case 'd': case 'D':
			if (!dc_dst(x->dc, o, &in->d[in->nd++]) ||
			    (*c == 'd' && o->pair && !dc_dst_second(x->dc, o, &in->d[in->nd++])))
				return false;
			break;
		case 'a':
			if (!dc_addr(x->dc, o, in, &in->s[in->ns++]))
				return false;
			break;
		case 'x':
			break;
		default:        /* a source */
			if (o->kind == RO_VEC || o->kind == RO_ADDR)
				return BAD(x, "unexpected operand form in '%s'", x->opcode);
			if (o->neg && *c != 'n')
				return BAD(x, "a negated predicate operand is not allowed in '%s'", x->opcode);
			if (o->neg)
				in->flags |= F_NEGB;
			if (!dc_src(x->dc, o, sig_type(in, *c), &in->s[in->ns++]))
				return false;
			break;
		}
		o++;
	}
	return true;
}

/* ---- modifiers ---- */

/* the opcode's components after the first -> Insn fields and x */
static bool read_modifiers(Dec *x, char **parts, int np)
{
	Insn *in = x->in;
	int op = in->op;
	for (int k = 1; k < np; k++) {
		const char *s = parts[k];
		int ty = type_from_name(s);
		if (ty) {
			if (x->nty == (op == OP_MMA ? 5 : 3))
				return BAD(x, "too many types in '%s'", x->opcode);
			x->types[x->nty++] = ty;
			continue;
		}
		size_t j;
		for (j = 0; j < sizeof mods / sizeof *mods; j++)
			if (strcmp(mods[j].s, s) == 0)
				break;
		if (j == sizeof mods / sizeof *mods) {
			if (strncmp(s, "L2::", 4) == 0 || strncmp(s, "L1::", 4) == 0)
				return BAD(x, "unsupported cache modifier .%s in '%s'", s, x->opcode);
			return BAD(x, "unsupported modifier .%s in '%s'", s, x->opcode);
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
		case MC_LOGIC: x->logic = (int)v; break;
		case MC_AOP:
			if ((op == OP_MIN || op == OP_MAX) && v == AOP_ADD)
				return BAD(x, "bad modifier in '%s'", x->opcode);
			x->aop = (int)v;
			break;
		case MC_SPACE:
			in->space = (uint8_t)v;
			if (strcmp(s, "shared::cluster") == 0)
				in->flags |= F_CLUSTER;
			break;
		case MC_VEC: in->vec = (uint8_t)v; break;
		case MC_SHFL: case MC_PRMT: case MC_TESTP: in->mode = (uint8_t)v; break;
		case MC_VOTE: x->vote = (int)v; break;
		case MC_MATRIX: if (v) in->vec = (uint8_t)v; else x->m8n8 = true; break;
		case MC_BAR: if (v && x->bar != BAR_WARP_SYNC) x->bar = (int)v; break;    /* bar.warp.sync: .sync does not undo .warp */
		case MC_CP: x->cp = (int)v; break;
		case MC_MMA:
			if (op != OP_MMA)
				return BAD(x, "unsupported modifier .%s in '%s'", s, x->opcode);
			if (v)
				x->mma_shape = (int)v;
			break;
		case MC_IGNORE: break;
		}
	}
	if ((in->flags & (F_BSCALE | F_KIND_MX)) && op != OP_MMA)
		return BAD(x, "unsupported modifier in '%s'", x->opcode);
	return true;
}

/* the modifier classes that name an operation or mode -> in->mode/boolop;
 * each is an error on an instruction that takes none */
static bool resolve_mode(Dec *x)
{
	Insn *in = x->in;
	switch (in->op) {
	case OP_SETP: case OP_SET:
		in->boolop = (uint8_t)x->logic;
		break;
	case OP_ATOM: case OP_RED: case OP_REDUX:
		in->mode = (uint8_t)(x->logic ? x->logic : x->aop);
		if (!in->mode)
			return BAD(x, "missing operation in '%s'", x->opcode);
		break;
	case OP_BAR: case OP_BARRIER:
		if (x->logic == AOP_AND)
			x->bar = BAR_RED_AND;
		else if (x->logic == AOP_OR)
			x->bar = BAR_RED_OR;
		in->mode = (uint8_t)(x->bar ? x->bar : BAR_SYNC);
		break;
	case OP_VOTE:
		in->mode = (uint8_t)(x->vote ? x->vote : (in->flags & F_UNI ? VOTE_UNI : 0));
		if (!in->mode)
			return BAD(x, "missing mode in '%s'", x->opcode);
		break;
	case OP_MATCH:
		in->mode = (uint8_t)(x->vote == VOTE_ALL ? MATCH_ALL : x->vote == VOTE_ANY ? MATCH_ANY : 0);
		if (!in->mode)
			return BAD(x, "missing mode in '%s'", x->opcode);
		break;
	case OP_CP:
		in->mode = (uint8_t)x->cp;
		if (!x->cp)
			return BAD(x, "unsupported instruction '%s'", x->opcode);
		break;
	case OP_SETMAXNREG:     /* exec_setmaxnreg.c */
		in->mode = (uint8_t)x->aop;
		if (x->aop != AOP_INC && x->aop != AOP_DEC)
			return BAD(x, "'%s' needs .inc or .dec", x->opcode);
		break;
	default:
		if (x->logic || x->aop || x->vote)
			return BAD(x, "unsupported modifier in '%s'", x->opcode);
	}
	if (in->rnd == RND_RS)
		return BAD(x, "stochastic rounding (.rs) is not supported: '%s'", x->opcode);
	return true;
}

/* the type modifiers -> in->ty, ty2 (mma: dec_mma) */
static bool check_types(Dec *x)
{
	Insn *in = x->in;
	int op = in->op;
	if (op == OP_CVT) {
		if (x->nty != 2)
			return BAD(x, "cvt needs two types: '%s'", x->opcode);
		in->ty2 = (uint8_t)x->types[1];
	} else if (x->nty == 2 && (op == OP_ADD || op == OP_SUB || op == OP_FMA || op == OP_MUL || op == OP_MAD ||
				   op == OP_SET || op == OP_SLCT)) {
		/* add.f32.f16 (mixed precision), set.dtype.stype, slct.dtype.s32 */
		in->ty2 = (uint8_t)x->types[1];
	} else if (x->nty > 1 && op != OP_ATOM && op != OP_RED) {
		return BAD(x, "unsupported type combination in '%s'", x->opcode);
	}
	if (type_bytes[in->ty] > 8 || type_bytes[in->ty2] > 8)
		return BAD(x, "128-bit operands are not supported: '%s'", x->opcode);
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
	const struct OpRow *row = np ? op_row(parts[0]) : NULL;
	if (!row)
		return dc_bad(dc, "unsupported instruction '%s'", opcode), -1;
	in->op = (uint16_t)row->op;
	in->guard = -1;
	if (in->op == OP_TCGEN05)
		return decode_tcgen05(dc, in, opcode, parts, np, ops, nops);
	if (row->async || (in->op == OP_CP && (strstr(opcode, ".bulk") || strstr(opcode, ".mbarrier"))))
		return decode_async(dc, in, opcode, parts, np, ops, nops);
	Dec x = { .dc = dc, .in = in, .opcode = opcode, .ops = ops, .nops = nops };
	if (!read_modifiers(&x, parts, np) || !resolve_mode(&x))
		return -1;
	in->ty = (uint8_t)x.types[0];
	if (in->op != OP_MMA && !check_types(&x))
		return -1;
	bool ok = row->special ? row->special(&x) : operands(&x, row->sig) && row->check(&x);
	return ok ? 0 : -1;
}
