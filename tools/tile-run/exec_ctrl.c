/* exec_ctrl.c: calls. A .func call pushes a frame (registers and parameter
 * area of the callee, arguments copied in from the caller's call-site
 * .param variables); ret pops it and copies the return values back.
 * Extern functions the device runtime provides: vprintf (printf.c),
 * malloc/__cuda_syscall_aligned_malloc and free (device heap buffers that
 * memcheck knows), __assertfail (prints the device's message, then the
 * kernel faults). */
#include <stdio.h>
#include <stdlib.h>
#include "exec.h"

static uint64_t param_u64(Thread *t, uint32_t off, uint32_t size)
{
	uint64_t v = 0;
	memcpy(&v, t->P + off, size > 8 ? 8 : size);
	return v;
}

static bool read_cstr(Thread *t, const Insn *in, uint64_t a, char *buf, size_t cap)
{
	size_t k = 0;
	for (;;) {
		uint8_t *p = mem_at(t, in, SP_GENERIC, a + k, 1, ACC_READ);
		if (!p)
			return false;
		if (k + 1 < cap)
			buf[k] = (char)*p;
		if (!*p)
			break;
		k++;
	}
	buf[k < cap ? k : cap - 1] = 0;
	return true;
}

static int call_func(Thread *t, const Insn *in)
{
	Run *r = t->run;
	CallInfo *ci = &r->m->calls[in->target];
	Func *f = &r->m->funcs[ci->func];
	if (!f->defined) {
		fault(t, in, "call of undefined function '%s'", f->name);
		return ST_FAULT;
	}
	if (t->depth + 1 >= MAX_DEPTH) {
		fault(t, in, "call depth over %d", MAX_DEPTH);
		return ST_FAULT;
	}
	if (ci->nargs != f->nparams || ci->nrets != f->nrets) {
		fault(t, in, "call of '%s' with %d arguments and %d results; it takes %d and %d", f->name, ci->nargs,
		      ci->nrets, f->nparams, f->nrets);
		return ST_FAULT;
	}
	Frame *fr = &t->frames[t->depth];
	fr->func = t->func;
	fr->pc = t->pc + 1;
	fr->R = t->R;
	fr->P = t->P;
	fr->call = in->target;
	uint64_t *R = xcalloc((size_t)f->nslots, sizeof *R);
	uint8_t *P = xcalloc(f->pbytes ? f->pbytes : 1, 1);
	memcpy(R, f->init, (size_t)f->nslots * sizeof *R);
	cluster_own_addresses(f, R, t->cta->rank);
	/* special registers: copy from the entry frame's values */
	for (int k = 0; k < SR_FIRST_LIVE; k++)
		if (f->sreg_slot[k] >= 0) {
			Func *e0 = &r->m->funcs[t->frames[0].func];
			int s0 = e0->sreg_slot[k];
			uint64_t *R0 = t->depth == 0 ? t->R : t->frames[0].R;
			(void)e0;
			R[f->sreg_slot[k]] = s0 >= 0 ? R0[s0] : 0;
		}
	for (int k = 0; k < ci->nargs; k++)
		memcpy(P + f->params[k].offset, t->P + ci->arg_off[k],
		       ci->arg_size[k] < f->params[k].size ? ci->arg_size[k] : f->params[k].size);
	t->depth++;
	t->func = ci->func;
	t->R = R;
	t->P = P;
	t->code = f->code;
	t->pc = 0;
	return ST_JUMP;
}

/* ret from a .func; at depth 0 the thread exits */
int func_return(Thread *t)
{
	Run *r = t->run;
	if (t->depth == 0)
		return ST_EXIT;
	Func *f = &r->m->funcs[t->func];
	Frame *fr = &t->frames[t->depth - 1];
	CallInfo *ci = &r->m->calls[fr->call];
	for (int k = 0; k < ci->nrets; k++)
		memcpy(fr->P + ci->ret_off[k], t->P + f->rets[k].offset,
		       ci->ret_size[k] < f->rets[k].size ? ci->ret_size[k] : f->rets[k].size);
	free(t->R);
	free(t->P);
	t->depth--;
	t->func = fr->func;
	t->R = fr->R;
	t->P = fr->P;
	t->code = r->m->funcs[fr->func].code;
	t->pc = fr->pc;
	return ST_JUMP;
}

static void set_ret(Thread *t, const CallInfo *ci, uint64_t v)
{
	if (ci->nrets > 0)
		memcpy(t->P + ci->ret_off[0], &v, ci->ret_size[0] > 8 ? 8 : ci->ret_size[0]);
}

int exec_ctrl(Thread *t, const Insn *in)
{
	Run *r = t->run;
	CallInfo *ci = &r->m->calls[in->target];
	switch (in->op) {
	case OP_CALL_FUNC:
		return call_func(t, in);
	case OP_CALL_VPRINTF: {
		uint64_t fmt = param_u64(t, ci->arg_off[0], ci->arg_size[0]);
		uint64_t args = param_u64(t, ci->arg_off[1], ci->arg_size[1]);
		int n = device_printf(t, in, fmt, args);
		if (n < 0)
			return ST_FAULT;
		set_ret(t, ci, (uint64_t)(uint32_t)n);
		return ST_NEXT;
	}
	case OP_CALL_MALLOC: {
		/* malloc(size), __cuda_syscall_aligned_malloc(size, align): buffers are 256-aligned */
		uint64_t size = param_u64(t, ci->arg_off[0], ci->arg_size[0]);
		uint64_t dev = 0;
		if (size <= (1ull << 32)) {
			uint8_t *host = calloc(size ? size : 1, 1);
			if (host) {
				dev = mem_alloc_dev(r, size);
				char name[64];
				snprintf(name, sizeof name, "device malloc of %llu bytes", (unsigned long long)size);
				Buffer *b = mem_add(r, dev, size, host, name, -1);
				b->heap = true;
			}
		}
		set_ret(t, ci, dev);
		return ST_NEXT;
	}
	case OP_CALL_FREE: {
		uint64_t a = param_u64(t, ci->arg_off[0], ci->arg_size[0]);
		if (a == 0)
			return ST_NEXT;
		Buffer *b = mem_find(r, a);
		if (!b || b->dev != a || !b->heap || b->freed) {
			fault(t, in, "free of 0x%llx, which is not a live device malloc", (unsigned long long)a);
			return ST_FAULT;
		}
		b->freed = true;
		return ST_NEXT;
	}
	case OP_CALL_ASSERT: {
		char msg[512], file[512], func[256];
		uint64_t m = param_u64(t, ci->arg_off[0], ci->arg_size[0]);
		uint64_t f = param_u64(t, ci->arg_off[1], ci->arg_size[1]);
		uint32_t line = (uint32_t)param_u64(t, ci->arg_off[2], ci->arg_size[2]);
		uint64_t fn = param_u64(t, ci->arg_off[3], ci->arg_size[3]);
		if (!read_cstr(t, in, m, msg, sizeof msg) || !read_cstr(t, in, f, file, sizeof file) ||
		    !read_cstr(t, in, fn, func, sizeof func))
			return ST_FAULT;
		Cta *c = t->cta;
		fflush(r->out);
		fprintf(r->assert_out, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, func,
			c->id[0], c->id[1], c->id[2], t->t[0], t->t[1], t->t[2], msg);
		fault_as(t, in, FK_ASSERT, 0, NULL, "device-side assertion failed");
		return ST_FAULT;
	}
	}
	fault(t, in, "internal: control op %d", in->op);
	return ST_FAULT;
}
