/* tilerun_dl.c: libtilerun, opened by path at fakecudaInit (tileiras_cpu
 * finds build/lib/libtilerun.so beside itself or on PATH), so that this
 * library neither links it nor needs it to build. */
#include <dlfcn.h>
#include <stdio.h>
#include "fakecuda.h"

static TilerunApi api;
static int opened;

const TilerunApi *fakecuda_tilerun(void)
{
	return opened ? &api : NULL;
}

int fakecuda_tilerun_open(const char *path, char *why, size_t whylen)
{
	void *h;
	TilerunApi a;
	if (opened)
		return 0;
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(why, whylen, "%s", dlerror());
		return -1;
	}
#define SYM(field, name) \
	if (!(*(void **)&a.field = dlsym(h, name))) { \
		snprintf(why, whylen, "%s: no %s", path, name); \
		dlclose(h); \
		return -1; \
	}
	SYM(module_load, "tilerunModuleLoad")
	SYM(module_load_bytecode, "tilerunModuleLoadBytecode")
	SYM(module_entry, "tilerunModuleEntry")
	SYM(entry_param_size, "tilerunEntryParamSize")
	SYM(entry_params, "tilerunEntryParams")
	SYM(module_release, "tilerunModuleRelease")
	SYM(launch, "tilerunLaunch")
#undef SYM
	api = a;
	opened = 1;
	return 0;
}
