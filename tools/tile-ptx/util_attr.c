/* util_attr.c: an op's enum attributes as the back end asks about them
 * (utility layer, emit.h), each with the default the op's definition gives
 * when the attribute is absent. Plain typed getters are ir.h's. */
#include <string.h>
#include "emit.h"

bool op_is_signed(const Op *op)
{
	return strcmp(op_attr_str(op, "signedness", "signed"), "signed") == 0;
}
