/* toolkit.c: the environment that says where things are (toolkit.h). */
#include <stdlib.h>
#include "toolkit.h"

static const char *const names[TK_NVARS] = {
	[TK_CUDA_ROOT] = "CUDA_ROOT",
	[TK_CUDA_HOME] = "CUDA_HOME",
	[TK_CUDA_PATH] = "CUDA_PATH",
	[TK_PATH] = "PATH",
	[TK_VIRTUAL_ENV] = "VIRTUAL_ENV",
	[TK_HOME] = "HOME",
	[TK_XDG_CACHE_HOME] = "XDG_CACHE_HOME",
	[TK_TMPDIR] = "TMPDIR",
	[TK_CC] = "CC",
	[TK_GLIBC_TUNABLES] = "GLIBC_TUNABLES",
};

const char *toolkit_env(ToolkitVar v)
{
	return getenv(names[v]);
}

const char *toolkit_cuda_root(const char **var)
{
	static const ToolkitVar vars[] = { TK_CUDA_ROOT, TK_CUDA_HOME, TK_CUDA_PATH };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = toolkit_env(vars[i]);
		if (v && *v) {
			*var = names[vars[i]];
			return v;
		}
	}
	*var = NULL;
	return "/usr/local/cuda";
}
