/* simt.c: a tiny SIMT emulator for tile-ptx's LLVM IR, to check what the
 * kernels compute without a GPU (tests/reduce/simt-run drives it).
 *
 * The kernel's LLVM IR (tile-ptx --emit=llvm) is retargeted to the host by
 * simt-run (address spaces dropped, llvm.nvvm.* calls renamed emu_*) and
 * compiled with llc; this file provides those calls and runs each CTA's
 * threads as coroutines (ucontext). A thread runs until it reaches a
 * collective: bar.sync waits for every thread of the CTA, shfl.sync for
 * every lane of its warp; then the collective completes for all of them.
 * CTAs run one after another; the kernel's static shared memory (a host
 * global after retargeting) is therefore shared by the CTA's threads.
 *
 * Input file: i32 grid x, y, z, i32 threads, i32 nparams, then per
 * parameter i32 kind (0 buffer, 1 scalar), i64 bytes, bytes. Output file:
 * the buffers, in order, after the run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define MAXT 1024
#define STACK (256 * 1024)

enum { RUN, AT_BAR, AT_SHFL, DONE };

typedef struct Thr {
	ucontext_t ctx;
	int state;
	int kind;                /* shuffle: 0 bfly 1 up 2 down 3 idx */
	uint32_t val, b, c, out;
	char *stack;
} Thr;

static Thr thr[MAXT];
static ucontext_t sched_ctx;
static int nthreads, cur;
static int ctaid[3], nctaid[3];
static void (*entry)(void **);
static void **args;

static void collective(int state)
{
	thr[cur].state = state;
	swapcontext(&thr[cur].ctx, &sched_ctx);
}

/* ---- special registers */
int32_t emu_tid_x(void) __asm__("emu_read.ptx.sreg.tid.x");
int32_t emu_tid_x(void) { return cur; }
int32_t emu_ctaid_x(void) __asm__("emu_read.ptx.sreg.ctaid.x");
int32_t emu_ctaid_x(void) { return ctaid[0]; }
int32_t emu_ctaid_y(void) __asm__("emu_read.ptx.sreg.ctaid.y");
int32_t emu_ctaid_y(void) { return ctaid[1]; }
int32_t emu_ctaid_z(void) __asm__("emu_read.ptx.sreg.ctaid.z");
int32_t emu_ctaid_z(void) { return ctaid[2]; }
int32_t emu_nctaid_x(void) __asm__("emu_read.ptx.sreg.nctaid.x");
int32_t emu_nctaid_x(void) { return nctaid[0]; }
int32_t emu_nctaid_y(void) __asm__("emu_read.ptx.sreg.nctaid.y");
int32_t emu_nctaid_y(void) { return nctaid[1]; }
int32_t emu_nctaid_z(void) __asm__("emu_read.ptx.sreg.nctaid.z");
int32_t emu_nctaid_z(void) { return nctaid[2]; }
int32_t emu_ntid_x(void) __asm__("emu_read.ptx.sreg.ntid.x");
int32_t emu_ntid_x(void) { return nthreads; }

/* ---- barriers */
void emu_bar(int32_t id) __asm__("emu_barrier.cta.sync.aligned.all");
void emu_bar(int32_t id) { (void)id; collective(AT_BAR); }
void emu_bar0(void) __asm__("emu_barrier0");
void emu_bar0(void) { collective(AT_BAR); }

/* ---- shuffles */
static uint32_t shfl(int kind, uint32_t mask, uint32_t v, uint32_t b, uint32_t c)
{
	(void)mask;
	thr[cur].kind = kind;
	thr[cur].val = v;
	thr[cur].b = b;
	thr[cur].c = c;
	collective(AT_SHFL);
	return thr[cur].out;
}

static void shfl_complete(int w)
{
	for (int l = 0; l < 32; l++) {
		Thr *t = &thr[w * 32 + l];
		int segmask = (t->c >> 8) & 31, clamp = t->c & 31;
		int minl = l & segmask, maxl = minl | (clamp & ~segmask);
		int j = l, ok;
		switch (t->kind) {
		case 0: j = l ^ (int)t->b; ok = j <= maxl; break;
		case 1: j = l - (int)t->b; ok = j >= maxl; break;
		case 2: j = l + (int)t->b; ok = j <= maxl; break;
		default: j = minl | ((int)t->b & ~segmask); ok = j <= maxl; break;
		}
		if (!ok || j < 0 || j > 31)
			j = l;
		t->out = thr[w * 32 + j].val;
	}
}

#define SHFL(kname, k) \
	uint32_t emu_shfl_##kname##_i32(uint32_t, uint32_t, uint32_t, uint32_t) __asm__("emu_shfl.sync." #kname ".i32"); \
	uint32_t emu_shfl_##kname##_i32(uint32_t m, uint32_t v, uint32_t b, uint32_t c) { return shfl(k, m, v, b, c); } \
	float emu_shfl_##kname##_f32(uint32_t, float, uint32_t, uint32_t) __asm__("emu_shfl.sync." #kname ".f32"); \
	float emu_shfl_##kname##_f32(uint32_t m, float v, uint32_t b, uint32_t c) { \
		uint32_t x; memcpy(&x, &v, 4); x = shfl(k, m, x, b, c); memcpy(&v, &x, 4); return v; }
SHFL(bfly, 0)
SHFL(up, 1)
SHFL(down, 2)
SHFL(idx, 3)

/* ---- math the optimized libdevice code calls */
float emu_ex2a(float) __asm__("emu_ex2.approx.ftz.f32");
float emu_ex2a(float x) { return exp2f(x); }
float emu_ex2b(float) __asm__("emu_ex2.approx.ftz.f");
float emu_ex2b(float x) { return exp2f(x); }
float emu_ex2c(float) __asm__("emu_ex2.approx.f32");
float emu_ex2c(float x) { return exp2f(x); }
float emu_ex2d(float) __asm__("emu_ex2.approx.f");
float emu_ex2d(float x) { return exp2f(x); }
float emu_rsq(float) __asm__("emu_rsqrt.approx.f");
float emu_rsq(float x) { return 1.0f / sqrtf(x); }
float emu_rsqf(float) __asm__("emu_rsqrt.approx.ftz.f");
float emu_rsqf(float x) { return 1.0f / sqrtf(x); }
float emu_lg2(float) __asm__("emu_lg2.approx.f");
float emu_lg2(float x) { return log2f(x); }
float emu_lg2f(float) __asm__("emu_lg2.approx.ftz.f");
float emu_lg2f(float x) { return log2f(x); }
float emu_sat(float) __asm__("emu_saturate.f");
float emu_sat(float x) { return x != x ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x; }
float emu_fmarm(float, float, float) __asm__("emu_fma.rm.f");
float emu_fmarm(float a, float b, float c) { return fmaf(a, b, c); }
float emu_fmarn(float, float, float) __asm__("emu_fma.rn.f");
float emu_fmarn(float a, float b, float c) { return fmaf(a, b, c); }
float emu_fmarnf(float, float, float) __asm__("emu_fma.rn.ftz.f");
float emu_fmarnf(float a, float b, float c) { return fmaf(a, b, c); }
float emu_rcp(float) __asm__("emu_rcp.approx.ftz.f");
float emu_rcp(float x) { return 1.0f / x; }
float emu_rcpn(float) __asm__("emu_rcp.rn.f");
float emu_rcpn(float x) { return 1.0f / x; }
float emu_fabs(float) __asm__("emu_fabs.f");
float emu_fabs(float x) { return fabsf(x); }
float emu_fmaxf(float, float) __asm__("emu_fmax.f");
float emu_fmaxf(float a, float b) { return fmaxf(a, b); }
float emu_fminf(float, float) __asm__("emu_fmin.f");
float emu_fminf(float a, float b) { return fminf(a, b); }

/* f32 -> bf16 (fptrunc to bfloat), round to nearest even like cvt.rn.bf16.f32:
 * x86 llc calls this compiler-rt routine, which gcc 12's libgcc lacks. The
 * bf16 comes back in the low 16 bits of xmm0, so a float return whose bit
 * pattern is the bf16 in its low half is the same ABI. */
float emu_truncsfbf2(float) __asm__("__truncsfbf2");
float emu_truncsfbf2(float x)
{
	uint32_t u, r;
	memcpy(&u, &x, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		r = (u >> 16) | 0x40u;          /* NaN: keep it a quiet NaN */
	else
		r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
	float f;
	memcpy(&f, &r, 4);
	return f;
}

/* ---- the scheduler */
static void trampoline(void)
{
	entry(args);
	thr[cur].state = DONE;
	swapcontext(&thr[cur].ctx, &sched_ctx);
}

static int run_cta(void)
{
	for (int t = 0; t < nthreads; t++) {
		getcontext(&thr[t].ctx);
		thr[t].ctx.uc_stack.ss_sp = thr[t].stack;
		thr[t].ctx.uc_stack.ss_size = STACK;
		thr[t].ctx.uc_link = &sched_ctx;
		makecontext(&thr[t].ctx, trampoline, 0);
		thr[t].state = RUN;
	}
	for (;;) {
		for (int t = 0; t < nthreads; t++)
			if (thr[t].state == RUN) {
				cur = t;
				swapcontext(&sched_ctx, &thr[t].ctx);
			}
		int done = 0, bar = 0, progress = 0;
		for (int t = 0; t < nthreads; t++) {
			done += thr[t].state == DONE;
			bar += thr[t].state == AT_BAR;
		}
		if (done == nthreads)
			return 0;
		for (int w = 0; w * 32 < nthreads; w++) {
			int at = 0;
			for (int l = 0; l < 32; l++)
				at += thr[w * 32 + l].state == AT_SHFL;
			if (at == 32) {
				shfl_complete(w);
				for (int l = 0; l < 32; l++)
					thr[w * 32 + l].state = RUN;
				progress = 1;
			} else if (at) {
				int others = 0;
				for (int l = 0; l < 32; l++)
					others += thr[w * 32 + l].state != AT_SHFL && thr[w * 32 + l].state != RUN;
				if (others) {
					fprintf(stderr, "simt: warp %d: %d lanes at a shuffle, the others elsewhere\n", w, at);
					return 1;
				}
			}
		}
		if (bar && bar + done == nthreads) {
			if (done) {
				fprintf(stderr, "simt: bar.sync after some threads exited\n");
				return 1;
			}
			for (int t = 0; t < nthreads; t++)
				thr[t].state = RUN;
			progress = 1;
		}
		if (!progress) {
			fprintf(stderr, "simt: deadlock (%d at a barrier, %d done)\n", bar, done);
			return 1;
		}
	}
}

static void *xread(FILE *f, size_t n)
{
	void *p = calloc(1, n + 16);
	if (!p || fread(p, 1, n, f) != n) {
		fprintf(stderr, "simt: short input\n");
		exit(2);
	}
	return p;
}

int simt_main(int argc, char **argv, void (*fn)(void **));
int simt_main(int argc, char **argv, void (*fn)(void **))
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	int32_t hdr[5];
	if (fread(hdr, 4, 5, f) != 5)
		return 2;
	nctaid[0] = hdr[0];
	nctaid[1] = hdr[1];
	nctaid[2] = hdr[2];
	nthreads = hdr[3];
	int np = hdr[4];
	if (nthreads < 1 || nthreads > MAXT || nthreads % 32)
		return 2;
	args = calloc((size_t)np + 1, sizeof *args);
	int32_t *kind = calloc((size_t)np + 1, sizeof *kind);
	int64_t *size = calloc((size_t)np + 1, sizeof *size);
	void **bufs = calloc((size_t)np + 1, sizeof *bufs);
	for (int i = 0; i < np; i++) {
		if (fread(&kind[i], 4, 1, f) != 1 || fread(&size[i], 8, 1, f) != 1)
			return 2;
		void *p = xread(f, (size_t)size[i]);
		if (kind[i] == 0) {
			bufs[i] = p;
			void **slot = malloc(sizeof *slot);
			*slot = p;
			args[i] = slot;
		} else {
			args[i] = p;
		}
	}
	fclose(f);
	for (int t = 0; t < nthreads; t++)
		thr[t].stack = malloc(STACK);
	entry = fn;
	for (ctaid[2] = 0; ctaid[2] < nctaid[2]; ctaid[2]++)
		for (ctaid[1] = 0; ctaid[1] < nctaid[1]; ctaid[1]++)
			for (ctaid[0] = 0; ctaid[0] < nctaid[0]; ctaid[0]++)
				if (run_cta())
					return 1;
	f = fopen(argv[2], "wb");
	if (!f)
		return 2;
	for (int i = 0; i < np; i++)
		if (kind[i] == 0)
			fwrite(bufs[i], 1, (size_t)size[i], f);
	fclose(f);
	return 0;
}

/* ---- float-format conversions (tile-ptx convert.c), as the PTX ISA states
 * them, written independently of tile-ptx: each encoder picks the nearest
 * representable value by enumerating the format's codes. */

/* the value of magnitude code c of a format with mb mantissa bits and bias */
static double fmt_value(unsigned c, int mb, int bias)
{
	unsigned e = c >> mb, m = c & ((1u << mb) - 1);
	if (e == 0)
		return ldexp((double)m, 1 - bias - mb);
	return ldexp((double)((1u << mb) | m), (int)e - bias - mb);
}

/* round-to-nearest-even magnitude code, saturating at maxcode */
static unsigned fmt_nearest(double a, int mb, int bias, unsigned maxcode)
{
	unsigned best = 0;
	double bd = INFINITY;
	for (unsigned c = 0; c <= maxcode; c++) {
		double d = fabs(a - fmt_value(c, mb, bias));
		if (d < bd || (d == bd && (c & 1) == 0 && (best & 1))) {
			bd = d;
			best = c;
		}
	}
	return best;
}

static unsigned enc8(float x, int mb, int bias, unsigned maxcode, unsigned nan, int sbit)
{
	if (x != x)
		return nan;
	unsigned s = signbit(x) ? 1u << sbit : 0;
	return s | fmt_nearest(fabs((double)x), mb, bias, maxcode);
}

uint16_t emu_e4m3x2(float, float) __asm__("emu_ff.to.e4m3x2.rn");
uint16_t emu_e4m3x2(float a, float b) { return (uint16_t)(enc8(a, 3, 7, 0x7e, 0x7f, 7) << 8 | enc8(b, 3, 7, 0x7e, 0x7f, 7)); }
uint16_t emu_e5m2x2(float, float) __asm__("emu_ff.to.e5m2x2.rn");
uint16_t emu_e5m2x2(float a, float b) { return (uint16_t)(enc8(a, 2, 15, 0x7b, 0x7f, 7) << 8 | enc8(b, 2, 15, 0x7b, 0x7f, 7)); }
uint16_t emu_e2m1x2(float, float) __asm__("emu_ff.to.e2m1x2.rn.satfinite");
uint16_t emu_e2m1x2(float a, float b) { return (uint16_t)(enc8(a, 1, 1, 7, 7, 3) << 4 | enc8(b, 1, 1, 7, 7, 3)); }

typedef _Float16 half2 __attribute__((vector_size(4)));
static _Float16 dec8(unsigned c, int mb, int bias, int sbit, int e4m3)
{
	unsigned mag = c & ((1u << sbit) - 1);
	double v;
	if (e4m3 && mag == 0x7f)
		v = NAN;
	else if (!e4m3 && (mag >> mb) == 31)
		v = (mag & 3) ? NAN : INFINITY;
	else
		v = fmt_value(mag, mb, bias);
	return (_Float16)((c >> sbit) & 1 ? -v : v);
}
half2 emu_e4m3_f16x2(uint16_t) __asm__("emu_e4m3x2.to.f16x2.rn");
half2 emu_e4m3_f16x2(uint16_t p) { half2 r = { dec8(p & 0xff, 3, 7, 7, 1), dec8(p >> 8, 3, 7, 7, 1) }; return r; }
half2 emu_e5m2_f16x2(uint16_t) __asm__("emu_e5m2x2.to.f16x2.rn");
half2 emu_e5m2_f16x2(uint16_t p) { half2 r = { dec8(p & 0xff, 2, 15, 7, 0), dec8(p >> 8, 2, 15, 7, 0) }; return r; }

/* ue8m0: 2^(code - 127), code 255 NaN. The sign is ignored (cuda_fp8.hpp's
 * host path takes the exponent field of |x|); zero: the exponent field (0
 * for zero and subnormals), positive_inf: one more when |x| is not a power
 * of two and above 2^-127; satfinite: infinity and overflow give 0xfe. */
static unsigned ue8m0(float x, int up)
{
	if (x != x)
		return 0xff;
	uint32_t u;
	memcpy(&u, &x, 4);
	u &= 0x7fffffffu;
	unsigned code = u >> 23;
	if (up && (u & 0x7fffff) && u > 0x00400000u && u < 0x7f800000u)
		code++;
	return code >= 0xff ? 0xfe : code;
}
uint16_t emu_ue8m0_rz(float, float) __asm__("emu_ff.to.ue8m0x2.rz.satfinite");
uint16_t emu_ue8m0_rz(float a, float b) { return (uint16_t)(ue8m0(a, 0) << 8 | ue8m0(b, 0)); }
uint16_t emu_ue8m0_rp(float, float) __asm__("emu_ff.to.ue8m0x2.rp.satfinite");
uint16_t emu_ue8m0_rp(float a, float b) { return (uint16_t)(ue8m0(a, 1) << 8 | ue8m0(b, 1)); }

/* tf32: 10 mantissa bits; the two neighbours of x and the nearer one */
static uint32_t tf32(float x, int away)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	if (x != x)
		return 0x7fffffff;
	uint32_t lo = u & ~0x1fffu, hi = lo + 0x2000;
	float fl, fh;
	memcpy(&fl, &lo, 4);
	memcpy(&fh, &hi, 4);
	double dl = fabs((double)x - fl), dh = fabs((double)fh - x);
	if (isinf(fl))
		return lo;
	if (dl < dh)
		return lo;
	if (dh < dl)
		return hi;
	return away ? hi : (lo & 0x2000) ? hi : lo;
}
uint32_t emu_f2tf32_rn(float) __asm__("emu_f2tf32.rn");
uint32_t emu_f2tf32_rn(float x) { return tf32(x, 0); }
uint32_t emu_f2tf32_rna(float) __asm__("emu_f2tf32.rna");
uint32_t emu_f2tf32_rna(float x) { return tf32(x, 1); }

/* vprintf: the emulator does not print */
int emu_vprintf(const char *, void *) __asm__("emu_vprintf");
int emu_vprintf(const char *f, void *a) { (void)f; (void)a; return 0; }
