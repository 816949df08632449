/* memory.c: device memory is host memory. cuMemAlloc is an aligned host
 * allocation whose address is the device pointer; the ranges a launch may
 * touch are every live allocation plus the host arrays tileiras_cpu
 * registers for the launch (fakecudaRegister: numpy arrays, torch CPU
 * tensors), handed to libtilerun as its TilerunBuffers, so that an access
 * outside them is a memcheck fault. Registered ranges belong to the thread
 * that registered them: threads launching at once see their own. Pointer attributes say "device memory
 * of device 0" for any address: cuTile asks them of its array arguments. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, strdup */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "fakecuda.h"

typedef struct Range {
	CUdeviceptr base;
	size_t size;
	char *name;             /* NULL for an allocation */
	int harness;            /* registered by fakecudaRegister, dropped by fakecudaClear */
	pthread_t owner;        /* the registering thread (harness ranges) */
} Range;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Range *ranges;
static int nranges, cap;

static int add_range(CUdeviceptr base, size_t size, const char *name, int harness)
{
	if (nranges == cap) {
		int ncap = cap ? 2 * cap : 64;
		Range *r = realloc(ranges, ncap * sizeof *r);
		if (!r)
			return -1;
		ranges = r;
		cap = ncap;
	}
	ranges[nranges++] = (Range){ base, size, name ? strdup(name) : NULL, harness, pthread_self() };
	return 0;
}

static void drop(int i)
{
	free(ranges[i].name);
	ranges[i] = ranges[--nranges];
}

/* Registers [base, base+size) for the next launches; name shows in faults. */
int fakecudaRegister(void *base, size_t size, const char *name)
{
	int rc;
	pthread_mutex_lock(&lock);
	rc = add_range((uintptr_t)base, size, name, 1);
	pthread_mutex_unlock(&lock);
	return rc;
}

void fakecudaClear(void)
{
	pthread_mutex_lock(&lock);
	for (int i = nranges - 1; i >= 0; i--)
		if (ranges[i].harness && pthread_equal(ranges[i].owner, pthread_self()))
			drop(i);
	pthread_mutex_unlock(&lock);
}

int fakecuda_ranges(TilerunBuffer **out)
{
	int n = 0;
	pthread_mutex_lock(&lock);
	*out = calloc(nranges ? nranges : 1, sizeof **out);
	for (int i = 0; *out && i < nranges; i++)
		if (!ranges[i].harness || pthread_equal(ranges[i].owner, pthread_self()))
			(*out)[n++] = (TilerunBuffer){ (void *)(uintptr_t)ranges[i].base, ranges[i].size,
						       ranges[i].name ? ranges[i].name : "a cuMemAlloc allocation", 0 };
	if (!*out)
		n = -1;
	/* names stay owned by the table: only this thread's fakecudaClear drops its own */
	pthread_mutex_unlock(&lock);
	return n;
}

int fakecuda_range_of(CUdeviceptr p, CUdeviceptr *base, size_t *size)
{
	int found = 0;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nranges && !found; i++)
		if (p >= ranges[i].base && p - ranges[i].base < (ranges[i].size ? ranges[i].size : 1)) {
			*base = ranges[i].base;
			*size = ranges[i].size;
			found = 1;
		}
	pthread_mutex_unlock(&lock);
	return found;
}

CUresult fakecuda_mem_alloc(CUdeviceptr *p, size_t size)
{
	void *m;
	int rc;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (!(m = aligned_alloc(256, (size + 255) / 256 * 256 + (size == 0) * 256)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&lock);
	rc = add_range((uintptr_t)m, size, NULL, 0);
	pthread_mutex_unlock(&lock);
	if (rc) {
		free(m);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*p = (uintptr_t)m;
	fakecuda_trace("cuMemAlloc(%zu) = %p", size, m);
	return CUDA_SUCCESS;
}

CUresult fakecuda_mem_free(CUdeviceptr p)
{
	int found = 0;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nranges && !found; i++)
		if (!ranges[i].harness && ranges[i].base == p) {
			drop(i);
			found = 1;
		}
	pthread_mutex_unlock(&lock);
	if (!found)
		return p ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

static CUresult cuMemAlloc(CUdeviceptr *p, size_t size) { return fakecuda_mem_alloc(p, size); }
static CUresult cuMemFree(CUdeviceptr p) { return fakecuda_mem_free(p); }

static CUresult cuMemAllocHost(void **p, size_t size)
{
	CUdeviceptr d;
	CUresult r;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if ((r = cuMemAlloc(&d, size)) == CUDA_SUCCESS)
		*p = (void *)(uintptr_t)d;
	return r;
}

static CUresult cuMemFreeHost(void *p) { return cuMemFree((uintptr_t)p); }

static CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr p)
{
	CUdeviceptr base;
	size_t size;
	if (!fakecuda_range_of(p, &base, &size))
		return CUDA_ERROR_NOT_FOUND;
	if (pbase)
		*pbase = base;
	if (psize)
		*psize = size;
	return CUDA_SUCCESS;
}

static CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	(void)s;
	if (n && (!dst || !src))
		return CUDA_ERROR_INVALID_VALUE;
	memmove((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

static CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr p)
{
	CUdeviceptr base = p;
	size_t size = 0;
	int known = fakecuda_range_of(p, &base, &size);
	fakecuda_trace("cuPointerGetAttribute(%d, %#llx)", attr, (unsigned long long)p);
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case 1:                 /* context */
		*(CUcontext *)data = fakecuda_context();
		return CUDA_SUCCESS;
	case 2: *(unsigned *)data = 2; return CUDA_SUCCESS;             /* memory type: device */
	case 3: case 4: *(void **)data = (void *)(uintptr_t)p; return CUDA_SUCCESS;
	case 6: case 8: case 10: *(int *)data = 0; return CUDA_SUCCESS;
	case 7: case 20: *(unsigned long long *)data = base; return CUDA_SUCCESS;
	case 9: *(int *)data = 0; return CUDA_SUCCESS;                  /* device ordinal */
	case 11: case 19: *(CUdeviceptr *)data = base; return CUDA_SUCCESS;
	case 12: case 18: *(size_t *)data = known ? size : 0; return CUDA_SUCCESS;
	case 13: *(int *)data = 1; return CUDA_SUCCESS;                 /* mapped */
	case 16: *(int *)data = 3; return CUDA_SUCCESS;                 /* read-write */
	default: return CUDA_ERROR_INVALID_VALUE;
	}
}

void *fakecuda_memory_entry(const char *symbol)
{
	static const FakeEntry entries[] = {
		FAKE_ENTRY(cuMemAlloc), FAKE_ENTRY(cuMemFree), FAKE_ENTRY(cuMemAllocHost), FAKE_ENTRY(cuMemFreeHost),
		FAKE_ENTRY(cuMemGetAddressRange), FAKE_ENTRY(cuMemcpyHtoDAsync), FAKE_ENTRY(cuPointerGetAttribute),
	};
	return fakecuda_find(entries, sizeof entries / sizeof entries[0], symbol);
}
