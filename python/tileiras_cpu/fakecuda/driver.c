/* driver.c: cuGetProcAddress_v2, the one symbol cuTile takes from
 * libcuda.so.1, and the entry points that need no memory and no kernel:
 * init, the one device (the CPU, compute capability FAKECUDA_CC_*), its
 * primary context (always current), streams and events (launches are
 * synchronous, so every stream is idle and every event complete), error
 * strings. Graphs are graph.c's; IPC and tensor maps CUDA_ERROR_NOT_SUPPORTED. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, strdup */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fakecuda.h"

struct FakeContext { int unused; };
struct FakeStream { unsigned long long id; };
struct FakeEvent { double ms; };

static struct FakeContext primary;
static int initialized;

CUcontext fakecuda_context(void)
{
	return &primary;
}

CUresult fakecuda_check_init(void)
{
	return initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult cuInit(unsigned flags)
{
	(void)flags;
	initialized = 1;
	return CUDA_SUCCESS;
}

static CUresult cuDriverGetVersion(int *v)
{
	if (!v)
		return CUDA_ERROR_INVALID_VALUE;
	*v = FAKECUDA_DRIVER_VERSION;
	return CUDA_SUCCESS;
}

static CUresult cuDeviceGetCount(int *n)
{
	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	*n = 1;
	return fakecuda_check_init();
}

static CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	if (ordinal != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = 0;
	return fakecuda_check_init();
}

/* The attributes by the driver API's numbering; those not listed are 0. */
static CUresult cuDeviceGetAttribute(int *pi, int attr, CUdevice d)
{
	static const struct { int attr, value; } table[] = {
		{ 1, 1024 },            /* max threads per block */
		{ 2, 1024 }, { 3, 1024 }, { 4, 64 },                    /* max block dims */
		{ 5, 2147483647 }, { 6, 65535 }, { 7, 65535 },          /* max grid dims */
		{ 8, 49152 },           /* shared memory per block */
		{ 9, 65536 },           /* constant memory */
		{ 10, 32 },             /* warp size */
		{ 12, 65536 },          /* registers per block */
		{ 13, 1000000 },        /* clock rate, kHz */
		{ 16, 1 },              /* multiprocessors */
		{ 39, 1536 },           /* max threads per multiprocessor */
		{ 75, FAKECUDA_CC_MAJOR }, { 76, FAKECUDA_CC_MINOR },
		{ 81, 102400 },         /* shared memory per multiprocessor */
		{ 82, 65536 },          /* registers per multiprocessor */
		{ 97, 101376 },         /* opt-in shared memory per block */
		{ 106, 16 },            /* max blocks per multiprocessor */
	};
	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	if (d != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	*pi = 0;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].attr == attr)
			*pi = table[i].value;
	fakecuda_trace("cuDeviceGetAttribute(%d) = %d", attr, *pi);
	return fakecuda_check_init();
}

static CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	if (d != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	*c = &primary;
	return fakecuda_check_init();
}

static CUresult ctx_out(CUcontext *c)
{
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	*c = &primary;
	return fakecuda_check_init();
}

static CUresult cuCtxGetCurrent(CUcontext *c) { return ctx_out(c); }
static CUresult cuCtxPopCurrent(CUcontext *c) { return ctx_out(c); }
static CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return fakecuda_check_init(); }
static CUresult cuCtxPushCurrent(CUcontext c) { (void)c; return fakecuda_check_init(); }
static CUresult cuCtxSynchronize(void) { return fakecuda_check_init(); }

static CUresult cuCtxGetDevice(CUdevice *d)
{
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	*d = 0;
	return fakecuda_check_init();
}

static CUresult cuCtxGetId(CUcontext c, unsigned long long *id)
{
	(void)c;
	if (!id)
		return CUDA_ERROR_INVALID_VALUE;
	*id = 1;
	return CUDA_SUCCESS;
}

static CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	static unsigned long long next_id = 100;
	(void)flags;
	if (!s)
		return CUDA_ERROR_INVALID_VALUE;
	if (!(*s = calloc(1, sizeof **s)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*s)->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

static int is_builtin_stream(CUstream s)
{
	/* NULL, CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) */
	return (uintptr_t)s <= 2;
}

static CUresult cuStreamDestroy(CUstream s)
{
	if (!is_builtin_stream(s))
		free(s);
	return CUDA_SUCCESS;
}

static CUresult cuStreamGetCtx(CUstream s, CUcontext *c) { (void)s; return ctx_out(c); }

static CUresult cuStreamGetId(CUstream s, unsigned long long *id)
{
	if (!id)
		return CUDA_ERROR_INVALID_VALUE;
	*id = is_builtin_stream(s) ? (uintptr_t)s : s->id;
	return CUDA_SUCCESS;
}

static CUresult cuStreamIsCapturing(CUstream s, int *status)
{
	(void)s;
	if (!status)
		return CUDA_ERROR_INVALID_VALUE;
	*status = 0;    /* CU_STREAM_CAPTURE_STATUS_NONE */
	return CUDA_SUCCESS;
}

static CUresult cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned f) { (void)s; (void)e; (void)f; return CUDA_SUCCESS; }

static CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	(void)flags;
	if (!e)
		return CUDA_ERROR_INVALID_VALUE;
	return (*e = calloc(1, sizeof **e)) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }

CUresult fakecuda_event_record(CUevent e)
{
	struct timespec ts;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	return CUDA_SUCCESS;
}

static CUresult cuEventRecord(CUevent e, CUstream s)
{
	(void)s;
	return fakecuda_event_record(e);
}

static CUresult cuEventQuery(CUevent e) { return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }

static CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	if (!ms || !a || !b)
		return CUDA_ERROR_INVALID_HANDLE;
	*ms = (float)(b->ms - a->ms);
	return CUDA_SUCCESS;
}

static CUresult cuGetErrorString(CUresult r, const char **s)
{
	static const struct { CUresult r; const char *s; } table[] = {
		{ CUDA_SUCCESS, "no error" },
		{ CUDA_ERROR_INVALID_VALUE, "invalid argument" },
		{ CUDA_ERROR_OUT_OF_MEMORY, "out of memory" },
		{ CUDA_ERROR_NOT_INITIALIZED, "initialization error" },
		{ CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal" },
		{ CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid" },
		{ CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed" },
		{ CUDA_ERROR_INVALID_HANDLE, "invalid resource handle" },
		{ CUDA_ERROR_NOT_FOUND, "named symbol not found" },
		{ CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered" },
		{ CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated" },
		{ CUDA_ERROR_ASSERT, "device-side assert triggered" },
		{ CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered" },
		{ CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address" },
		{ CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure" },
		{ CUDA_ERROR_NOT_SUPPORTED, "operation not supported (by the CPU driver of tileiras_cpu)" },
	};
	if (!s)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].r == r) {
			*s = table[i].s;
			return CUDA_SUCCESS;
		}
	*s = "unknown error";
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult not_supported(void) { return CUDA_ERROR_NOT_SUPPORTED; }

static const FakeEntry entries[] = {
	FAKE_ENTRY(cuInit), FAKE_ENTRY(cuDriverGetVersion), FAKE_ENTRY(cuDeviceGetCount), FAKE_ENTRY(cuDeviceGet),
	FAKE_ENTRY(cuDeviceGetAttribute), FAKE_ENTRY(cuDevicePrimaryCtxRetain), FAKE_ENTRY(cuCtxGetCurrent),
	FAKE_ENTRY(cuCtxSetCurrent), FAKE_ENTRY(cuCtxPushCurrent), FAKE_ENTRY(cuCtxPopCurrent), FAKE_ENTRY(cuCtxGetDevice),
	FAKE_ENTRY(cuCtxGetId), FAKE_ENTRY(cuCtxSynchronize), FAKE_ENTRY(cuStreamCreate), FAKE_ENTRY(cuStreamDestroy),
	FAKE_ENTRY(cuStreamGetCtx), FAKE_ENTRY(cuStreamGetId), FAKE_ENTRY(cuStreamIsCapturing), FAKE_ENTRY(cuStreamSynchronize),
	FAKE_ENTRY(cuStreamWaitEvent), FAKE_ENTRY(cuEventCreate), FAKE_ENTRY(cuEventDestroy), FAKE_ENTRY(cuEventRecord),
	FAKE_ENTRY(cuEventQuery), FAKE_ENTRY(cuEventElapsedTime), FAKE_ENTRY(cuGetErrorString),
};

/* Entry points cuTile may ask for that the CPU has no use for. */
static const char *const unsupported[] = {
	"cuIpcCloseMemHandle",
	"cuIpcGetMemHandle", "cuIpcOpenMemHandle", "cuTensorMapEncodeTiled",
};

void *fakecuda_find(const FakeEntry *t, size_t n, const char *symbol)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, symbol))
			return t[i].fn;
	return NULL;
}

void *fakecuda_lookup(const char *symbol)
{
	void *fn;
	if ((fn = fakecuda_find(entries, sizeof entries / sizeof entries[0], symbol))
	    || (fn = fakecuda_memory_entry(symbol)) || (fn = fakecuda_launch_entry(symbol))
	    || (fn = fakecuda_graph_entry(symbol)))
		return fn;
	for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
		if (!strcmp(unsupported[i], symbol))
			return (void *)not_supported;
	return NULL;
}

/* The driver's own lookup: a symbol by name, whatever the version asked. */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status)
{
	void *fn = symbol ? fakecuda_lookup(symbol) : NULL;
	fakecuda_trace("cuGetProcAddress_v2(%s, %d, %llu)%s", symbol ? symbol : "(null)", version,
		       (unsigned long long)flags, fn ? "" : ": not found");
	if (pfn)
		*pfn = fn;
	if (status)
		*status = fn ? 0 : 1;
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	return fn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
