/* verify_util.c: what the cuda_tile verifier's generic part
 * (verify_cuda_tile.c) and its family checkers (verify_families.c) both
 * call, under both (verify_impl.h): the verifier's messages (verr, at the
 * op's location, else its offset, else its JSON pointer), the version gate,
 * element classes and their names, the module's symbols by name. Calls
 * nothing of the verifier's own. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "verify_impl.h"

/* The JSON pointer of an op, for ops with neither a location nor an offset. */
static void op_pointer(const Module *m, const Op *op, char *buf, size_t n)
{
	char part[64][48];
	int depth = 0;
	while (op && depth < 64) {
		const Block *b = op->parent;
		int i = 0;
		for (const Op *p = op->prev; p; p = p->prev)
			i++;
		if (!b || b == &m->body) {
			snprintf(part[depth++], sizeof part[0], "/module/ops/%d", i);
			break;
		}
		const Region *r = b->parent;
		int bi = 0;
		for (const Block *q = r->first; q && q != b; q = q->next)
			bi++;
		const Op *owner = r->parent;
		snprintf(part[depth++], sizeof part[0], "/regions/%d/%d/ops/%d",
			 (int)(r - owner->regions), bi, i);
		op = owner;
	}
	size_t len = 0;
	buf[0] = 0;
	while (depth-- > 0 && len < n) {
		int k = snprintf(buf + len, n - len, "%s", part[depth]);
		if (k < 0)
			break;
		len += (size_t)k;
	}
}

void verr(V *v, const Op *op, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (++v->errors > MAX_REPORTED) {
		if (v->errors == MAX_REPORTED + 1)
			diag_plain("too many errors; the rest of the module is not reported");
		return;
	}
	if (op->loc && op->loc->file) {
		diag_error(op->loc, "'%s' op %s", op->info->name, msg);
	} else if (op->offset) {
		diag_error_at_offset(op->offset, "'%s' op %s", op->info->name, msg);
	} else {
		char where[512];
		op_pointer(v->m, op, where, sizeof where);
		diag_error_at_path(where, "'%s' op %s", op->info->name, msg);
	}
}

/* Reports a feature (`what`, NULL: the op itself) newer than the module's
 * bytecode version; false if so. */
bool gate(V *v, const Op *op, int since, const char *what)
{
	if (!since || since <= v->ver)
		return true;
	verr(v, op, "%s%srequires bytecode version %s+, but the module is bytecode version %s",
	     what ? what : "", what ? " " : "", bytecode_version_name(since), bytecode_version_name(v->ver));
	return false;
}

/* "i1, i8, i16, i32 or i64" from an element class */
const char *ec_name(unsigned ec, char *buf, size_t n)
{
	const char *names[24];
	int k = 0;
	for (int s = 0; s < SC_COUNT; s++)
		if (ec & (1u << s))
			names[k++] = scalar_name((ScalarKind)s);
	if (ec & EC_PTR)
		names[k++] = "ptr";
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < k && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i == 0 ? "" : i == k - 1 ? " or " : ", ",
				 names[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

unsigned ec_of(const Type *elem)
{
	if (!elem)
		return 0;
	if (elem->kind == TY_PTR)
		return EC_PTR;
	if (elem->kind == TY_SCALAR)
		return 1u << elem->scalar;
	return 0;
}

const char *sym_of(const Op *op) { return op_attr(op, "sym_name")->u.s; }

const Op *find_symbol(V *v, const char *name)
{
	int lo = 0, hi = v->nsyms - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(sym_of(v->syms[mid]), name);
		if (c == 0)
			return v->syms[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}
