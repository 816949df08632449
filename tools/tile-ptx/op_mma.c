/* op_mma.c: mmaf through warp-level mma.sync (op family; docs/lowering.md
 * "MMA"). tile-sched gave the operands and the accumulator the fragment
 * layouts of libcommon's tiling (mma.h), so every thread already holds, in
 * registers, the fragments of its warp's atoms: for each accumulator atom
 * (mt x nt per warp) and each K atom, one
 *   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
 * over A registers packed two to a 32-bit register. The result keeps the
 * accumulator layout, so the epilogue reads it from registers.
 * Supported: f16 x f16 -> f32, bf16 x bf16 -> f32, on every target with
 * mma.sync m16n8k16 (sm_80+); others are "not supported yet". */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "mma.h"
#include "target.h"
#include "diag.h"

static bool is_scalar(const Type *t, int sc) { return t->kind == TY_SCALAR && (int)t->scalar == sc; }

/* two 16-bit elements in one b32 register, the first in the low half */
static LLVMValueRef pack2(E *e, LLVMValueRef lo, LLVMValueRef hi)
{
	LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(lo), 2);
	LLVMValueRef v = LLVMGetUndef(vt);
	v = LLVMBuildInsertElement(e->b, v, lo, c_i32(e, 0), "");
	v = LLVMBuildInsertElement(e->b, v, hi, c_i32(e, 1), "");
	return LLVMBuildBitCast(e->b, v, ty_i32(e), "");
}

/* d[4] = a[4] * b[2] + c[4] (one m16n8k16 atom) */
static void mma_atom(E *e, const char *ab, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *c, LLVMValueRef *d)
{
	LLVMTypeRef f32 = ty_f32(e), i32 = ty_i32(e);
	LLVMTypeRef rt = LLVMStructTypeInContext(e->ctx, (LLVMTypeRef[]){ f32, f32, f32, f32 }, 4, 0);
	LLVMTypeRef pt[10] = { i32, i32, i32, i32, i32, i32, f32, f32, f32, f32 };
	LLVMTypeRef ft = LLVMFunctionType(rt, pt, 10, 0);
	char text[160];
	snprintf(text, sizeof text,
		 "mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};",
		 ab, ab);
	const char *cons = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f";
	LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 0, 0, LLVMInlineAsmDialectATT, 0);
	LLVMValueRef args[10] = { a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3] };
	LLVMValueRef call = LLVMBuildCall2(e->b, ft, f, args, 10, "");
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", strlen("convergent"));
	LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, kind, 0));
	for (unsigned i = 0; i < 4; i++)
		d[i] = LLVMBuildExtractValue(e->b, call, i, "");
}

static void check_layout(const Value *v, const Layout *want)
{
	Layout have = value_layout(v);
	if (!layout_equal(&have, want))
		ice("tile-ptx: mmaf operand is not in its fragment layout (tile-sched)");
}

void emit_mma(E *e, Op *op)
{
	const Type *ta = op->operands[0]->type, *tb = op->operands[1]->type, *tc = op->operands[2]->type;
	const Type *ea = tile_elem(ta), *ec = tile_elem(tc);
	const char *ab = is_scalar(ea, SC_F16) ? "f16" : is_scalar(ea, SC_BF16) ? "bf16" : NULL;
	if (!ab || !is_scalar(ec, SC_F32)) {
		unsupported(e, op, "this operand / accumulator type pair (f16 or bf16 -> f32 only)");
		return;
	}
	if (ta->rank != 2) {
		unsupported(e, op, "a batched (rank-3) mmaf");
		return;
	}
	if (e->o->target->sm < 80) {
		unsupported(e, op, "mma.sync m16n8k16 before sm_80");
		return;
	}
	MmaTiling t;
	const char *err = NULL;
	if (!mma_tiling(ta->shape[0], tb->shape[1], ta->shape[1], 16, e->warps, &t, &err)) {
		unsupported(e, op, err);
		return;
	}
	Layout la, lb, lc;
	mma_layout_a(&t, &la);
	mma_layout_b(&t, &lb);
	mma_layout_c(&t, &lc);
	check_layout(op->operands[0], &la);
	check_layout(op->operands[1], &lb);
	check_layout(op->operands[2], &lc);
	check_layout(op->results[0], &lc);
	TV *A = get(e, op->operands[0]), *B = get(e, op->operands[1]), *C = get(e, op->operands[2]);
	TV *D = tv_new(e, op->results[0]);
	for (int64_t mi = 0; mi < t.mt; mi++)
		for (int64_t ni = 0; ni < t.nt; ni++) {
			int64_t cr = 4 * (ni + t.nt * mi);
			LLVMValueRef acc[4] = { C->r[cr], C->r[cr + 1], C->r[cr + 2], C->r[cr + 3] };
			for (int64_t ki = 0; ki < t.kt; ki++) {
				int64_t ar = 8 * (ki + t.kt * mi), br = 4 * (ki + t.kt * ni);
				LLVMValueRef a[4], b[2];
				for (int j = 0; j < 4; j++)
					a[j] = pack2(e, A->r[ar + 2 * j], A->r[ar + 2 * j + 1]);
				for (int j = 0; j < 2; j++)
					b[j] = pack2(e, B->r[br + 2 * j], B->r[br + 2 * j + 1]);
				mma_atom(e, ab, a, b, acc, acc);
			}
			for (int j = 0; j < 4; j++)
				D->r[cr + j] = acc[j];
		}
	set(e, op->results[0], D);
}
