/* tileiras.h: libtileiras, the in-process C API (docs/libtileiras.md).
 *
 * NVIDIA's tileiras driver has four entry points on an opaque program handle
 * (the seed's page "Driver Program Handle"); these are the same four calls
 * with the same configuration fields, validation order and five error codes,
 * plus what an embedding client needs and the CLI prints: the diagnostics
 * text and, on request, the intermediate forms (JSON IR after a stage, PTX).
 *
 *   TileirasProgram *p = NULL;
 *   int err = tileirasProgramCreate(&p, &config);
 *   if (err == TILEIRAS_SUCCESS)
 *           err = tileirasProgramCompile(p);
 *   if (err == TILEIRAS_SUCCESS) {
 *           TileirasByteView out;
 *           err = tileirasProgramGetOutput(p, &out);    // the cubin
 *   }
 *   tileirasProgramRelease(p);
 *
 * Threads: any number of programs may be compiled at once, one program per
 * thread at a time (a program is not locked). Compile runs the stages in
 * memory (tile-read, tile-lower, tile-sched, tile-ptx with its own LLVM
 * context); the cubin comes from ptxas run as a subprocess (tile-pack).
 * An internal compiler bug aborts the process, as it does the CLI. */
#ifndef TILEIRAS_H
#define TILEIRAS_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The seed's error codes (same numbers as NVIDIA's driver exit codes). */
enum {
	TILEIRAS_SUCCESS = 0,
	TILEIRAS_ERROR_ALLOCATION = 1,      /* "failed to allocate memory for program" */
	TILEIRAS_ERROR_INVALID_CONFIG = 2,  /* null config/input, bad option value */
	TILEIRAS_ERROR_INVALID_INPUT = 3,   /* not Tile IR bytecode, or unreadable */
	TILEIRAS_ERROR_INVALID_PROGRAM = 4, /* null program/output, not compiled */
	TILEIRAS_ERROR_COMPILE = 5,         /* "failed to compile Tile IR program" */
};

enum { TILEIRAS_HOST_ARCH_X86_64 = 0, TILEIRAS_HOST_ARCH_AARCH64 = 1, TILEIRAS_HOST_ARCH_ARM64EC = 2 };
enum { TILEIRAS_HOST_OS_LINUX = 0, TILEIRAS_HOST_OS_WINDOWS = 1 };
enum { TILEIRAS_SANITIZE_NONE = 0, TILEIRAS_SANITIZE_MEMCHECK = 1 };

/* The seed's configuration block (its first 48 bytes, same layout). The
 * input buffer is borrowed: it must stay valid until the program is released. */
typedef struct TileirasConfig {
	const void *input_buffer_data;   /* Tile IR bytecode */
	size_t input_buffer_size;
	int32_t gpu_id;                  /* 90 for sm_90: sm_75 ... sm_121 */
	int32_t opt_level;               /* 0..3 (the CLI's default is 3) */
	int32_t device_debug;            /* 0 or 1 (needs opt_level 0) */
	int32_t lineinfo;                /* 0 or 1 */
	int32_t host_arch;               /* TILEIRAS_HOST_ARCH_* */
	int32_t host_os;                 /* TILEIRAS_HOST_OS_* */
	int32_t sanitize;                /* TILEIRAS_SANITIZE_* */
	uint32_t pad;
} TileirasConfig;

typedef struct TileirasProgram TileirasProgram;

/* Bytes owned by the program: valid until it is compiled again or released. */
typedef struct TileirasByteView {
	const uint8_t *data;
	size_t size;
} TileirasByteView;

/* Validates in the seed's order (docs/libtileiras.md): out_program (4),
 * config (2), input buffer (2), bytecode magic (3), GPU (2), optimization
 * level (2), debug at -O>0 (2), host arch (2), host OS (2); then ours,
 * sanitizer (2); then allocates (1). *out_program is set only on success. */
int tileirasProgramCreate(TileirasProgram **out_program, const TileirasConfig *config);

/* Reads, lowers, schedules, generates PTX and assembles the cubin.
 * 3 when the bytecode cannot be read or fails the cuda_tile verifier (as
 * the CLI's exit status), 5 for any later failure; the reasons are in the
 * log (tileirasProgramGetLog). */
int tileirasProgramCompile(TileirasProgram *program);

/* The cubin of the last successful compile (4 before one). */
int tileirasProgramGetOutput(TileirasProgram *program, TileirasByteView *out);

/* Frees the program and everything it owns; NULL gives 4. */
int tileirasProgramRelease(TileirasProgram *program);

/* ---- beyond the seed ---------------------------------------------------- */

/* Intermediate forms, requested before compiling (a bit set of these). */
enum {
	TILEIRAS_FORM_READ_JSON = 1u << 0,   /* what tile-read writes (cuda_tile) */
	TILEIRAS_FORM_LOWER_JSON = 1u << 1,  /* what tile-lower writes (nv_tileas) */
	TILEIRAS_FORM_SCHED_JSON = 1u << 2,  /* what tile-sched writes (scheduled) */
	TILEIRAS_FORM_PTX = 1u << 3,         /* what tile-ptx writes */
	TILEIRAS_FORM_ALL = (1u << 4) - 1,
};

/* Keep these forms at the next compile: 2 for an unknown bit, 4 for NULL. */
int tileirasProgramRequestForms(TileirasProgram *program, unsigned forms);

/* One form (a single TILEIRAS_FORM_* bit) from the last compile; 4 when it
 * was not requested or that compile did not get that far. */
int tileirasProgramGetForm(TileirasProgram *program, unsigned form, TileirasByteView *out);

/* The diagnostics of the last compile (each stage's messages as the stage
 * executables print them, ptxas's verbatim, then the driver's "error: ..."
 * line); empty when there were none. 4 for NULL arguments. */
int tileirasProgramGetLog(TileirasProgram *program, TileirasByteView *out);

/* Name the input in diagnostics ("tile-read: NAME: offset 0x1c: error: ..."),
 * as the CLI names its input file; NULL or never set: no name. Copied.
 * 4 for a NULL program, 1 when the copy cannot be allocated. */
int tileirasProgramSetInputName(TileirasProgram *program, const char *name);

/* Wall milliseconds the last compile spent in each stage, in order: read,
 * lower, sched, ptx (LLVM), pack (ptxas); 0 for a stage it did not reach.
 * 4 for NULL arguments. */
#define TILEIRAS_N_STAGES 5
int tileirasProgramGetStageTimes(TileirasProgram *program, double ms[TILEIRAS_N_STAGES]);

/* Optimization remarks, as the CLI's --remarks options make them: kinds (a
 * bit set of TILEIRAS_REMARK_*, 0: none) of tile-sched's memory-access and
 * layout remarks, and (resources != 0) ptxas's per-kernel resource remarks;
 * yaml != 0: LLVM's remark YAML, else the command-line form. Requested
 * before compiling; 2 for an unknown bit, 4 for NULL. */
enum {
	TILEIRAS_REMARK_PASSED = 1, TILEIRAS_REMARK_MISSED = 2, TILEIRAS_REMARK_FAILED = 4,
	TILEIRAS_REMARK_ANALYSIS = 8, TILEIRAS_REMARK_ALL = 15,
};
int tileirasProgramRequestRemarks(TileirasProgram *program, unsigned kinds, int resources, int yaml);

/* The remarks of the last successful compile (tile-sched's, then ptxas's;
 * what the CLI writes to --remarks-output-file); 4 before one. */
int tileirasProgramGetRemarks(TileirasProgram *program, TileirasByteView *out);

/* The one-line message of this thread's last non-zero return ("unsupported
 * GPU target"), "" when the last call succeeded. */
const char *tileirasGetLastError(void);

/* The seed's name for a code ("configuration rejection"), never NULL. */
const char *tileirasGetErrorString(int code);

/* What compiler this is, two lines: "version 0.1.0, build <id>" (a hash of
 * the compiler's sources, scripts/build-id) and "ptxas: <path> (release
 * M.m.p)" or "ptxas: none found" (the ptxas a compile would run now, which
 * the cubins depend on): the end of `tileiras --version`. A client keeping
 * compiled kernels across runs keys them on it with the bytecode and the
 * options, as cuTile Python does with `tileiras --version`. Ours, not the
 * seed's. Thread-local text, valid until this thread calls it again. */
const char *tileirasGetVersion(void);

#ifdef __cplusplus
}
#endif
#endif
