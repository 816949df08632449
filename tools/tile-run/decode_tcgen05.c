/* decode_tcgen05.c: Blackwell's tensor-memory instructions -> Insn (called
 * by decode_insn for tcgen05.*; run by exec_tcgen05.c). Forms (PTX ISA 8.6+):
 *   tcgen05.alloc.cta_group::1.sync.aligned[.shared::cta].b32 [dst], ncols
 *   tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols
 *   tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned
 *   tcgen05.ld.sync.aligned.SHAPE.xN[.pack::16b].b32 {r..}, [taddr][, halfSplitOff]
 *   tcgen05.st.sync.aligned.SHAPE.xN[.unpack::16b].b32 [taddr][, halfSplitOff], {r..}
 *     SHAPE 32x32b 16x64b 16x128b 16x256b 16x32bx2 (the last with the offset)
 *   tcgen05.wait::ld|wait::st.sync.aligned, tcgen05.fence::before_thread_sync|after_thread_sync
 *   tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8}[.collector::a::*]
 *     [d], adesc|[a], bdesc, idesc[, {disable-output-lane x4}], enable-input-d[, scale-input-d]
 *   tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale[.block32|.scale_vec::1X]
 *     [d], adesc, bdesc, idesc, [scaleA], [scaleB], enable-input-d
 *   tcgen05.commit.cta_group::1.mbarrier::arrive::one[.shared::cluster][.multicast::cluster].b64 [mbar][, ctaMask]
 *   tcgen05.cp.cta_group::1.SHAPE [taddr], sdesc   SHAPE 128x256b 128x128b 4x256b 32x128b.warpx4
 *     64x128b.warpx2::02_13 64x128b.warpx2::01_23
 * Insn: mode T5_*; the cta_group in vec; address offsets and register lists
 * in Module.xs from Insn.target: xs[target] the first address's offset,
 * xs[target+1] the second's (mma's A in tensor memory), then ld/st's
 * registers; ld/st: cmp the shape, ty2 the count N, off the registers;
 * mma: ty the kind; s[] = d, a, b, idesc, enable-input-d, scale-input-d,
 * then the disable-output-lane registers (s[6..9]), block scaling's scale
 * addresses (s[10], s[11]; offsets xs[target+2], xs[target+3]); cp: cmp the
 * shape, s[] = taddr, sdesc. Anything else (cta_group::2, other block-scaled
 * kinds, .ws, decompressing copies, tcgen05.shift) is a clear "unsupported"
 * error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

static int xs_push(Module *m, int32_t v)
{
	m->xs = xrealloc(m->xs, (size_t)(m->nxs + 1) * sizeof *m->xs);
	m->xs[m->nxs] = v;
	return m->nxs++;
}

/* [reg+off] whose offset goes to xs */
static bool taddr(DecodeCtx *dc, const RawOperand *o, Insn *in, int32_t *slot)
{
	int sp = in->space;
	in->space = SP_SHARED;
	bool ok = dc_addr(dc, o, in, slot);
	in->space = (uint8_t)sp;
	if (ok)
		xs_push(dc->m, (int32_t)in->off);
	in->off = 0;
	return ok;
}

static int bad(DecodeCtx *dc, const char *what, const char *opc)
{
	dc_bad(dc, "%s in '%s'", what, opc);
	return -1;
}

static bool skip_part(const char *s)
{
	static const char *const ign[] = { "sync", "aligned", "b32", "b64", "shared::cta", "shared::cluster",
		"mbarrier::arrive::one", "collector::a::discard", "collector::a::fill", "collector::a::use",
		"collector::a::lastuse", "collector::b0::discard", "collector::b1::discard", "collector::b2::discard",
		"collector::b3::discard", NULL };
	for (int k = 0; ign[k]; k++)
		if (strcmp(ign[k], s) == 0)
			return true;
	return false;
}

static int ldst(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops, bool ld)
{
	static const char *const shapes[] = { "", "32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2" };
	static const int per[] = { 0, 1, 1, 2, 4, 1 };      /* registers per .x1 */
	int shape = 0, num = 0;
	for (int k = 2; k < np; k++) {
		const char *s = parts[k];
		int found = 0;
		for (int j = 1; j <= T5S_16X32BX2; j++)
			if (strcmp(s, shapes[j]) == 0)
				found = j;
		if (found)
			shape = found;
		else if (s[0] == 'x' && atoi(s + 1) > 0)
			num = atoi(s + 1);
		else if (strcmp(s, ld ? "pack::16b" : "unpack::16b") == 0)
			in->boolop |= T5F_PACK;
		else if (!skip_part(s))
			return dc_bad(dc, "unsupported modifier .%s in '%s'", s, opc), -1;
	}
	if (!shape || !num || num > 128 || (num & (num - 1)) || per[shape] * num > 128)
		return bad(dc, "unsupported shape or count", opc);
	bool split = shape == T5S_16X32BX2;
	int want = 2 + split;
	if (nops != want)
		return bad(dc, "wrong number of operands", opc);
	const RawOperand *regs = &ops[ld ? 0 : want - 1], *addr = &ops[ld ? 1 : 0];
	int n = per[shape] * num;
	if (regs->kind != RO_VEC || regs->nsub != n)
		return dc_bad(dc, "'%s' takes a vector of %d registers", opc, n), -1;
	in->mode = ld ? T5_LD : T5_ST;
	in->cmp = (uint8_t)shape;
	in->ty2 = (uint8_t)num;
	in->target = dc->m->nxs;
	if (!taddr(dc, addr, in, &in->s[0]))
		return -1;
	in->s[1] = 0;
	if (split && !dc_src(dc, &ops[ld ? 2 : 1], TY_U32, &in->s[1]))
		return -1;
	for (int k = 0; k < n; k++) {
		int32_t sl;
		if (!(ld ? dc_dst(dc, &regs->sub[k], &sl) : dc_src(dc, &regs->sub[k], TY_B32, &sl)))
			return -1;
		xs_push(dc->m, sl);
	}
	in->off = n;
	in->ns = 2;
	return 0;
}

/* block scaling: [d], adesc, bdesc, idesc, [scaleA], [scaleB], enable-input-d */
static int mma_scaled(DecodeCtx *dc, Insn *in, const char *opc, RawOperand *ops, int nops)
{
	if (nops != 7)
		return bad(dc, "wrong number of operands", opc);
	in->mode = T5_MMA;
	in->target = dc->m->nxs;
	if (!taddr(dc, &ops[0], in, &in->s[0]))
		return -1;
	xs_push(dc->m, 0);
	if (!dc_src(dc, &ops[1], TY_B64, &in->s[1]) || !dc_src(dc, &ops[2], TY_B64, &in->s[2]) ||
	    !dc_src(dc, &ops[3], TY_B32, &in->s[3]) || !taddr(dc, &ops[4], in, &in->s[10]) ||
	    !taddr(dc, &ops[5], in, &in->s[11]) || !dc_src(dc, &ops[6], TY_PRED, &in->s[4]))
		return -1;
	in->ns = 12;
	return 0;
}

/* tcgen05.cp.cta_group::1.SHAPE [taddr], sdesc */
static int cp(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops)
{
	static const char *const shapes[] = { "", "128x256b", "128x128b", "4x256b", "64x128b", "64x128b", "32x128b" };
	for (int k = 2; k < np; k++) {
		const char *s = parts[k];
		if (strcmp(s, "cta_group::1") == 0) {
			in->vec = 1;
			continue;
		}
		int found = 0;
		for (int j = 1; j <= T5C_32X128B_X4 && !found; j++)
			if (strcmp(s, shapes[j]) == 0)
				found = j;
		if (found)
			in->cmp = (uint8_t)found;
		else if (strcmp(s, "warpx2::02_13") == 0 && in->cmp == T5C_64X128B_02_13)
			in->cmp = T5C_64X128B_02_13;
		else if (strcmp(s, "warpx2::01_23") == 0 && in->cmp == T5C_64X128B_02_13)
			in->cmp = T5C_64X128B_01_23;
		else if (strcmp(s, "warpx4") == 0 && in->cmp == T5C_32X128B_X4)
			continue;
		else
			return dc_bad(dc, "unsupported modifier .%s in '%s'", s, opc), -1;
	}
	if (in->vec != 1 || !in->cmp)
		return bad(dc, "unsupported tcgen05.cp form (tile-run runs cta_group::1 without decompression)", opc);
	if (nops != 2)
		return bad(dc, "wrong number of operands", opc);
	in->mode = T5_CP;
	in->target = dc->m->nxs;
	if (!taddr(dc, &ops[0], in, &in->s[0]) || !dc_src(dc, &ops[1], TY_B64, &in->s[1]))
		return -1;
	in->ns = 2;
	return 0;
}

static int mma(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops)
{
	static const char *const kinds[] = { "", "kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8", "kind::mxf8f6f4" };
	bool scaled = false;
	for (int k = 2; k < np; k++) {
		const char *s = parts[k];
		int found = 0;
		for (int j = 1; j <= T5K_MXF8F6F4; j++)
			if (strcmp(s, kinds[j]) == 0)
				found = j;
		if (found)
			in->ty = (uint8_t)found;
		else if (strcmp(s, "cta_group::1") == 0 || strcmp(s, "cta_group::2") == 0)
			in->vec = (uint8_t)(s[11] - '0');
		else if (strcmp(s, "block_scale") == 0)
			scaled = true;
		else if (strcmp(s, "block32") && strcmp(s, "scale_vec::1X") && !skip_part(s))
			return dc_bad(dc, "unsupported modifier .%s in '%s'", s, opc), -1;
	}
	if (!in->ty || !in->vec || scaled != (in->ty == T5K_MXF8F6F4) || (scaled && in->vec != 1))
		return bad(dc, "unsupported tcgen05.mma form (tile-run runs kinds f16, tf32, f8f6f4, i8 and, with cta_group::1, mxf8f6f4.block_scale.block32)", opc);
	if (scaled)
		return mma_scaled(dc, in, opc, ops, nops);
	if (in->vec == 2)
		in->flags |= F_CLUSTER;         /* reads the peer CTA's shared memory */
	/* [d], a, b, idesc, [{lanes}], enable-input-d[, scale-input-d] */
	int k = 4;
	bool lanes = nops > 4 && ops[4].kind == RO_VEC;
	if (nops < 5 || nops > 7)
		return bad(dc, "wrong number of operands", opc);
	in->mode = T5_MMA;
	in->target = dc->m->nxs;
	if (!taddr(dc, &ops[0], in, &in->s[0]))
		return -1;
	if (ops[1].kind == RO_ADDR) {
		in->boolop |= T5F_A_TMEM;
		if (!taddr(dc, &ops[1], in, &in->s[1]))
			return -1;
	} else {
		xs_push(dc->m, 0);
		if (!dc_src(dc, &ops[1], TY_B64, &in->s[1]))
			return -1;
	}
	if (!dc_src(dc, &ops[2], TY_B64, &in->s[2]) || !dc_src(dc, &ops[3], TY_B32, &in->s[3]))
		return -1;
	if (lanes) {
		if (ops[4].nsub != 4 * in->vec)
			return bad(dc, in->vec == 1 ? "cta_group::1 takes 4 disable-output-lane registers"
						    : "cta_group::2 takes 8 disable-output-lane registers", opc);
		in->boolop |= T5F_DISABLE;
		for (int j = 0; j < 4 * in->vec; j++)
			if (!dc_src(dc, &ops[4].sub[j], TY_B32, &in->s[6 + j]))
				return -1;
		k = 5;
	}
	if (nops < k + 1 || nops > k + 2)
		return bad(dc, "wrong number of operands", opc);
	if (!dc_src(dc, &ops[k], TY_PRED, &in->s[4]))
		return -1;
	if (nops == k + 2) {
		if (in->ty != T5K_F16 && in->ty != T5K_TF32)
			return bad(dc, "scale-input-d is only for kinds f16 and tf32", opc);
		if (ops[k + 1].kind != RO_IMM || ops[k + 1].imm.kind != TK_INT || ops[k + 1].imm.bits > 15)
			return bad(dc, "scale-input-d must be an immediate 0..15", opc);
		in->boolop |= T5F_SCALE_D;
		if (!dc_src(dc, &ops[k + 1], TY_U32, &in->s[5]))
			return -1;
	}
	in->ns = 14;
	return 0;
}

int decode_tcgen05(DecodeCtx *dc, Insn *in, const char *opc, char **parts, int np, RawOperand *ops, int nops)
{
	const char *kind = np > 1 ? parts[1] : "";
	in->space = SP_SHARED;
	if (strcmp(kind, "ld") == 0 || strcmp(kind, "st") == 0)
		return ldst(dc, in, opc, parts, np, ops, nops, kind[0] == 'l');
	if (strcmp(kind, "mma") == 0)
		return mma(dc, in, opc, parts, np, ops, nops);
	if (strcmp(kind, "cp") == 0)
		return cp(dc, in, opc, parts, np, ops, nops);
	if (strcmp(kind, "wait::ld") == 0 || strcmp(kind, "wait::st") == 0 || strcmp(kind, "fence::before_thread_sync") == 0 ||
	    strcmp(kind, "fence::after_thread_sync") == 0) {
		in->mode = strncmp(kind, "wait", 4) == 0 ? T5_WAIT : T5_FENCE;
		return nops == 0 ? 0 : bad(dc, "wrong number of operands", opc);
	}
	int group = 0;
	bool multicast = false;
	for (int k = 2; k < np; k++) {
		if (strcmp(parts[k], "cta_group::1") == 0 || strcmp(parts[k], "cta_group::2") == 0)
			group = parts[k][11] - '0';
		else if (strcmp(parts[k], "multicast::cluster") == 0)
			multicast = true;
		else if (!skip_part(parts[k]))
			return dc_bad(dc, "unsupported modifier .%s in '%s'", parts[k], opc), -1;
	}
	if (!group)
		return bad(dc, "a tcgen05 instruction without .cta_group::1 or ::2", opc);
	in->vec = (uint8_t)group;
	if (strcmp(kind, "alloc") == 0) {
		in->mode = T5_ALLOC;
		if (nops != 2 || !dc_addr(dc, &ops[0], in, &in->s[0]) || !dc_src(dc, &ops[1], TY_U32, &in->s[1]))
			return nops != 2 ? bad(dc, "wrong number of operands", opc) : -1;
		in->ns = 2;
		return 0;
	}
	if (strcmp(kind, "dealloc") == 0) {
		in->mode = T5_DEALLOC;
		if (nops != 2 || !dc_src(dc, &ops[0], TY_B32, &in->s[0]) || !dc_src(dc, &ops[1], TY_U32, &in->s[1]))
			return nops != 2 ? bad(dc, "wrong number of operands", opc) : -1;
		in->ns = 2;
		return 0;
	}
	if (strcmp(kind, "relinquish_alloc_permit") == 0) {
		in->mode = T5_RELINQUISH;
		return nops == 0 ? 0 : bad(dc, "wrong number of operands", opc);
	}
	if (strcmp(kind, "commit") == 0) {
		in->mode = T5_COMMIT;
		if (nops != 1 + multicast || !dc_addr(dc, &ops[0], in, &in->s[0]))
			return nops != 1 + multicast ? bad(dc, "wrong number of operands", opc) : -1;
		in->s[1] = 0;
		if (multicast) {
			in->boolop |= T5F_MULTICAST;
			in->flags |= F_CLUSTER;         /* other CTAs' mbarriers (exec_cluster.c) */
			if (!dc_src(dc, &ops[1], TY_U32, &in->s[1]))
				return -1;
		}
		in->ns = 2;
		return 0;
	}
	return dc_bad(dc, "unsupported instruction '%s'", opc), -1;
}
