/* util_wgmma.c: one mmaf / mmai by Hopper's warpgroup MMA (utility layer,
 * emit.h; docs/lowering.md "MMA"), for op_mma.c when tile-sched marked the
 * op on the wgmma path of its plan (libcommon's mma_choose gave a wgmma tiling, mma.h).
 *
 * A (M x K) and B (K x N) are written by their owners into the kernel's
 * MMA staging buffer (util_ldsm.c) in wgmma's swizzled layouts
 * (mma_wgmma_offset): A K-major (W = min(128, K * bytes) bytes a row, K
 * beyond W in further M x W blocks); 16-bit B as it is, MN-major (rows of
 * the instruction's n, W = min(128, n * bytes), transpose-B 1, LBO the K x W
 * block along N), other B transposed to N x K and K-major like A; then
 *   fence.proxy.async.shared::cta; bar.sync   (generic writes -> async reads)
 *   wgmma.fence
 *   per K step (32 bytes of K) and m64 block of the thread's warpgroup:
 *     wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b> {acc}, descA, descB, p[, 1, 1[, 0, 0]]
 *   wgmma.commit_group; wgmma.wait_group 0
 * with the accumulator registers in the C layout (mma.h: D register i of
 * instruction j is register j * (N/wn)/2 + i; f16 pairs packed). The
 * accumulators pass through the wait as tied operands, so nothing reads
 * them before the products land. Descriptors (PTX ISA "Matrix Descriptor
 * Format"; operands: $0.. the accumulators, then their tied old values,
 * then the two descriptors and scale-d): start address >> 4 (bits 0-13), SBO = 8 rows = 8*W bytes >> 4
 * (bits 32-45), LBO unused for swizzled K-major (0), swizzle mode (bits
 * 62-63: 1 = 128B, 2 = 64B, 3 = 32B); the buffer is 1024-byte aligned, so
 * the base offset is 0, and a K step inside a swizzle row is a start
 * address 32 bytes on (what CUTLASS's descriptor iterator does). The next
 * write to the buffer is after a bar.sync (op_mma.c), when every warpgroup
 * has waited for its products. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "irutil.h"
#include "mma.h"
#include "xalloc.h"
#include "diag.h"

/* inline asm returning n values of type rt (as outputs $0..), taking args;
 * tied: the first n args are the outputs' old values */
static LLVMValueRef asm_many(E *e, const char *text, LLVMTypeRef rt, char cc, int n, LLVMValueRef *args, int nargs,
			     const char *more_cons, bool tied)
{
	StrBuf cons = { 0 };
	for (int i = 0; i < n; i++)
		sb_printf(&cons, "%s=%c", i ? "," : "", cc);
	for (int i = 0; i < nargs; i++) {
		if (tied && i < n)
			sb_printf(&cons, ",%d", i);
		else
			sb_printf(&cons, ",%c", more_cons[i - (tied ? n : 0)]);
	}
	sb_printf(&cons, ",~{memory}");
	LLVMTypeRef *rts = xcalloc((size_t)n, sizeof *rts), *pts = xcalloc((size_t)(nargs ? nargs : 1), sizeof *pts);
	for (int i = 0; i < n; i++)
		rts[i] = rt;
	for (int i = 0; i < nargs; i++)
		pts[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ret = n == 0 ? LLVMVoidTypeInContext(e->ctx) : n == 1 ? rt
			 : LLVMStructTypeInContext(e->ctx, rts, (unsigned)n, 0);
	LLVMTypeRef ft = LLVMFunctionType(ret, pts, (unsigned)nargs, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons.s, cons.len, 1, 0, LLVMInlineAsmDialectATT, 0);
	LLVMValueRef call = LLVMBuildCall2(e->b, ft, f, args, (unsigned)nargs, "");
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", strlen("convergent"));
	LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, kind, 0));
	sb_free(&cons);
	free(rts);
	free(pts);
	return call;
}

static LLVMValueRef out_of(E *e, LLVMValueRef call, int n, int i)
{
	return n == 1 ? call : LLVMBuildExtractValue(e->b, call, (unsigned)i, "");
}

/* the n values of type rt (constraint cc) tied through asm `text`, in
 * place, in chunks of <= 128 operands (a second wgmma.wait_group returns
 * at once): their definitions come before it, their uses after */
static void tie_through(E *e, const char *text, LLVMValueRef *v, int n, LLVMTypeRef rt, char cc)
{
	for (int c0 = 0; c0 < n; c0 += 128) {
		int k = n - c0 < 128 ? n - c0 : 128;
		LLVMValueRef call = asm_many(e, text, rt, cc, k, v + c0, k, "", true);
		for (int i = 0; i < k; i++)
			v[c0 + i] = out_of(e, call, k, i);
	}
}

static void asm_plain(E *e, const char *text)
{
	asm_many(e, text, NULL, 'r', 0, NULL, 0, "", false);
}

/* the shared-window address of p (an i8 addrspace(3) pointer), i64 */
static LLVMValueRef smem_addr(E *e, LLVMValueRef p)
{
	return LLVMBuildZExt(e->b, LLVMBuildPtrToInt(e->b, p, ty_i32(e), ""), ty_i64(e), "");
}

static LLVMValueRef descriptor(E *e, LLVMValueRef addr, int w, int64_t lbo)
{
	uint64_t mode = w == 128 ? 1 : w == 64 ? 2 : 3;
	uint64_t bits = (uint64_t)((8 * w) >> 4) << 32 | (uint64_t)(lbo >> 4) << 16 | mode << 62;
	LLVMValueRef start = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, addr, c_i64(e, 4), ""), c_i64(e, 0x3fff), "");
	return LLVMBuildOr(e->b, start, LLVMConstInt(ty_i64(e), bits, 0), "");
}

void mma_wgmma(E *e, Op *op, const MmaTiling *t, TV *A, TV *B, const char *dt, const char *at, const char *bt,
	       LLVMValueRef *acc)
{
	const Type *ea = tile_elem(op->operands[0]->type), *ec = tile_elem(op->operands[2]->type);
	int eb = elem_bytes(ea);
	int w = mma_wgmma_stage_w(t, 0, ea);
	int64_t nw = t->n / t->wn;
	/* 16-bit B as it is (K x N, MN-major, transpose-B): rows of the
	 * instruction's n, whole swizzle rows; else transposed (N x K, K-major) */
	bool bmn = mma_stage_as_is(t, 1, ea);
	int wb = mma_wgmma_stage_w(t, 1, ea);
	bool half = ec->scalar == SC_F16, integer = ec->scalar == SC_I32;
	bool f16in = ea->scalar == SC_F16 || ea->scalar == SC_BF16;
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx), i32 = ty_i32(e);
	LLVMTypeRef rt = half || integer ? i32 : LLVMTypeOf(acc[0]);
	char cc = half || integer ? 'r' : 'f';

	LLVMValueRef buf = mma_stage_base(e, op);     /* this step's half when pipelined */
	LLVMValueRef boff = c_i64(e, mma_stage_b_offset(op));
	LLVMValueRef bbase = LLVMBuildGEP2(e->b, i8, buf, &boff, 1, "");
	/* A already in wgmma's register fragment (e.g. attention's P, made by a
	 * product of the same shape): straight from the registers */
	bool copied_a = mma_operand_copied(op, 0), cb = mma_operand_copied(op, 1);
	bool areg = mma_wgmma_a_in_regs(op);      /* its plan (stagecheck: the value's layout is the fragment) */
	if (areg && !mma_layout_is_a(t, &A->lay))
		ice("tile-ptx: a wgmma A whose registers are not in its value's layout");
	/* a loop-invariant A staged once before the loop (mma_resident_prologue:
	 * stored, fenced and waited for there) */
	bool resident = mma_resident(op, 0);     /* never when areg */
	bool ca = areg || copied_a || resident;
	LLVMValueRef abuf = resident ? mma_resident_base(e, op, 0) : buf;
	/* before writing the buffer, every warpgroup must be done with its previous products */
	mma_stage_begin(e, op, !ca || !cb);
	if (!ca)
		mma_stage_store(e, A, ea, buf, t->m, t->k, false, w);
	if (!cb)
		mma_stage_store(e, B, ea, bbase, t->k, t->n, !bmn, wb);
	mma_copies_wait(e, op);      /* the operands tile-sched sent by cp.async or TMA */
	/* generic writes (stores, cp.async) -> wgmma's async reads; operands
	 * that came by TMA are visible to every thread that waited for them */
	if (!(ca && (areg || resident || mma_operand_tma(e, op, 0)) && mma_operand_tma(e, op, 1))) {
		asm_plain(e, "fence.proxy.async.shared::cta;");
		barrier(e);
	}

	/* this warp's warpgroup: gi over M, gj over N (W mode (4, wm, wn)) */
	LLVMValueRef g = LLVMBuildLShr(e->b, e->warp, c_i32(e, 2), "");
	LLVMValueRef gi = LLVMBuildAnd(e->b, g, c_i32(e, t->wm - 1), "");
	LLVMValueRef gj = LLVMBuildLShr(e->b, g, c_i32(e, __builtin_ctz((unsigned)t->wm)), "");
	/* A's rows for warpgroup row gi; B's part for warpgroup column gj: nw
	 * rows (K-major) or nw columns, whole W-byte column blocks of K rows
	 * (MN-major) */
	int64_t astride, bstride;
	mma_wgmma_group_strides(t, w, bmn, eb, &astride, &bstride);
	LLVMValueRef arow = LLVMBuildZExt(e->b, LLVMBuildMul(e->b, gi, c_i32(e, (int)astride), ""), ty_i64(e), "");
	LLVMValueRef brow = LLVMBuildZExt(e->b, LLVMBuildMul(e->b, gj, c_i32(e, (int)bstride), ""), ty_i64(e), "");
	LLVMValueRef abase = LLVMBuildAdd(e->b, smem_addr(e, abuf), arow, "");
	LLVMValueRef bb = LLVMBuildAdd(e->b, smem_addr(e, bbase), brow, "");

	if (e->t5_taddr) {      /* a tcgen05 target (TILE_TCGEN05): the same staging, tcgen05.mma */
		if (areg)
			ice("tile-ptx: a tcgen05 product planned with A in registers");
		/* thread 0 issues every warpgroup's products: from the staging's start */
		tcgen05_product(e, op, t, smem_addr(e, abuf), smem_addr(e, bbase), w, wb, bmn, dt, at, bt, acc,
				mma_stage_pipelined(op) && mma_async_depth(op) == 1, descriptor);
		if (tma_ring(e, op))
			tma_release(e, op, mma_stage_sel(e, op));
		return;
	}
	int nd = (int)(nw / 2) / (half ? 2 : 1);       /* D registers of one instruction */
	char head[160];
	snprintf(head, sizeof head, "wgmma.mma_async.sync.aligned.m64n%lldk%d%s.%s.%s.%s", (long long)nw, t->atom->k,
		 integer ? ".satfinite" : "", dt, at, bt);
	/* operands: $0.. D, their tied old values, A (descriptor, or four
	 * registers), B's descriptor, scale-d */
	int na = areg ? 4 : 1, ia = 2 * nd, ib = ia + na, isc = ib + 1;
	StrBuf text = { 0 };
	sb_printf(&text, "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n%s {", isc, head);
	for (int i = 0; i < nd; i++)
		sb_printf(&text, "%s$%d", i ? ", " : "", i);
	if (areg)
		sb_printf(&text, "}, {$%d, $%d, $%d, $%d}, $%d, p%s;\n}", ia, ia + 1, ia + 2, ia + 3, ib,
			  integer ? "" : !f16in ? ", 1, 1" : bmn ? ", 1, 1, 1" : ", 1, 1, 0");
	else
		sb_printf(&text, "}, $%d, $%d, p%s;\n}", ia, ib,
			  integer ? "" : !f16in ? ", 1, 1" : bmn ? ", 1, 1, 0, 1" : ", 1, 1, 0, 0");

	int64_t per = nw / 2;                          /* accumulator values of one instruction */
	LLVMValueRef *regs = xcalloc((size_t)(t->mt * nd), sizeof *regs);
	for (int64_t j = 0; j < t->mt; j++)
		for (int i = 0; i < nd; i++) {
			LLVMValueRef *x = acc + j * per;
			if (!half) {
				regs[j * nd + i] = x[i];
				continue;
			}
			regs[j * nd + i] = pack_b32(e, x + 2 * i, 2);
		}
	int vpr = 4 / eb;                              /* A elements per 32-bit register */
	/* A from registers: packed before the fence. Every register a wgmma
	 * reads (accumulators, A) passes through an empty asm ahead of
	 * wgmma.fence (CUTLASS's warpgroup_fence_operand), so nothing that
	 * writes them can land between the fence and the wgmma, where ptxas
	 * would inject a warpgroup.arrive of its own (C7519) */
	int64_t napk = areg ? t->kt * t->mt * 4 : 0;
	LLVMValueRef *apk = xcalloc((size_t)napk + 1, sizeof *apk);
	for (int64_t q = 0; q < napk; q++)
		apk[q] = pack_b32(e, A->r + q * vpr, vpr);
	tie_through(e, "", regs, (int)(t->mt * nd), rt, cc);
	if (napk)
		tie_through(e, "", apk, (int)napk, ty_i32(e), 'r');
	asm_plain(e, "wgmma.fence.sync.aligned;");
	LLVMValueRef *args = xcalloc((size_t)nd + 6, sizeof *args);
	for (int64_t kk = 0; kk < t->kt; kk++) {
		for (int64_t j = 0; j < t->mt; j++) {
			int64_t ao, bo;
			mma_wgmma_step_offsets(t, w, wb, bmn, kk, j, &ao, &bo);
			LLVMValueRef aaddr = LLVMBuildAdd(e->b, abase, c_i64(e, ao), "");
			LLVMValueRef baddr = LLVMBuildAdd(e->b, bb, c_i64(e, bo), "");
			for (int i = 0; i < nd; i++)
				args[i] = regs[j * nd + i];
			int x = nd;
			if (areg) {     /* the A layout's registers of instruction (j, kk): (kk + kt*j) * 4 * vpr on */
				for (int r = 0; r < 4; r++)
					args[x++] = apk[(kk + t->kt * j) * 4 + r];
			} else {
				args[x++] = descriptor(e, aaddr, w, 0);
			}
			args[x++] = descriptor(e, baddr, wb, bmn ? t->k * wb : 0);
			args[x++] = c_i32(e, 1);
			LLVMValueRef call = asm_many(e, text.s, rt, cc, nd, args, x, areg ? "rrrrlr" : "llr", true);
			for (int i = 0; i < nd; i++)
				regs[j * nd + i] = out_of(e, call, nd, i);
		}
	}
	asm_plain(e, "wgmma.commit_group.sync.aligned;");
	/* the wait, with the accumulators tied through it (chunks of <= 128:
	 * a second wait_group returns at once); async_depth (tile-sched, a
	 * pipelined K loop): this step's group stays in flight, the loop's
	 * exit waits for it (mma_wgmma_drain) */
	bool in_flight = mma_stage_pipelined(op) && mma_async_depth(op) == 1;
	tie_through(e, in_flight ? "wgmma.wait_group.sync.aligned 1;" : "wgmma.wait_group.sync.aligned 0;", regs,
		    (int)(t->mt * nd), rt, cc);
	/* a TMA ring (util_tma.c): the stage whose wgmma just completed is free
	 * again: this step's (wait 0), or the previous step's (wait 1; none
	 * before the first step, the loop's exit releases the last) */
	if (tma_ring(e, op)) {
		if (!in_flight) {
			tma_release(e, op, mma_stage_sel(e, op));
		} else {
			LLVMBasicBlockRef after = guard_begin(e, LLVMBuildNot(e->b, mma_first_step(e, op), ""));
			tma_release(e, op, mma_stage_sel_back(e, op, 1));
			guard_end(e, after);
		}
	}
	for (int64_t j = 0; j < t->mt; j++)
		for (int i = 0; i < nd; i++) {
			LLVMValueRef *x = acc + j * per;
			if (!half) {
				x[i] = regs[j * nd + i];
				continue;
			}
			unpack_b32(e, regs[j * nd + i], LLVMTypeOf(x[0]), x + 2 * i, 2);
		}
	free(args);
	free(apk);
	free(regs);
	sb_free(&text);
}

/* the product that leaves wgmma in flight and makes loop's result i, or NULL */
static Op *async_product(const Op *loop, int i)
{
	Block *body = loop->regions[0].first;
	Op *last = body ? body->last : NULL;
	if (!last || last->info->code != CT_continue || i >= last->noperands || i >= loop->nresults)
		return NULL;
	Op *p = last->operands[i]->def;
	return p && mma_is_product(p) && mma_async_depth(p) &&
	       mma_stage_pipelined(p) ? p : NULL;
}

void mma_wgmma_loop_begin(E *e, Op *loop)
{
	for (int i = 0; e->t5_taddr && i < loop->nresults; i++) {
		Op *p = async_product(loop, i);
		MmaTiling t;
		if (p && mma_planned_tiling(p, &t))
			tcgen05_acc_to_tmem(e, p, &t, get(e, loop->operands[3 + i])->r);
	}
}

void mma_wgmma_drain(E *e, Op *loop)
{
	for (int i = 0; i < loop->nresults; i++) {
		Op *p = async_product(loop, i);
		if (!p)
			continue;
		TV *t = get(e, loop->results[i]);
		MmaTiling tl;
		if (e->t5_taddr && mma_planned_tiling(p, &tl)) {     /* tcgen05: the accumulator back from tensor memory */
			TV *d = tv_new(e, loop->results[i]);
			for (int r = 0; r < d->n; r++)
				d->r[r] = t->r[r];
			tcgen05_acc_from_tmem(e, p, &tl, d->r);
			set(e, loop->results[i], d);
			continue;
		}
		/* as the product passes them: 32-bit registers (f16 pairs packed) */
		const Type *ec = tile_elem(p->operands[2]->type);
		bool half = ec->scalar == SC_F16;
		int per = half ? 2 : 1, nr = (int)(t->n / per);
		LLVMValueRef *regs = xcalloc((size_t)nr + 1, sizeof *regs);
		for (int r = 0; r < nr; r++)
			regs[r] = half ? pack_b32(e, t->r + per * r, 2) : t->r[r];
		LLVMTypeRef rt = LLVMTypeOf(regs[0]);
		tie_through(e, "wgmma.wait_group.sync.aligned 0;", regs, nr, rt, rt == ty_f32(e) ? 'f' : 'r');
		TV *d = tv_new(e, loop->results[i]);
		for (int r = 0; r < nr; r++) {
			if (half)
				unpack_b32(e, regs[r], LLVMTypeOf(t->r[0]), d->r + per * r, 2);
			else
				d->r[r] = regs[r];
		}
		set(e, loop->results[i], d);
		free(regs);
		if (tma_ring(e, p))    /* the last step's stage */
			tma_release(e, p, mma_last_stage(e, loop, p));
	}
}

bool mma_wgmma_async_loop(const Op *loop)
{
	for (int i = 0; i < loop->nresults; i++)
		if (async_product(loop, i))
			return true;
	return false;
}

void mma_wgmma_wait_all(E *e)
{
	if (!e->t5_taddr)       /* tcgen05: nothing in flight */
		asm_plain(e, "wgmma.wait_group.sync.aligned 0;");
}
