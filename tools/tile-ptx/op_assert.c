/* op_assert.c: assert (op family; docs/lowering.md §9).
 * Every element whose condition is false prints, from the thread that owns
 * it, "FILE:LINE: tile block: [x, y, z], position: [i, j]: MESSAGE" (the
 * element's tile coordinates), as NVIDIA's tileiras does; a thread that
 * printed then waits half a millisecond (so the other threads' messages get
 * out) and calls __assertfail(message, file, line, function, 1), which
 * stops the kernel with an assertion error the host sees. */
#include "emit.h"
#include "families.h"
#include "irutil.h"
#include "strbuf.h"

static void escape_percent(StrBuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '%')
			sb_putc(b, '%');
		sb_putc(b, *s);
	}
}

/* Spin for about `ns` nanoseconds on %globaltimer. */
static void busy_wait(E *e, int64_t ns)
{
	LLVMValueRef t0 = call_intr(e, "llvm.nvvm.read.ptx.sreg.globaltimer", NULL, NULL, 0);
	LLVMValueRef until = LLVMBuildAdd(e->b, t0, c_i64(e, ns), "");
	LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.wait");
	LLVMBasicBlockRef over = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.trap");
	LLVMBuildBr(e->b, spin);
	LLVMPositionBuilderAtEnd(e->b, spin);
	LLVMValueRef t = call_intr(e, "llvm.nvvm.read.ptx.sreg.globaltimer", NULL, NULL, 0);
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, t, until, ""), spin, over);
	LLVMPositionBuilderAtEnd(e->b, over);
}

void emit_assert(E *e, Op *op)
{
	TV *c = get(e, op->operands[0]);
	const Type *tt = op->operands[0]->type;
	const char *msg = op_attr_str(op, "message", "");
	const Loc *l = op->loc;
	const char *file = l && l->file ? l->file : "<unknown>";
	unsigned line = l && l->file ? l->line : 0;
	const char *func = l && l->func ? l->func : "";
	if (!*func)
		func = op_attr_str(op_toplevel(op), "sym_name", "kernel");
	/* "FILE:LINE: tile block: [%d, %d, %d], position: [%d, ...]: MESSAGE\n" */
	StrBuf f = {0};
	escape_percent(&f, file);
	sb_printf(&f, ":%u: tile block: [%%d, %%d, %%d], position: [", line);
	for (int d = 0; d < tt->rank; d++)
		sb_puts(&f, d ? ", %d" : "%d");
	sb_puts(&f, "]: ");
	escape_percent(&f, msg);
	sb_puts(&f, "\n");
	int shift[8];
	for (int i = 0; i < tt->rank; i++) {
		int s = 0;
		for (int j = i + 1; j < tt->rank; j++)
			for (int64_t x = tt->shape[j]; x > 1; x >>= 1)
				s++;
		shift[i] = s;
	}
	LLVMValueRef primary = owner_pred(e, &c->lay);
	LLVMValueRef failed = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0);
	static const char *const ctaid[] = { "ctaid.x", "ctaid.y", "ctaid.z" };
	for (int k = 0; k < c->n; k++) {
		if (!layout_reg_is_primary(&c->lay, k))
			continue;
		LLVMValueRef bad = LLVMBuildNot(e->b, c->r[k], "");
		if (primary)
			bad = LLVMBuildAnd(e->b, bad, primary, "");
		failed = LLVMBuildOr(e->b, failed, bad, "");
		LLVMBasicBlockRef pr = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.fail");
		LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.next");
		LLVMBuildCondBr(e->b, bad, pr, join);
		LLVMPositionBuilderAtEnd(e->b, pr);
		LLVMValueRef vals[3 + 8];
		for (int i = 0; i < 3; i++)
			vals[i] = sreg(e, ctaid[i]);
		LLVMValueRef off = elem_offset(e, &c->lay, k);
		for (int i = 0; i < tt->rank; i++)
			vals[3 + i] = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, off, c_i32(e, shift[i]), ""),
						   c_i32(e, tt->shape[i] - 1), "");
		emit_vprintf(e, sb_cstr(&f), vals, 3 + tt->rank);
		LLVMBuildBr(e->b, join);
		LLVMPositionBuilderAtEnd(e->b, join);
	}
	sb_free(&f);
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.abort");
	LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "assert.ok");
	LLVMBuildCondBr(e->b, failed, fail, ok);
	LLVMPositionBuilderAtEnd(e->b, fail);
	busy_wait(e, 500000);
	LLVMTypeRef ps[5] = { ty_genptr(e), ty_genptr(e), ty_i32(e), ty_genptr(e), ty_i64(e) };
	LLVMValueRef af = declared(e, "__assertfail", LLVMVoidTypeInContext(e->ctx), ps, 5);
	LLVMValueRef args[5] = { cstring(e, *msg ? msg : "assertion failed", "assertMessage"),
				 cstring(e, file, "assertFile"), c_i32(e, line), cstring(e, func, "assertFunction"),
				 c_i64(e, 1) };
	call(e, af, args, 5);
	LLVMBuildBr(e->b, ok);
	LLVMPositionBuilderAtEnd(e->b, ok);
}

