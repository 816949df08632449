#!/bin/bash
# device run 4, session 12: one bar.sync a step for attention's two rings (one) against one a product (per)
G=build/gpu/s12d
export PYTHONUNBUFFERED=1
timeout 150 python3 tests/gpu/extra_launch.py --kind per=$G/fmha/per --kind one=$G/fmha/one --kind per2=$G/fmha/per --kind one2=$G/fmha/one --fmha 8,4096 \
  fmha_f16_aligned fmha_f16_aligned_128 fmha_f16_causal_aligned fmha_bf16_aligned fmha_f16_d128_aligned > $OUT/fmha-onebar.txt 2>&1
echo "fmha rc=$?"
grep -v check $OUT/fmha-onebar.txt
