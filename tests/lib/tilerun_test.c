/* tilerun_test.c: libtilerun's C API (libtilerun/tilerun.h) from a client's
 * side, one case per mode (tests/librun.bats runs each):
 *   tilerun-test vadd PTX            vector_add (bytecode's PTX): z = x + y
 *   tilerun-test oob PTX             z registered too short: OUT_OF_BOUNDS fault,
 *                                    its place from .loc, the buffers untouched
 *   tilerun-test bytecode BC         the same kernel loaded from bytecode
 *   tilerun-test threads PTX N       N threads launch one module at once
 *   tilerun-test race RACE.PTX       racecheck finds race_bad's race, passes race_ok
 *   tilerun-test printf WARP.PTX     device printf into a tmpfile stream
 *   tilerun-test assert FAULTS.PTX   a failed device assert: ASSERT, message
 *   tilerun-test badptx              bad PTX: ERROR_INPUT with the message
 *   tilerun-test nulls               NULL arguments: ERROR_USAGE, no crash
 * Prints "ok MODE" and exits 0, or says what differed and exits 1. Nothing
 * of libtilerun's may reach stderr (the bats file checks). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tilerun.h"

#define VADD "vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128"
#define N 1000

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stdout, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stdout, __VA_ARGS__); fputc('\n', stdout); fails++; } } while (0)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stdout, "cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static TilerunModule *load_ptx(const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	TilerunModule *m = NULL;
	TilerunError err;
	int rc = tilerunModuleLoad(&m, text, len, path, &err);
	free(text);
	if (rc != TILERUN_SUCCESS) {
		fprintf(stdout, "load %s: %d %s\n", path, rc, err.message);
		exit(1);
	}
	return m;
}

/* the parameter block of entry from 8-byte pointers / 4-byte ints */
static size_t param_block(const TilerunModule *m, const char *entry, const uint64_t *vals, int nvals, uint8_t *block)
{
	size_t sizes[16], offs[16];
	int n = tilerunEntryParams(m, entry, sizes, offs, 16);
	CHECK(n == nvals, "%s: %d parameters, want %d", entry, n, nvals);
	size_t total = tilerunEntryParamSize(m, entry);
	memset(block, 0, total);
	for (int k = 0; k < n && k < nvals; k++)
		memcpy(block + offs[k], &vals[k], sizes[k]);
	return total;
}

typedef struct Vadd {
	float x[N], y[N], z[N];
} Vadd;

/* launch vector_add on v (z registered with zbytes); the return code */
static int vadd(const TilerunModule *m, Vadd *v, size_t zbytes, int check, TilerunError *err)
{
	uint64_t vals[9] = { (uint64_t)(uintptr_t)v->x, N, 1, (uint64_t)(uintptr_t)v->y, N, 1,
			     (uint64_t)(uintptr_t)v->z, N, 1 };
	uint8_t block[256];
	size_t psize = param_block(m, VADD, vals, 9, block);
	TilerunBuffer bufs[3] = { { v->x, sizeof v->x, "x", 1 }, { v->y, sizeof v->y, "y", 1 }, { v->z, zbytes, "z", 0 } };
	TilerunLaunch l = { .entry = VADD, .grid = { (N + 127) / 128, 1, 1 }, .params = block, .param_size = psize,
			    .buffers = bufs, .nbuffers = 3, .check = check };
	return tilerunLaunch(m, &l, err);
}

static void vadd_fill(Vadd *v, int seed)
{
	for (int i = 0; i < N; i++) {
		v->x[i] = (float)(i + seed);
		v->y[i] = (float)(2 * i);
		v->z[i] = -1;
	}
}

static bool vadd_right(const Vadd *v, int seed)
{
	for (int i = 0; i < N; i++)
		if (v->z[i] != (float)(3 * i + seed))
			return false;
	return true;
}

static void mode_vadd(const TilerunModule *m)
{
	static Vadd v;
	vadd_fill(&v, 0);
	TilerunError err;
	int rc = vadd(m, &v, sizeof v.z, TILERUN_CHECK_MEMCHECK, &err);
	CHECK(rc == TILERUN_SUCCESS, "vadd: %d %s", rc, err.message);
	CHECK(err.kind == TILERUN_KIND_NONE && !err.message[0], "vadd: error filled on success");
	CHECK(vadd_right(&v, 0), "vadd: wrong result (z[5] = %g)", v.z[5]);
	CHECK(tilerunModuleEntry(m, 0) && !tilerunModuleEntry(m, 99), "entries");
}

static void mode_oob(const TilerunModule *m)
{
	static Vadd v, before;
	vadd_fill(&v, 0);
	before = v;
	TilerunError err;
	/* z registered as 600 floats: blocks 0-3 write inside, block 4 past the end */
	int rc = vadd(m, &v, 600 * sizeof(float), TILERUN_CHECK_MEMCHECK, &err);
	CHECK(rc == TILERUN_FAULT, "oob: rc %d", rc);
	CHECK(err.kind == TILERUN_KIND_OUT_OF_BOUNDS, "oob: kind %d", err.kind);
	CHECK(err.buffer == 2, "oob: buffer %d", err.buffer);
	CHECK(err.address == (uint64_t)(uintptr_t)&v.z[600], "oob: address 0x%llx, z[600] at %p",
	      (unsigned long long)err.address, (void *)&v.z[600]);
	CHECK(err.block[0] == 4 && err.thread[0] == 600 - 512, "oob: thread %u block %u", err.thread[0], err.block[0]);
	CHECK(strstr(err.file, "vector_add.py") && err.line > 0, "oob: place '%s':%u", err.file, err.line);
	CHECK(err.ptx_line > 0, "oob: no PTX line");
	CHECK(strstr(err.message, "out-of-bounds global write of 4 bytes") && strstr(err.message, "past the end of z"),
	      "oob: message '%s'", err.message);
	CHECK(memcmp(&v, &before, sizeof v) == 0, "oob: the caller's buffers changed");
	printf("message: %s\n", err.message);
}

static void mode_bytecode(const char *path)
{
	size_t len;
	char *bc = slurp(path, &len);
	TilerunModule *m = NULL;
	TilerunError err;
	int rc = tilerunModuleLoadBytecode(&m, bc, len, "sm_80", path, &err);
	CHECK(rc == TILERUN_SUCCESS, "bytecode: %d %s", rc, err.message);
	if (m) {
		mode_vadd(m);
		tilerunModuleRelease(m);
	}
	/* a truncated file is an input error with a message */
	rc = tilerunModuleLoadBytecode(&m, bc, len / 2, "sm_80", path, &err);
	CHECK(rc == TILERUN_ERROR_INPUT && err.kind == TILERUN_KIND_ERROR && err.message[0], "truncated bytecode: %d '%s'",
	      rc, err.message);
	printf("truncated: %s\n", err.message);
	rc = tilerunModuleLoadBytecode(&m, bc, len, "sm_42", path, &err);
	CHECK(rc == TILERUN_ERROR_USAGE, "bad GPU: %d", rc);
	free(bc);
}

typedef struct Job {
	const TilerunModule *m;
	int seed, ok;
} Job;

static void *job(void *arg)
{
	Job *j = arg;
	Vadd *v = malloc(sizeof *v);
	j->ok = 1;
	for (int round = 0; round < 3; round++) {
		vadd_fill(v, j->seed + round);
		TilerunError err;
		if (vadd(j->m, v, sizeof v->z, TILERUN_CHECK_MEMCHECK, &err) != TILERUN_SUCCESS || !vadd_right(v, j->seed + round))
			j->ok = 0;
	}
	free(v);
	return NULL;
}

static void mode_threads(const TilerunModule *m, int n)
{
	pthread_t th[16];
	Job jobs[16];
	if (n > 16)
		n = 16;
	for (int k = 0; k < n; k++) {
		jobs[k] = (Job){ m, 100 * k, 0 };
		pthread_create(&th[k], NULL, job, &jobs[k]);
	}
	for (int k = 0; k < n; k++) {
		pthread_join(th[k], NULL);
		CHECK(jobs[k].ok, "thread %d: wrong result or error", k);
	}
}

/* one launch of an entry taking one pointer to 64 uint32_t */
static int launch_out(const TilerunModule *m, const char *entry, uint32_t *out, int check, FILE *stream,
		      TilerunError *err)
{
	uint64_t p = (uint64_t)(uintptr_t)out;
	uint8_t block[8];
	param_block(m, entry, &p, 1, block);
	TilerunBuffer buf = { out, 64 * sizeof *out, "out", 0 };
	TilerunLaunch l = { .entry = entry, .grid = { 1, 1, 1 }, .params = block, .param_size = 8, .buffers = &buf,
			    .nbuffers = 1, .check = check, .printf_stream = stream };
	return tilerunLaunch(m, &l, err);
}

static void mode_race(const TilerunModule *m)
{
	uint32_t out[64] = { 0 };
	TilerunError err;
	int rc = launch_out(m, "race_bad", out, TILERUN_CHECK_MEMCHECK, NULL, &err);
	CHECK(rc == TILERUN_SUCCESS, "race_bad under memcheck: %d %s", rc, err.message);
	memset(out, 0, sizeof out);
	rc = launch_out(m, "race_bad", out, TILERUN_CHECK_RACECHECK, NULL, &err);
	CHECK(rc == TILERUN_FAULT && err.kind == TILERUN_KIND_RACE, "race_bad: %d kind %d", rc, err.kind);
	CHECK(strstr(err.message, "shared-memory race: read of shared offset 0x0 by thread 1 after a write by thread 0"),
	      "race message '%s'", err.message);
	CHECK(out[0] == 0 && out[63] == 0, "race: buffer written after a fault");
	rc = launch_out(m, "race_ok", out, TILERUN_CHECK_RACECHECK, NULL, &err);
	CHECK(rc == TILERUN_SUCCESS && out[0] == 7 && out[63] == 7, "race_ok: %d out[63] %u", rc, out[63]);
}

static void mode_printf(const TilerunModule *m)
{
	uint32_t out[64] = { 0 };
	FILE *f = tmpfile();
	TilerunError err;
	int rc = launch_out(m, "warpsum", out, TILERUN_CHECK_MEMCHECK, f, &err);
	CHECK(rc == TILERUN_SUCCESS, "printf: %d %s", rc, err.message);
	char line[256] = "";
	rewind(f);
	CHECK(fgets(line, sizeof line, f) && strcmp(line, "sum 496 ballot aaaaaaaa\n") == 0, "printf: stream has '%s'", line);
	fclose(f);
	CHECK(out[0] == 496 && out[31] == 496, "printf: out[31] %u", out[31]);
}

static void mode_assert(const TilerunModule *m)
{
	FILE *f = tmpfile();
	TilerunLaunch l = { .entry = "k_assert", .grid = { 1, 1, 1 }, .printf_stream = f };
	TilerunError err;
	int rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_FAULT && err.kind == TILERUN_KIND_ASSERT, "assert: %d kind %d", rc, err.kind);
	CHECK(strstr(err.message, "device-side assertion failed, thread (5,0,0) of block (0,0,0)"), "assert: '%s'",
	      err.message);
	CHECK(err.thread[0] == 5, "assert: thread %u", err.thread[0]);
	char line[256] = "";
	rewind(f);
	CHECK(fgets(line, sizeof line, f) && strstr(line, "Assertion `x > 0` failed."), "assert: stream has '%s'", line);
	fclose(f);
	l.entry = "k_trap";
	rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_FAULT && err.kind == TILERUN_KIND_TRAP, "trap: %d kind %d", rc, err.kind);
	l.entry = "k_deadlock";
	rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_FAULT && err.kind == TILERUN_KIND_DEADLOCK, "deadlock: %d kind %d", rc, err.kind);
}

static void mode_badptx(void)
{
	static const char bad[] = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  frobnicate.b32 %r1;\n}\n";
	TilerunModule *m = (TilerunModule *)1;
	TilerunError err;
	int rc = tilerunModuleLoad(&m, bad, sizeof bad - 1, "bad.ptx", &err);
	CHECK(rc == TILERUN_ERROR_INPUT && err.kind == TILERUN_KIND_ERROR, "bad PTX: %d kind %d", rc, err.kind);
	CHECK(strcmp(err.message, "bad.ptx:5: unsupported instruction 'frobnicate.b32'") == 0, "bad PTX: '%s'", err.message);
	CHECK(m == NULL, "bad PTX: module set");
	rc = tilerunModuleLoad(&m, "hello", 5, NULL, &err);
	CHECK(rc == TILERUN_ERROR_INPUT && strstr(err.message, "<ptx>"), "junk: %d '%s'", rc, err.message);
	rc = tilerunModuleLoad(&m, "a\0b", 3, "nul.ptx", &err);
	CHECK(rc == TILERUN_ERROR_INPUT && strstr(err.message, "NUL"), "NUL: %d '%s'", rc, err.message);
	printf("message: %s\n", err.message);
}

static void mode_nulls(const TilerunModule *m)
{
	TilerunError err;
	TilerunModule *out = NULL;
	CHECK(tilerunModuleLoad(NULL, "x", 1, NULL, &err) == TILERUN_ERROR_USAGE && err.kind == TILERUN_KIND_ERROR,
	      "load NULL out");
	CHECK(tilerunModuleLoad(&out, NULL, 4, NULL, NULL) == TILERUN_ERROR_USAGE, "load NULL text");
	CHECK(tilerunModuleLoadBytecode(&out, NULL, 4, NULL, NULL, &err) == TILERUN_ERROR_USAGE, "bytecode NULL");
	CHECK(tilerunLaunch(NULL, NULL, &err) == TILERUN_ERROR_USAGE && err.message[0], "launch NULL");
	CHECK(tilerunModuleEntry(NULL, 0) == NULL && tilerunEntryParams(NULL, NULL, NULL, NULL, 0) == -1 &&
	      tilerunEntryParamSize(NULL, NULL) == 0, "queries on NULL");
	CHECK(tilerunEntryParams(m, "nope", NULL, NULL, 0) == -1, "unknown entry");
	tilerunModuleRelease(NULL);
	/* a launch without its parameter block, without buffers, with a grid of 0 */
	TilerunLaunch l = { .entry = VADD, .grid = { 1, 1, 1 } };
	int rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_ERROR_USAGE && strstr(err.message, "parameter block"), "no params: %d '%s'", rc, err.message);
	l.grid[1] = 0;
	rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_ERROR_USAGE && strstr(err.message, "is empty"), "grid 0: %d '%s'", rc, err.message);
	l.grid[1] = 1;
	l.entry = "nope";
	rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_ERROR_INPUT && strstr(err.message, "no kernel named 'nope'"), "no entry: %d '%s'", rc, err.message);
	uint8_t block[256] = { 0 };
	TilerunBuffer nb = { NULL, 16, NULL, 0 };
	l = (TilerunLaunch){ .entry = VADD, .grid = { 1, 1, 1 }, .params = block, .param_size = sizeof block, .buffers = &nb,
			     .nbuffers = 1 };
	rc = tilerunLaunch(m, &l, &err);
	CHECK(rc == TILERUN_ERROR_USAGE && strstr(err.message, "NULL base"), "NULL buffer: %d '%s'", rc, err.message);
	/* NULL pointers in the block and no buffers: the kernel faults, reported */
	l.nbuffers = 0;
	rc = tilerunLaunch(m, &l, NULL);
	CHECK(rc == TILERUN_ERROR_USAGE || rc == TILERUN_FAULT || rc == TILERUN_SUCCESS, "NULL err: %d", rc);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *mode = argv[1];
	TilerunModule *m = argc > 2 && strcmp(mode, "bytecode") != 0 ? load_ptx(argv[2]) : NULL;
	if (strcmp(mode, "vadd") == 0)
		mode_vadd(m);
	else if (strcmp(mode, "oob") == 0)
		mode_oob(m);
	else if (strcmp(mode, "bytecode") == 0)
		mode_bytecode(argv[2]);
	else if (strcmp(mode, "threads") == 0)
		mode_threads(m, argc > 3 ? atoi(argv[3]) : 4);
	else if (strcmp(mode, "race") == 0)
		mode_race(m);
	else if (strcmp(mode, "printf") == 0)
		mode_printf(m);
	else if (strcmp(mode, "assert") == 0)
		mode_assert(m);
	else if (strcmp(mode, "badptx") == 0)
		mode_badptx();
	else if (strcmp(mode, "nulls") == 0)
		mode_nulls(m);
	else
		return 2;
	tilerunModuleRelease(m);
	if (fails)
		return 1;
	printf("ok %s\n", mode);
	return 0;
}
