/* cli.c: the tile-run command (docs/tile-run.md), a thin layer over
 * libtilerun: options, the input read (and compiled by the tileiras driver
 * beside it), the arguments made into buffers and a parameter block, the
 * launch through the library (internal.h tilerun_launch: its messages
 * straight to stderr, the command's exit codes), the arrays written out.
 *
 *   tile-run [options] INPUT ARG...
 *
 * INPUT is PTX, or Tile IR bytecode / JSON IR, which is compiled to PTX by
 * the tileiras driver beside this executable (--emit=ptx --lineinfo).
 * One ARG per kernel parameter: FILE.npy (an array placed in device
 * memory; the parameter gets its address) or NUMBER (converted to the
 * parameter's type). Exit: 0 ran, 1 bad input or arguments, 2 usage,
 * 3 the kernel faulted (then nothing is written to --out). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"
#include "npy.h"
#include "tensormap.h"
#include "tmap.h"
#include "nvhost.h"
#include "target.h"

bool abi_check(const Func *f, const uint8_t *kparams, char **args, int nargs, const Npy *arrays, const bool *is_array);

static const char usage_text[] =
	"usage: tile-run [options] INPUT ARG...\n"
	"Run a compiled tile kernel on the CPU (a PTX interpreter).\n"
	"  INPUT            Tile IR bytecode, JSON IR of any stage, or PTX (.ptx)\n"
	"  --gpu-name sm_XX target to compile for and emulate (required for bytecode/JSON)\n"
	"  --entry NAME     kernel to run (default: the only entry)\n"
	"  --grid X[,Y[,Z]] grid of tile blocks (required)\n"
	"  --block X[,Y[,Z]] CTA shape (default: .reqntid, else .maxntid, else 128)\n"
	"  --cluster X[,Y[,Z]] cluster shape in CTAs (default: .reqnctapercluster, else 1); divides the grid\n"
	"  --out DIR        write each array argument N to DIR/N.npy after the run\n"
	"  --check memcheck|racecheck|none   (default memcheck)\n"
	"  --seed N         randomize the thread schedule\n"
	"  --stats          print emulated instruction counts to stderr\n"
	"  --max-insns N    fault (exit 3) once the kernel has run N thread-instructions (default: no limit)\n"
	"  --nv-host OBJ    the cubin's host object (ptxas --nv-host=): its callbacks fill the\n"
	"                   kernel's hidden parameters (TMA tensor maps) as the driver's would\n"
	"ARG: FILE.npy (array; FILE.npy@N: placed N bytes, 0..255, past a 256-byte boundary)\n"
	"     or NUMBER (decimal, 0x hex, hex float), one per kernel parameter,\n"
	"     or tmap:N,B0xB1..[,swizzle=32|64|128][,oob=nan][,tf32][,dims=I0.I1..] (a TMA tensor map of array argument N;\n"
	"     dims: its dims as the array's, innermost first, when reordered)\n"
	"exit: 0 ran, 1 bad input, 2 usage, 3 the kernel faulted\n";

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *fmt, ...)
{
	static const char hint[] = "(run 'tile-run --help' for usage)\n";
	va_list ap;
	va_start(ap, fmt);
	diag_verror(NULL, "error", fmt, ap);
	va_end(ap);
	diag_raw(hint, sizeof hint - 1);
	return RUN_USAGE;
}

static bool dims(const char *s, uint32_t out[3])
{
	out[0] = out[1] = out[2] = 1;
	for (int k = 0; k < 3; k++) {
		char *e;
		errno = 0;
		unsigned long v = strtoul(s, &e, 10);
		if (e == s || errno || v > 0x7fffffffUL || *s == '-')
			return false;
		out[k] = (uint32_t)v;
		if (*e == 0)
			return true;
		if (*e != ',')
			return false;
		s = e + 1;
	}
	return false;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_plain("cannot open '%s'", path);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = xcalloc(cap, 1);
	size_t k;
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	bool err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		diag_plain("cannot read '%s'", path);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* compile bytecode/JSON with the driver beside us; returns the PTX text */
static char *compile(const char *self, const char *input, const char *gpu, size_t *len, int *rc)
{
	char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0) {
		snprintf(dir, sizeof dir, "%s", self);
		n = (ssize_t)strlen(dir);
	}
	dir[n] = 0;
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	char driver[4200], tmpl[] = "/tmp/tile-run-XXXXXX";
	snprintf(driver, sizeof driver, "%s/tileiras", dir);
	if (access(driver, X_OK) != 0) {
		diag_plain("cannot compile '%s': no tileiras driver beside tile-run (%s)", input, driver);
		*rc = RUN_INPUT;
		return NULL;
	}
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		diag_plain("cannot create a temporary file");
		*rc = RUN_INPUT;
		return NULL;
	}
	close(fd);
	char gpuopt[64];
	snprintf(gpuopt, sizeof gpuopt, "--gpu-name=%s", gpu);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(2, 1);
		execl(driver, driver, input, gpuopt, "--emit=ptx", "--lineinfo", "-o", tmpl, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		unlink(tmpl);
		diag_plain("compiling '%s' for %s failed (tileiras exit %d)", input, gpu,
			  pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		*rc = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 2 ? RUN_USAGE : RUN_INPUT;
		return NULL;
	}
	char *text = read_file(tmpl, len);
	unlink(tmpl);
	if (!text)
		*rc = RUN_INPUT;
	return text;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	char *e;
	strtod(s, &e);
	if (*e == 0)
		return true;
	errno = 0;
	strtoull(s + (*s == '-'), &e, 0);
	return *e == 0;
}

/* FILE.npy@N: the array N bytes (0..255) past the 256-byte boundary the
 * others start at (an unaligned pointer); the suffix is cut from a. False
 * for an offset out of range; 0 without one (or when a, as it is, names a
 * file). */
static bool array_offset(char *a, long *off)
{
	char *at = strrchr(a, '@'), *end;
	*off = 0;
	if (!at || at == a || at[1] < '0' || at[1] > '9' || access(a, F_OK) == 0)
		return true;
	errno = 0;
	long v = strtol(at + 1, &end, 10);
	if (*end || errno || v < 0 || v > 255)
		return false;
	*off = v;
	*at = '\0';
	return true;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* NUMBER -> parameter bytes */
static bool scalar_arg(int pos, const char *s, const Param *pa, uint8_t *dst, int fty)
{
	int ty = pa->ty;
	uint32_t size = pa->size;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	bool isfloat_text = (hex ? strpbrk(s, ".pP") != NULL : strpbrk(s, ".eE") != NULL) || strstr(s, "inf") ||
			    strstr(s, "nan");
	if (fty == TY_F16 || fty == TY_BF16 || (size == 2 && ty == TY_B8 && isfloat_text)) {
		char *e;
		double d = strtod(s, &e);
		if (*e) {
			diag_plain("argument %d: '%s' is not a number", pos, s);
			return false;
		}
		uint32_t bits = double_to_small(d, fty == TY_BF16 ? TY_BF16 : TY_F16, RND_RN, false, false, false);
		dst[0] = (uint8_t)bits;
		dst[1] = (uint8_t)(bits >> 8);
		return true;
	}
	if (ty == TY_F32 || ty == TY_F64 || (isfloat_text && (ty == TY_B32 || ty == TY_B64))) {
		char *e;
		double d = strtod(s, &e);
		if (*e || !*s) {
			diag_plain("argument %d: '%s' is not a number", pos, s);
			return false;
		}
		if (size == 4) {
			float f = (float)d;
			memcpy(dst, &f, 4);
		} else if (size == 8) {
			memcpy(dst, &d, 8);
		} else {
			diag_plain("argument %d: a float for a %u-byte parameter", pos, size);
			return false;
		}
		return true;
	}
	if (isfloat_text) {
		diag_plain("argument %d: '%s' is not an integer, and parameter %d is .%s", pos, s, pos, type_names[ty]);
		return false;
	}
	char *e;
	errno = 0;
	bool neg = s[0] == '-';
	uint64_t v;
	if (neg) {
		long long x = strtoll(s, &e, 0);
		v = (uint64_t)x;
	} else {
		v = strtoull(s, &e, 0);
	}
	if (*e || e == s || errno) {
		diag_plain("argument %d: '%s' is not a number%s", pos, s, errno ? " in range" : "");
		return false;
	}
	if (size == 0) {
		diag_plain("argument %d: parameter %d has no bytes", pos, pos);
		return false;
	}
	if (size < 8) {
		int64_t lo = -(1ll << (8 * size - 1));
		uint64_t hi = (1ull << (8 * size)) - 1;
		if (neg ? (int64_t)v < lo : v > hi) {
			diag_plain("argument %d: %s does not fit the %u-byte parameter", pos, s, size);
			return false;
		}
	}
	memcpy(dst, &v, size > 8 ? 8 : size);
	return true;
}

/* f's noted maps (tile-ptx's tensor-map notes, libcommon tmap.h: hidden
 * parameters tile-run fills): they must be its last parameters, 128-byte
 * hidden ones, built from a pointer and 4-byte integers; their number, or -1 */
static int noted_maps(const TilerunModule *tm, const Func *f)
{
	const TmapNote *notes = tm->notes;
	int nnotes = tm->nnotes;
	int n = 0;
	for (int i = 0; i < nnotes; i++)
		if (strcmp(notes[i].entry, f->name) == 0)
			n++;
	for (int i = 0; i < nnotes; i++) {
		const TmapNote *t = &notes[i];
		if (strcmp(t->entry, f->name) != 0)
			continue;
		bool ok = t->hidden >= f->nparams - n && t->hidden < f->nparams && f->params[t->hidden].hidden &&
			  f->params[t->hidden].size == TMAP_BYTES && t->base < f->nparams - n &&
			  f->params[t->base].size == 8;
		for (int j = 0; j < 2 * t->rank && ok; j++) {
			const TmapVal *v = tmap_note_field(t, j);
			ok = v->param < 0 || (v->param < f->nparams - n && f->params[v->param].size == 4);
		}
		if (!ok) {
			diag_plain("%s: the tensor-map note for parameter %d does not fit the kernel's parameters", f->name,
				  t->hidden);
			return -1;
		}
	}
	return n;
}

typedef struct ParamBlock {
	const Func *f;
	const uint8_t *kp;
} ParamBlock;

/* parameter `param` of the block (noted_maps checked its size is `bytes`) */
static uint64_t param_read(const void *ctx, int param, int bytes)
{
	const ParamBlock *pb = ctx;
	uint64_t x = 0;
	memcpy(&x, pb->kp + pb->f->params[param].offset, (size_t)bytes);
	return x;
}

/* each noted map, built as the host callback would from the user's parameters */
static void fill_noted_maps(const TilerunModule *tm, const Func *f, uint8_t *kp)
{
	ParamBlock pb = { f, kp };
	for (int i = 0; i < tm->nnotes; i++) {
		const TmapNote *t = &tm->notes[i];
		if (strcmp(t->entry, f->name) != 0)
			continue;
		TmapArgs a;
		tmap_args_of_note(t, param_read, &pb, &a);
		tmap_encode(kp + f->params[t->hidden].offset, &a);
	}
}

static TilerunModule *load(const char *self, const char *input, const char *gpu, int *rc)
{
	size_t len;
	char *text = read_file(input, &len);
	if (!text) {
		*rc = RUN_INPUT;
		return NULL;
	}
	bool bytecode = len >= 8 && memcmp(text, "\x7fTileIR", 7) == 0;
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
		i++;
	bool json = i < len && text[i] == '{';
	const char *name = input;
	if (bytecode || json) {
		free(text);
		if (!gpu) {
			*rc = usage("--gpu-name is required to compile '%s' (bytecode or JSON IR)", input);
			return NULL;
		}
		text = compile(self, input, gpu, &len, rc);
		if (!text)
			return NULL;
		name = input;
	}
	TilerunModule *tm = NULL;
	*rc = tilerun_load(&tm, text, len, name);
	free(text);
	return tm;
}

int abi_scalar_type(const Func *f, int param);

int run_main(int argc, char **argv)
{
	const char *gpu = NULL, *entry = NULL, *outdir = NULL, *input = NULL, *nvhost = NULL;
	bool have_grid = false, have_block = false, have_cluster = false, stats = false;
	uint32_t grid[3], block[3], cluster[3];
	int check = CHECK_MEMCHECK;
	bool seeded = false;
	uint64_t seed = 0, max_insns = 0;
	diag_tool = "tile-run";
	char **args = xcalloc((size_t)argc, sizeof *args);
	int nargs = 0;
	/* every error quotes the word it is about: one with a newline or another
	 * control byte would make that message several lines */
	for (int k = 1; k < argc; k++)
		for (const char *c = argv[k]; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return usage("command-line word %d holds control byte 0x%02x", k, (unsigned char)*c);
	for (int k = 1; k < argc; k++) {
		char *a = argv[k];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_text, stdout);
			return RUN_OK;
		}
		if (strcmp(a, "--version") == 0) {
			printf("tile-run 0.1.0\n");
			return RUN_OK;
		}
		if (strcmp(a, "--stats") == 0) {
			stats = true;
			continue;
		}
		if (strncmp(a, "--", 2) == 0 && a[2]) {
			char name[64];
			const char *val = strchr(a, '=');
			size_t nl = val ? (size_t)(val - a) : strlen(a);
			if (nl >= sizeof name)
				return usage("unknown option '%s'", a);
			memcpy(name, a, nl);
			name[nl] = 0;
			static const char *const valued[] = { "--gpu-name", "--arch", "--entry", "--grid", "--block", "--out",
							      "--check", "--seed", "--nv-host", "--cluster", "--max-insns", NULL };
			int j;
			for (j = 0; valued[j]; j++)
				if (strcmp(valued[j], name) == 0)
					break;
			if (!valued[j])
				return usage("unknown option '%s'", a);
			if (val)
				val++;
			else if (k + 1 < argc)
				val = argv[++k];
			else
				return usage("option '%s' needs a value", name);
			if (strcmp(name, "--gpu-name") == 0 || strcmp(name, "--arch") == 0) {
				if (!target_by_name(val)) {
					diag_plain("unsupported --gpu-name '%s' (supported: %s)", val, target_list());
					return RUN_USAGE;
				}
				gpu = val;
			} else if (strcmp(name, "--nv-host") == 0) {
				nvhost = val;
			} else if (strcmp(name, "--entry") == 0) {
				entry = val;
			} else if (strcmp(name, "--grid") == 0) {
				if (!dims(val, grid))
					return usage("bad --grid '%s' (want X[,Y[,Z]])", val);
				have_grid = true;
			} else if (strcmp(name, "--block") == 0) {
				if (!dims(val, block))
					return usage("bad --block '%s' (want X[,Y[,Z]])", val);
				have_block = true;
			} else if (strcmp(name, "--cluster") == 0) {
				if (!dims(val, cluster) || !cluster[0] || !cluster[1] || !cluster[2])
					return usage("bad --cluster '%s' (want X[,Y[,Z]], each at least 1)", val);
				have_cluster = true;
			} else if (strcmp(name, "--out") == 0) {
				outdir = val;
			} else if (strcmp(name, "--check") == 0) {
				if (strcmp(val, "memcheck") == 0)
					check = CHECK_MEMCHECK;
				else if (strcmp(val, "racecheck") == 0)
					check = CHECK_RACECHECK;
				else if (strcmp(val, "none") == 0)
					check = CHECK_NONE;
				else
					return usage("bad --check '%s' (memcheck, racecheck or none)", val);
			} else if (strcmp(name, "--seed") == 0) {
				char *e;
				errno = 0;
				seed = strtoull(val, &e, 0);
				if (*e || e == val || errno)
					return usage("bad --seed '%s'", val);
				seeded = true;
			} else if (strcmp(name, "--max-insns") == 0) {
				char *e;
				errno = 0;
				max_insns = strtoull(val, &e, 10);
				if (*e || e == val || errno || *val == '-' || max_insns == 0)
					return usage("bad --max-insns '%s' (want a positive count)", val);
			}
			continue;
		}
		if (!input && strcmp(a, "--") != 0)
			input = a;
		else if (strcmp(a, "--") != 0)
			args[nargs++] = a;
	}
	if (!input)
		return usage("no INPUT given%s", "");
	if (!have_grid)
		return usage("--grid is required%s", "");
	int rc = RUN_OK;
	TilerunModule *tm = load(argv[0], input, gpu, &rc);
	if (!tm)
		return rc;
	Module *m = tm->m;
	TilerunLaunch l = { .entry = entry, .check = check, .seed = seed, .max_insns = max_insns };
	memcpy(l.grid, grid, sizeof grid);
	if (have_block)
		memcpy(l.block, block, sizeof block);
	if (have_cluster)
		memcpy(l.cluster, cluster, sizeof cluster);
	Shape shape;
	if ((rc = tilerun_shape(tm, &l, true, &shape)) != RUN_OK)
		return rc;
	Func *f = &m->funcs[shape.fidx];
	l.entry = f->name;
	/* hidden maps: filled by the host object's callback (--nv-host), or those
	 * tile-ptx noted here, unless passed (tmap:) */
	int nhidden = 0;
	while (nhidden < f->nparams && f->params[f->nparams - 1 - nhidden].hidden)
		nhidden++;
	bool by_host = nvhost && nhidden && nargs == f->nparams - nhidden;
	if (by_host) {
		args = xrealloc(args, (size_t)(nargs + nhidden + 1) * sizeof *args);
		for (int k = 0; k < nhidden; k++)
			args[nargs++] = "tmap:nvhost";
	}
	int nauto = by_host ? 0 : noted_maps(tm, f);
	if (nauto < 0)
		return RUN_INPUT;
	if (nauto && nargs == f->nparams - nauto) {
		args = xrealloc(args, (size_t)(nargs + nauto + 1) * sizeof *args);
		for (int k = 0; k < nauto; k++)
			args[nargs++] = "tmap:noted";
	} else {
		nauto = 0;
	}
	if (nhidden && !by_host && !nauto && nargs == f->nparams - nhidden) {
		diag_plain("%s takes %d hidden parameters after its %d (TMA tensor maps its host code fills): give the cubin's "
			  "host object (--nv-host OBJ) or pass them as tmap:N,BOX", f->name, nhidden, nargs);
		return RUN_INPUT;
	}
	for (int k = 0; k < f->nparams && k < nargs; k++)
		if (f->params[k].hidden && strncmp(args[k], "tmap:", 5) != 0) {
			diag_plain("%s takes hidden parameter %d (a %u-byte TMA tensor map its host code fills): give the cubin's "
				  "host object (--nv-host OBJ) or pass it as tmap:N,BOX",
				  f->name, k, f->params[k].size);
			return RUN_INPUT;
		}
	if (nargs != f->nparams) {
		diag_plain("%s takes %d parameters, %d arguments given", f->name, f->nparams, nargs);
		return RUN_INPUT;
	}
	/* the arrays: buffers at addresses of the command's own choosing (from
	 * DEV_HEAP_BASE, 256-byte aligned unless @N, a 256-byte gap between) */
	uint8_t *kparams = xcalloc(f->pbytes ? f->pbytes : 1, 1);
	Npy *arrays = xcalloc((size_t)nargs + 1, sizeof *arrays);
	bool *is_array = xcalloc((size_t)nargs + 1, sizeof *is_array);
	TilerunBuffer *bufs = xcalloc((size_t)nargs + 1, sizeof *bufs);
	uint64_t *devs = xcalloc((size_t)nargs + 1, sizeof *devs), dev_next = DEV_HEAP_BASE;
	int nbufs = 0;
	for (int k = 0; k < nargs; k++) {
		const Param *pa = &f->params[k];
		const char *a = args[k];
		long off = 0;
		if (!array_offset(args[k], &off)) {
			diag_plain("argument %d: '%s': the offset after '@' must be 0 to 255 bytes", k, a);
			return RUN_INPUT;
		}
		if (has_suffix(a, ".npy") || (!is_number(a) && access(a, F_OK) == 0)) {
			if (pa->size != 8) {
				diag_plain("argument %d: an array for parameter %d, which is a %u-byte .%s, not a pointer", k, k,
					  pa->size, type_names[pa->ty]);
				return RUN_INPUT;
			}
			if (!npy_read(a, &arrays[k]))
				return RUN_INPUT;
			is_array[k] = true;
			uint64_t dev = dev_next + (uint64_t)off;
			dev_next += (arrays[k].bytes + (uint64_t)off + 255) / 256 * 256 + 256;
			char *name = xcalloc(96, 1);
			snprintf(name, 96, "argument %d (%s)", k, a);
			devs[nbufs] = dev;
			bufs[nbufs++] = (TilerunBuffer){ arrays[k].data, arrays[k].bytes, name, 0 };
			memcpy(kparams + pa->offset, &dev, 8);
			continue;
		}
		if (strncmp(a, "tmap:", 5) == 0)
			continue;       /* after every array has its address */
		if (!is_number(a)) {
			diag_plain("argument %d: '%s' is neither a .npy file nor a number", k, a);
			return RUN_INPUT;
		}
		if (!scalar_arg(k, a, pa, kparams + pa->offset, abi_scalar_type(f, k)))
			return RUN_INPUT;
	}
	if (nauto)
		fill_noted_maps(tm, f, kparams);
	if (by_host && !nvhost_fill(nvhost, tm->text, tm->len, f, m->sm, kparams))
		return RUN_INPUT;
	for (int k = 0; k < nargs - nauto; k++) {      /* tensor maps (tensormap.c) */
		if (strncmp(args[k], "tmap:", 5) != 0 || strcmp(args[k], "tmap:nvhost") == 0)
			continue;
		const Param *pa = &f->params[k];
		if (pa->size != 128) {
			diag_plain("argument %d: a tensor map for parameter %d, which is not a 128-byte .b8 array", k, k);
			return RUN_INPUT;
		}
		uint64_t *argdevs = xcalloc((size_t)nargs, sizeof *argdevs);
		for (int j = 0; j < nargs; j++)
			if (is_array[j])
				memcpy(&argdevs[j], kparams + f->params[j].offset, 8);
		bool ok = tensormap_from_arg(kparams + pa->offset, args[k], arrays, is_array, nargs, argdevs, k);
		free(argdevs);
		if (!ok)
			return RUN_INPUT;
	}
	if (!abi_check(f, kparams, args, nargs, arrays, is_array))
		return RUN_INPUT;
	uint64_t ninsn = 0;
	l.params = kparams;
	l.param_size = tilerunEntryParamSize(tm, f->name);
	l.buffers = bufs;
	l.nbuffers = nbufs;
	l.insns_run = &ninsn;
	LaunchExt x = { .cli = true, .seeded = seeded, .devs = devs };
	rc = tilerun_launch(tm, &l, &x, NULL);
	if (stats)
		fprintf(stderr, "tile-run: %llu thread-instructions\n", (unsigned long long)ninsn);
	if (rc != RUN_OK)
		return rc;
	if (outdir) {
		struct stat st;
		if (stat(outdir, &st) != 0 && mkdir(outdir, 0777) != 0) {
			diag_plain("cannot create directory '%s'", outdir);
			return RUN_INPUT;
		}
		for (int k = 0; k < nargs; k++) {
			if (!is_array[k])
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%d.npy", outdir, k);
			if (!npy_write(path, &arrays[k]))
				return RUN_INPUT;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		diag_plain("write error on stdout");
		return RUN_INPUT;
	}
	return RUN_OK;
}
