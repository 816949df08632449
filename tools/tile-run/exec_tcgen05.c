/* exec_tcgen05.c: Blackwell's tensor memory and tcgen05 (sm_100a/103a/110a).
 *
 * Tensor memory: per CTA 128 lanes x 512 columns of 32-bit cells; an
 * address is lane << 16 | column. tcgen05.alloc (a warp collective) takes a
 * power of two of 32..512 columns, first fit aligned to its size, and writes
 * its address to shared memory; dealloc gives exactly such a block back;
 * after tcgen05.relinquish_alloc_permit the CTA may not allocate again.
 * Faults: a bad size, no room (a GPU would wait for another CTA on the SM to
 * free some; here the CTA is alone, so it would wait forever), allocation
 * after relinquishing, a dealloc of what is not allocated, memory still
 * allocated when the CTA ends, and any access to a column not allocated.
 *
 * tcgen05.ld / tcgen05.st (each thread its own registers; the warp's
 * threads agree by construction): warp w reaches only lanes 32*(w%4) to
 * 32*(w%4)+31 (a fault otherwise). Register r of lane l is cell (row, col)
 * of the atom at the address (PTX ISA "Matrix fragments for tcgen05.ld"):
 *   32x32b   (32 x N):   (l, r)
 *   16x64b   (16 x 2N):  (l/4 + 8(l%2), (l/2)%2 + 2r)
 *   16x128b  (16 x 4N):  (l/4 + 8(r%2), l%4 + 4(r/2))
 *   16x256b  (16 x 8N):  (l/4 + 8((r/2)%2), r%2 + 2(l%4) + 8(r/4))
 *   16x32bx2 (16 x N, twice): (l%16, r), lanes 16-31 at column + halfSplitOff
 * .pack::16b / .unpack::16b: logical column c is the two cells 2c, 2c+1,
 * each holding one 16-bit value (low half of the register in the first).
 * wait::ld/st and the fences are no-ops: accesses complete at issue.
 *
 * tcgen05.mma (one thread issues it): the instruction descriptor (bits
 * 4-5 D type: f16, f32, s32; 7-9 / 10-12 A / B type; 13, 14 negate A / B;
 * 15, 16 A / B MN-major; 17-22 N/8; 24-28 M/16; sparsity and shifts
 * refused) and the shared-memory descriptors (desc.c) give A (M x K) and B
 * (N x K), K = 32 bytes' worth (16 f16, 8 tf32, 32 8-bit). D row m is lane
 * m (M = 128) or 32(m/16) + m%16 (M = 64, the lower half of each warp's
 * lanes), column n its address's column + n; f16 results in a cell's low
 * half. A in tensor memory: row m's lane, k at byte k*size of its columns.
 * Products exact in double, summed in k order with D, rounded once;
 * integers exact (bit 3: saturate). enable-input-d false: D = A*B;
 * scale-input-d s: D = A*B + D*2^-s; a disable-output-lane bit keeps that
 * lane's D. The product happens at issue.
 *
 * Completion (what racecheck and the commit rule check): a D cell written by
 * an mma stays "pending" until its issuing thread's next tcgen05.commit;
 * reading or overwriting a pending cell (tcgen05.ld/st, another thread's
 * mma) is a fault under every --check but none. tcgen05.commit makes the
 * thread's mmas committed and arrives once on its mbarrier (multicast: on
 * the mbarrier at its offset in every CTA of the mask, exec_cluster.c's
 * addresses). Under racecheck, a cell keeps
 * its last writer and reader with their clocks (race.c): an ld must be
 * ordered after the mma's commit (the mbarrier phase it completes, waited
 * on), an mma or st after the last ld of the cell.
 * Block scaling (kind::mxf8f6f4.block_scale.block32: one ue8m0 scale per
 * row of A and column of B, K 32): each operand element is multiplied by its
 * row's scale (scales(): where tcgen05.cp.32x128b.warpx4 leaves them).
 * tcgen05.cp copies at issue and, like an mma, leaves its cells pending until
 * the issuer's commit (its own later mmas may read them: one pipe, in order).
 * Not modelled: cta_group::2, mxf4/mxf4nvf4 and ue4m3 scales, sparsity, .ws,
 * decompressing copies, tcgen05.shift (a clear error). */
#include <math.h>
#include <stdlib.h>
#include "exec.h"
#include "desc.h"

#define LANES 128
#define COLS 512
#define CELLS (LANES * COLS)

typedef struct TmemBlock {
	uint32_t col, ncols, warp;
	const Insn *where;
} TmemBlock;

struct Tmem {
	uint32_t cell[CELLS];
	uint8_t used[COLS];
	TmemBlock blk[16];
	int nblk;
	bool relinquished;
	uint32_t pend_tid[CELLS];       /* issuer + 1 of the mma that last wrote the cell, 0 none */
	uint32_t pend_ep[CELLS];        /* ... and the issuer's commit epoch then */
	uint32_t *epoch;                /* per thread: its tcgen05.commit count */
	uint32_t wr[CELLS], wr_clk[CELLS], rd[CELLS], rd_clk[CELLS];   /* racecheck */
};

static struct Tmem *tmem_of(Cta *c)
{
	if (!c->tmem) {
		c->tmem = xcalloc(1, sizeof *c->tmem);
		c->tmem->epoch = xcalloc((size_t)c->n, sizeof *c->tmem->epoch);
	}
	return c->tmem;
}

void tmem_cta_start(Cta *c)
{
	struct Tmem *tm = c->tmem;
	if (!tm)
		return;
	uint32_t *ep = tm->epoch;
	memset(tm, 0, sizeof *tm);
	tm->epoch = ep;
	memset(ep, 0, (size_t)c->n * sizeof *ep);
}

bool tmem_cta_end(Cta *c)
{
	struct Tmem *tm = c->tmem;
	if (!tm || !tm->nblk)
		return true;
	TmemBlock *b = &tm->blk[0];
	fault(&c->th[b->warp * 32], b->where,
	      "tensor memory leaked: %u columns at column %u allocated by warp %u are still allocated when the CTA ends (tcgen05.dealloc missing)",
	      b->ncols, b->col, b->warp);
	return false;
}

/* ---- allocation (warp collectives) ---- */

static void t5_alloc(Cta *c, Thread *t, const Insn *in)
{
	struct Tmem *tm = tmem_of(c);
	uint32_t n = (uint32_t)t->R[in->s[1]];
	if (n < 32 || n > COLS || (n & (n - 1))) {
		fault(t, in, "tcgen05.alloc of %u columns: the count must be a power of two from 32 to 512", n);
		return;
	}
	if (tm->relinquished) {
		fault(t, in, "tcgen05.alloc after the CTA gave up its allocation permit (tcgen05.relinquish_alloc_permit)");
		return;
	}
	if (tm->nblk == 16) {
		fault(t, in, "tcgen05.alloc: more than 16 tensor-memory blocks allocated at once");
		return;
	}
	uint32_t at = COLS;
	for (uint32_t s = 0; s + n <= COLS && at == COLS; s += n) {
		bool free = true;
		for (uint32_t k = s; k < s + n && free; k++)
			free = !tm->used[k];
		if (free)
			at = s;
	}
	if (at == COLS) {
		uint32_t held = 0;
		for (int k = 0; k < COLS; k++)
			held += tm->used[k];
		fault(t, in, "tcgen05.alloc of %u columns cannot be satisfied: %u of 512 are allocated and the CTA would wait forever",
		      n, held);
		return;
	}
	uint64_t a = t->R[in->s[0]] + (uint64_t)in->off;
	uint8_t *p = mem_at(t, in, SP_SHARED, a, 4, ACC_WRITE);
	if (!p)
		return;
	uint32_t addr = at;
	if (c->run->check == CHECK_RACECHECK && !race_write(t, in, c->run->shared_cta, c->run->shared_off, (const uint8_t *)&addr, 4))
		return;
	memcpy(p, &addr, 4);
	memset(tm->used + at, 1, n);
	tm->blk[tm->nblk++] = (TmemBlock){ at, n, t->warp, in };
}

static void t5_dealloc(Cta *c, Thread *t, const Insn *in)
{
	struct Tmem *tm = tmem_of(c);
	uint32_t a = (uint32_t)t->R[in->s[0]], n = (uint32_t)t->R[in->s[1]];
	for (int k = 0; k < tm->nblk; k++)
		if (tm->blk[k].col == (a & 0xffff) && tm->blk[k].ncols == n && !(a >> 16)) {
			memset(tm->used + tm->blk[k].col, 0, n);
			tm->blk[k] = tm->blk[--tm->nblk];
			return;
		}
	fault(t, in, "tcgen05.dealloc of %u columns at tensor-memory address 0x%08x, which is not an allocated block (double free or wrong size)",
	      n, a);
}

void tcgen05_resolve(Cta *c, Thread **L, const Insn *in)
{
	Thread *t = NULL;
	for (int k = 0; k < 32 && !t; k++)
		t = L[k];
	if (!t)
		return;
	switch (in->mode) {
	case T5_ALLOC: t5_alloc(c, t, in); break;
	case T5_DEALLOC: t5_dealloc(c, t, in); break;
	default: tmem_of(c)->relinquished = true; break;
	}
}

/* ---- cells ---- */

/* the cell (lane, col) for an access by t: allocated, lane within the
 * warp's quarter when quarter is set; -1 after a fault */
static int cell(Thread *t, const Insn *in, uint32_t lane, uint32_t col, bool quarter)
{
	struct Tmem *tm = tmem_of(t->cta);
	if (quarter && lane / 32 != t->warp % 4) {
		fault(t, in, "tcgen05.%s by warp %u reaches tensor-memory lane %u: warp %u may access lanes %u to %u only",
		      in->mode == T5_LD ? "ld" : "st", t->warp, lane, t->warp, 32 * (t->warp % 4), 32 * (t->warp % 4) + 31);
		return -1;
	}
	if (lane >= LANES || col >= COLS || !tm->used[col]) {
		fault(t, in, "tensor-memory lane %u column %u is not allocated", lane, col);
		return -1;
	}
	return (int)(lane * COLS + col);
}

static bool pending(const struct Tmem *tm, int x)
{
	return tm->pend_tid[x] && tm->epoch[tm->pend_tid[x] - 1] == tm->pend_ep[x];
}

/* a read (ld, an mma's operand) or write (st, mma, cp) of cell x by t: the
 * commit rule and racecheck. pipe: by t's tcgen05 pipe (mma, cp), which runs
 * t's own operations in order, so what they left pending is theirs to use */
static bool access_ok(Thread *t, const Insn *in, int x, bool write, bool pipe)
{
	struct Tmem *tm = tmem_of(t->cta);
	uint32_t lane = (uint32_t)x / COLS, col = (uint32_t)x % COLS;
	if (t->run->check != CHECK_NONE && pending(tm, x) && !(pipe && tm->pend_tid[x] == t->tid + 1)) {
		fault(t, in, "tensor-memory lane %u column %u is %s before the tcgen05.mma of thread %u that writes it was committed (tcgen05.commit) and its mbarrier awaited",
		      lane, col, write ? "overwritten" : "read", tm->pend_tid[x] - 1);
		return false;
	}
	if (t->run->check != CHECK_RACECHECK)
		return true;
	if (!race_after(t, tm->wr[x], tm->wr_clk[x])) {
		fault_as(t, in, FK_RACE, 0, NULL, "tensor-memory race: %s of lane %u column %u by thread %u after a write by thread %u with no completed mbarrier phase or barrier between",
		      write ? "write" : "read", lane, col, t->tid, tm->wr[x] - 1);
		return false;
	}
	if (write && !race_after(t, tm->rd[x], tm->rd_clk[x])) {
		fault_as(t, in, FK_RACE, 0, NULL, "tensor-memory race: write of lane %u column %u by thread %u while thread %u may still be reading it (tcgen05.ld) with no barrier between",
		      lane, col, t->tid, tm->rd[x] - 1);
		return false;
	}
	if (write) {
		tm->wr[x] = t->tid + 1;
		tm->wr_clk[x] = race_clock(t);
	} else {
		tm->rd[x] = t->tid + 1;
		tm->rd_clk[x] = race_clock(t);
	}
	return true;
}

/* ---- tcgen05.ld / tcgen05.st ---- */

static void frag(int shape, uint32_t l, uint32_t r, uint32_t *row, uint32_t *col)
{
	switch (shape) {
	case T5S_32X32B: *row = l, *col = r; break;
	case T5S_16X64B: *row = l / 4 + 8 * (l % 2), *col = (l / 2) % 2 + 2 * r; break;
	case T5S_16X128B: *row = l / 4 + 8 * (r % 2), *col = l % 4 + 4 * (r / 2); break;
	case T5S_16X256B: *row = l / 4 + 8 * ((r / 2) % 2), *col = r % 2 + 2 * (l % 4) + 8 * (r / 4); break;
	default: *row = l % 16, *col = r; break;
	}
}

static int ldst(Thread *t, const Insn *in)
{
	struct Tmem *tm = tmem_of(t->cta);
	const int32_t *xs = &t->run->m->xs[in->target];
	uint32_t a = (uint32_t)(t->R[in->s[0]] + (uint64_t)(int64_t)xs[0]);
	uint32_t lane0 = a >> 16, col0 = a & 0xffff, l = t->lane;
	if (in->cmp == T5S_16X32BX2 && l >= 16)
		col0 += (uint32_t)t->R[in->s[1]];
	bool pack = in->boolop & T5F_PACK, ld = in->mode == T5_LD;
	for (uint32_t r = 0; r < (uint32_t)in->off; r++) {
		uint32_t row, col;
		frag(in->cmp, l, r, &row, &col);
		uint64_t *reg = &t->R[xs[1 + r]];
		int n = pack ? 2 : 1;
		uint32_t v = ld ? 0 : (uint32_t)*reg;
		for (int h = 0; h < n; h++) {
			int x = cell(t, in, lane0 + row, col0 + (pack ? 2 * col + (uint32_t)h : col), true);
			if (x < 0 || !access_ok(t, in, x, !ld, false))
				return ST_FAULT;
			if (!ld)
				tm->cell[x] = pack ? (v >> (16 * h)) & 0xffff : v;
			else if (pack)
				v |= (tm->cell[x] & 0xffff) << (16 * h);
			else
				v = tm->cell[x];
		}
		if (ld)
			*reg = v;
	}
	return ST_NEXT;
}

/* ---- tcgen05.mma ---- */

typedef struct MmaShape {
	int m, n, k, aty, bty, dty;
	bool neg_a, neg_b, mn_a, mn_b, sat;
	uint32_t sf_a, sf_b;            /* block scaling: the scale bytes (data IDs) of A and B */
} MmaShape;

static bool idesc(Thread *t, const Insn *in, uint32_t v, MmaShape *s)
{
	static const int f16[8] = { TY_F16, TY_BF16 }, f8[8] = { TY_E4M3, TY_E5M2, 0, 0, 0, TY_E2M1 };
	static const int dtys[4] = { TY_F16, TY_F32, TY_S32, 0 };
	uint32_t at = (v >> 7) & 7, bt = (v >> 10) & 7;
	s->dty = dtys[(v >> 4) & 3];
	switch (in->ty) {
	case T5K_F16: s->aty = f16[at], s->bty = f16[bt], s->k = 16; break;
	case T5K_TF32: s->aty = at == 2 ? TY_TF32 : 0, s->bty = bt == 2 ? TY_TF32 : 0, s->k = 8; break;
	case T5K_F8F6F4: s->aty = f8[at], s->bty = f8[bt], s->k = 32; break;
	case T5K_I8: s->aty = at ? TY_S8 : TY_U8, s->bty = bt ? TY_S8 : TY_U8, s->k = 32; break;
	default:        /* mxf8f6f4.block32: bits 4-5 and 29-30 the scale bytes, 23 ue8m0 scales */
		s->aty = f8[at], s->bty = f8[bt], s->k = 32, s->dty = TY_F32;
		s->sf_b = v >> 4 & 3, s->sf_a = v >> 29 & 3;
		break;
	}
	s->neg_a = v >> 13 & 1, s->neg_b = v >> 14 & 1, s->mn_a = v >> 15 & 1, s->mn_b = v >> 16 & 1;
	s->n = (int)((v >> 17) & 63) * 8, s->m = (int)((v >> 24) & 31) * 16, s->sat = v >> 3 & 1;
	const char *why = NULL;
	if (v & 7)
		why = "sparsity";
	else if (in->ty != T5K_MXF8F6F4 && v >> 30)
		why = "a maximum shift (.ws)";
	else if (in->ty == T5K_MXF8F6F4 && (!(v >> 23 & 1) || v >> 31))
		why = "ue4m3 scales (only ue8m0 with kind::mxf8f6f4)";
	else if (!s->aty || !s->bty || (in->ty == T5K_F16 && s->aty != s->bty))
		why = "its A/B types";
	else if (!s->dty || (in->ty == T5K_I8) != (s->dty == TY_S32) || (in->ty == T5K_TF32 && s->dty != TY_F32))
		why = "its D type";
	else if (in->vec == 1 ? !(s->m == 64 || s->m == 128) || !s->n || s->n > 256 || (s->m == 128 && s->n % 16)
			      : !(s->m == 128 || s->m == 256) || !s->n || s->n > 256 || s->n % 16)
		why = "its M x N shape";
	if (why) {
		fault(t, in, "tcgen05.mma instruction descriptor 0x%08x: tile-run does not run %s", v, why);
		return false;
	}
	return true;
}

static uint32_t d_lane(const MmaShape *s, uint32_t base, int m)
{
	return base + (s->m == 128 ? (uint32_t)m : 32 * ((uint32_t)m / 16) + (uint32_t)m % 16);
}

/* element bits -> value */
static double fval(uint32_t bits, int ty)
{
	return ty == TY_TF32 ? small_to_double(bits & 0xffffe000u, TY_TF32) : small_to_double(bits, ty);
}

/* operand X (rows x K) into v: from shared memory by descriptor, or (A)
 * from tensor memory at taddr */
static bool operand_of(Thread *t, const Insn *in, const MmaShape *s, bool is_a, uint64_t descv, uint32_t taddr, double *v,
		       int64_t *iv, int rank)
{
	int ty = is_a ? s->aty : s->bty, rows = is_a ? s->m : s->n;
	uint32_t e = type_bytes[ty];
	bool integer = ty == TY_S8 || ty == TY_U8, mn = is_a ? s->mn_a : s->mn_b;
	MatDesc d;
	const char *why;
	if (taddr == UINT32_MAX && !desc_sm100(descv, &d, &why)) {
		fault(t, in, "tcgen05.mma %s descriptor 0x%016llx: %s", is_a ? "A" : "B", (unsigned long long)descv, why);
		return false;
	}
	struct Tmem *tm = tmem_of(t->cta);
	for (int x = 0; x < rows; x++)
		for (int k = 0; k < s->k; k++) {
			uint32_t bits = 0;
			if (taddr != UINT32_MAX) {
				int c = cell(t, in, d_lane(s, taddr >> 16, x), (taddr & 0xffff) + (uint32_t)k * e / 4, false);
				if (c < 0 || !access_ok(t, in, c, false, true))
					return false;
				bits = tm->cell[c] >> (8 * ((uint32_t)k * e % 4));
			} else {
				uint8_t *p = mem_at(t, in, SP_SHARED, cluster_addr(desc_elem(&d, mn, e, (uint32_t)x, (uint32_t)k), rank), e, ACC_READ);
				if (!p)
					return false;
				memcpy(&bits, p, e);
			}
			bits &= e == 4 ? 0xffffffffu : (1u << (8 * e)) - 1;
			size_t i = (size_t)x * (size_t)s->k + (size_t)k;
			if (integer)
				iv[i] = ty == TY_S8 ? (int8_t)bits : (int64_t)bits;
			else
				v[i] = fval(bits, ty);
		}
	return true;
}

static bool operand(Thread *t, const Insn *in, const MmaShape *s, bool is_a, uint64_t descv, uint32_t taddr, double *v,
		    int64_t *iv)
{
	return operand_of(t, in, s, is_a, descv, taddr, v, iv, t->cta->rank);
}

/* block scaling: the scale of row x (of A, or column x of B) at the scale
 * address sa: lane x%128, column + x/32, byte id (the layout
 * tcgen05.cp.32x128b.warpx4 leaves of a 128-row x 4-block atom: NVIDIA's
 * sm_100a block-scaled matmul matches numpy read this way) */
static bool scales(Thread *t, const Insn *in, uint32_t sa, uint32_t id, int rows, double *out)
{
	struct Tmem *tm = tmem_of(t->cta);
	for (int x = 0; x < rows; x++) {
		int c = cell(t, in, ((sa >> 16) & 0x3fff) + (uint32_t)x % 128, (sa & 0xffff) + (uint32_t)x / 32, false);
		if (c < 0 || !access_ok(t, in, c, false, true))
			return false;
		uint32_t b = tm->cell[c] >> (8 * id) & 0xff;
		out[x] = b == 0xff ? NAN : ldexp(1.0, (int)b - 127);
	}
	return true;
}

/* the products of one D cell: old its value, a / b (ai / bi for integers)
 * the K elements of its row of A and column of B, already scaled */
typedef struct Dot {
	bool acc;               /* enable-input-d */
	double scale_d, sgn;    /* scale-input-d's 2^-s, the negations */
} Dot;

static uint32_t dot_cell(const MmaShape *s, const Dot *dt, uint32_t old, const double *a, const double *b,
			 const int64_t *ai, const int64_t *bi)
{
	if (s->dty == TY_S32) {
		int64_t sum = dt->acc ? (int32_t)old : 0;
		for (int k = 0; k < s->k; k++)
			sum += ai[k] * bi[k];
		if (s->sat)
			sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
		return (uint32_t)sum;
	}
	double sum = !dt->acc ? 0 : (s->dty == TY_F16 ? small_to_double(old & 0xffff, TY_F16) : u2f(old)) * dt->scale_d;
	for (int k = 0; k < s->k; k++)
		sum += dt->sgn * a[k] * b[k];
	return s->dty == TY_F16 ? double_to_small(sum, TY_F16, RND_RN, false, false, false) : f2u(round_f32(sum, RND_RN));
}

static Dot dot_of(const Thread *t, const Insn *in, const MmaShape *s)
{
	const uint64_t *R = t->R;
	return (Dot){ R[in->s[4]] & 1, (in->boolop & T5F_SCALE_D) ? ldexp(1.0, -(int)R[in->s[5]]) : 1.0,
		      (s->neg_a ? -1.0 : 1.0) * (s->neg_b ? -1.0 : 1.0) };
}

/* cell x written by t's tcgen05 pipe (mma, cp): pending until t's next commit */
static void pend(struct Tmem *tm, const Thread *t, int x)
{
	tm->pend_tid[x] = t->tid + 1;
	tm->pend_ep[x] = tm->epoch[t->tid];
}

/* cta_group::2: a pair of CTAs (ranks p, p + 1, p = rank & ~1) computes one
 * product issued by a thread of either. M (128 or 256) is split between
 * them: CTA q's A is its M/2 rows at the descriptor's address in its own
 * shared memory; B's first N/2 rows (N x K) are CTA p's, the rest CTA
 * p + 1's, each at the descriptor's address in its own; CTA q's D (M/2 x N)
 * is in its own tensor memory at the same address: M 256 row i in lane i,
 * column j; M 128 row i in lane i + 64 (j / (N/2)), column j % (N/2) (each
 * CTA's 64 rows in all 128 lanes). Disable-output-lane registers 4(q - p)
 * on are CTA q's. Measured: NVIDIA's sm_100a num_ctas=2 matmul (M 128,
 * N 128) matches numpy read this way. The commit rule and racecheck follow
 * the issuing CTA's cells only. */
static int t5_mma2(Thread *t, const Insn *in, const MmaShape *s0)
{
	uint64_t *R = t->R;
	Run *r = t->run;
	const int32_t *xs = &r->m->xs[in->target];
	int p = t->cta->rank & ~1;
	if (p + 1 >= r->ncl) {
		fault(t, in, "tcgen05.mma.cta_group::2 in CTA rank %d: its peer (rank %d) is not in the cluster of %d", t->cta->rank,
		      t->cta->rank ^ 1, r->ncl);
		return ST_FAULT;
	}
	if (in->boolop & T5F_A_TMEM) {
		fault(t, in, "tcgen05.mma.cta_group::2 with A in tensor memory is not modelled");
		return ST_FAULT;
	}
	MmaShape s = *s0;
	int mh = s.m / 2, nh = s.n / 2;
	uint32_t d = (uint32_t)(R[in->s[0]] + (uint64_t)(int64_t)xs[0]);
	size_t na = (size_t)mh * (size_t)s.k, nb = (size_t)s.n * (size_t)s.k;
	double *fa = xcalloc(2 * na + nb, sizeof *fa), *fb = fa + 2 * na;
	int64_t *ia = xcalloc(2 * na + nb, sizeof *ia), *ib = ia + 2 * na;
	int st = ST_FAULT;
	MmaShape half = s;
	half.m = mh, half.n = nh;
	for (int q = 0; q < 2; q++)
		if (!operand_of(t, in, &half, true, R[in->s[1]], UINT32_MAX, fa + q * na, ia + q * na, p + q) ||
		    !operand_of(t, in, &half, false, R[in->s[2]], UINT32_MAX, fb + q * (nb / 2), ib + q * (nb / 2), p + q))
			goto out;
	Dot dt = dot_of(t, in, &s);
	for (int q = 0; q < 2; q++) {
		Cta *c = &r->cl[p + q];
		struct Tmem *tm = tmem_of(c);
		bool own = c == t->cta;
		for (int m = 0; m < mh; m++)
			for (int n = 0; n < s.n; n++) {
				uint32_t lane = (d >> 16) + (uint32_t)(s.m == 256 ? m : m + 64 * (n / nh));
				uint32_t col = (d & 0xffff) + (uint32_t)(s.m == 256 ? n : n % nh);
				if ((in->boolop & T5F_DISABLE) && lane < LANES && (R[in->s[6 + 4 * q + lane / 32]] >> (lane % 32) & 1))
					continue;
				if (lane >= LANES || col >= COLS || !tm->used[col]) {
					fault(t, in, "tcgen05.mma.cta_group::2: tensor-memory lane %u column %u of CTA rank %d is not allocated",
					      lane, col, p + q);
					goto out;
				}
				int x = (int)(lane * COLS + col);
				if (own && !access_ok(t, in, x, true, true))
					goto out;
				size_t ra = q * na + (size_t)m * (size_t)s.k, rb = (size_t)n * (size_t)s.k;
				tm->cell[x] = dot_cell(&s, &dt, tm->cell[x], fa + ra, fb + rb, ia + ra, ib + rb);
				if (own)
					pend(tm, t, x);
			}
	}
	st = ST_NEXT;
out:
	free(fa);
	free(ia);
	return st;
}

static int t5_mma(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	struct Tmem *tm = tmem_of(t->cta);
	const int32_t *xs = &t->run->m->xs[in->target];
	MmaShape s;
	if (!idesc(t, in, (uint32_t)R[in->s[3]], &s))
		return ST_FAULT;
	if (in->vec == 2)
		return t5_mma2(t, in, &s);
	uint32_t d = (uint32_t)(R[in->s[0]] + (uint64_t)(int64_t)xs[0]);
	uint32_t at = (in->boolop & T5F_A_TMEM) ? (uint32_t)(R[in->s[1]] + (uint64_t)(int64_t)xs[1]) : UINT32_MAX;
	size_t na = (size_t)s.m * (size_t)s.k, nb = (size_t)s.n * (size_t)s.k;
	double *fa = xcalloc(na + nb, sizeof *fa), *fb = fa + na;
	int64_t *ia = xcalloc(na + nb, sizeof *ia), *ib = ia + na;
	int st = ST_FAULT;
	if (!operand(t, in, &s, true, R[in->s[1]], at, fa, ia) || !operand(t, in, &s, false, R[in->s[2]], UINT32_MAX, fb, ib))
		goto out;
	if (in->ty == T5K_MXF8F6F4) {
		double sa[128], sb[256];
		if (!scales(t, in, (uint32_t)(R[in->s[10]] + (uint64_t)(int64_t)xs[2]), s.sf_a, s.m, sa) ||
		    !scales(t, in, (uint32_t)(R[in->s[11]] + (uint64_t)(int64_t)xs[3]), s.sf_b, s.n, sb))
			goto out;
		for (size_t i = 0; i < na; i++)
			fa[i] *= sa[i / (size_t)s.k];
		for (size_t i = 0; i < nb; i++)
			fb[i] *= sb[i / (size_t)s.k];
	}
	Dot dt = dot_of(t, in, &s);
	for (int m = 0; m < s.m; m++) {
		uint32_t lane = d_lane(&s, d >> 16, m);
		if ((in->boolop & T5F_DISABLE) && lane < LANES && (R[in->s[6 + lane / 32]] >> (lane % 32) & 1))
			continue;
		for (int n = 0; n < s.n; n++) {
			int x = cell(t, in, lane, (d & 0xffff) + (uint32_t)n, false);
			if (x < 0 || !access_ok(t, in, x, true, true))
				goto out;
			size_t ra = (size_t)m * (size_t)s.k, rb = (size_t)n * (size_t)s.k;
			tm->cell[x] = dot_cell(&s, &dt, tm->cell[x], fa + ra, fb + rb, ia + ra, ib + rb);
			pend(tm, t, x);
		}
	}
	st = ST_NEXT;
out:
	free(fa);
	free(ia);
	return st;
}

/* tcgen05.cp: rows of 16-byte chunks from shared memory (the descriptor's
 * K-major layout with 4-byte elements: row r word k at desc_elem(r, k)) to
 * tensor memory, row r to the lanes its shape gives, word k to column + k */
static int t5_cp(Thread *t, const Insn *in)
{
	static const int rows[] = { 0, 128, 128, 4, 64, 64, 32 }, words[] = { 0, 8, 4, 8, 4, 4, 4 };
	struct Tmem *tm = tmem_of(t->cta);
	const int32_t *xs = &t->run->m->xs[in->target];
	uint32_t a = (uint32_t)(t->R[in->s[0]] + (uint64_t)(int64_t)xs[0]);
	MatDesc d;
	const char *why;
	if (!desc_sm100(t->R[in->s[1]], &d, &why)) {
		fault(t, in, "tcgen05.cp descriptor 0x%016llx: %s", (unsigned long long)t->R[in->s[1]], why);
		return ST_FAULT;
	}
	for (uint32_t r = 0; r < (uint32_t)rows[in->cmp]; r++) {
		uint32_t lanes[4], nl = 0;
		switch (in->cmp) {
		case T5C_4X256B: lanes[nl++] = 32 * r; break;
		case T5C_64X128B_02_13: lanes[nl++] = r, lanes[nl++] = r + 64; break;
		case T5C_64X128B_01_23: lanes[nl++] = 64 * (r / 32) + r % 32, lanes[nl++] = 64 * (r / 32) + r % 32 + 32; break;
		case T5C_32X128B_X4: for (uint32_t q = 0; q < 4; q++) lanes[nl++] = r + 32 * q; break;
		default: lanes[nl++] = r; break;
		}
		for (uint32_t k = 0; k < (uint32_t)words[in->cmp]; k++) {
			uint8_t *p = mem_at(t, in, SP_SHARED, cluster_addr(desc_elem(&d, false, 4, r, k), t->cta->rank), 4, ACC_READ);
			if (!p)
				return ST_FAULT;
			uint32_t v;
			memcpy(&v, p, 4);
			for (uint32_t j = 0; j < nl; j++) {
				int x = cell(t, in, (a >> 16) + lanes[j], (a & 0xffff) + k, false);
				if (x < 0 || !access_ok(t, in, x, true, true))
					return ST_FAULT;
				tm->cell[x] = v;
				pend(tm, t, x);
			}
		}
	}
	return ST_NEXT;
}

static int t5_commit(Thread *t, const Insn *in)
{
	struct Tmem *tm = tmem_of(t->cta);
	tm->epoch[t->tid]++;
	uint64_t a = t->R[in->s[0]] + (uint64_t)in->off;
	if (in->boolop & T5F_MULTICAST) {       /* the mbarrier at a's offset in each CTA of the mask (none:
						 * NVIDIA's cta_group::2 peer commits with an empty mask) */
		uint32_t mask = (uint32_t)t->R[in->s[1]];
		if (mask >> t->run->ncl) {
			fault(t, in, "tcgen05.commit multicast to CTA mask 0x%x: ranks outside the cluster of %d CTAs", mask,
			      t->run->ncl);
			return ST_FAULT;
		}
		for (int r = 0; r < t->run->ncl; r++)
			if (mask >> r & 1 && !mbar_arrive_one(t, in, cluster_addr(a, r), SP_SHARED))
				return ST_FAULT;
		return ST_NEXT;
	}
	return mbar_arrive_one(t, in, a, SP_SHARED) ? ST_NEXT : ST_FAULT;
}

int exec_tcgen05(Thread *t, const Insn *in)
{
	switch (in->mode) {
	case T5_LD: case T5_ST:
		return ldst(t, in);
	case T5_MMA:
		return t5_mma(t, in);
	case T5_COMMIT:
		return t5_commit(t, in);
	case T5_CP:
		return t5_cp(t, in);
	default:                /* wait::ld/st, fences: accesses complete at issue */
		return ST_NEXT;
	}
}

void tmem_free(Cta *c)
{
	if (!c->tmem)
		return;
	free(c->tmem->epoch);
	free(c->tmem);
	c->tmem = NULL;
}
