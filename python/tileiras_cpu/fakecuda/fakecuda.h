/* fakecuda.h: the CUDA driver on the CPU, libcuda.so.1 for cuTile Python
 * (python/tileiras_cpu; docs/cutile-cpu.md). Only what cuTile 1.7's _cext
 * resolves through cuGetProcAddress_v2, written from the driver API's
 * public documentation: the handful of types and constants those entry
 * points take. Device memory is host memory (a device pointer is a host
 * address); a device is the CPU, reporting compute capability FAKECUDA_CC_*;
 * launches are synchronous, run by libtilerun (libtilerun/tilerun.h),
 * loaded with dlopen by fakecudaInit so that this library builds without it.
 *
 * Files: driver.c (cuGetProcAddress_v2, device, context, stream, event,
 * errors), memory.c (allocations and the host ranges a launch may touch),
 * launch.c (libraries, kernels, cuLaunchKernel on libtilerun), tilerun_dl.c
 * (the dlopen), harness.c (the calls tileiras_cpu makes through ctypes). */
#ifndef FAKECUDA_H
#define FAKECUDA_H
#include <stddef.h>
#include <stdint.h>
#include "tilerun.h"

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef struct FakeContext *CUcontext;
typedef struct FakeStream *CUstream;
typedef struct FakeEvent *CUevent;
typedef struct FakeLibrary *CUlibrary;
typedef struct FakeKernel *CUkernel;
typedef struct FakeKernel *CUfunction;  /* a function is its kernel */
typedef struct FakeGraph *CUgraph;
typedef struct FakeGraphExec *CUgraphExec;
typedef struct FakeGraphNode *CUgraphNode;      /* an index + 1 into its graph's nodes, never dereferenced */

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
	CUDA_ERROR_LAUNCH_TIMEOUT = 702,
	CUDA_ERROR_ASSERT = 710,
	CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
	CUDA_ERROR_MISALIGNED_ADDRESS = 716,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_UNKNOWN = 999,
};

/* The device: its compute capability is the target cuTile compiles for.
 * sm_100: every element type cuTile 1.7 takes but f8E5M3FNU (sm_107), f8
 * and f8E8M0FNU included (cuTile refuses f8 below sm_90); tileiras_cpu
 * compiles it without TMA (TILEIRAS_NO_TMA) and products are mma.sync. */
#define FAKECUDA_CC_MAJOR 10
#define FAKECUDA_CC_MINOR 0
#define FAKECUDA_DRIVER_VERSION 13020   /* 13.2: what cuTile 1.7 asks for */

/* driver.c: the entry points by name. */
typedef struct FakeEntry {
	const char *name;
	void *fn;
} FakeEntry;
#define FAKE_ENTRY(f) { #f, (void *)f }
void *fakecuda_find(const FakeEntry *table, size_t n, const char *symbol);
void *fakecuda_lookup(const char *symbol);
CUresult fakecuda_check_init(void);
CUcontext fakecuda_context(void);
CUresult fakecuda_event_record(CUevent e);      /* the event's time: now */

/* memory.c: the host ranges a launch registers with libtilerun. */
int fakecuda_ranges(TilerunBuffer **out);       /* allocations + harness ranges; free() the array */
int fakecuda_range_of(CUdeviceptr p, CUdeviceptr *base, size_t *size);
void *fakecuda_memory_entry(const char *symbol);
CUresult fakecuda_mem_alloc(CUdeviceptr *p, size_t size);      /* cuMemAlloc */
CUresult fakecuda_mem_free(CUdeviceptr p);                     /* cuMemFree */

/* launch.c */
void *fakecuda_launch_entry(const char *symbol);
/* the parameter block of f from kernelParams (malloc'd; NULL: bad arguments) */
void *fakecuda_param_block(CUfunction f, void **params, size_t *size);
/* one synchronous launch of f on that block, its fault recorded (harness.c) */
CUresult fakecuda_launch_block(CUfunction f, const uint32_t grid[3], const uint32_t block[3],
			       const uint32_t cluster[3], unsigned shared, const void *pblock, size_t psize);

/* graph.c: graphs of kernel, memset, event-record and allocation nodes */
void *fakecuda_graph_entry(const char *symbol);

/* tilerun_dl.c: libtilerun's calls, NULL until fakecudaInit found it. */
typedef struct TilerunApi {
	int (*module_load)(TilerunModule **, const char *, size_t, const char *, TilerunError *);
	int (*module_load_bytecode)(TilerunModule **, const void *, size_t, const char *, const char *, TilerunError *);
	const char *(*module_entry)(const TilerunModule *, int);
	size_t (*entry_param_size)(const TilerunModule *, const char *);
	int (*entry_params)(const TilerunModule *, const char *, size_t *, size_t *, int);
	void (*module_release)(TilerunModule *);
	int (*launch)(const TilerunModule *, const TilerunLaunch *, TilerunError *);
} TilerunApi;
const TilerunApi *fakecuda_tilerun(void);
int fakecuda_tilerun_open(const char *path, char *why, size_t whylen);

/* harness.c: the launch's fault and printf output, per thread. */
void fakecuda_record_fault(const TilerunError *err, const char *entry);
enum { FAKECUDA_STDOUT = 0, FAKECUDA_STDERR = 1 };
void fakecuda_record_output(int channel, const char *text, size_t len);
int fakecuda_check_mode(void);
void fakecuda_trace(const char *fmt, ...);
#endif
