#!/bin/bash
# here (no GPU), session 15: everything run.sh needs under build/gpu/
set -eu
cd "$(dirname "$0")/../../.."
G=build/gpu
NV=$(ls .venv/lib/python3*/site-packages/nvidia/cu13/bin/tileiras | head -1)
export VIRTUAL_ENV=$PWD/.venv
scripts/gpu-check --prepare $G/c --gpu-name sm_90
scripts/gpu-bundle $G/s15
.venv/bin/pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d $G/s15 cuda-tile==1.7.0
mkdir -p $G/x/nvidia $G/x/ours $G/x/mm
for m in tests/tilegym/*.tileirbc tests/fmha/fmha_f16.tileirbc tests/fmha/fmha_f16_aligned.tileirbc \
         tests/fmha/fmha_f16_d128_aligned.tileirbc tests/fmha/fmha_f16_causal_aligned.tileirbc; do
  b=$(basename $m .tileirbc)
  env -u CUDA_HOME -u CUDA_PATH $NV --gpu-name sm_90 $m -o $G/x/nvidia/$b.cubin
  build/bin/tileiras --gpu-name sm_90 $m -o $G/x/ours/$b.cubin
done
for h in ickz6ktd xz3hjq93; do
  m=tests/mma/launch/matmul.matmul.ln6.$h.tileirbc
  env -u CUDA_HOME -u CUDA_PATH $NV --gpu-name sm_90 $m -o $G/x/mm/nv_$h.cubin
  build/bin/tileiras --gpu-name sm_90 $m -o $G/x/mm/ours_$h.cubin
done
du -sh $G
