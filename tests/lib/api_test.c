/* api_test: libtileiras from a C program (tests/libtileiras.bats).
 *
 *   api-test errors FILE.tileirbc        every error code and the seed's
 *                                        validation order; "ok"/"FAIL" lines
 *   api-test compile FILE GPU OPT CUBIN PTX   compile, write cubin and PTX
 *                                        (exit: the API's code; log on stderr)
 *   api-test forms FILE GPU DIR          write DIR/read.json lower.json
 *                                        sched.json ptx
 *   api-test threads N GPU FILE...       compile every FILE serially, then in
 *                                        N threads at once (each thread all
 *                                        files, from a different start); every
 *                                        result must equal the serial one
 * Exit 0 when every check passed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tileiras.h"

/* calloc is wrapped (-Wl,--wrap=calloc) so a test can fail the handle's
 * allocation: the next calloc of this thread returns NULL. Built against
 * libtileiras.so (API_TEST_SHARED: api-test-so) the library's own calloc
 * cannot be wrapped, and that one check is skipped. */
#ifndef API_TEST_SHARED
void *__real_calloc(size_t n, size_t size);
static _Thread_local bool fail_next_calloc;
void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_next_calloc) {
		fail_next_calloc = false;
		return NULL;
	}
	return __real_calloc(n, size);
}
#endif

static int failures;

static void expect(const char *what, int got, int want, const char *msg)
{
	const char *last = tileirasGetLastError();
	bool ok = got == want && (!msg || strcmp(last, msg) == 0);
	printf("%s %s: code %d (want %d) \"%s\"\n", ok ? "ok" : "FAIL", what, got, want, last);
	if (!ok) {
		failures++;
		if (msg)
			printf("     want message \"%s\"\n", msg);
	}
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static TileirasConfig config_for(const uint8_t *buf, size_t len, int gpu)
{
	TileirasConfig c = { .input_buffer_data = buf, .input_buffer_size = len, .gpu_id = gpu,
			     .opt_level = 3 };
	return c;
}

/* Create with c: must fail with want and msg, and leave *out untouched. */
static void create_fails(const char *what, const TileirasConfig *c, int want, const char *msg)
{
	TileirasProgram *p = (TileirasProgram *)&failures;   /* a sentinel */
	int rc = tileirasProgramCreate(&p, c);
	expect(what, rc, want, msg);
	if (p != (TileirasProgram *)&failures) {
		printf("FAIL %s: *out_program was written\n", what);
		failures++;
	}
}

static int run_errors(const char *file)
{
	size_t len;
	uint8_t *buf = slurp(file, &len);
	TileirasConfig good = config_for(buf, len, 90), c;
	static const char *const E_GPU = "unsupported GPU target", *const E_OPT = "invalid optimization level",
		*const E_DBG = "optimized debugging is currently not supported, change the optimization level to 0 "
			       "or disable full debug info",
		*const E_ARCH = "unsupported host architecture", *const E_OS = "unsupported host operating system";

	/* code 4 before anything else: no place for the program */
	expect("create: null out_program", tileirasProgramCreate(NULL, NULL), 4, "program is null");
	/* then each configuration check in the seed's order: a config that
	 * breaks this check and every later one reports this one */
	create_fails("create: null config", NULL, 2, "configuration is null");
	c = good;
	c.input_buffer_data = NULL;
	c.gpu_id = 1;
	c.opt_level = 9;
	create_fails("create: null input (before gpu, opt)", &c, 2, "input buffer is null");
	c = good;
	c.input_buffer_data = "not bytecode";
	c.input_buffer_size = 12;
	c.gpu_id = 1;
	create_fails("create: bad magic (before gpu)", &c, 3, "input does not correspond to Tile IR bytecode");
	c.input_buffer_data = "ML\xefR\x00\x06MLIR bytecode";
	c.input_buffer_size = 19;
	create_fails("create: MLIR bytecode", &c, 3,
		     "failed to parse IR bytecode (it looks like MLIR bytecode instead)");
	c = good;
	c.input_buffer_size = 7;
	create_fails("create: truncated magic", &c, 3, "input does not correspond to Tile IR bytecode");
	c = good;
	c.gpu_id = 101;         /* sm_101: renamed sm_110 in CUDA 13; NVIDIA's 13.5 has none */
	c.opt_level = 9;
	c.device_debug = 1;
	c.host_arch = 7;
	c.host_os = 7;
	create_fails("create: gpu 101 (before opt, debug, arch, os)", &c, 2, E_GPU);
	c.gpu_id = 0;
	create_fails("create: gpu 0", &c, 2, E_GPU);
	c.gpu_id = 70;
	create_fails("create: gpu 70", &c, 2, E_GPU);
	c.gpu_id = 90;
	create_fails("create: opt 9 (before debug, arch, os)", &c, 2, E_OPT);
	c.opt_level = -1;
	create_fails("create: opt -1", &c, 2, E_OPT);
	c.opt_level = 1;
	create_fails("create: debug at O1 (before arch, os)", &c, 2, E_DBG);
	c.device_debug = 0;
	create_fails("create: host arch 7 (before os)", &c, 2, E_ARCH);
	c.host_arch = 2;
	create_fails("create: host arch arm64ec", &c, 2,
		     "unsupported host architecture (arm64ec: not supported by this tileiras)");
	c.host_arch = 1;
	create_fails("create: host os 7", &c, 2, E_OS);
	c.host_os = 1;
	c.sanitize = 2;
	create_fails("create: sanitize 2", &c, 2, "unsupported sanitizer");
#ifndef API_TEST_SHARED
	c = good;
	fail_next_calloc = true;
	create_fails("create: allocation fails", &c, 1, "failed to allocate memory for program");
	fail_next_calloc = false;
#endif

	/* code 4 on the handle calls */
	TileirasByteView v;
	expect("compile: null program", tileirasProgramCompile(NULL), 4, "program is null");
	expect("get output: null program", tileirasProgramGetOutput(NULL, &v), 4, "program is null");
	expect("release: null program", tileirasProgramRelease(NULL), 4, "program is null");
	expect("get log: null program", tileirasProgramGetLog(NULL, &v), 4, "program is null");
	expect("set input name: null program", tileirasProgramSetInputName(NULL, "x"), 4, "program is null");
	double ms[TILEIRAS_N_STAGES];
	expect("get stage times: null program", tileirasProgramGetStageTimes(NULL, ms), 4, "program is null");
	TileirasProgram *p = NULL;
	c = good;
	c.opt_level = 0;
	c.device_debug = 1;   /* allowed at O0 */
	expect("create: debug at O0", tileirasProgramCreate(&p, &c), 0, "");
	tileirasProgramRelease(p);   /* never compiled: frees only the handle */
	p = NULL;
	expect("create: good", tileirasProgramCreate(&p, &good), 0, "");
	expect("get output: null out", tileirasProgramGetOutput(p, NULL), 4, "output pointer is null");
	expect("get output: before compile", tileirasProgramGetOutput(p, &v), 4, "program has not been compiled");
	expect("request forms: unknown bit", tileirasProgramRequestForms(p, 1u << 9), 2, "unknown intermediate form");
	expect("request forms: ptx", tileirasProgramRequestForms(p, TILEIRAS_FORM_PTX), 0, "");
	expect("compile", tileirasProgramCompile(p), 0, "");
	expect("get output", tileirasProgramGetOutput(p, &v), 0, "");
	if (v.size < 64 || memcmp(v.data, "\x7f" "ELF", 4) != 0) {
		printf("FAIL output is not an ELF cubin (%zu bytes)\n", v.size);
		failures++;
	}
	expect("get form: ptx", tileirasProgramGetForm(p, TILEIRAS_FORM_PTX, &v), 0, "");
	if (!memmem(v.data, v.size, ".target sm_90", 13)) {
		printf("FAIL the PTX form has no .target sm_90\n");
		failures++;
	}
	expect("get form: not requested", tileirasProgramGetForm(p, TILEIRAS_FORM_READ_JSON, &v), 4, NULL);
	/* a second compile of the same program gives the same bytes */
	TileirasByteView first;
	tileirasProgramGetOutput(p, &first);
	size_t first_len = first.size;
	uint8_t *first_copy = malloc(first_len);
	memcpy(first_copy, first.data, first_len);
	expect("compile again", tileirasProgramCompile(p), 0, "");
	expect("get output again", tileirasProgramGetOutput(p, &v), 0, "");
	if (v.size != first_len || memcmp(v.data, first_copy, first_len) != 0) {
		printf("FAIL a second compile gave different bytes\n");
		failures++;
	}
	free(first_copy);
	double t[TILEIRAS_N_STAGES];
	expect("get stage times", tileirasProgramGetStageTimes(p, t), 0, "");
	if (!(t[3] > 0 && t[4] > 0)) {
		printf("FAIL no time in LLVM or ptxas: %g %g\n", t[3], t[4]);
		failures++;
	}
	expect("get form: two bits", tileirasProgramGetForm(p, 3, &v), 2, "unknown intermediate form");
	expect("release", tileirasProgramRelease(p), 0, "");

	/* code 3 from compile: the magic is right, the rest is not */
	uint8_t *bad = malloc(len);
	memcpy(bad, buf, len);
	c = config_for(bad, len < 40 ? len : 40, 90);
	p = NULL;
	expect("create: truncated bytecode (magic ok)", tileirasProgramCreate(&p, &c), 0, "");
	expect("compile: truncated bytecode", tileirasProgramCompile(p), 3,
	       "input does not correspond to Tile IR bytecode");
	expect("get output: after failed compile", tileirasProgramGetOutput(p, &v), 4, "program has not been compiled");
	tileirasProgramGetLog(p, &v);
	/* the reader's message, in the user's form (no tool name, the offset) */
	if (!memmem(v.data, v.size, "error: ", 7) || !memmem(v.data, v.size, " (offset 0x", 11) ||
	    memmem(v.data, v.size, "tile-read", 9)) {
		printf("FAIL the log of a bad bytecode has no reader diagnostic in the user's form:\n%.*s", (int)v.size,
		       (const char *)v.data);
		failures++;
	}
	tileirasProgramRelease(p);
	free(bad);
	free(buf);
	printf("%d failed\n", failures);
	return failures ? 1 : 0;
}

static int write_file(const char *path, const TileirasByteView *v)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(v->data, 1, v->size, f) != v->size || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

static int run_compile(const char *file, const char *gpu, const char *opt, const char *cubin, const char *ptx)
{
	size_t len;
	uint8_t *buf = slurp(file, &len);
	TileirasConfig c = config_for(buf, len, atoi(gpu + 3));
	c.opt_level = atoi(opt);
	TileirasProgram *p = NULL;
	int rc = tileirasProgramCreate(&p, &c);
	if (rc) {
		fprintf(stderr, "error: %s\n", tileirasGetLastError());
		free(buf);
		return rc;
	}
	tileirasProgramRequestForms(p, TILEIRAS_FORM_PTX);
	tileirasProgramSetInputName(p, file);   /* messages name the file, as the CLI's */
	rc = tileirasProgramCompile(p);
	TileirasByteView v;
	tileirasProgramGetLog(p, &v);
	fwrite(v.data, 1, v.size, stderr);
	if (!rc) {
		tileirasProgramGetOutput(p, &v);
		rc = write_file(cubin, &v);
		tileirasProgramGetForm(p, TILEIRAS_FORM_PTX, &v);
		rc |= write_file(ptx, &v);
	}
	tileirasProgramRelease(p);
	free(buf);
	return rc;
}

static int run_forms(const char *file, const char *gpu, const char *dir)
{
	size_t len;
	uint8_t *buf = slurp(file, &len);
	TileirasConfig c = config_for(buf, len, atoi(gpu + 3));
	TileirasProgram *p = NULL;
	int rc = tileirasProgramCreate(&p, &c);
	if (!rc)
		rc = tileirasProgramRequestForms(p, TILEIRAS_FORM_ALL);
	if (!rc)
		rc = tileirasProgramCompile(p);
	static const char *const names[] = { "read.json", "lower.json", "sched.json", "ptx" };
	for (int i = 0; !rc && i < 4; i++) {
		TileirasByteView v;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		rc = tileirasProgramGetForm(p, 1u << i, &v);
		if (!rc)
			rc = write_file(path, &v);
	}
	if (rc)
		fprintf(stderr, "error: %s\n", tileirasGetLastError());
	tileirasProgramRelease(p);
	free(buf);
	return rc;
}

/* ---- threads ---- */

typedef struct Result { int rc; uint8_t *cubin; size_t len; } Result;
typedef struct Job {
	int n_files, start, gpu;
	uint8_t **bufs;
	size_t *lens;
	Result *res;   /* n_files */
} Job;

static Result compile_one(const uint8_t *buf, size_t len, int gpu)
{
	Result r = {0};
	TileirasConfig c = config_for(buf, len, gpu);
	TileirasProgram *p = NULL;
	r.rc = tileirasProgramCreate(&p, &c);
	if (!r.rc)
		r.rc = tileirasProgramCompile(p);
	TileirasByteView v;
	if (!r.rc && !tileirasProgramGetOutput(p, &v)) {
		r.cubin = malloc(v.size ? v.size : 1);
		memcpy(r.cubin, v.data, v.size);
		r.len = v.size;
	}
	tileirasProgramRelease(p);
	return r;
}

static void *worker(void *arg)
{
	Job *j = arg;
	for (int k = 0; k < j->n_files; k++) {
		int i = (j->start + k) % j->n_files;
		j->res[i] = compile_one(j->bufs[i], j->lens[i], j->gpu);
	}
	return NULL;
}

static int run_threads(int n, const char *gpu, int n_files, char **files)
{
	uint8_t **bufs = calloc((size_t)n_files, sizeof *bufs);
	size_t *lens = calloc((size_t)n_files, sizeof *lens);
	for (int i = 0; i < n_files; i++)
		bufs[i] = slurp(files[i], &lens[i]);
	Job serial = { n_files, 0, atoi(gpu + 3), bufs, lens, calloc((size_t)n_files, sizeof(Result)) };
	worker(&serial);
	Job *jobs = calloc((size_t)n, sizeof *jobs);
	pthread_t *th = calloc((size_t)n, sizeof *th);
	for (int t = 0; t < n; t++) {
		jobs[t] = serial;
		jobs[t].start = t % n_files;
		jobs[t].res = calloc((size_t)n_files, sizeof(Result));
		pthread_create(&th[t], NULL, worker, &jobs[t]);
	}
	int bad = 0, compiled = 0;
	for (int t = 0; t < n; t++) {
		pthread_join(th[t], NULL);
		for (int i = 0; i < n_files; i++) {
			Result *a = &serial.res[i], *b = &jobs[t].res[i];
			if (a->rc != b->rc || a->len != b->len || (a->len && memcmp(a->cubin, b->cubin, a->len))) {
				printf("FAIL thread %d, %s: code %d, %zu bytes; serial: code %d, %zu bytes\n", t,
				       files[i], b->rc, b->len, a->rc, a->len);
				bad++;
			}
			compiled += b->rc == 0;
			free(b->cubin);
		}
		free(jobs[t].res);
	}
	int serial_ok = 0;
	for (int i = 0; i < n_files; i++) {
		serial_ok += serial.res[i].rc == 0;
		free(serial.res[i].cubin);
		free(bufs[i]);
	}
	printf("%d threads x %d files: %d compiles agree with serial (%d of %d files compile), %d differ\n", n,
	       n_files, n * n_files - bad, serial_ok, n_files, bad);
	free(serial.res);
	free(jobs);
	free(th);
	free(bufs);
	free(lens);
	return bad || serial_ok == 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "errors") == 0)
		return run_errors(argv[2]);
	if (argc == 7 && strcmp(argv[1], "compile") == 0)
		return run_compile(argv[2], argv[3], argv[4], argv[5], argv[6]);
	if (argc == 5 && strcmp(argv[1], "forms") == 0)
		return run_forms(argv[2], argv[3], argv[4]);
	if (argc >= 5 && strcmp(argv[1], "threads") == 0)
		return run_threads(atoi(argv[2]), argv[3], argc - 4, argv + 4);
	if (argc == 2 && strcmp(argv[1], "version") == 0) {
		const char *v = tileirasGetVersion();
		printf("%s\n", v);
		return v == tileirasGetVersion() ? 0 : 1;   /* this thread's one buffer */
	}
	fprintf(stderr, "usage: api-test errors FILE | compile FILE GPU OPT CUBIN PTX | forms FILE GPU DIR | "
			"threads N GPU FILE... | version\n");
	return 2;
}
