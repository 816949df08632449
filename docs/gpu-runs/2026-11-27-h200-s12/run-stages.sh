#!/bin/bash
# device run 2, session 12: pipeline depth (stages) for the launch matmuls and attention
G=build/gpu/s12b
export PYTHONUNBUFFERED=1
timeout 120 python3 tests/gpu/extra_launch.py --kind ms2=$G/fmha/ms2 --kind ms3=$G/fmha/ms3 --kind ms4=$G/fmha/ms4 --fmha 8,4096 \
  fmha_f16_aligned fmha_f16_aligned_128 fmha_f16_causal_aligned fmha_f16_d128_aligned > $OUT/fmha-stages.txt 2>&1
echo "fmha rc=$?"
for h in ickz6ktd:f16 xz3hjq93:bf16:bf16 z9tdbcda:f16 yd8nx2s3:bf16:bf16; do
  t=128; case $h in z9*|yd*) t=64;; esac
  for k in nv s4 s5 s6 s8; do
    timeout 30 python3 tests/gpu/matmul_launch.py $G/mm/${k}_${h%%:*}.cubin auto $t ${h#*:} 4096 4096 4096
  done
done > $OUT/mm-stages.txt 2>&1
echo "mm rc=$?"
cat $OUT/fmha-stages.txt | grep -v check; cat $OUT/mm-stages.txt
