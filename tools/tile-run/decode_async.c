/* decode_async.c: Hopper's asynchronous instructions -> Insn (called by
 * decode_insn for wgmma.*, mbarrier.*, cp.async.bulk* and
 * cp.async.mbarrier.arrive). Forms (PTX ISA 8.x/9.x):
 *   mbarrier.init.shared.b64 [a], count
 *   mbarrier.arrive[.expect_tx][.sem.scope].shared.b64 state|_, [a][, count|txCount]
 *   mbarrier.arrive_drop[...]  mbarrier.expect_tx / complete_tx [a], txCount
 *   mbarrier.test_wait|try_wait[.parity][...].shared.b64 p, [a], state|parity[, hint]
 *   mbarrier.inval.shared.b64 [a]     mbarrier.pending_count.b64 n, state
 *   cp.async.mbarrier.arrive[.noinc].shared.b64 [a]
 *   cp.async.bulk.DST.SRC[.mbarrier::complete_tx::bytes|.bulk_group][.multicast::cluster] [d], [s], size[, [mbar]][, ctaMask][, hint]
 *   cp.async.bulk.tensor.Nd.DST.SRC.tile[...][.multicast::cluster] [d], [tmap, {c..}], [mbar][, ctaMask] | [tmap, {c..}], [s]
 *   cp.async.bulk.commit_group, cp.async.bulk.wait_group[.read] N
 *   wgmma.fence / commit_group / wait_group N
 *   wgmma.mma_async.sync.aligned.m64nNkK[.satfinite].D.A.B {d..}, descA, descB, scale-d[, ±1, ±1[, tA, tB]]
 * Operands beyond Insn's fixed slots (wgmma's D registers, address offsets)
 * go to Module.xs from Insn.target (wgmma with A in registers: its four A
 * registers after the D ones). .shared::cluster sets F_CLUSTER (the address
 * may be another CTA's, exec_cluster.c); .multicast::cluster F_MCAST, its
 * ctaMask the last source. Unsupported forms (im2col, reductions) are a
 * clear error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

static int xs_add(Module *m, int32_t v)
{
	m->xs = xrealloc(m->xs, (size_t)(m->nxs + 1) * sizeof *m->xs);
	m->xs[m->nxs] = v;
	return m->nxs++;
}

static bool has(char **parts, int np, const char *s)
{
	for (int k = 1; k < np; k++)
		if (strcmp(parts[k], s) == 0)
			return true;
	return false;
}

/* modifiers every form here may carry without effect on a sequential machine */
static bool ignorable(const char *s)
{
	static const char *const ign[] = { "sync", "aligned", "shared", "shared::cta", "shared::cluster", "b64",
		"release", "acquire", "relaxed", "cta", "cluster", "gpu", "sys", "L2::cache_hint", "noComplete",
		"mbarrier::complete_tx::bytes", "bulk_group", "tile", "read", "async", "bulk", "tensor", "global", NULL };
	for (int k = 0; ign[k]; k++)
		if (strcmp(ign[k], s) == 0)
			return true;
	return false;
}

/* an address operand: slot in *slot, offset appended to xs */
static bool addr_x(DecodeCtx *dc, const RawOperand *o, Insn *in, int32_t *slot)
{
	RawOperand a = *o;
	a.nsub = 0;
	a.sub = NULL;
	int sp = in->space;
	in->space = SP_SHARED;  /* symbols: their own space's address */
	bool ok = dc_addr(dc, &a, in, slot);
	in->space = (uint8_t)sp;
	if (ok)
		xs_add(dc->m, (int32_t)in->off);
	return ok;
}

static int dec_mbarrier(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops)
{
	const char *kind = np > 1 ? parts[1] : "";
	for (int k = 2; k < np; k++)
		if (!ignorable(parts[k]) && strcmp(parts[k], "parity") && strcmp(parts[k], "expect_tx"))
			return dc_bad(dc, "unsupported modifier .%s in '%s'", parts[k], opc), -1;
	in->space = (uint8_t)(has(parts, np, "shared") || has(parts, np, "shared::cta") || has(parts, np, "shared::cluster") ?
			      SP_SHARED : SP_GENERIC);
	in->boolop = (uint8_t)((has(parts, np, "parity") ? AF_PARITY : 0) |
			       (has(parts, np, "expect_tx") ? AF_EXPECT_TX : 0));
	if (has(parts, np, "shared::cluster"))
		in->flags |= F_CLUSTER;
	in->s[1] = 0;
	if (strcmp(kind, "init") == 0 || strcmp(kind, "expect_tx") == 0 || strcmp(kind, "complete_tx") == 0) {
		in->mode = kind[0] == 'i' ? MB_INIT : kind[0] == 'e' ? MB_EXPECT_TX : MB_COMPLETE_TX;
		if (nops != 2 || !dc_addr(dc, &ops[0], in, &in->s[0]) || !dc_src(dc, &ops[1], TY_U32, &in->s[1]))
			return nops != 2 ? (dc_bad(dc, "wrong number of operands for '%s'", opc), -1) : -1;
		in->ns = 2;
		return 0;
	}
	if (strcmp(kind, "inval") == 0) {
		in->mode = MB_INVAL;
		if (nops != 1 || !dc_addr(dc, &ops[0], in, &in->s[0]))
			return nops != 1 ? (dc_bad(dc, "wrong number of operands for '%s'", opc), -1) : -1;
		in->ns = 1;
		return 0;
	}
	if (strcmp(kind, "arrive") == 0 || strcmp(kind, "arrive_drop") == 0) {
		in->mode = kind[6] ? MB_ARRIVE_DROP : MB_ARRIVE;
		if (nops < 2 || nops > 3 || !dc_dst(dc, &ops[0], &in->d[0]) || !dc_addr(dc, &ops[1], in, &in->s[0]))
			return nops < 2 || nops > 3 ? (dc_bad(dc, "wrong number of operands for '%s'", opc), -1) : -1;
		in->nd = 1;
		in->ns = 1;
		if (nops == 3) {
			if (!dc_src(dc, &ops[2], TY_U32, &in->s[1]))
				return -1;
			in->ns = 2;
		} else if (in->boolop & AF_EXPECT_TX) {
			return dc_bad(dc, "'%s' needs a transaction count", opc), -1;
		}
		return 0;
	}
	if (strcmp(kind, "test_wait") == 0 || strcmp(kind, "try_wait") == 0) {
		in->mode = kind[1] == 'e' ? MB_TEST_WAIT : MB_TRY_WAIT;
		if (nops < 3 || nops > 4 || !dc_dst(dc, &ops[0], &in->d[0]) || !dc_addr(dc, &ops[1], in, &in->s[0]) ||
		    !dc_src(dc, &ops[2], (in->boolop & AF_PARITY) ? TY_U32 : TY_B64, &in->s[1]))
			return nops < 3 || nops > 4 ? (dc_bad(dc, "wrong number of operands for '%s'", opc), -1) : -1;
		in->nd = 1;
		in->ns = 2;
		return 0;
	}
	if (strcmp(kind, "pending_count") == 0) {
		in->mode = MB_PENDING;
		if (nops != 2 || !dc_dst(dc, &ops[0], &in->d[0]) || !dc_src(dc, &ops[1], TY_B64, &in->s[0]))
			return nops != 2 ? (dc_bad(dc, "wrong number of operands for '%s'", opc), -1) : -1;
		in->nd = 1;
		in->ns = 1;
		return 0;
	}
	return dc_bad(dc, "unsupported instruction '%s'", opc), -1;
}

static int dec_cp(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops)
{
	in->op = OP_ASYNC;
	if (has(parts, np, "mbarrier")) {       /* cp.async.mbarrier.arrive[.noinc].shared.b64 [a] */
		for (int k = 1; k < np; k++)
			if (!ignorable(parts[k]) && strcmp(parts[k], "mbarrier") && strcmp(parts[k], "arrive") &&
			    strcmp(parts[k], "noinc"))
				return dc_bad(dc, "unsupported modifier .%s in '%s'", parts[k], opc), -1;
		in->mode = AS_MBAR_ARRIVE;
		in->boolop = has(parts, np, "noinc") ? AF_NOINC : 0;
		in->space = SP_SHARED;
		if (nops != 1 || !dc_addr(dc, &ops[0], in, &in->s[0]))
			return nops != 1 ? (dc_bad(dc, "wrong number of operands for '%s'", opc), -1) : -1;
		in->ns = 1;
		return 0;
	}
	if (has(parts, np, "commit_group") || has(parts, np, "wait_group")) {
		in->mode = AS_NOP;      /* copies complete at issue */
		return 0;
	}
	bool tensor = has(parts, np, "tensor");
	int spaces[2], nsp = 0, rank = 0;
	for (int k = 1; k < np; k++) {
		const char *s = parts[k];
		if (strcmp(s, "global") == 0 || strncmp(s, "shared", 6) == 0) {
			if (nsp < 2)
				spaces[nsp] = s[0] == 'g' ? SP_GLOBAL : SP_SHARED;
			nsp++;
		} else if (s[0] >= '1' && s[0] <= '5' && strcmp(s + 1, "d") == 0) {
			rank = s[0] - '0';
		} else if (strcmp(s, "multicast::cluster") == 0) {
			in->flags |= F_MCAST;
		} else if (!ignorable(s)) {
			return dc_bad(dc, "unsupported modifier .%s in '%s'", s, opc), -1;
		}
	}
	if (nsp != 2 || (tensor && !rank))
		return dc_bad(dc, "unsupported instruction '%s'", opc), -1;
	in->space = (uint8_t)spaces[0];
	in->ty2 = (uint8_t)spaces[1];
	bool hint = has(parts, np, "L2::cache_hint");
	bool mbar = has(parts, np, "mbarrier::complete_tx::bytes");
	bool mcast = in->flags & F_MCAST;
	if (has(parts, np, "shared::cluster"))
		in->flags |= F_CLUSTER;
	if (mcast && (!mbar || in->space != SP_SHARED || in->ty2 != SP_GLOBAL))
		return dc_bad(dc, "unsupported instruction '%s'", opc), -1;
	in->target = dc->m->nxs;
	if (!tensor) {
		in->mode = AS_BULK;
		int want = 3 + mbar + mcast + hint;
		if (nops != want)
			return dc_bad(dc, "wrong number of operands for '%s'", opc), -1;
		if (!addr_x(dc, &ops[0], in, &in->s[0]) || !addr_x(dc, &ops[1], in, &in->s[1]) ||
		    !dc_src(dc, &ops[2], TY_U32, &in->s[2]))
			return -1;
		in->ns = 3;
		if (mbar) {
			if (!addr_x(dc, &ops[3], in, &in->s[3]))
				return -1;
			in->ns = 4;
		}
		if (mcast) {
			if (!dc_src(dc, &ops[4], TY_U16, &in->s[4]))
				return -1;
			in->ns = 5;
		}
		return 0;
	}
	in->mode = AS_TENSOR;
	in->vec = (uint8_t)rank;
	bool load = in->space == SP_SHARED;
	if (load ? (in->ty2 != SP_GLOBAL || !mbar) : in->ty2 != SP_SHARED)
		return dc_bad(dc, "unsupported instruction '%s'", opc), -1;
	if (nops != (load ? 3 : 2) + mcast + hint)
		return dc_bad(dc, "wrong number of operands for '%s'", opc), -1;
	const RawOperand *tm = &ops[load ? 1 : 0], *sm = &ops[load ? 0 : 1];
	if (tm->kind != RO_ADDR || tm->nsub != rank)
		return dc_bad(dc, "'%s' needs [tensorMap, {%s coordinates}]", opc, parts[3]), -1;
	if (!addr_x(dc, sm, in, &in->s[0]))
		return -1;
	int sp = in->space;
	in->space = SP_GENERIC;
	bool ok = addr_x(dc, tm, in, &in->s[1]);
	in->space = (uint8_t)sp;
	if (!ok)
		return -1;
	in->s[2] = 0;
	if (!load)
		xs_add(dc->m, 0);       /* no mbarrier: xs[target + 2] is 0 all the same */
	else if (!addr_x(dc, &ops[2], in, &in->s[2]))     /* its offset, [symbol+N] included */
		return -1;
	for (int k = 0; k < rank; k++)
		if (!dc_src(dc, &tm->sub[k], TY_S32, &in->s[3 + k]))
			return -1;
	in->ns = (uint8_t)(3 + rank);
	if (mcast && !dc_src(dc, &ops[3], TY_U16, &in->s[in->ns++]))
		return -1;
	return 0;
}

static int dec_wgmma(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops)
{
	const char *kind = np > 1 ? parts[1] : "";
	if (strcmp(kind, "fence") == 0 || strcmp(kind, "commit_group") == 0) {
		in->mode = kind[0] == 'f' ? WG_FENCE : WG_COMMIT;
		return nops == 0 ? 0 : (dc_bad(dc, "wrong number of operands for '%s'", opc), -1);
	}
	if (strcmp(kind, "wait_group") == 0) {
		in->mode = WG_WAIT;
		return nops == 1 ? 0 : (dc_bad(dc, "wrong number of operands for '%s'", opc), -1);
	}
	if (strcmp(kind, "mma_async") != 0)
		return dc_bad(dc, "unsupported instruction '%s'", opc), -1;
	in->mode = WG_MMA;
	int types[3], nty = 0, n = 0, kk = 0;
	for (int k = 2; k < np; k++) {
		const char *s = parts[k];
		int ty = type_from_name(s);
		unsigned nn, kv;
		char tail;
		if (ty && nty < 3)
			types[nty++] = ty;
		else if (sscanf(s, "m64n%uk%u%c", &nn, &kv, &tail) == 2)
			n = (int)nn, kk = (int)kv;
		else if (strcmp(s, "satfinite") == 0)
			in->flags |= F_SATFINITE;
		else if (strcmp(s, "sync") && strcmp(s, "aligned"))
			return dc_bad(dc, "unsupported modifier .%s in '%s'", s, opc), -1;
	}
	if (nty != 3 || !n)
		return dc_bad(dc, "unsupported wgmma shape or types: '%s'", opc), -1;
	int d = types[0], a = types[1], b = types[2];
	bool half = (a == TY_F16 || a == TY_BF16) && b == a && kk == 16 && (d == TY_F32 || (d == TY_F16 && a == TY_F16));
	bool tf32 = a == TY_TF32 && b == a && kk == 8 && d == TY_F32;
	bool f8 = (a == TY_E4M3 || a == TY_E5M2) && (b == TY_E4M3 || b == TY_E5M2) && kk == 32 &&
		  (d == TY_F32 || d == TY_F16);
	bool i8 = (a == TY_S8 || a == TY_U8) && (b == TY_S8 || b == TY_U8) && kk == 32 && d == TY_S32;
	if (!(half || tf32 || f8 || i8) || n < 8 || n > 256 || n % 8 || (i8 && n > 24 && n % 16))
		return dc_bad(dc, "unsupported wgmma shape or types: '%s'", opc), -1;
	int nd = d == TY_F16 ? n / 4 : n / 2;
	/* d, a-desc, b-desc, scale-d, then immediates: half: sa, sb, tA, tB; tf32/f8: sa, sb; int: none.
	 * A in registers ({a0..a3}: the warp's 16 rows as mma.sync's A fragment): half: sa, sb, tB */
	bool areg = nops >= 2 && ops[1].kind == RO_VEC;
	int nimm = half ? (areg ? 3 : 4) : i8 ? 0 : 2;
	if (nops != 4 + nimm)
		return dc_bad(dc, "unsupported wgmma operands in '%s'", opc), -1;
	if (ops[0].kind != RO_VEC || ops[0].nsub != nd)
		return dc_bad(dc, "'%s': the D vector has the wrong number of registers", opc), -1;
	if (areg && ops[1].nsub != 4)
		return dc_bad(dc, "'%s': A in registers takes 4 registers", opc), -1;
	in->target = dc->m->nxs;
	for (int k = 0; k < nd; k++) {
		int32_t sl;
		if (!dc_dst(dc, &ops[0].sub[k], &sl))
			return -1;
		xs_add(dc->m, sl);
	}
	if (areg) {
		in->boolop |= AF_A_REGS;
		for (int k = 0; k < 4; k++) {
			int32_t sl;
			if (!dc_src(dc, &ops[1].sub[k], TY_B32, &sl))
				return -1;
			xs_add(dc->m, sl);
		}
		in->s[0] = 0;
	} else if (!dc_src(dc, &ops[1], TY_B64, &in->s[0])) {
		return -1;
	}
	if (!dc_src(dc, &ops[2], TY_B64, &in->s[1]) || !dc_src(dc, &ops[3], TY_PRED, &in->s[2]))
		return -1;
	for (int k = 0; k < nimm; k++) {
		if (ops[4 + k].kind != RO_IMM || ops[4 + k].imm.kind != TK_INT)
			return dc_bad(dc, "'%s': scale and transpose operands must be integer immediates", opc), -1;
		int64_t v = (int64_t)ops[4 + k].imm.bits;
		if (k < 2 ? (v != 1 && v != -1) : (v != 0 && v != 1))
			return dc_bad(dc, "'%s': bad scale or transpose immediate", opc), -1;
		if (k == 0 && v < 0)
			in->boolop |= AF_NEG_A;
		if (k == 1 && v < 0)
			in->boolop |= AF_NEG_B;
		int slot = areg && k >= 2 ? k + 1 : k;     /* register A has no transpose */
		if (slot == 2 && v)
			in->boolop |= AF_TRANS_A;
		if (slot == 3 && v)
			in->boolop |= AF_TRANS_B;
	}
	in->ty = (uint8_t)a;
	in->cmp = (uint8_t)b;
	in->ty2 = (uint8_t)d;
	in->off = n;            /* D registers: Module.xs[target ..], n/2 (f16: n/4); nd stays 0 */
	in->vec = (uint8_t)kk;
	in->ns = 3;
	return 0;
}

int decode_async(DecodeCtx *dc, Insn *in, const char *opcode, char **parts, int np, RawOperand *ops, int nops)
{
	switch (in->op) {
	case OP_MBARRIER:
		return dec_mbarrier(dc, in, opcode, parts, np, ops, nops);
	case OP_WGMMA:
		return dec_wgmma(dc, in, opcode, parts, np, ops, nops);
	default:
		return dec_cp(dc, in, opcode, parts, np, ops, nops);
	}
}
