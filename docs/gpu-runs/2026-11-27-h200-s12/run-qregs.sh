#!/bin/bash
# device run 8, session 12: attention's Q loaded straight into wgmma's A register fragment (TILE_SCHED_A_IN_REGS=1, the experiment that became the default rule)
G=build/gpu/s12e
export PYTHONUNBUFFERED=1
timeout 120 python3 tests/gpu/extra_launch.py --kind def=$G/fmha/def --kind regs=$G/fmha/regs --kind def2=$G/fmha/def --kind regs2=$G/fmha/regs --fmha 8,4096 \
  fmha_f16_d128_aligned fmha_f16_aligned fmha_f16_aligned_128 > $OUT/fmha-qregs.txt 2>&1
echo "fmha rc=$?"
grep -v check $OUT/fmha-qregs.txt
