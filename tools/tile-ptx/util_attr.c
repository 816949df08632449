/* util_attr.c: an op's enum attributes as values of libcommon's enum table
 * (enums.def; utility layer, emit.h), each with the default the op's
 * definition gives when the attribute is absent. Plain typed getters are
 * ir.h's. */
#include "emit.h"

int op_enum_attr(const Op *op, const char *name, EnumKind k, int dflt)
{
	const Attr *a = op_attr(op, name);
	if (!a || a->kind != AT_STRING)
		return dflt;
	const EnumVal *v = enum_lookup(k, a->u.s);
	return v ? v->value : -1;
}

bool op_is_signed(const Op *op)
{
	return op_enum_attr(op, "signedness", EK_SIGNEDNESS, SIGNEDNESS_signed) == SIGNEDNESS_signed;
}
