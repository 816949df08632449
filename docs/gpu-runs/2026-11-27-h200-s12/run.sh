#!/bin/bash
# device run, session 12 (2026-11-27)
G=build/gpu/s12
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt 2>&1
python3 -c "import numpy, torch; print('numpy', numpy.__version__, 'torch', torch.__version__)" >> $OUT/device.txt 2>&1
cat $OUT/device.txt
timeout 300 scripts/gpu-fmha run $G/fmha --fmha 8,4096 > $OUT/fmha.txt 2>&1
echo "fmha rc=$?"
for h in ickz6ktd:f16 xz3hjq93:bf16:bf16; do for k in nv ours; do
  timeout 30 python3 tests/gpu/matmul_launch.py $G/mm/${k}_${h%%:*}.cubin auto 128 ${h#*:} 4096 4096 4096
done; done > $OUT/mm.txt 2>&1
echo "mm rc=$?"
cat $OUT/fmha.txt | tail -n 80; cat $OUT/mm.txt
