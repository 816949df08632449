#!/bin/bash
# device run 11, session 12: attention's S a step ahead (TILE_SCHED_ROTATE=1, FlashAttention-3's intra-warpgroup overlap)
G=build/gpu/s12h
export PYTHONUNBUFFERED=1
timeout 150 python3 tests/gpu/extra_launch.py --kind def=$G/fmha/def --kind rot=$G/fmha/rot --kind def2=$G/fmha/def --kind rot2=$G/fmha/rot --fmha 8,4096 \
  fmha_f16_aligned fmha_f16_aligned_128 fmha_f16_causal_aligned fmha_f16_d128_aligned fmha_f16_d128_aligned_128 > $OUT/fmha-rotate.txt 2>&1
echo "fmha rc=$?"
grep -v check $OUT/fmha-rotate.txt
