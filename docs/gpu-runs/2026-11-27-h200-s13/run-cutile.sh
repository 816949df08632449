#!/bin/bash
# device run, session 13 (2026-11-27): cuTile 1.7.0 with our whole driver
# (scripts/gpu-bundle of 0e744c5: tileiras-inproc included, so cuTile's
# command line goes script -> exec tileiras-inproc -> ptxas started early)
G=build/gpu/s13
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $G/cuda_tile-*.whl > $OUT/pip.txt 2>&1
sh $G/unpack.sh /tmp/ours
export PYTHONPATH=/tmp/site
timeout 400 scripts/gpu-cutile --compiler ours=/tmp/ours/bin --out $OUT/cutile > $OUT/gpu-cutile-ours.txt 2>&1
echo "cutile rc=$?"
tail -n 45 $OUT/gpu-cutile-ours.txt
