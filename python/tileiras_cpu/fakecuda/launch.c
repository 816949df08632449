/* launch.c: libraries, kernels and launches on libtilerun. A library's
 * image is what tileiras_cpu's compile gave cuTile: PTX text (NUL-ended, as
 * the driver takes it) or Tile IR bytecode, which libtilerun compiles. A
 * function is its kernel; cuLaunchKernel lays the kernelParams out as the
 * entry's .param list says and runs the kernel to completion on the
 * registered ranges (memory.c) before it returns. A fault is recorded for
 * the harness (fakecudaTakeFault) and returned as the driver's error for
 * it (an out-of-bounds access: CUDA_ERROR_ILLEGAL_ADDRESS, a failed assert:
 * CUDA_ERROR_ASSERT); the kernel's buffers are then as they were. */
#define _GNU_SOURCE             /* open_memstream */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fakecuda.h"

struct FakeLibrary {
	TilerunModule *module;
};

struct FakeKernel {
	CUlibrary library;
	char *entry;
	struct FakeKernel *next;
};

static const char bytecode_magic[8] = "\x7fTileIR";

static CUresult load_error(const TilerunError *err, const char *what)
{
	fakecuda_record_fault(err, what);
	return CUDA_ERROR_INVALID_PTX;
}

static CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, void *jo, void **jv, unsigned nj,
				  void *lo, void **lv, unsigned nl)
{
	const TilerunApi *api = fakecuda_tilerun();
	TilerunError err;
	TilerunModule *m = NULL;
	int rc;
	(void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
	if (!lib || !code)
		return CUDA_ERROR_INVALID_VALUE;
	if (!api)
		return CUDA_ERROR_NOT_INITIALIZED;
	memset(&err, 0, sizeof err);
	if (!memcmp(code, bytecode_magic, sizeof bytecode_magic))
		return CUDA_ERROR_INVALID_IMAGE;        /* no length to read it by: tileiras_cpu sends PTX */
	if (!memcmp(code, "\x7f" "ELF", 4)) {
		snprintf(err.message, sizeof err.message,
			 "a cubin reached the CPU driver: tileiras_cpu runs PTX (a stale cuTile cache?)");
		err.kind = TILERUN_KIND_ERROR;
		fakecuda_record_fault(&err, "cuLibraryLoadData");
		return CUDA_ERROR_INVALID_IMAGE;
	}
	rc = api->module_load(&m, code, strlen(code), "<cuTile PTX>", &err);
	if (rc != TILERUN_SUCCESS)
		return load_error(&err, "cuLibraryLoadData");
	if (!(*lib = calloc(1, sizeof **lib))) {
		api->module_release(m);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	(*lib)->module = m;
	fakecuda_trace("cuLibraryLoadData: %zu bytes of PTX", strlen(code));
	return CUDA_SUCCESS;
}

static struct FakeKernel *kernels;      /* every kernel handed out, freed with its library */
static pthread_mutex_t kernels_lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult cuLibraryUnload(CUlibrary lib)
{
	if (!lib)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&kernels_lock);
	for (struct FakeKernel **k = &kernels; *k;) {
		struct FakeKernel *dead = *k;
		if (dead->library == lib) {
			*k = dead->next;
			free(dead->entry);
			free(dead);
		} else {
			k = &dead->next;
		}
	}
	pthread_mutex_unlock(&kernels_lock);
	if (fakecuda_tilerun())
		fakecuda_tilerun()->module_release(lib->module);
	free(lib);
	return CUDA_SUCCESS;
}

static CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
	const TilerunApi *api = fakecuda_tilerun();
	const char *e;
	int i;
	if (!k || !lib || !name)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; (e = api->module_entry(lib->module, i)); i++)
		if (!strcmp(e, name))
			break;
	if (!e)
		return CUDA_ERROR_NOT_FOUND;
	if (!(*k = calloc(1, sizeof **k)) || !((*k)->entry = strdup(name))) {
		free(*k);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	(*k)->library = lib;
	pthread_mutex_lock(&kernels_lock);
	(*k)->next = kernels;
	kernels = *k;
	pthread_mutex_unlock(&kernels_lock);
	return CUDA_SUCCESS;
}

static CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	if (!f || !k)
		return CUDA_ERROR_INVALID_VALUE;
	*f = k;
	return CUDA_SUCCESS;
}

/* By the driver API's CUfunction_attribute numbering. */
static CUresult cuKernelGetAttribute(int *pi, int attr, CUkernel k, CUdevice d)
{
	(void)d;
	if (!pi || !k)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case 0: *pi = 1024; break;                                      /* max threads per block */
	case 5: case 6: *pi = FAKECUDA_CC_MAJOR * 10 + FAKECUDA_CC_MINOR; break;   /* PTX, binary version */
	case 8: *pi = 101376; break;                                    /* max dynamic shared */
	default: *pi = 0; break;
	}
	fakecuda_trace("cuKernelGetAttribute(%d) = %d", attr, *pi);
	return CUDA_SUCCESS;
}

static CUresult cuKernelSetAttribute(int attr, int value, CUkernel k, CUdevice d)
{
	(void)d;
	fakecuda_trace("cuKernelSetAttribute(%d, %d)", attr, value);
	return k ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult fault_result(int kind)
{
	switch (kind) {
	case TILERUN_KIND_OUT_OF_BOUNDS: return CUDA_ERROR_ILLEGAL_ADDRESS;
	case TILERUN_KIND_MISALIGNED: return CUDA_ERROR_MISALIGNED_ADDRESS;
	case TILERUN_KIND_ASSERT: return CUDA_ERROR_ASSERT;
	case TILERUN_KIND_TRAP: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
	case TILERUN_KIND_DEADLOCK: case TILERUN_KIND_LIMIT: return CUDA_ERROR_LAUNCH_TIMEOUT;
	default: return CUDA_ERROR_LAUNCH_FAILED;
	}
}

/* The parameter block: kernelParams[i] points at parameter i's bytes. */
void *fakecuda_param_block(CUfunction f, void **params, size_t *size)
{
	const TilerunApi *api = fakecuda_tilerun();
	if (!f || !api)
		return NULL;
	const TilerunModule *m = f->library->module;
	int n = api->entry_params(m, f->entry, NULL, NULL, 0);
	size_t *sizes = calloc(n > 0 ? n : 1, sizeof *sizes), *offsets = calloc(n > 0 ? n : 1, sizeof *offsets);
	char *block;
	*size = api->entry_param_size(m, f->entry);
	block = calloc(*size ? *size : 1, 1);
	if (!sizes || !offsets || !block || n < 0 || (n > 0 && !params)) {
		free(block);
		block = NULL;
	} else {
		api->entry_params(m, f->entry, sizes, offsets, n);
		for (int i = 0; i < n; i++)
			memcpy(block + offsets[i], params[i], sizes[i]);
	}
	free(sizes);
	free(offsets);
	return block;
}

CUresult fakecuda_launch_block(CUfunction f, const uint32_t grid[3], const uint32_t block[3],
			       const uint32_t cluster[3], unsigned shared, const void *pblock, size_t psize)
{
	const TilerunApi *api = fakecuda_tilerun();
	TilerunLaunch l = { 0 };
	TilerunBuffer *bufs = NULL;
	TilerunError err;
	char *out = NULL, *aout = NULL;
	size_t outlen = 0, aoutlen = 0;
	int rc;
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!api)
		return CUDA_ERROR_NOT_INITIALIZED;
	memset(&err, 0, sizeof err);
	l.entry = f->entry;
	memcpy(l.grid, grid, sizeof l.grid);
	(void)block;           /* cuTile asks (1,1,1) of tile kernels: the kernel's .reqntid rules */
	memcpy(l.cluster, cluster, sizeof l.cluster);
	l.dynamic_shared = shared;
	l.params = pblock;
	l.param_size = psize;
	l.nbuffers = fakecuda_ranges(&bufs);
	l.buffers = bufs;
	l.check = fakecuda_check_mode();
	l.printf_stream = open_memstream(&out, &outlen);
	l.assert_stream = open_memstream(&aout, &aoutlen);
	fakecuda_trace("launch %s grid %u,%u,%u block %u,%u,%u, %d buffers", f->entry, grid[0], grid[1], grid[2],
		       block[0], block[1], block[2], l.nbuffers);
	rc = l.nbuffers < 0 || !l.printf_stream || !l.assert_stream ? -1 : api->launch(f->library->module, &l, &err);
	if (l.printf_stream)
		fclose(l.printf_stream);
	if (l.assert_stream)
		fclose(l.assert_stream);
	fakecuda_record_output(FAKECUDA_STDOUT, out, outlen);
	fakecuda_record_output(FAKECUDA_STDERR, aout, aoutlen);
	free(out);
	free(aout);
	free(bufs);
	if (rc < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (rc == TILERUN_SUCCESS)
		return CUDA_SUCCESS;
	fakecuda_record_fault(&err, f->entry);
	return rc == TILERUN_FAULT ? fault_result(err.kind) : CUDA_ERROR_INVALID_VALUE;
}

static CUresult launch(CUfunction f, const uint32_t grid[3], const uint32_t block[3], const uint32_t cluster[3],
		       unsigned shared, void **params)
{
	size_t psize;
	void *pblock;
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!fakecuda_tilerun())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!(pblock = fakecuda_param_block(f, params, &psize)))
		return CUDA_ERROR_INVALID_VALUE;
	CUresult rc = fakecuda_launch_block(f, grid, block, cluster, shared, pblock, psize);
	free(pblock);
	return rc;
}

static CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			       unsigned bz, unsigned shared, CUstream s, void **params, void **extra)
{
	const uint32_t grid[3] = { gx, gy, gz }, block[3] = { bx, by, bz }, cluster[3] = { 0, 0, 0 };
	(void)s;
	if (extra)
		return CUDA_ERROR_NOT_SUPPORTED;
	return launch(f, grid, block, cluster, shared, params);
}

/* CUlaunchConfig and CUlaunchAttribute as the driver API lays them out. */
typedef struct {
	unsigned id;
	char pad[4];
	union { char bytes[64]; unsigned dim[3]; } value;
} LaunchAttribute;
typedef struct {
	unsigned grid[3], block[3], shared;
	CUstream stream;
	LaunchAttribute *attrs;
	unsigned nattrs;
} LaunchConfig;

enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };

static CUresult cuLaunchKernelEx(const LaunchConfig *c, CUfunction f, void **params, void **extra)
{
	uint32_t cluster[3] = { 0, 0, 0 };
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	if (extra)
		return CUDA_ERROR_NOT_SUPPORTED;
	for (unsigned i = 0; i < c->nattrs; i++) {
		fakecuda_trace("cuLaunchKernelEx attribute %u", c->attrs[i].id);
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
			memcpy(cluster, c->attrs[i].value.dim, sizeof cluster);
	}
	return launch(f, c->grid, c->block, cluster, c->shared, params);
}

void *fakecuda_launch_entry(const char *symbol)
{
	static const FakeEntry entries[] = {
		FAKE_ENTRY(cuLibraryLoadData), FAKE_ENTRY(cuLibraryUnload), FAKE_ENTRY(cuLibraryGetKernel),
		FAKE_ENTRY(cuKernelGetFunction), FAKE_ENTRY(cuKernelGetAttribute), FAKE_ENTRY(cuKernelSetAttribute),
		FAKE_ENTRY(cuLaunchKernel), FAKE_ENTRY(cuLaunchKernelEx),
	};
	return fakecuda_find(entries, sizeof entries / sizeof entries[0], symbol);
}
