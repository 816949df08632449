#!/usr/bin/env python3
"""Writes tma_wgmma.ptx (committed; rerun after editing this file).

tma_wgmma: D[64][64] (f32) = A[64][K] @ B[64][K]^T, K = 64, f16, one CTA of
160 threads: warp 4 is the producer (thread 128 initializes the mbarrier;
an elected lane issues arrive.expect_tx and the TMA loads of A and B in
chunks of KW elements of their inner dimension, each chunk a box KW x 64 at
shared offset chunk * 64*KW*2); warps 0-3 (one warpgroup) wait on the
mbarrier (try_wait.parity), then run 4 wgmma.mma_async m64n64k16 steps with
descriptors built from the parameters, and store their D fragments.
tma_wgmma_t: the same with B given as [K][N] (N contiguous) and read
MN-major (wgmma's transpose-B immediate 1): B's chunks hold KW columns n,
row k at k*KW*2, and its descriptor has its own LBO/SBO (blbo, bsbo).
Parameters:
  a, b, d           arrays; tma, tmb the tensor maps of a and b (box KW x 64)
  kw                inner elements per TMA chunk (8 no swizzle, 16/32/64 for 32B/64B/128B)
  swz               the descriptors' swizzle code (0 none, 3 32B, 2 64B, 1 128B)
  lbo, sbo          leading / stride byte offsets of the descriptors (bytes)
"""
import os

K = 64
lines = []
w = lines.append


def entry(trans):
    name = "tma_wgmma_t" if trans else "tma_wgmma"
    w("""
.visible .entry %s(
	.param .u64 a, .param .u64 b, .param .u64 d,
	.param .align 64 .b8 tma[128], .param .align 64 .b8 tmb[128],
	.param .u32 kw, .param .u32 swz, .param .u32 lbo, .param .u32 sbo%s)
.reqntid 160
{
	.reg .pred %%p<8>;
	.reg .b32 %%r<40>;
	.reg .b64 %%rd<40>;
	.reg .f32 %%f<32>;
	.shared .align 1024 .b8 smem[16384];
	.shared .align 8 .b64 bar;

	mov.u32 %%r0, %%tid.x;
	shr.u32 %%r1, %%r0, 5;                    // warp
	ld.param.u32 %%r2, [kw];
	ld.param.u32 %%r3, [swz];
	ld.param.u32 %%r4, [lbo];
	ld.param.u32 %%r5, [sbo];
	setp.ne.u32 %%p0, %%r0, 128;
	@%%p0 bra INITED;
	mov.u32 %%r6, 1;
	mbarrier.init.shared.b64 [bar], %%r6;
	fence.mbarrier_init.release.cluster;
INITED:
	bar.sync 0;
	setp.lt.u32 %%p1, %%r1, 4;
	@%%p1 bra CONSUMER;
	// producer warp: one elected lane issues the loads
	elect.sync %%r7|%%p2, 0xffffffff;
	@!%%p2 bra DONE;
	setmaxnreg.dec.sync.aligned.u32 40;
	mov.u64 %%rd1, tma;
	cvta.param.u64 %%rd1, %%rd1;              // tensor maps: generic addresses of the parameters
	mov.u64 %%rd2, tmb;
	cvta.param.u64 %%rd2, %%rd2;
	prefetch.tensormap [%%rd1];
	mov.u32 %%r8, 16384;
	mbarrier.arrive.expect_tx.shared.b64 %%rd3, [bar], %%r8;
	mov.u32 %%r9, 0;                         // inner coordinate of the chunk
	mov.u32 %%r17, 0;                        // outer coordinate
	mov.u32 %%r10, smem;                     // shared address of A's chunk
	shl.b32 %%r11, %%r2, 7;                   // chunk bytes: 64 rows * kw * 2
CHUNK:
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%%r10], [%%rd1, {%%r9, %%r17}], [bar];
	add.u32 %%r12, %%r10, 8192;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%%r12], [%%rd2, {%%r9, %%r17}], [bar];
	add.u32 %%r10, %%r10, %%r11;
	add.u32 %%r9, %%r9, %%r2;
	setp.lt.u32 %%p3, %%r9, %d;
	@%%p3 bra CHUNK;
	bra DONE;
CONSUMER:
	mov.u32 %%r13, 0;
WAIT:
	mbarrier.try_wait.parity.shared.b64 %%p4, [bar], %%r13;
	@!%%p4 bra WAIT;""" % (name, ", .param .u32 blbo, .param .u32 bsbo" if trans else "", K))
    # descriptor fields that do not depend on k: LBO, SBO, swizzle (A: rd4; B: rd11)
    for lreg, sreg, dreg in (("%r4", "%r5", "%rd4"),) + ((("%r30", "%r31", "%rd11"),) if trans else ()):
        if trans and dreg == "%rd11":
            w("	ld.param.u32 %r30, [blbo];")
            w("	ld.param.u32 %r31, [bsbo];")
        w("	shr.u32 %%r14, %s, 4;" % lreg)
        w("	cvt.u64.u32 %s, %%r14;" % dreg)
        w("	shl.b64 %s, %s, 16;" % (dreg, dreg))
        w("	shr.u32 %%r15, %s, 4;" % sreg)
        w("	cvt.u64.u32 %rd5, %r15;")
        w("	shl.b64 %rd5, %rd5, 32;")
        w("	or.b64 %s, %s, %%rd5;" % (dreg, dreg))
        w("	cvt.u64.u32 %rd6, %r3;")
        w("	shl.b64 %rd6, %rd6, 62;")
        w("	or.b64 %s, %s, %%rd6;" % (dreg, dreg))
    w("	mov.u32 %r16, smem;")
    w("	shl.b32 %r11, %r2, 7;")
    w("	wgmma.fence.sync.aligned;")
    regs = ", ".join("%%f%d" % i for i in range(32))
    for s in range(K // 16):
        k0 = 16 * s
        w("	// k step %d: A at chunk k0/kw, k0%%kw elements into it (no swizzle: kw = 8, two chunks LBO apart)" % s)
        w("	mov.u32 %%r18, %d;" % k0)
        w("	div.u32 %r19, %r18, %r2;")
        w("	rem.u32 %r20, %r18, %r2;")
        w("	mul.lo.u32 %r21, %r19, %r11;")
        w("	shl.b32 %r20, %r20, 1;")
        w("	add.u32 %r21, %r21, %r20;")
        w("	add.u32 %r22, %r16, %r21;              // A")
        if trans:
            w("	mul.lo.u32 %r23, %r18, %r2;")
            w("	shl.b32 %r23, %r23, 1;")
            w("	add.u32 %r23, %r23, 8192;")
            w("	add.u32 %r23, %r23, %r16;              // B: row k0 of chunk 0 (MN-major)")
        else:
            w("	add.u32 %r23, %r22, 8192;              // B")
        for reg, dreg, base in (("%r22", "%rd7", "%rd4"), ("%r23", "%rd8", "%rd11" if trans else "%rd4")):
            w("	shr.u32 %%r24, %s, 4;" % reg)
            w("	and.b32 %r24, %r24, 16383;")
            w("	cvt.u64.u32 %s, %%r24;" % dreg)
            w("	or.b64 %s, %s, %s;" % (dreg, dreg, base))
        w("	setp.ne.u32 %%p5, %d, 0;" % s)
        w("	wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%s}, %%rd7, %%rd8, %%p5, 1, 1, 0, %d;" % (regs, trans))
    w("	wgmma.commit_group.sync.aligned;")
    w("	wgmma.wait_group.sync.aligned 0;")
    w("""	// D fragment: element i at row 16w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2
	and.b32 %r25, %r0, 31;
	shr.u32 %r26, %r25, 2;
	shl.b32 %r27, %r1, 4;
	add.u32 %r26, %r26, %r27;               // row
	and.b32 %r28, %r25, 3;
	shl.b32 %r28, %r28, 1;                  // column
	mad.lo.u32 %r29, %r26, 64, %r28;
	ld.param.u64 %rd9, [d];
	cvta.to.global.u64 %rd9, %rd9;
	mul.wide.u32 %rd10, %r29, 4;
	add.u64 %rd9, %rd9, %rd10;""")
    for i in range(32):
        off = ((8 * ((i // 2) % 2)) * 64 + 8 * (i // 4) + i % 2) * 4
        w("	st.global.f32 [%%rd9+%d], %%f%d;" % (off, i))
    w("""DONE:
	ret;
}""")


w("""// tma_wgmma.ptx: mbarrier + cp.async.bulk.tensor + wgmma, for every swizzle mode, B K-major
// (tma_wgmma) and MN-major (tma_wgmma_t). Generated by gen-tma-wgmma.py (see there);
// tests/run-hopper.bats runs it.
.version 8.0
.target sm_90a
.address_size 64""")
entry(False)
entry(True)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tma_wgmma.ptx"), "w") as f:
    f.write("\n".join(lines) + "\n")
