#!/bin/bash
# device run 9, session 12: head dim 128 with 128 query rows (8 warps): both products pipelined now (Q's bytes counted as resident, not staged)
G=build/gpu/s12f
export PYTHONUNBUFFERED=1
timeout 120 python3 tests/gpu/extra_launch.py --kind nvidia=$G/fmha/nvidia --kind ours=$G/fmha/ours --kind nomulti=$G/fmha/nomulti --kind ours2=$G/fmha/ours --fmha 8,4096 \
  fmha_f16_d128_aligned_128 fmha_f16_d128_aligned > $OUT/fmha-d128.txt 2>&1
echo "fmha rc=$?"
grep -v check $OUT/fmha-d128.txt
