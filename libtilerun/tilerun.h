/* tilerun.h: libtilerun, tile-run as a library (issue 40; docs/tile-run.md
 * "The library"). Runs compiled tile kernels on the CPU for an embedding
 * client: cuTile on the CPU (python/tileiras_cpu), a test harness, a
 * debugger. The tile-run command is a thin main over the same calls.
 *
 *   TilerunModule *m = NULL;
 *   TilerunError err;
 *   if (tilerunModuleLoad(&m, ptx, len, "k.ptx", &err) != TILERUN_SUCCESS) ... err.message
 *   TilerunBuffer bufs[] = { { a, a_bytes, "a" }, { out, out_bytes, "out" } };
 *   TilerunLaunch l = { .entry = NULL, .grid = {64, 1, 1}, .params = block,
 *                       .param_size = n, .buffers = bufs, .nbuffers = 2,
 *                       .check = TILERUN_CHECK_MEMCHECK };
 *   int rc = tilerunLaunch(m, &l, &err);     // TILERUN_FAULT: err.kind, err.file, err.line ...
 *   tilerunModuleRelease(m);
 *
 * Memory: a kernel's pointers are the caller's host addresses. The caller
 * registers every host range a kernel may touch (TilerunBuffer); an access
 * outside them is a memcheck fault. The kernel runs on copies of the
 * registered buffers, copied back only when the launch ends without a
 * fault: after a fault the caller's memory is as it was (what cuTile on the
 * CPU promises: nothing is written to the output tensors).
 *
 * Threads: a module may be launched from several threads at once (it is
 * read-only after loading); each launch has its own state. Nothing here
 * exits the process or prints to stderr; an internal bug in the emulator
 * aborts, as in every tool of the project. */
#ifndef TILERUN_H
#define TILERUN_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: the tile-run command's exit codes. */
enum {
	TILERUN_SUCCESS = 0,
	TILERUN_ERROR_INPUT = 1,        /* bad PTX, unsupported instruction, bad arguments, too much memory */
	TILERUN_ERROR_USAGE = 2,        /* NULL or contradictory arguments (a grid of 0, a block not .reqntid) */
	TILERUN_FAULT = 3,              /* the kernel faulted: memcheck, racecheck, trap, assert, deadlock */
};

/* What faulted (TILERUN_FAULT), or TILERUN_KIND_ERROR for codes 1 and 2. */
enum {
	TILERUN_KIND_NONE = 0,
	TILERUN_KIND_ERROR,             /* not a fault: a load/launch error (message says which) */
	TILERUN_KIND_OUT_OF_BOUNDS,     /* memcheck: an access outside every registered buffer */
	TILERUN_KIND_MISALIGNED,        /* memcheck: an access not aligned to its size */
	TILERUN_KIND_RACE,              /* racecheck: a shared-memory (or tensor-memory) race */
	TILERUN_KIND_ASSERT,            /* a failed device assert */
	TILERUN_KIND_TRAP,              /* trap / brkpt */
	TILERUN_KIND_DEADLOCK,          /* threads wait on a barrier nobody completes */
	TILERUN_KIND_LIMIT,             /* max_insns reached */
	TILERUN_KIND_OTHER,             /* any other fault (a freed buffer, tensor-memory misuse, ...) */
};

/* A load or launch error or a kernel fault, filled by the calls below.
 * Fields a fault has no value for are zero / empty. */
typedef struct TilerunError {
	int kind;                       /* TILERUN_KIND_* */
	char message[1024];             /* the one line tile-run prints (without "tile-run: error: ") */
	uint64_t address;               /* the faulting address (memory faults) */
	int buffer;                     /* index into TilerunLaunch.buffers of the nearest buffer, -1 none */
	uint32_t thread[3], block[3];   /* the faulting thread and its CTA */
	unsigned ptx_line;              /* line in the PTX text (1-based; 0 unknown) */
	char file[512];                 /* the kernel's source file from .loc/.file ("" unknown) */
	unsigned line, col;             /* the kernel's source line and column (0 unknown) */
} TilerunError;

typedef struct TilerunModule TilerunModule;

/* Load PTX text (len bytes, need not be NUL-terminated); name is the input's
 * name in messages ("<ptx>" for NULL). TILERUN_ERROR_INPUT with err filled
 * when the text is not PTX tile-run can run. */
int tilerunModuleLoad(TilerunModule **out, const char *ptx, size_t len, const char *name, TilerunError *err);

/* Load Tile IR bytecode: compiled in process by libtileiras for gpu
 * ("sm_80"; NULL: sm_80) to PTX with line info, then loaded as above.
 * Compile errors: TILERUN_ERROR_INPUT, err.message the compiler's first
 * error line (file:line:col: error: ...), err.file/line/col its place. */
int tilerunModuleLoadBytecode(TilerunModule **out, const void *bytecode, size_t len, const char *gpu,
			      const char *name, TilerunError *err);

/* The module's kernels (.entry), in order; NULL past the last. */
const char *tilerunModuleEntry(const TilerunModule *m, int index);

/* A kernel's parameters as the driver lays them out (the PTX .param list):
 * count, and for each the byte size and offset in the parameter block.
 * Returns the count, -1 for an unknown entry. sizes/offsets may be NULL. */
int tilerunEntryParams(const TilerunModule *m, const char *entry, size_t *sizes, size_t *offsets, int cap);

/* The bytes of the parameter block (what cuLaunchKernel's kernelParams
 * describe: param i is args[i], sizes per tilerunEntryParams). */
size_t tilerunEntryParamSize(const TilerunModule *m, const char *entry);

void tilerunModuleRelease(TilerunModule *m);

/* A host range a kernel may read and write: base is the device address too. */
typedef struct TilerunBuffer {
	void *base;
	size_t size;
	const char *name;               /* in fault messages ("a", "arg 2"); NULL: "buffer N" */
	int readonly;                   /* a write is a fault */
} TilerunBuffer;

enum { TILERUN_CHECK_NONE = 0, TILERUN_CHECK_MEMCHECK = 1, TILERUN_CHECK_RACECHECK = 2 };

typedef struct TilerunLaunch {
	const char *entry;              /* NULL: the module's only kernel */
	uint32_t grid[3];               /* CTAs; 0 in any dim is an error */
	uint32_t block[3];              /* threads; all 0: .reqntid, else .maxntid, else 128 */
	uint32_t cluster[3];            /* all 0: .reqnctapercluster, else none */
	uint32_t dynamic_shared;        /* bytes of dynamic shared memory */
	const void *params;             /* the parameter block, tilerunEntryParamSize bytes */
	size_t param_size;
	const TilerunBuffer *buffers;
	int nbuffers;
	int check;                      /* TILERUN_CHECK_* */
	FILE *printf_stream;            /* device printf; NULL: stdout */
	uint64_t max_insns;             /* 0: no limit */
	uint64_t seed;                  /* 0: the fixed schedule; else shuffled with this seed */
	uint64_t *insns_run;            /* if set: thread-instructions the launch ran */
	FILE *assert_stream;            /* a failed device assert's "FILE:LINE: FUNC: block: [..], thread: [..]
					   Assertion `MSG` failed." line (a GPU's driver prints it to stderr);
					   NULL: printf_stream */
} TilerunLaunch;

/* Run the kernel to completion: TILERUN_SUCCESS (buffers updated),
 * TILERUN_FAULT (err says where; buffers untouched), or an error. */
int tilerunLaunch(const TilerunModule *m, const TilerunLaunch *launch, TilerunError *err);

#ifdef __cplusplus
}
#endif
#endif
