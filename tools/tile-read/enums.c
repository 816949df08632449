/* enums.c: bytecode enum values -> their JSON spellings (docs/ir.md §4.1),
 * with the version that introduced each value. */
#include <stddef.h>
#include "reader.h"

typedef struct EnumVal { const char *name; int since; } EnumVal;
typedef struct EnumDef { const char *what; int n; const EnumVal *v; } EnumDef;

#define V(n) { n, 1301 }
static const EnumVal signedness[] = { V("unsigned"), V("signed") };
static const EnumVal overflow[] = { V("none"), V("nsw"), V("nuw"), V("nw") };
static const EnumVal rounding[] = {
	V("nearest_even"), V("zero"), V("negative_inf"), V("positive_inf"), V("approx"),
	V("full"), V("nearest_int_to_zero"), { "nearest_away", 1304 },
};
static const EnumVal cmp_pred[] = {
	V("equal"), V("not_equal"), V("less_than"), V("less_than_or_equal"), V("greater_than"),
	V("greater_than_or_equal"),
};
static const EnumVal cmp_ord[] = { V("unordered"), V("ordered") };
static const EnumVal rmw_mode[] = {
	V("and"), V("or"), V("xor"), V("add"), V("addf"), V("max"), V("min"), V("umax"),
	V("umin"), V("xchg"),
};
static const EnumVal scope[] = { V("tl_blk"), V("device"), V("sys") };
static const EnumVal ordering[] = { V("weak"), V("relaxed"), V("acquire"), V("release"), V("acq_rel") };
static const EnumVal visibility[] = { V("public"), V("private") };
#undef V

#define E(what, arr) { what, (int)(sizeof arr / sizeof arr[0]), arr }
static const EnumDef enums[EN_COUNT] = {
	[EN_SIGNEDNESS] = E("signedness", signedness),
	[EN_OVERFLOW] = E("integer overflow", overflow),
	[EN_ROUNDING] = E("rounding mode", rounding),
	[EN_CMP_PRED] = E("comparison predicate", cmp_pred),
	[EN_CMP_ORD] = E("comparison ordering", cmp_ord),
	[EN_RMW_MODE] = E("atomic mode", rmw_mode),
	[EN_SCOPE] = E("memory scope", scope),
	[EN_ORDERING] = E("memory ordering", ordering),
	[EN_VISIBILITY] = E("symbol visibility", visibility),
};
#undef E

/* NULL when v is not a value of the enum in this bytecode version. */
const char *enum_name(int enum_id, uint64_t v, int version)
{
	const EnumDef *e = &enums[enum_id];
	if (v >= (uint64_t)e->n || e->v[v].since > version)
		return NULL;
	return e->v[v].name;
}

const char *enum_describe(int enum_id)
{
	return enums[enum_id].what;
}
