/* pack.h: the tile-pack stage: PTX -> ptxas -> cubin, fatbin or host object.
 *
 * Accepts: PTX text (any .version/.target ptxas knows).
 * Guarantees: the cubin is exactly what ptxas wrote from the PTX (with a
 * higher `.minnctapersm` in entries whose registers alone hold their
 * occupancy down, where ptxas then fits them without spilling:
 * occupancy_tune.c), made a
 * TILEIR-language module (tileir.c, with the .nv.host callback object of
 * nvhost.c) when the chosen ptxas can assemble that (--language=auto, the
 * default; the fallback is a remark); the fatbin is what the
 * toolkit's fatbinary wrote from that cubin plus the PTX; the host object is
 * an ELF (or COFF for --host-os=windows) relocatable carrying that fatbin in
 * section .nv_fatbin under a global symbol (docs/driver.md, "Host object").
 * Diagnostics of ptxas and fatbinary are passed through verbatim (those of
 * a ptxas run started before its inputs were in place that failed, and was
 * run again, are dropped: cubin.c). */
#ifndef TILE_PACK_H
#define TILE_PACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

typedef struct PackOptions {
	const char *gpu_name;       /* "sm_90"; NULL: the PTX's .target */
	int opt_level;              /* 0..3 */
	bool lineinfo;
	bool device_debug;
	bool memcheck;              /* --sanitize=memcheck */
	const char *host_arch;      /* "x86_64" | "aarch64" */
	const char *host_os;        /* "linux" | "windows" */
	const char *symbol;         /* host object symbol for the fatbin */
	const char *remarks_file;   /* NULL: no remarks (unless remarks_out) */
	StrBuf *remarks_out;        /* non-NULL: append the remarks here instead (libtileiras) */
	const char *remark_format;  /* "yaml" | "command-line" */
	const char *ptxas;          /* NULL: look it up (pack_find_tool) */
	const char *fatbinary;
	const char **ptxas_args;    /* extra ptxas arguments */
	int n_ptxas_args;
	bool verbose;               /* print each tool's command line */
	const char *language;       /* "auto" (TILEIR when the ptxas can), "tileir", "ptx" */
	const char *nv_host;        /* TILEIR: "callbacks" (ptxas --nv-host=, default) or "none" */
} PackOptions;

/* What `ptxas --version` says (known = false: it said nothing we read). */
typedef struct PtxasVersion {
	bool known;
	int major, minor, patch;
} PtxasVersion;

/* ptxas_vcache.c: what `ptxas --version` said of this very file before
 * (in this process, or in the on-disk cache); put remembers a known one. */
bool ptxas_vcache_get(const char *ptxas, PtxasVersion *v);
void ptxas_vcache_put(const char *ptxas, const PtxasVersion *v);

/* The PTX to assemble: its bytes, and a regular file holding the same bytes
 * when there is one (ptxas then names it in its messages). */
typedef struct PtxInput {
	const uint8_t *text;
	size_t len;
	const char *path;           /* NULL: written to a temporary file */
	const char *display;        /* name for messages: file name or "<stdin>" */
} PtxInput;

/* One kernel's resource usage as ptxas -v reports it (-1: not reported). */
typedef struct KernelUsage {
	char *name;
	char arch[16];
	long registers, barriers, stack, spill_stores, spill_loads, smem, cmem0;
} KernelUsage;

/* Find a CUDA tool: `given` (an explicit --ptxas/--fatbinary) if set; else
 * $CUDA_ROOT, else $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda, then
 * /bin/NAME under it; else NAME on PATH. Returns a malloc'd path, or NULL
 * after a message saying where it looked. */
char *pack_find_tool(const char *given, const char *name);
/* The next directory of the PATH-like list *S into DIR (an empty entry is
 * "."), moving *S past it; false at the end. */
bool path_next(const char **s, StrBuf *dir);

/* The ptxas to run (ptxas_pick.c): `given` (--ptxas) or $TILEIRAS_PTXAS if
 * set, else the newest of the toolkit's, PATH's and pip's. malloc'd path and
 * its version, or NULL after a message. verbose: list the candidates. */
char *pack_pick_ptxas(const char *given, PtxasVersion *version, bool verbose);
/* That ptxas as "PATH (release M.m.p)" or "PATH (version unknown)", malloc'd
 * (tile-pack --which-ptxas, tileirasGetVersion: what the cubins depend on),
 * or NULL after pack_pick_ptxas's message. */
char *pack_ptxas_identity(const char *given);

/* PTX as a TILEIR-language module (tileir.c): `.language 7` in every entry
 * header, `.version` at least 9.2. Appends to out; returns the entries marked. */
int ptx_to_tileir(const uint8_t *ptx, size_t len, StrBuf *out);

/* The ".target" of the PTX ("sm_90a"), or "" when it has none. */
void ptx_target(const uint8_t *ptx, size_t len, char *buf, size_t n);
/* The PTX's ".version" M.m as M*10+m ("9.4": 94), 0 when it has none (ptxas.c) */
int ptx_isa(const uint8_t *ptx, size_t len);

/* Assemble: ptxas arch into 'arch' ("sm_90a"), cubin bytes into 'cubin'.
 * 0 ok, -1 after diagnostics. Writes remarks when o->remarks_file is set. */
int pack_cubin(const PackOptions *o, const PtxInput *in, StrBuf *cubin, char arch[16]);
/* The same in two steps, for a caller that makes the PTX (libtileiras):
 * pack_start_early starts ptxas for o's GPU before the PTX exists (NULL
 * when it cannot or should not, saying nothing: then pack_cubin_job is
 * pack_cubin); pack_cubin_job puts the PTX in place, finishes the run (runs
 * ptxas again when the early one looked too early) and frees the job, as
 * does pack_job_abandon without assembling. o outlives the job (cubin.c). */
typedef struct PackJob PackJob;
PackJob *pack_start_early(const PackOptions *o);
int pack_cubin_job(const PackOptions *o, PackJob *j, const PtxInput *in, StrBuf *cubin, char arch[16]);
void pack_job_abandon(PackJob *j);
/* Will pack_cubin with these options make TILEIR cubins whose host
 * callback fills the PTX's tensor maps (a ptxas >= 13.2, callbacks on)?
 * What tile-sched --tma needs (scripts/tileiras, libtileiras). */
bool pack_fills_tensor_maps(const PackOptions *o);
/* Wrap cubin (for arch) and PTX into a fatbin through fatbinary. */
int pack_fatbin(const PackOptions *o, const PtxInput *in, const StrBuf *cubin,
		const char *arch, StrBuf *fatbin);
/* The entries' names, in PTX order, NUL-separated in names (tileir.c). */
int ptx_entry_names(const uint8_t *ptx, size_t len, StrBuf *names);
/* The .nv.host launch-callback object for these entries (nvhost.c), with
 * the tensor maps the PTX's notes describe (libcommon tmap.h) filled by
 * their ON_ARGUMENTS_CHANGE; sm: the target (where the parameters sit).
 * 0, or -1 after a diagnostic. */
int pack_nv_host(const PackOptions *o, const char *const *names, int n, const uint8_t *ptx, size_t len, int sm,
		 StrBuf *obj);
/* "x86_64-unknown-linux-gnu" ... for --host-arch / --host-os (hostobj.c). */
const char *pack_host_triple(const char *arch, const char *os);
/* A host LLVM module for --host-arch/--host-os (hostobj.c): host_module_open
 * makes the target machine, context and module (0, or -1 after a diagnostic);
 * host_module_emit writes the object to obj and disposes of everything (what
 * names the object in its error message). */
typedef struct HostModule {
	const char *triple;
	struct LLVMOpaqueTargetMachine *tm;
	struct LLVMOpaqueContext *ctx;
	struct LLVMOpaqueModule *m;
	struct LLVMOpaqueTargetData *td;
} HostModule;
int host_module_open(HostModule *h, const PackOptions *o, const char *name, int opt_level,
		     int code_model);
int host_module_emit(HostModule *h, const char *what, StrBuf *obj);
void host_module_dispose(HostModule *h);     /* without emitting */
/* A host relocatable object holding the fatbin (LLVM C API). */
int pack_host_object(const PackOptions *o, const void *fatbin, size_t len, StrBuf *obj);

/* ptxas -v parsing and remark writing (remarks.c). */
int parse_ptxas_usage(const char *log, KernelUsage **out);
/* ptx (may be NULL) gives each kernel's CTA size, for its occupancy */
void write_remarks(StrBuf *b, const KernelUsage *k, int n, const char *format, const char *ptx, size_t ptx_len);
void free_usage(KernelUsage *k, int n);
/* occupancy.c: threads per CTA the PTX declares for an entry (0: none),
 * and the theoretical occupancy on k->arch (-1: unknown target or usage). */
typedef struct Occupancy { long threads, ctas_per_sm; int percent; const char *limiter; } Occupancy;
long ptx_cta_threads(const char *ptx, size_t len, const char *name);
/* entry `name`'s header in the PTX (from its name to the body's '{', *body),
 * or NULL */
const char *ptx_entry_header(const char *ptx, size_t len, const char *name, const char **body);
/* assemble.c: a whole file appended to out; -1 (errno set, nothing said) when it cannot be read */
int pack_read_file(const char *path, StrBuf *out);
int kernel_occupancy(const KernelUsage *k, long threads, Occupancy *o);
/* assemble.c: the PTX assembler in this process, where a program
 * registers one (libtileiras.so with NVIDIA's PTX compiler library). fn
 * takes ptxas's options (no input, no -o), the PTX and, for messages, the
 * name ptxas would give it; 0 with the cubin, or -1 with the error log in
 * err (info: ptxas -v's report, in ptxas's own form). */
struct ProcResult;
typedef int (*PackInprocAssembler)(const char *ptx, size_t len, int nopts, const char *const *opts,
				   const char *ptx_name, StrBuf *cubin, StrBuf *info, StrBuf *err);
void pack_set_inproc_assembler(PackInprocAssembler fn, const PtxasVersion *v, const char *name);
/* use it for this run: registered, no ptxas named, as new as `picked` (v: its version) */
bool pack_inproc_usable(const PackOptions *o, const PtxasVersion *picked, PtxasVersion *v);
const char *pack_inproc_name(void);
/* One assembler run: argv is ptxas's command line (argv[ptx_arg] the PTX
 * file, argv[out_arg] the cubin it writes); in process when in_process and
 * one is registered, else the ptxas process. As proc_run. */
int pack_assemble(const char *const *argv, int ptx_arg, int out_arg, bool in_process, struct ProcResult *pr);
/* The ptxas process of argv started, not waited for (proc_finish it);
 * killed if the starting thread ends first (proc_start_ex, tied). */
struct Proc;
int pack_assemble_start(const char *const *argv, struct Proc *p, struct ProcResult *pr);

/* occupancy_tune.c: after a first ptxas run (argv, whose ptx_arg and
 * out_arg are the input and output paths; log its output), assemble the PTX
 * (`ptx`, the bytes that run read) again with a CTAs-per-SM target in the
 * entries whose registers alone keep their occupancy down; where no tuned
 * entry spills, *cubin and *log become that run's. true when one was kept. */
bool occupancy_tune(const char **argv, int ptx_arg, int out_arg, bool in_process, const char *dir, const char *ptx,
		    size_t len, StrBuf *log, StrBuf *cubin, bool verbose);
/* The remark that the cubin is plain PTX, not TILEIR, and why (--language=auto). */
void write_language_remark(StrBuf *b, const char *why, const char *format);

/* "+ ptxas -arch sm_90 ..." on stderr, arguments quoted for the shell. */
void print_command(const char *const argv[]);

/* A private temporary directory, removed by tmpdir_remove. NULL after diag. */
char *tmpdir_make(void);
void tmpdir_remove(char *dir);
int write_file(const char *path, const void *buf, size_t len);
#endif
