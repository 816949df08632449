#!/bin/bash
# device call 1, session 15 (2026-11-27): HEAD 98510d4 on the GPU.
# 1. cuTile 1.7.0 through our new `tileiras` (the C launcher of session 14 ->
#    tileiras-inproc; scripts/gpu-bundle of 98510d4);
# 2. the corpus (scripts/gpu-check, nvidia vs ours, block (1,1,1)): last run
#    on a GPU in session 10, codegen changed since;
# 3. TileGym row kernels and attention (tests/gpu/extra_launch.py);
# 4. the launch matmuls at 4096^3.
G=build/gpu
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $G/s15/cuda_tile-*.whl > $OUT/pip.txt 2>&1
sh $G/s15/unpack.sh /tmp/ours >> $OUT/pip.txt 2>&1
/tmp/ours/bin/tileiras --version >> $OUT/device.txt 2>&1
PYTHONPATH=/tmp/site timeout 150 scripts/gpu-cutile --compiler ours=/tmp/ours/bin --out $OUT/cutile > $OUT/gpu-cutile-ours.txt 2>&1
echo "cutile rc=$?"
timeout 130 python3 scripts/gpu-check --kind nvidia=$G/c/nvidia --kind ours=$G/c/ours \
  --block nvidia=1 --block ours=1 --no-triton --budget 110 --out $OUT/corpus > $OUT/corpus.txt 2>&1
echo "corpus rc=$?"
timeout 100 python3 tests/gpu/extra_launch.py --kind nvidia=$G/x/nvidia --kind ours=$G/x/ours \
  --rows 8192 --fmha 8,4096 --out $OUT/extra.jsonl tilegym/layernorm tilegym/rms_norm tilegym/softmax \
  tilegym/relu_squared tilegym/swiglu tilegym/cross_entropy tilegym/rope tilegym/gelu tilegym/add_rms_norm \
  tilegym/softmax_bwd fmha_f16 fmha_f16_aligned fmha_f16_causal_aligned fmha_f16_d128_aligned > $OUT/extra.txt 2>&1
echo "extra rc=$?"
for h in ickz6ktd:f16 xz3hjq93:bf16:bf16; do for k in nv ours; do
  timeout 30 python3 tests/gpu/matmul_launch.py $G/x/mm/${k}_${h%%:*}.cubin auto 128 ${h#*:} 4096 4096 4096
done; done > $OUT/mm.txt 2>&1
echo "mm rc=$?"
tail -n 12 $OUT/gpu-cutile-ours.txt; tail -n 45 $OUT/corpus.txt; grep -v '^{' $OUT/extra.txt | tail -n 40; cat $OUT/mm.txt
