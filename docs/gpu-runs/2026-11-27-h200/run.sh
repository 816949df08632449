#!/bin/bash
# device run, session 10 (2026-11-27): see docs/benchmarks.md
G=build/gpu/x
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt 2>&1
python3 -c "import numpy, torch; print('numpy', numpy.__version__, 'torch', torch.__version__)" >> $OUT/device.txt 2>&1
B="--block nvidia=1 --block ours=1 --block ours-contig=1 --block ours-noocc=1"
timeout 75 python3 scripts/gpu-check --kind nvidia=build/gpu/c1/nvidia --kind ours=build/gpu/c4/ours \
  --kind ours-contig=build/gpu/c1/ours --kind ours-noocc=build/gpu/c2/ours $B --no-triton --budget 55 \
  --only 'softmax|rms_norm|layer_norm|reduce_sum|topk|loop_accum|loop_break|vector_add' \
  --out $OUT/variants > $OUT/variants.out 2>&1
echo "variants rc=$?"
timeout 110 python3 tests/gpu/extra_launch.py --kind nvidia=$G/nvidia --kind ours=$G/ours \
  --kind ours-contig=$G/ours-contig --kind ours-noocc=$G/ours-noocc --kind ours-nofuse=$G/ours-nofuse \
  --rows 8192 --out $OUT/tilegym.jsonl tilegym/layernorm tilegym/rms_norm tilegym/softmax tilegym/relu_squared \
  tilegym/swiglu tilegym/cross_entropy tilegym/gelu tilegym/add_rms_norm tilegym/softmax_bwd > $OUT/tilegym.txt 2>&1
echo "tilegym rc=$?"
timeout 80 python3 tests/gpu/extra_launch.py --kind nvidia=$G/nvidia --kind ours=$G/ours --fmha 8,4096 \
  --out $OUT/fmha.jsonl fmha_f16 fmha_f16_aligned fmha_f16_aligned_128 > $OUT/fmha.txt 2>&1
echo "fmha rc=$?"
for h in ickz6ktd:f16 xz3hjq93:bf16:bf16; do for k in nv ours ours_notmastore; do
  timeout 30 python3 tests/gpu/matmul_launch.py $G/mm/${k}_${h%%:*}.cubin auto 128 ${h#*:} 4096 4096 4096
done; done > $OUT/mm.txt 2>&1
echo "mm rc=$?"
timeout 150 python3 scripts/gpu-check --kind nvidia=build/gpu/c1/nvidia --kind ours=build/gpu/c4/ours \
  --block nvidia=1 --block ours=1 --no-triton --budget 120 --out $OUT/corpus > $OUT/corpus.out 2>&1
echo "corpus rc=$?"
tail -n 60 $OUT/variants.out; cat $OUT/tilegym.txt $OUT/fmha.txt $OUT/mm.txt | tail -n 80
