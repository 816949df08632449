/* run.h: tile-run, a PTX interpreter that executes compiled tile kernels
 * on the host (docs/tile-run.md).
 *
 * Pipeline inside the tool, one file per job:
 *   lex.c      PTX text -> tokens (line numbers kept)
 *   parse.c    tokens -> Module: variables, functions, raw instructions
 *   decode.c   raw instruction -> Insn (opcode/type/modifier enums; operands
 *              by ops.def's signatures), Hopper's forms in decode_async.c
 *   operand.c  operands -> register slots (immediates and symbol addresses
 *              as constant slots), under decode.c, decode_async.c, parse.c
 *   mem.c      device memory: buffers, windows, memcheck; race.c racecheck
 *   sched.c    grid -> CTAs -> threads as cooperative contexts; collectives
 *   interp.c   the instruction loop (one switch), families in exec_*.c
 *   fault.c    a kernel fault's report: the bottom of the call graph
 *   npy.c      NumPy .npy in/out        printf.c  device vprintf
 *   abi.c      cuTile's parameter ABI read from the mangled kernel name
 * Above it, libtilerun/ (tilerun.h): the C API that loads a module and
 * launches it on a caller's buffers, and the command (libtilerun/cli.c:
 * options and arguments; run_main.c its main).
 *
 * Values: every register slot is a uint64_t. Integer results of signed
 * types are stored sign-extended to 64 bits, every other result
 * zero-extended; readers truncate to the operand's type. Floats are stored
 * as their bit patterns. Immediates, symbol addresses and special registers
 * also live in slots (filled when a thread starts), so an operand is always
 * R[slot] in the hot loop.
 *
 * Errors: user errors (bad PTX, unsupported instruction, bad arguments)
 * are one line "tile-run: error: ..." through diag (the command prints it
 * and exits 1, 2 for usage; the library returns it as its message); kernel
 * faults are 3 (fault.c); nothing here exits; internal bugs abort (ice()). All of it is libcommon's
 * (diag.h with diag_tool "tile-run", xalloc.h): tile-run has no allocator
 * or message printer of its own. */
#ifndef TILE_RUN_H
#define TILE_RUN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "diag.h"          /* diag_plain: "tile-run: error: MSG"; ice: internal bugs */
#include "xalloc.h"

enum {
	RUN_OK = 0, RUN_INPUT = 1, RUN_USAGE = 2, RUN_FAULT = 3,
};

typedef enum {
	TY_NONE,
#define T(n, e, b, k) TY_##e,
#include "types.def"
#undef T
	TY_COUNT
} Ty;

typedef enum {
	OP_NONE,
#define O(n, e, f, operands) OP_##e,
#include "ops.def"
#undef O
	OP_COUNT,
	/* internal forms chosen by the decoder */
	OP_MOV_CLOCK,           /* mov from %clock/%clock64/%globaltimer */
	OP_ASYNC,               /* cp.async.bulk[.tensor], cp.async.mbarrier.arrive (exec_async.c) */
	OP_CALL_VPRINTF, OP_CALL_MALLOC, OP_CALL_FREE, OP_CALL_ASSERT, OP_CALL_FUNC,   /* last: target is a call */
} Op;

typedef enum { SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST } Space;

typedef enum { RND_DEFAULT, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RS } Rnd;

typedef enum {
	CMP_NONE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE,
	CMP_LO, CMP_LS, CMP_HI, CMP_HS,
	CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN,
} Cmp;

/* atom/red/redux operations; shfl and vote modes share the mode field */
typedef enum {
	AOP_NONE, AOP_ADD, AOP_MIN, AOP_MAX, AOP_INC, AOP_DEC, AOP_EXCH, AOP_CAS,
	AOP_AND, AOP_OR, AOP_XOR,
} AtomOp;
enum { SHFL_UP = 1, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };
enum { VOTE_ALL = 1, VOTE_ANY, VOTE_UNI, VOTE_BALLOT };
enum { MATCH_ANY = 1, MATCH_ALL };
enum { PRMT_DEFAULT, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16 };
enum { BAR_SYNC = 1, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR, BAR_WARP_SYNC,
       BAR_CLUSTER_ARRIVE, BAR_CLUSTER_WAIT };     /* barrier.cluster (exec_cluster.c); boolop 1: .relaxed */
enum { CP_ASYNC = 1, CP_COMMIT, CP_WAIT_GROUP, CP_WAIT_ALL };
enum { TRAP_FELL_OFF = 1 };     /* OP_TRAP: the sentinel after a function's last instruction (parse.c) */
/* Hopper async machinery (decode_async.c, exec_async.c, exec_wgmma.c): Insn.mode */
enum { MB_INIT = 1, MB_ARRIVE, MB_ARRIVE_DROP, MB_EXPECT_TX, MB_COMPLETE_TX, MB_TEST_WAIT, MB_TRY_WAIT, MB_INVAL,
       MB_PENDING };                                            /* OP_MBARRIER */
enum { AS_MBAR_ARRIVE = 1, AS_BULK, AS_TENSOR, AS_NOP };        /* OP_ASYNC */
enum { WG_FENCE = 1, WG_COMMIT, WG_WAIT, WG_MMA };              /* OP_WGMMA */
/* Blackwell's tcgen05 (decode_tcgen05.c, exec_tcgen05.c): Insn.mode, ld/st shape (Insn.cmp),
 * mma kind (Insn.ty), Insn.boolop bits */
enum { T5_ALLOC = 1, T5_DEALLOC, T5_RELINQUISH, T5_LD, T5_ST, T5_WAIT, T5_FENCE, T5_MMA, T5_COMMIT, T5_CP };
enum { T5S_32X32B = 1, T5S_16X64B, T5S_16X128B, T5S_16X256B, T5S_16X32BX2 };
enum { T5K_F16 = 1, T5K_TF32, T5K_F8F6F4, T5K_I8, T5K_MXF8F6F4 };   /* the last: .block_scale.block32 */
/* tcgen05.cp shapes (Insn.cmp) */
enum { T5C_128X256B = 1, T5C_128X128B, T5C_4X256B, T5C_64X128B_02_13, T5C_64X128B_01_23, T5C_32X128B_X4 };
enum { T5F_PACK = 1, T5F_A_TMEM = 2, T5F_DISABLE = 4, T5F_SCALE_D = 8, T5F_MULTICAST = 16 };
/* Insn.boolop bits of those ops */
enum { AF_PARITY = 1, AF_EXPECT_TX = 2, AF_NOINC = 4, AF_TRANS_A = 8, AF_TRANS_B = 16, AF_NEG_A = 32, AF_NEG_B = 64,
       AF_A_REGS = 128 /* wgmma: A in registers (Module.xs after D) */ };
enum { MMA_M16N8K16 = 1, MMA_M16N8K8, MMA_M16N8K32, MMA_M8N8K4 };     /* mma.sync shapes (exec_mma.c) */
/* exec_mma.c: the registers of A, B and C/D of an mma.sync shape and its
 * A, B, D types; false if tile-run does not have it */
bool mma_regs(int shape, int a, int b, int d, int *na, int *nb, int *nc);

/* Insn.flags */
enum {
	F_FTZ = 1 << 0, F_SAT = 1 << 1, F_SATFINITE = 1 << 2, F_APPROX = 1 << 3,
	F_WIDE = 1 << 4, F_HI = 1 << 5, F_LO = 1 << 6, F_CC = 1 << 7,
	F_NAN = 1 << 8, F_ABS = 1 << 9, F_XORSIGN = 1 << 10, F_RELU = 1 << 11,
	F_INTRND = 1 << 12,     /* cvt rounding to an integral value (.rni ...) */
	F_WRAP = 1 << 13, F_LEFT = 1 << 14, F_TO = 1 << 15, F_SHIFTAMT = 1 << 16,
	F_PRED_OUT = 1 << 17,   /* shfl/setp with a second predicate output */
	F_NEGB = 1 << 18,       /* setp/set combining predicate negated (!%p) */
	F_FULL = 1 << 19, F_NOFTZ = 1 << 20, F_PRED_SRC = 1 << 21,
	F_ZFILL = 1 << 22,      /* cp.async with a src-size operand */
	F_UNI = 1 << 23,
	F_TRANS = 1 << 24,      /* ldmatrix/stmatrix .trans */
	F_BSCALE = 1 << 25,     /* mma.sync .block_scale */
	F_KIND_MX = 1 << 26,    /* mma.sync .kind::mxf8f6f4 */
	F_CLUSTER = 1 << 30,    /* .shared::cluster: may name another CTA's shared memory (exec_cluster.c) */
	F_MCAST = 1 << 29,      /* cp.async.bulk[.tensor] .multicast::cluster: ctaMask is s[ns - 1] */
};

#define MAX_DST 4
#define MAX_SRC 16      /* mma.sync: 4 + 2 + 4, block-scaled + scale A, byte, thread, scale B, byte, thread */

typedef struct Insn {
	uint16_t op;
	uint8_t ty, ty2;        /* instruction type; cvt's source type, setp's... */
	uint8_t rnd, space, vec, mode;
	uint8_t cmp, boolop;    /* setp/set comparison and combining op (AOP_AND...) */
	uint8_t nd, ns;
	uint8_t gneg;           /* guard negated */
	int32_t guard;          /* predicate slot, -1 none */
	uint32_t flags;
	int32_t d[MAX_DST];
	int32_t s[MAX_SRC];
	int64_t off;            /* address offset of the memory operand */
	int32_t target;         /* branch target (instruction index), call info */
	uint32_t line;          /* PTX line */
	uint32_t loc;           /* index into Module.locs, 0 none */
} Insn;

typedef struct Param {
	char *name;
	int ty;                 /* scalar type, or TY_B8 with size for arrays */
	uint32_t size, align, offset;
	bool ptr;               /* .ptr attribute */
	bool hidden;            /* .hidden: NVIDIA's TMA tensor maps, filled by its host code */
} Param;

/* .func call: how a call site's parameter symbols map to the callee's */
typedef struct CallInfo {
	int func;               /* index into Module.funcs */
	int nargs, nrets;
	uint32_t arg_off[16], arg_size[16];     /* caller param offsets */
	uint32_t ret_off[4], ret_size[4];
} CallInfo;

typedef struct Func {
	char *name;
	bool entry, external, defined;
	int nparams, nrets;
	Param *params, *rets;
	uint32_t reqntid[3], maxntid[3];
	uint32_t reqncluster[3];        /* .reqnctapercluster, 0s if none */
	uint32_t maxclusterrank;        /* .maxclusterrank, 0 if none */
	bool explicitcluster;           /* .explicitcluster */
	bool blocksareclusters;         /* .blocksareclusters: the launch's grid counts clusters */
	Insn *code;
	int ncode;
	int nslots;             /* register file size */
	uint64_t *init;         /* slot template: constants and symbol addresses */
	int32_t *rank_slots;    /* the slots of shared-variable addresses: each CTA adds its rank bits */
	int nrank_slots;
	int32_t *sreg_slot;     /* special register id -> slot, -1 */
	uint32_t pbytes;        /* param area: signature params + call-site params */
	uint32_t lbase, lbytes; /* local area: offset in each thread's local memory */
	uint32_t shared_end;    /* end of the kernel's own .shared variables */
	uint32_t line;
} Func;

typedef struct Var {
	char *name;
	int space;
	uint32_t size, align;
	uint8_t *init;          /* NULL: zeros */
	uint64_t addr;          /* global/const: device address; shared: offset */
	bool visible, external;
} Var;

typedef struct Loc {
	uint32_t file, line, col;
} Loc;

typedef struct Module {
	char *path;
	int sm;                 /* from .target, e.g. 90 */
	Var *vars;
	int nvars;
	Func *funcs;
	int nfuncs;
	char **files;           /* .file index -> name */
	int nfiles;
	Loc *locs;
	int nlocs;
	uint32_t shared_static; /* end of the module-scope .shared variables */
	uint64_t vars_bytes;    /* .global/.const variables, from DEV_VARS_BASE */
	uint32_t local_total;   /* bytes of .local per thread, all functions */
	CallInfo *calls;
	int ncalls;
	int32_t *xs;            /* extra operand slots (wgmma's D registers, bulk copies' offsets): Insn.target indexes */
	int nxs;
} Module;

/* Device address map. Global-space addresses are generic addresses; the
 * shared and local windows map generic addresses to the per-CTA shared
 * memory and the running thread's local memory (offsets from 0 in their
 * own state space). */
#define DEV_VARS_BASE   0x0000000100000000ull   /* module .global/.const */
#define DEV_HEAP_BASE   0x0000001000000000ull   /* arguments, malloc */
#define GEN_SHARED_BASE 0x0000700000000000ull
#define GEN_LOCAL_BASE  0x0000710000000000ull
#define GEN_WINDOW      0x0000000100000000ull
/* A shared address (and the shared window's offset of a generic one) is
 * rank << SHARED_RANK_SHIFT | offset, rank the %cluster_ctarank of the CTA
 * whose memory it is: a CTA's own variables' addresses carry its rank
 * (Func.rank_slots), mapa puts another's (exec_cluster.c, mem.c). NVIDIA's
 * cluster PTX relies on it: it splits mapa'd addresses into a >> 24 (the
 * rank) and a & 0xffffff (the offset). */
#define SHARED_RANK_SHIFT 24
#define SHARED_OFF_MASK ((1u << SHARED_RANK_SHIFT) - 1)

/* special registers: S(name, id); filled per thread (clock ones read live) */
#define SREGS(S) \
	S("%tid.x", SR_TID_X) S("%tid.y", SR_TID_Y) S("%tid.z", SR_TID_Z) \
	S("%ntid.x", SR_NTID_X) S("%ntid.y", SR_NTID_Y) S("%ntid.z", SR_NTID_Z) \
	S("%ctaid.x", SR_CTAID_X) S("%ctaid.y", SR_CTAID_Y) S("%ctaid.z", SR_CTAID_Z) \
	S("%nctaid.x", SR_NCTAID_X) S("%nctaid.y", SR_NCTAID_Y) S("%nctaid.z", SR_NCTAID_Z) \
	S("%clusterid.x", SR_CLUSTERID_X) S("%clusterid.y", SR_CLUSTERID_Y) S("%clusterid.z", SR_CLUSTERID_Z) \
	S("%nclusterid.x", SR_NCLUSTERID_X) S("%nclusterid.y", SR_NCLUSTERID_Y) S("%nclusterid.z", SR_NCLUSTERID_Z) \
	S("%cluster_ctaid.x", SR_CCTAID_X) S("%cluster_ctaid.y", SR_CCTAID_Y) S("%cluster_ctaid.z", SR_CCTAID_Z) \
	S("%cluster_nctaid.x", SR_CNCTAID_X) S("%cluster_nctaid.y", SR_CNCTAID_Y) S("%cluster_nctaid.z", SR_CNCTAID_Z) \
	S("%cluster_ctarank", SR_CTARANK) S("%cluster_nctarank", SR_NCTARANK) \
	S("%is_explicit_cluster", SR_EXPLICIT_CLUSTER) \
	S("%laneid", SR_LANEID) S("%warpid", SR_WARPID) S("%nwarpid", SR_NWARPID) \
	S("%smid", SR_SMID) S("%nsmid", SR_NSMID) S("%gridid", SR_GRIDID) \
	S("%lanemask_eq", SR_LM_EQ) S("%lanemask_le", SR_LM_LE) S("%lanemask_lt", SR_LM_LT) \
	S("%lanemask_ge", SR_LM_GE) S("%lanemask_gt", SR_LM_GT) \
	S("%dynamic_smem_size", SR_DYN_SMEM) S("%total_smem_size", SR_TOTAL_SMEM) \
	S("%aggr_smem_size", SR_AGGR_SMEM) \
	S("%clock", SR_CLOCK) S("%clock64", SR_CLOCK64) S("%globaltimer", SR_GTIMER) \
	S("%globaltimer_lo", SR_GTIMER_LO) S("%globaltimer_hi", SR_GTIMER_HI)
enum {
#define S(n, e) e,
	SREGS(S)
#undef S
	SR_COUNT
};
#define SR_FIRST_LIVE SR_CLOCK

/* ---- lex.c / parse.c ---- */
/* Parse PTX text. NULL after a message naming path:line. */
Module *ptx_parse(const char *path, const char *text, size_t len);
void ptx_module_free(Module *m);
int type_from_name(const char *s);      /* TY_..., 0 if not a type */
extern const char *const type_names[TY_COUNT];
extern const uint8_t type_bytes[TY_COUNT];
extern const char type_kind[TY_COUNT];  /* 'B','U','S','F','P','X' */

/* ---- decode.c (called by parse.c per instruction) ---- */
typedef struct RawOperand RawOperand;
struct DecodeCtx;
int decode_insn(struct DecodeCtx *dc, Insn *out, const char *opcode, RawOperand *ops, int nops);

#endif
