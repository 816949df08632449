#!/bin/bash
# device run 10, session 12: the empty-barrier ring where one CTA an SM runs two warpgroups (head dim 128, 128 rows)
G=build/gpu/s12g
export PYTHONUNBUFFERED=1
timeout 100 python3 tests/gpu/extra_launch.py --kind def=$G/fmha/def --kind ring=$G/fmha/ring --kind def2=$G/fmha/def --kind ring2=$G/fmha/ring --fmha 8,4096 \
  fmha_f16_d128_aligned_128 > $OUT/fmha-ring8.txt 2>&1
timeout 100 python3 tests/gpu/extra_launch.py --kind def=$G/fmha/def --kind w8=$G/fmha/w8 --kind w8ring=$G/fmha/w8ring --fmha 8,4096 \
  fmha_f16_aligned_128 >> $OUT/fmha-ring8.txt 2>&1
echo "fmha rc=$?"
grep -v check $OUT/fmha-ring8.txt
