/* exec.h: the running machine: device memory, CTAs, threads, and the helpers
 * every exec_*.c family uses (operand access, float bit views, faults).
 *
 * The launch's state is one Run (libtilerun's launch.c makes it, launch()
 * runs it, launch_free() frees it); there is
 * no global. Code reaches it from what it is handed: a Thread's run and cta,
 * a Cta's run, or a Run * parameter. The CTAs of the cluster running now are
 * run->cl[0 .. ncl) (index = %cluster_ctarank; one CTA without clusters). */
#ifndef TILE_RUN_EXEC_H
#define TILE_RUN_EXEC_H
#include <stdio.h>
#include <string.h>
#include "run.h"

enum { CHECK_NONE, CHECK_MEMCHECK, CHECK_RACECHECK };

/* what a fault is (libtilerun's TILERUN_KIND_* have the same numbers) */
enum { FK_NONE, FK_ERROR, FK_OUT_OF_BOUNDS, FK_MISALIGNED, FK_RACE, FK_ASSERT, FK_TRAP, FK_DEADLOCK, FK_LIMIT,
       FK_OTHER };

/* the launch's first fault, as fault.c recorded it (Run.fault) */
typedef struct Fault {
	int kind;               /* FK_* */
	uint64_t addr;          /* memory faults: the address */
	int arg;                /* the nearest buffer's Buffer.arg (-1: none or not an argument's) */
	uint32_t thread[3], block[3];
	uint32_t ptx_line;
	const char *file;       /* from .loc (the module's string), NULL unknown */
	uint32_t line, col;
	char msg[1024];         /* the report's one line, without "tile-run: error: " */
} Fault;

typedef struct Run Run;
typedef struct Race Race;       /* racecheck's clocks (race.c) */

typedef struct Buffer {
	uint64_t dev, size;
	uint8_t *host;
	char name[96];
	int arg;                /* argument position, -1 for others */
	bool readonly, freed, heap;
} Buffer;

typedef struct Frame {
	int func, pc, call;
	uint64_t *R;
	uint8_t *P;
} Frame;

enum { TS_RUN, TS_BAR, TS_WARP, TS_EXIT, TS_MBAR,       /* TS_MBAR: at an mbarrier try_wait (exec_async.c) */
       TS_CBAR };                                       /* at barrier.cluster.wait (exec_cluster.c) */
typedef struct Cta Cta;

#define MAX_DEPTH 16

typedef struct Thread {
	Run *run;               /* the launch it belongs to */
	Cta *cta;               /* its CTA (one of run->cl) */
	uint64_t *R;            /* current frame's registers */
	uint8_t *P;             /* current frame's parameter area */
	const Insn *code;
	int pc, func;
	uint8_t state, depth;
	uint32_t tid, t[3], lane, warp;
	uint8_t *L;             /* local memory */
	const Insn *wait;       /* the collective waited at */
	uint64_t cv[3];         /* values given to a warp collective (cv[2]: membermask) */
	uint64_t maddr;         /* ldmatrix/stmatrix row address */
	uint32_t frag[4];       /* stmatrix fragments */
	int bar_id;
	uint32_t mbar;          /* TS_MBAR: the mbarrier's shared offset ... */
	uint8_t mpar;           /* ... and the phase parity waited for */
	uint32_t cc;            /* carry flag of add.cc/addc ... */
	uint32_t cgen;          /* barrier.cluster: the phase it arrived in ... */
	bool carr;              /* ... while that arrival is not yet waited for */
	Frame frames[MAX_DEPTH];
} Thread;

struct Cta {
	Run *run;               /* the launch (the Cta is one of run->cl) */
	Race *race;             /* racecheck's state (the cluster's); NULL without --check racecheck */
	uint32_t id[3];
	int rank;               /* %cluster_ctarank */
	int n, live;
	Thread *th;
	uint8_t *shared;
	uint32_t shared_size;
	uint8_t *local;
	struct { int arrived, expected; uint32_t red; } bar[16];
	uint64_t *regs;         /* register files of every thread */
	uint8_t *params;        /* parameter areas of every thread */
	struct Tmem *tmem;      /* tensor memory (exec_tcgen05.c), made by its first use */
	struct RegPool *regpool;        /* setmaxnreg's accounting (exec_setmaxnreg.c), made by its first use */
};

struct Run {
	Module *m;
	Func *entry;
	int fidx;
	uint32_t grid[3], block[3];
	int check;
	bool seeded;
	uint64_t seed, rng;
	Buffer *bufs;
	int nbufs, capbufs, last;
	uint64_t heap_next;
	uint8_t *kparams;
	uint32_t kparam_size;
	uint32_t dyn_smem;
	Cta *cl;                /* the CTAs of the cluster running now, by rank */
	int ncl;                /* CTAs in a cluster */
	uint32_t cluster[3];    /* cluster shape (1,1,1 without clusters) */
	bool explicit_cluster;  /* launched with a cluster shape (.reqnctapercluster or --cluster) */
	struct { int arrived; uint32_t gen; } cbar;     /* barrier.cluster: live arrivals, completed phases */
	uint64_t ninsn, gtimer;
	uint64_t max_insns;     /* --max-insns: a fault past this many thread-instructions (0: no limit) */
	int status;             /* RUN_OK, or RUN_FAULT after a report */
	bool shared_hit;        /* the last mem_at resolved to shared memory ... */
	uint32_t shared_off;    /* ... at this offset (for race_write) ... */
	Cta *shared_cta;        /* ... of this CTA's (another's through .shared::cluster) */
	FILE *out;              /* device printf (stdout for the command) */
	FILE *assert_out;       /* a failed device assert's line (stderr for the command) */
	Fault fault;            /* the first fault (status RUN_FAULT) */
};

/* sched.c: run every CTA of r's grid; RUN_OK or RUN_FAULT (after the report).
 * launch_free frees what the launch and the kernel allocated (CTAs, racecheck
 * and tensor-memory state, call frames, the .global copies and device malloc
 * buffers: those of Buffer.arg < 0); r->m and the argument buffers stay. */
int launch(Run *r);
void launch_free(Run *r);

/* fault.c: the one report of a fault (the first; later ones are dropped):
 * "tile-run: error: MSG, thread (x,y,z) of block (x,y,z) (PTX line N, file:line:col)";
 * sets t->run->status to RUN_FAULT */
void fault(Thread *t, const Insn *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* the same with what it is (FK_*), and for a memory fault the address and
 * the nearest buffer (NULL none) */
void fault_as(Thread *t, const Insn *in, int kind, uint64_t addr, const Buffer *near, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* mem.c */
Buffer *mem_add(Run *r, uint64_t dev, uint64_t size, uint8_t *host, const char *name, int arg);
uint64_t mem_alloc_dev(Run *r, uint64_t size);  /* next free heap address */
uint8_t *mem_at(Thread *t, const Insn *in, int space, uint64_t a, uint32_t size, int access);
Buffer *mem_find(Run *r, uint64_t a);
void mem_setup_vars(Run *r);            /* r->m's .global/.const variables as buffers */

/* race.c: one state for the cluster; c is the CTA whose shared memory
 * (or barrier) it is, t the accessing thread (of any CTA of the cluster) */
#define RACE_MANY 0xffffffffu
void race_setup(Run *r);        /* --check racecheck: every r->cl[k].race */
void race_free(Run *r);         /* what race_setup made */
void race_reset(Run *r);        /* a new cluster */
bool race_read(Thread *t, const Insn *in, Cta *c, uint32_t a, uint32_t size);
bool race_write(Thread *t, const Insn *in, Cta *c, uint32_t a, const uint8_t *v, uint32_t size);
void race_bar_arrive(Thread *t, int id);
void race_bar_open(Cta *c, int id);
void race_mbar_init(Cta *c, uint32_t off);
void race_mbar_release(Thread *t, Cta *c, uint32_t off);
void race_mbar_complete(Cta *c, uint32_t off, uint32_t parity);
void race_mbar_acquire(Thread *t, Cta *c, uint32_t off, uint32_t parity);
void race_warp_join(Cta *c, int warp, uint32_t mask);
void race_cbar_arrive(Thread *t);       /* barrier.cluster.arrive[.release] */
void race_cbar_complete(Run *r);        /* the phase completed */
void race_cbar_acquire(Thread *t);      /* barrier.cluster.wait[.acquire] let it go */
/* for other shadows (exec_tcgen05.c's tensor memory): t's own clock, and
 * whether an access by t is ordered after the stamp (who + 1, clk) */
uint32_t race_clock(const Thread *t);
bool race_after(const Thread *t, uint32_t who, uint32_t clk);
enum { ACC_READ, ACC_WRITE, ACC_ATOMIC };

/* interp.c */
enum { ST_NEXT, ST_JUMP, ST_BLOCK, ST_EXIT, ST_FAULT, ST_YIELD };
int run_thread(Thread *t);

/* families: return ST_NEXT, or ST_FAULT after fault() */
int exec_arith(Thread *t, const Insn *in);
int exec_math(Thread *t, const Insn *in);
int exec_bits(Thread *t, const Insn *in);
int exec_cmp(Thread *t, const Insn *in);
int exec_move(Thread *t, const Insn *in);
int exec_cvt(Thread *t, const Insn *in);
int exec_mem(Thread *t, const Insn *in);
int exec_atom(Thread *t, const Insn *in);
int exec_ctrl(Thread *t, const Insn *in);       /* calls, printf, malloc, assert */
int exec_warp(Thread *t, const Insn *in);       /* may return ST_BLOCK */
int exec_sync(Thread *t, const Insn *in);       /* barriers; may return ST_BLOCK */
int exec_async(Thread *t, const Insn *in);      /* mbarrier, cp.async.bulk[.tensor]; may return ST_BLOCK */
int exec_wgmma(Thread *t, const Insn *in);      /* wgmma.* */
int exec_tcgen05(Thread *t, const Insn *in);    /* tcgen05.* but the warp collectives */
bool mbar_arrive_one(Thread *t, const Insn *in, uint64_t a, int space);  /* exec_async.c */
/* exec_tcgen05.c: a CTA's tensor memory: fresh at its start; at its end
 * false after a fault (memory still allocated) */
void tmem_cta_start(Cta *c);
bool tmem_cta_end(Cta *c);
void tmem_free(Cta *c);
void tcgen05_resolve(Cta *c, Thread **L, const Insn *in);   /* alloc, dealloc, relinquish */
/* exec_setmaxnreg.c: the CTA's register pool, fresh at its start; whether a
 * warp's setmaxnreg can go now (an .inc waits for registers), and doing it */
void regpool_cta_start(Cta *c);
void regpool_free(Cta *c);
bool setmaxnreg_ready(Cta *c, int warp, const Insn *in);
void setmaxnreg_resolve(Cta *c, Thread **L, const Insn *in);
int exec_cluster(Thread *t, const Insn *in);    /* mapa, getctarank, barrier.cluster; may return ST_BLOCK */

/* exec_cluster.c: the cluster's shared windows and barrier */
uint64_t cluster_addr(uint64_t a, int rank);    /* shared address a (rank bits dropped) in CTA rank's window */
void cluster_own_addresses(const Func *f, uint64_t *R, int rank);      /* f's shared-variable slots in R: CTA rank's */
void cbar_check(Run *r);                        /* complete barrier.cluster's phase if every live thread arrived */
void cluster_thread_exited(Thread *t);

/* sched.c */
void warp_check(Cta *c, int warp);
void warp_check_thread(Cta *c, Thread *t);
/* exec_mma.c: mma.sync of a warp whose lanes L[0..31] all arrived */
void mma_resolve(Cta *c, Thread **L, const Insn *in);
void wgmma_resolve(Cta *c, Thread **L, const Insn *in);      /* exec_wgmma.c: A in registers */
void bar_check(Cta *c, int id);
void thread_exited(Thread *t);

/* printf.c */
int device_printf(Thread *t, const Insn *in, uint64_t fmt, uint64_t args);

/* float bit views: f2u(1.0f) is 0x3f800000 */
#define BIT_VIEW(name, From, To) \
	static inline To name(From x) { To y; memcpy(&y, &x, sizeof y); return y; }
BIT_VIEW(f2u, float, uint32_t)
BIT_VIEW(u2f, uint32_t, float)
BIT_VIEW(d2u, double, uint64_t)
BIT_VIEW(u2d, uint64_t, double)
#undef BIT_VIEW

/* float.c: conversions and rounding */
double small_to_double(uint32_t bits, int ty);          /* f16 bf16 tf32 e4m3 e5m2 e2m1 ue8m0 */
uint32_t double_to_small(double x, int ty, int rnd, bool sat, bool satfinite, bool relu);
float round_f32(double x, int rnd);     /* exact value x rounded to f32 */
double fp_op(int op, double a, double b, double c, int ty, int rnd);
float ftz32(float f);
uint64_t cvt_run(const Insn *in, uint64_t a);

/* values */
static inline int64_t sx(uint64_t v, int bytes)
{
	int sh = 64 - 8 * bytes;
	return sh > 0 ? (int64_t)(v << sh) >> sh : (int64_t)v;
}
static inline uint64_t zx(uint64_t v, int bytes)
{
	return bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
}
/* a result of type ty, extended per the register convention (run.h) */
static inline uint64_t norm(uint64_t v, int ty)
{
	int b = type_bytes[ty];
	if (type_kind[ty] == 'S')
		return (uint64_t)sx(v, b);
	if (type_kind[ty] == 'P')
		return v & 1;
	return zx(v, b);
}
#endif
