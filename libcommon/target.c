/* target.c: the target table from targets.def. Constant data only: every
 * string handed out is a literal. */
#include <stddef.h>
#include <string.h>
#include "target.h"
#include "diag.h"

const Target target_table[] = {
#define TARGET(name, sm, ptx, smem, cbank, feat, llvm_as) { #name, sm, ptx, smem, cbank, feat, llvm_as },
#include "targets.def"
#undef TARGET
};
const int target_count = sizeof target_table / sizeof target_table[0];

const Target *target_by_name(const char *name)
{
	for (int i = 0; i < target_count; i++)
		if (strcmp(target_table[i].name, name) == 0)
			return &target_table[i];
	return NULL;
}

const Target *target_by_sm(int sm)
{
	for (int i = 0; i < target_count; i++)
		if (target_table[i].sm == sm)
			return &target_table[i];
	return NULL;
}

long long target_smem_limit(int sm)
{
	const Target *t = target_by_sm(sm);
	return t ? (long long)t->smem_kib * 1024 : 48 * 1024;
}

/* the arch- and family-specific spellings, by row */
static const char *const arch_a[] = {
#define TARGET(name, sm, ptx, smem, cbank, feat, llvm_as) #name "a",
#include "targets.def"
#undef TARGET
};
static const char *const arch_f[] = {
#define TARGET(name, sm, ptx, smem, cbank, feat, llvm_as) #name "f",
#include "targets.def"
#undef TARGET
};

const char *target_ptx_arch(const Target *t, TargetVariant v)
{
	ptrdiff_t i = t - target_table;
	if (i < 0 || i >= target_count)
		ice("target_ptx_arch: '%s' is not a row of target_table", t->name);
	if (v == TARGET_ARCH && (t->features & TF_ARCH_A))
		return arch_a[i];
	if (v == TARGET_FAMILY && (t->features & TF_ARCH_F))
		return arch_f[i];
	return t->name;
}

const char *target_llvm_arch(const Target *t, TargetVariant v)
{
	const Target *as = t->llvm_as ? target_by_name(t->llvm_as) : t;
	if (!as)
		ice("targets.def: %s is generated as '%s', which is not a row", t->name, t->llvm_as);
	return target_ptx_arch(as, v);
}

/* built with a leading ", " that target_list() skips */
static const char list[] = ""
#define TARGET(name, sm, ptx, smem, cbank, feat, llvm_as) ", " #name
#include "targets.def"
#undef TARGET
	;

const char *target_list(void)
{
	return list + 2;
}
