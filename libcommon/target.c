/* target.c: the target table from targets.def. */
#include <stdio.h>
#include <string.h>
#include "target.h"

const Target target_table[] = {
#define TARGET(name, sm, ptx, smem, feat) { #name, sm, ptx, smem, feat },
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

const char *target_ptx_arch(const Target *t, TargetVariant v)
{
	static char buf[16];
	snprintf(buf, sizeof buf, "%s%s", t->name,
		 v == TARGET_ARCH && (t->features & TF_ARCH_A) ? "a" :
		 v == TARGET_FAMILY && (t->features & TF_ARCH_F) ? "f" : "");
	return buf;
}

const char *target_list(void)
{
	static char buf[256];
	if (!buf[0])
		for (int i = 0; i < target_count; i++) {
			if (i)
				strcat(buf, ", ");
			strcat(buf, target_table[i].name);
		}
	return buf;
}
