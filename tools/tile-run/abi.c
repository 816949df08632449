/* abi.c: cuTile's kernel parameter ABI read from the mangled kernel name
 * (docs/abi.md §4): NAME_Kt1_A<rank><dtype>_<layout>..._S<dtype>_I<const>.
 * An array of rank r is 1 + 2r parameters (pointer, shape, stride), a
 * scalar one. When the name parses and the count matches, tile-run checks
 * each array argument against its shape and strides (the bytes the kernel
 * may touch must be in the array) and its dtype's size, and types f16/bf16
 * scalars. Other names: no checks (memcheck still catches bad accesses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"
#include "npy.h"

typedef struct Slot {
	char kind;              /* 'A' array pointer, 'h' shape, 't' stride, 'S' scalar */
	int rank, group;
	char dtype[8];
} Slot;

static int dtype_bytes(const char *d)
{
	static const struct { const char *n; int b; } t[] = {
		{ "f32", 4 }, { "f16", 2 }, { "bf16", 2 }, { "f64", 8 }, { "i8", 1 }, { "i16", 2 }, { "i32", 4 },
		{ "i64", 8 }, { "i1", 1 }, { "tf32", 4 }, { "f8e4m3fn", 1 }, { "f8e5m2", 1 }, { "f8e8m0fnu", 1 },
	};
	for (size_t k = 0; k < sizeof t / sizeof *t; k++)
		if (strcmp(t[k].n, d) == 0)
			return t[k].b;
	return 0;
}

/* the parameter slots, or 0 if the name is not a cuTile mangling */
static int parse(const Func *f, Slot *s, int cap)
{
	const char *p = strstr(f->name, "_Kt");
	if (!p)
		return 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", p + 1);
	int n = 0, group = 0;
	for (char *tok = strtok(buf, "_"); tok; tok = strtok(NULL, "_")) {
		if (tok[0] == 'A' && tok[1] >= '1' && tok[1] <= '8') {
			int r = tok[1] - '0';
			if (n + 1 + 2 * r > cap || !dtype_bytes(tok + 2))
				return 0;
			group++;
			s[n++] = (Slot){ 'A', r, group, "" };
			snprintf(s[n - 1].dtype, sizeof s[n - 1].dtype, "%s", tok + 2);
			for (int k = 0; k < r; k++)
				s[n++] = (Slot){ 'h', r, group, "" };
			for (int k = 0; k < r; k++)
				s[n++] = (Slot){ 't', r, group, "" };
		} else if (tok[0] == 'S' && dtype_bytes(tok + 1)) {
			if (n + 1 > cap)
				return 0;
			s[n++] = (Slot){ 'S', 0, 0, "" };
			snprintf(s[n - 1].dtype, sizeof s[n - 1].dtype, "%s", tok + 1);
		}
	}
	int user = f->nparams;      /* hidden parameters (tensor maps) come last and are not named */
	while (user > 0 && f->params[user - 1].hidden)
		user--;
	return n == user ? n : 0;
}

int abi_scalar_type(const Func *f, int param)
{
	Slot s[256];
	int n = parse(f, s, 256);
	if (!n || s[param].kind != 'S')
		return 0;
	if (strcmp(s[param].dtype, "f16") == 0)
		return TY_F16;
	if (strcmp(s[param].dtype, "bf16") == 0)
		return TY_BF16;
	return 0;
}

static uint64_t param_value(const Func *f, const uint8_t *kparams, int k)
{
	const Param *pa = &f->params[k];
	uint64_t v = 0;
	memcpy(&v, kparams + pa->offset, pa->size > 8 ? 8 : pa->size);
	return pa->size == 4 ? (uint64_t)(int64_t)(int32_t)(uint32_t)v : v;
}

bool abi_check(const Func *f, const uint8_t *kparams, char **args, int nargs, const Npy *arrays, const bool *is_array)
{
	Slot s[256];
	int n = parse(f, s, 256);
	if (!n)
		return true;
	for (int k = 0; k < nargs && k < n; k++) {
		if (s[k].kind != 'A' || !is_array[k])
			continue;
		int r = s[k].rank, eb = dtype_bytes(s[k].dtype);
		if ((uint32_t)eb != arrays[k].itemsize) {
			diag_plain("argument %d (%s): the kernel takes %s elements (%d bytes), the array has %u-byte elements",
				  k, args[k], s[k].dtype, eb, arrays[k].itemsize);
			return false;
		}
		int64_t span = 0;
		bool empty = false;
		char shape[256] = "", strides[256] = "";
		size_t sl = 0, tl = 0;
		for (int d = 0; d < r; d++) {
			int64_t ext = (int64_t)param_value(f, kparams, k + 1 + d),
				str = (int64_t)param_value(f, kparams, k + 1 + r + d);
			if (ext < 0) {
				diag_plain("argument %d: shape[%d] = %lld is negative", k + 1 + d, d, (long long)ext);
				return false;
			}
			if (ext == 0)
				empty = true;
			if (str < 0)
				return true;    /* negative strides: leave it to memcheck */
			int64_t step;
			if (__builtin_mul_overflow(ext - 1, str, &step) || __builtin_add_overflow(span, step, &span))
				span = INT64_MAX - 1;   /* past any array: refused below */
			sl += (size_t)snprintf(shape + sl, sizeof shape - sl, "%s%lld", d ? ", " : "", (long long)ext);
			tl += (size_t)snprintf(strides + tl, sizeof strides - tl, "%s%lld", d ? ", " : "", (long long)str);
		}
		if (empty)
			continue;
		uint64_t need;
		if (__builtin_mul_overflow((uint64_t)span + 1, (uint64_t)eb, &need))
			need = UINT64_MAX;
		if (need > arrays[k].bytes) {
			diag_plain("argument %d (%s): %llu bytes, but shape [%s] with strides [%s] reaches %llu bytes", k,
				  args[k], (unsigned long long)arrays[k].bytes, shape, strides, (unsigned long long)need);
			return false;
		}
	}
	return true;
}
