/* target.h: the GPU targets we compile for and what each can do. */
#ifndef TILE_TARGET_H
#define TILE_TARGET_H
#include <stdbool.h>

enum {
	TF_MMA_SYNC = 1 << 0,   /* warp-level mma.sync (sm_75+; f16 m16n8k8 on sm_75) */
	TF_CP_ASYNC = 1 << 1,   /* cp.async global->shared (sm_80+) */
	TF_BF16 = 1 << 2,       /* bf16 arithmetic and conversions in hardware */
	TF_TF32 = 1 << 3,
	TF_FP8 = 1 << 4,        /* e4m3/e5m2 conversions (cvt) */
	TF_TMA = 1 << 5,        /* cp.async.bulk.tensor + mbarrier transactions (sm_90+) */
	TF_CLUSTERS = 1 << 6,   /* thread-block clusters, distributed shared memory */
	TF_WGMMA = 1 << 7,      /* warpgroup MMA (sm_90a only) */
	TF_TCGEN05 = 1 << 8,    /* tcgen05.mma, tensor memory (sm_100a family) */
	TF_FP4 = 1 << 9,        /* e2m1 conversions */
	TF_ARCH_A = 1 << 10,    /* has an arch-specific 'a' variant */
	TF_ARCH_F = 1 << 11,    /* has a family-specific 'f' variant (PTX 8.8+: sm_100f, sm_120f, ...) */
};

/* Which PTX ".target" of a GPU: the plain one, its arch-specific variant
 * (sm_90a: runs on that GPU only) or its family-specific one (sm_100f: runs
 * on the GPUs of its family from this one on). */
typedef enum { TARGET_PLAIN, TARGET_ARCH, TARGET_FAMILY } TargetVariant;

typedef struct Target {
	const char *name;       /* "sm_90" */
	int sm;                 /* 90 */
	int min_ptx;            /* 78 = PTX ISA 7.8 */
	int smem_kib;
	int param_cbank;        /* constant-bank offset of the kernel parameters, 0: not known */
	unsigned features;
	const char *llvm_as;    /* NULL, or the row LLVM generates this target's PTX as (targets.def) */
} Target;

extern const Target target_table[];
extern const int target_count;
const Target *target_by_name(const char *name);   /* NULL if unsupported */
const Target *target_by_sm(int sm);               /* the row of compute capability sm, NULL if none */
/* The most static shared memory a kernel may have on target sm, bytes: what
 * a block may opt into (smem_kib), which ptxas allows with
 * --enable-extended-smem=true (tile-pack passes it, as NVIDIA's tileiras);
 * 48 KiB for an sm with no row. */
long long target_smem_limit(int sm);
static inline bool target_has(const Target *t, unsigned f) { return (t->features & f) != 0; }
/* PTX ".target" / LLVM CPU: "sm_90a" / "sm_100f" when the target has that
 * variant, else the plain "sm_90". */
const char *target_ptx_arch(const Target *t, TargetVariant v);
/* The processor LLVM generates t's PTX for, in the same variant: t's own
 * name, or its llvm_as row's ("sm_100a" for sm_107a). */
const char *target_llvm_arch(const Target *t, TargetVariant v);
/* Comma-separated list of supported names, for messages. */
const char *target_list(void);
#endif
