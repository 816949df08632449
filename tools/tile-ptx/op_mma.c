/* op_mma.c: mmaf and mmai through warp-level MMA (op family;
 * docs/lowering.md "MMA"). tile-sched gave the operands and the accumulator
 * the fragment layouts of libcommon's tiling (mma.h), so every thread
 * already holds, in registers, the fragments of its warp's atoms: for each
 * accumulator atom (mt x nt per warp) and each K atom one instruction:
 *   f16, bf16 -> f32 | f16   mma.sync.aligned.m16n8k16.row.col (sm_75: m16n8k8, f16)
 *   tf32 -> f32              mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
 *   i8 x i8 -> i32           mma.sync.aligned.m16n8k32.row.col.satfinite.s32.{s8,u8}.{s8,u8}.s32
 *   f64 -> f64               mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64
 *   f32 -> f32               fma.rn.f32 (an 8x8x1 outer product per warp, full
 *                            f32 accuracy, as NVIDIA's tileiras does it)
 *   any product smaller than its type's atom (libcommon mma_choose): the same
 *                            FMA atom, as NVIDIA's, the operands widened once
 *                            (f16, bf16, tf32, f8 to f32; i8 to i32 by its
 *                            signedness, multiply-add; f64 fma.rn.f64), an f16
 *                            accumulator summed in f32 and rounded at the end
 * Operands are packed into 32-bit registers (two 16-bit or four 8-bit
 * elements, the first in the low bits), f64 in 64-bit ones. The result
 * keeps the accumulator layout, so the epilogue reads it from registers.
 * An mmaf whose plan's path is ldmatrix (tile-sched: f16 / bf16 on sm_75+, i8 and
 * tf32 on sm_80+; libcommon's mma_ldmatrix_ok) has A and B in their own
 * layouts: they are staged in shared memory, swizzled, and the fragments
 * loaded with ldmatrix (util_ldsm.c): A from the row-major M x K tile, B
 * with .trans from K x N for 16-bit elements, else without from its
 * transpose (N x K); a barrier before the writes (the previous use's
 * reads) and one after; each K atom's fragments are loaded just before
 * its instructions (K atoms outermost).
 *   e4m3, e5m2 -> f32 | f16  mma.sync.aligned.m16n8k32.row.col (sm_89+, the i8 fragments)
 * Batched (rank-3) products arrive as rank-2 ones (tile-lower batched_mma.c). On sm_90, a product
 * tile-sched planned on the wgmma path (libcommon's mma_choose gave it a
 * warpgroup tiling) goes through util_wgmma.c instead: both operands
 * staged in shared memory, wgmma.mma_async, the target sm_90a. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "mma.h"
#include "diag.h"
#include "xalloc.h"

#define MAXR 16

static const char *ptx_type(const Op *op, const Type *t, int operand)
{
	switch (t->scalar) {
	case SC_F16: return "f16";
	case SC_BF16: return "bf16";
	case SC_TF32: return "tf32";
	case SC_F32: return "f32";
	case SC_F64: return "f64";
	case SC_I32: return "s32";
	case SC_F8E4M3FN: return "e4m3";
	case SC_F8E5M2: return "e5m2";
	case SC_I8: {
		const char *s = op_attr_str(op, operand == 0 ? "signedness_lhs" : "signedness_rhs", "signed");
		return s && strcmp(s, "unsigned") == 0 ? "u8" : "s8";
	}
	default: return "?";
	}
}

static char cons_of(LLVMValueRef v)
{
	LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(v));
	return k == LLVMDoubleTypeKind ? 'd' : k == LLVMFloatTypeKind ? 'f' : 'r';
}

/* one mma.sync: d (nd registers of c's types) = a * b + c; with scales
 * (sc: scale-a-data, scale-b-data, 32-bit) the block-scaled form's
 * operands after c, each with the selectors {byte-id 0, thread-id 0} */
static void mma_sync(E *e, const char *text, LLVMValueRef *a, int na, LLVMValueRef *b, int nb, LLVMValueRef *c,
		     int nc, const LLVMValueRef *sc, LLVMValueRef *d)
{
	LLVMTypeRef rt[MAXR], pt[3 * MAXR];
	LLVMValueRef args[3 * MAXR];
	char cons[256], asmtext[512];
	int n = 0, cl = 0, tl = snprintf(asmtext, sizeof asmtext, "%s {", text);
	for (int i = 0; i < nc; i++) {
		rt[i] = LLVMTypeOf(c[i]);
		cl += snprintf(cons + cl, sizeof cons - (size_t)cl, "%s=%c", i ? "," : "", cons_of(c[i]));
		tl += snprintf(asmtext + tl, sizeof asmtext - (size_t)tl, "%s$%d", i ? "," : "", i);
	}
	LLVMValueRef *groups[3] = { a, b, c };
	int counts[3] = { na, nb, nc };
	for (int g = 0; g < 3; g++) {
		tl += snprintf(asmtext + tl, sizeof asmtext - (size_t)tl, "}, {");
		for (int i = 0; i < counts[g]; i++, n++) {
			args[n] = groups[g][i];
			pt[n] = LLVMTypeOf(args[n]);
			cl += snprintf(cons + cl, sizeof cons - (size_t)cl, ",%c", cons_of(args[n]));
			tl += snprintf(asmtext + tl, sizeof asmtext - (size_t)tl, "%s$%d", i ? "," : "", nc + n);
		}
	}
	tl += snprintf(asmtext + tl, sizeof asmtext - (size_t)tl, "}");
	for (int i = 0; sc && i < 2; i++, n++) {
		args[n] = sc[i];
		pt[n] = LLVMTypeOf(args[n]);
		cl += snprintf(cons + cl, sizeof cons - (size_t)cl, ",r");
		tl += snprintf(asmtext + tl, sizeof asmtext - (size_t)tl, ", {$%d}, {0, 0}", nc + n);
	}
	snprintf(asmtext + tl, sizeof asmtext - (size_t)tl, ";");
	LLVMTypeRef ret = nc == 1 ? rt[0] : LLVMStructTypeInContext(e->ctx, rt, (unsigned)nc, 0);
	LLVMTypeRef ft = LLVMFunctionType(ret, pt, (unsigned)n, 0);
	LLVMValueRef f = LLVMGetInlineAsm(ft, asmtext, strlen(asmtext), cons, strlen(cons), 0, 0,
					  LLVMInlineAsmDialectATT, 0);
	LLVMValueRef call = LLVMBuildCall2(e->b, ft, f, args, (unsigned)n, "");
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", strlen("convergent"));
	LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, kind, 0));
	for (int i = 0; i < nc; i++)
		d[i] = nc == 1 ? call : LLVMBuildExtractValue(e->b, call, (unsigned)i, "");
}

static void check_layout(const Value *v, const Layout *want)
{
	Layout have = value_layout(v);
	if (!layout_equal(&have, want))
		ice("tile-ptx: mma operand is not in its fragment layout (tile-sched)");
}

/* elements per 32-bit operand register */
static int per_reg(const Type *el)
{
	int bits = scalar_bits(el->scalar);
	return bits == 16 ? 2 : bits == 8 ? 4 : 1;
}

/* The n registers of operand k (0 = A, 1 = B) of an FMA product as the
 * FMA's type: f64 stays, i8 is extended to i32 as its signedness says,
 * every other float is widened to f32 (exactly: f16, bf16, tf32, f8) */
static LLVMValueRef *fma_operands(E *e, Op *op, const TV *x, const Type *el, const Type *ec, int k, int64_t n)
{
	LLVMValueRef *r = xcalloc((size_t)n, sizeof *r);
	bool uns = el->scalar == SC_I8 && strcmp(ptx_type(op, el, k), "u8") == 0;
	for (int64_t i = 0; i < n; i++) {
		LLVMValueRef v = x->r[i];
		if (ec->scalar == SC_I32)
			r[i] = uns ? LLVMBuildZExt(e->b, v, ty_i32(e), "") : LLVMBuildSExt(e->b, v, ty_i32(e), "");
		else if (el->scalar == SC_F8E4M3FN || el->scalar == SC_F8E5M2)
			r[i] = f8_to_f32(e, v, el);
		else
			r[i] = widen(e, v, el);
	}
	return r;
}

/* a product tile-sched gave a wgmma tiling (util_wgmma.c); the PTX target
 * becomes the arch-specific one (sm_90a: backend.c, "tileiras.arch") */
static void emit_wgmma(E *e, Op *op, const MmaTiling *t)
{
	Layout lc;
	mma_layout_c(t, &lc);
	check_layout(op->operands[2], &lc);
	check_layout(op->results[0], &lc);
	const Type *ea = tile_elem(op->operands[0]->type), *ec = tile_elem(op->operands[2]->type);
	/* wgmma is PTX 8.0; with mixed integer types (s8 x u8) 8.4 (ptxas says so) */
	need_ptx(e, strcmp(ptx_type(op, ea, 0), ptx_type(op, ea, 1)) ? 84 : 80);
	need_arch(e);
	TV *A = get(e, op->operands[0]), *B = get(e, op->operands[1]), *C = get(e, op->operands[2]);
	TV *D = tv_new(e, op->results[0]);
	int64_t n = layout_nregs(&lc);
	for (int64_t i = 0; i < n; i++)
		D->r[i] = C->r[i];
	mma_wgmma(e, op, t, A, B, ptx_type(op, ec, 2), ptx_type(op, ea, 0), ptx_type(op, ea, 1), D->r);
	set(e, op->results[0], D);
}

void emit_mma(E *e, Op *op)
{
	const Type *ta = op->operands[0]->type, *tb = op->operands[1]->type, *tc = op->operands[2]->type;
	const Type *ea = tile_elem(ta), *ec = tile_elem(tc);
	if (ta->rank != 2) {
		unsupported(e, op, "a batched (rank-3) product");
		return;
	}
	bool scaled = op->info->code == CT_mmaf_scaled;
	if (scaled && !mma_block_scaled_ok(op, e->o->target->sm)) {
		/* tile-lower rewrites the others: a hand-written IR's error, not ours */
		diag_error(op->loc, "'%s' op: no block-scaled MMA for this product on %s", op->info->name,
			   e->o->target->name);
		e->errors++;
		return;
	}
	if (!mma_atom_for(ea, ec, e->o->target->sm)) {
		char what[160];
		snprintf(what, sizeof what, "a %s x %s -> %s product on %s", ea->str, ea->str, ec->str, e->o->target->name);
		unsupported(e, op, what);
		return;
	}
	/* tile-sched's plan (stagecheck has checked it fits the product on
	 * this target); a product without one has no tiling here */
	MmaTiling t;
	MmaPlan plan;
	if (!mma_plan_of(op, &plan, NULL)) {
		const char *err = NULL;
		mma_product_tiling(op, e->warps, e->o->target->sm, &t, &err);
		unsupported(e, op, err);
		return;
	}
	mma_plan_tiling(op, &plan, &t);
	if (t.wg) {
		emit_wgmma(e, op, &t);
		return;
	}
	const MmaAtom *atom = t.atom;
	Layout la, lb, lc;
	mma_layout_a(&t, &la);
	mma_layout_b(&t, &lb);
	mma_layout_c(&t, &lc);
	bool ldsm = plan.path == MMA_PATH_LDMATRIX;
	if (!ldsm) {
		check_layout(op->operands[0], &la);
		check_layout(op->operands[1], &lb);
	}
	check_layout(op->operands[2], &lc);
	check_layout(op->results[0], &lc);
	int na = mma_frag_values(&atom->a), nb = mma_frag_values(&atom->b), nc = mma_frag_values(&atom->c);
	char text[200];
	if (scaled) {
		Layout lsa, lsb;
		mma_layout_scale_a(&t, &lsa);
		mma_layout_scale_b(&t, &lsb);
		check_layout(op->operands[3], &lsa);
		check_layout(op->operands[4], &lsb);
		/* sm_120a / sm_121a, PTX 8.7 */
		need_ptx(e, 87);
		need_arch(e);
		snprintf(text, sizeof text, "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m%dn%dk%d.row.col.f32.%s.%s.f32.ue8m0",
			 atom->m, atom->n, atom->k, ptx_type(op, ea, 0), ptx_type(op, tile_elem(tb), 1));
	} else {
		snprintf(text, sizeof text, "mma.sync.aligned.m%dn%dk%d.row.col%s.%s.%s.%s.%s", atom->m, atom->n, atom->k,
			 ec->scalar == SC_I32 ? ".satfinite" : "", ptx_type(op, ec, 2), ptx_type(op, ea, 0),
			 ptx_type(op, ea, 1), ptx_type(op, ec, 2));
	}
	bool f8 = ea->scalar == SC_F8E4M3FN || ea->scalar == SC_F8E5M2;
	if (atom->id != MMA_FMA && (e->o->target->sm < 80 || f8) && !scaled) {
		/* mma.sync m16n8k8 is PTX 6.5, the sm_75 default older; e4m3/e5m2 with
		 * an f32 D is PTX 8.4, with an f16 D 8.7 (backend.c reads this) */
		need_ptx(e, f8 ? (ec->scalar == SC_F16 ? 87 : 84) : 65);
	}
	bool half_acc = ec->scalar == SC_F16;
	int pa = per_reg(ea);
	TV *A = get(e, op->operands[0]), *B = get(e, op->operands[1]), *C = get(e, op->operands[2]);
	TV *SA = scaled ? get(e, op->operands[3]) : NULL, *SB = scaled ? get(e, op->operands[4]) : NULL;
	LLVMValueRef *ar0 = A->r, *br0 = B->r, *fa = NULL, *fb = NULL, bbase = NULL, buf = NULL;
	Layout lbt = lb;
	bool btrans = mma_stage_as_is(&t, 1, ea);     /* 16-bit: ldmatrix.trans from K x N */
	int vpr = 4 / (elem_bytes(ea) ? elem_bytes(ea) : 1);
	StageGeom ga = { 0 }, gb = { 0 };
	if (ldsm) {
		buf = mma_stage_base(e, op);     /* this step's half when pipelined */
		LLVMValueRef boff = c_i64(e, mma_stage_b_offset(op));
		bbase = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), buf, &boff, 1, "");
		/* 16-bit B by ldmatrix.trans from K x N; others from its transpose */
		if (!btrans && !mma_layout_transpose(&lb, t.k, t.n, &lbt))
			ice("tile-ptx: an mma B fragment that does not transpose");
		bool ca = mma_operand_copied(op, 0), cb = mma_operand_copied(op, 1);
		/* loop-invariant operands were staged before the loop, in regions of their own */
		bool ra = mma_resident(op, 0), rb = mma_resident(op, 1);
		if (ra)
			buf = mma_resident_base(e, op, 0);
		if (rb)
			bbase = mma_resident_base(e, op, 1);
		ga = mma_operand_geom(e, op, &t, 0);
		gb = mma_operand_geom(e, op, &t, 1);
		mma_stage_begin(e, op, (!ca && !ra) || (!cb && !rb));     /* the previous use's ldmatrix reads */
		if (!ca && !ra)
			mma_stage_store(e, A, ea, buf, t.m, t.k, false, 0);
		if (!cb && !rb)
			mma_stage_store(e, B, ea, bbase, t.k, t.n, !btrans, 0);
		mma_copies_wait(e, op);
		barrier(e);
		fa = xcalloc((size_t)layout_nregs(&la), sizeof *fa);
		fb = xcalloc((size_t)layout_nregs(&lb), sizeof *fb);
		ar0 = fa;
		br0 = fb;
	}
	TV *D = tv_new(e, op->results[0]);
	int64_t nacc = t.mt * t.nt;
	LLVMValueRef *accs = xcalloc((size_t)(nacc * nc), sizeof *accs);
	bool fma = atom->id == MMA_FMA;
	for (int64_t i = 0; i < nacc * nc; i++)
		accs[i] = fma ? widen(e, C->r[i], ec) : C->r[i];
	if (fma) {     /* the operands in the FMA's type, once each */
		ar0 = fa = fma_operands(e, op, A, ea, ec, 0, layout_nregs(&la));
		br0 = fb = fma_operands(e, op, B, ea, ec, 1, layout_nregs(&lb));
	}
	/* K atoms outermost: with ldmatrix, only one K step's fragments are live */
	for (int64_t ki = 0; ki < t.kt; ki++) {
		if (ldsm) {
			int64_t ua[256], ub[256];
			int nua = 0, nub = 0;
			for (int64_t mi = 0; mi < t.mt; mi++)
				for (int j = 0; j < na / vpr && nua < 256; j++)
					ua[nua++] = (na * (ki + t.kt * mi)) / vpr + j;
			for (int64_t ni = 0; ni < t.nt; ni++)
				for (int j = 0; j < nb / vpr && nub < 256; j++)
					ub[nub++] = (nb * (ki + t.kt * ni)) / vpr + j;
			mma_ldsm(e, buf, &la, &ga, ea, false, ua, nua, fa);
			mma_ldsm(e, bbase, &lbt, &gb, ea, btrans, ub, nub, fb);
		}
		for (int64_t mi = 0; mi < t.mt; mi++)
			for (int64_t ni = 0; ni < t.nt; ni++) {
				LLVMValueRef *acc = accs + nc * (ni + t.nt * mi);
				LLVMValueRef *ar = ar0 + na * (ki + t.kt * mi), *br = br0 + nb * (ki + t.kt * ni);
				if (fma) {
					for (int j = 0; j < nc; j++)
						acc[j] = ec->scalar == SC_I32
								 ? LLVMBuildAdd(e->b, LLVMBuildMul(e->b, ar[0], br[j], ""), acc[j], "")
								 : call_intr(e, "llvm.fma", LLVMTypeOf(acc[j]),
									     (LLVMValueRef[]){ ar[0], br[j], acc[j] }, 3);
					continue;
				}
				LLVMValueRef a[MAXR], b[MAXR], c[MAXR], d[MAXR];
				for (int j = 0; j < na / pa; j++)
					a[j] = pack_b32(e, ar + pa * j, pa);
				for (int j = 0; j < nb / pa; j++)
					b[j] = pack_b32(e, br + pa * j, pa);
				int ncr = half_acc ? nc / 2 : nc;
				for (int j = 0; j < ncr; j++)
					c[j] = half_acc ? pack_b32(e, acc + 2 * j, 2) : acc[j];
				LLVMValueRef sc[2];
				if (scaled) {
					LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
					sc[0] = LLVMBuildZExt(e->b, SA->r[ki + t.kt * mi], i32, "");
					sc[1] = LLVMBuildZExt(e->b, SB->r[ki + t.kt * ni], i32, "");
				}
				mma_sync(e, text, a, na / pa, b, nb / pa, c, ncr, scaled ? sc : NULL, d);
				for (int j = 0; j < ncr; j++) {
					if (!half_acc) {
						acc[j] = d[j];
						continue;
					}
					unpack_b32(e, d[j], LLVMTypeOf(acc[0]), acc + 2 * j, 2);
				}
			}
	}
	for (int64_t i = 0; i < nacc * nc; i++)
		D->r[i] = fma ? narrow(e, accs[i], ec) : accs[i];
	free(accs);
	free(fa);
	free(fb);
	set(e, op->results[0], D);
}
