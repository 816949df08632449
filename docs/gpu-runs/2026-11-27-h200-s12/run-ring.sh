#!/bin/bash
# device run 3, session 12: the empty-barrier ring (TILE_PTX_TMA_RING=1) for attention (4 and 8 warps) and the matmuls
G=build/gpu/s12c
export PYTHONUNBUFFERED=1
timeout 150 python3 tests/gpu/extra_launch.py --kind def=$G/fmha/def --kind ring=$G/fmha/ring --kind w8=$G/fmha/w8 --kind w8ring=$G/fmha/w8ring --fmha 8,4096 \
  fmha_f16_aligned fmha_f16_aligned_128 fmha_f16_causal_aligned fmha_bf16_aligned fmha_f16_d128_aligned > $OUT/fmha-ring.txt 2>&1
echo "fmha rc=$?"
for h in ickz6ktd:f16 xz3hjq93:bf16:bf16 z9tdbcda:f16 yd8nx2s3:bf16:bf16; do
  t=128; case $h in z9*|yd*) t=64;; esac
  for k in def ring def ring; do
    timeout 30 python3 tests/gpu/matmul_launch.py $G/mm/${k}_${h%%:*}.cubin auto $t ${h#*:} 4096 4096 4096
  done
done > $OUT/mm-ring.txt 2>&1
echo "mm rc=$?"
grep -v check $OUT/fmha-ring.txt; cat $OUT/mm-ring.txt
