/* util_attr.c: typed getters for an op's attributes, each with the default
 * the op's definition gives when the attribute is absent (utility layer,
 * emit.h). An attribute of another kind than asked reads as absent: the
 * verifier has checked kinds, so that only happens for optional ones. */
#include <string.h>
#include "emit.h"

const char *op_str_attr(const Op *op, const char *name, const char *dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_STRING ? a->u.s : dflt;
}

bool op_bool_attr(const Op *op, const char *name)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_BOOL && a->u.i;
}

int64_t op_int_attr(const Op *op, const char *name, int64_t dflt)
{
	const Attr *a = op_attr(op, name);
	return a && (a->kind == AT_INT || a->kind == AT_BOOL) ? a->u.i : dflt;
}

int64_t op_int_attr_at(const Op *op, const char *name, int i, int64_t dflt)
{
	const Attr *a = op_attr(op, name);
	return a && a->kind == AT_INTS && i < a->u.ints.n ? a->u.ints.v[i] : dflt;
}

bool op_is_signed(const Op *op)
{
	return strcmp(op_str_attr(op, "signedness", "signed"), "signed") == 0;
}
