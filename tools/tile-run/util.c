/* util.c: the type tables (types.def). */
#include <string.h>
#include "run.h"

const char *const type_names[TY_COUNT] = {
	[TY_NONE] = "",
#define T(n, e, b, k) [TY_##e] = #n,
#include "types.def"
#undef T
};
const uint8_t type_bytes[TY_COUNT] = {
#define T(n, e, b, k) [TY_##e] = b,
#include "types.def"
#undef T
};
const char type_kind[TY_COUNT] = {
#define T(n, e, b, k) [TY_##e] = #k[0],
#include "types.def"
#undef T
};

int type_from_name(const char *s)
{
	for (int k = 1; k < TY_COUNT; k++)
		if (strcmp(type_names[k], s) == 0)
			return k;
	return 0;
}
