#!/bin/bash
# device run 12, session 12: gpu-fmha over every variant at the session's last commit
export PYTHONUNBUFFERED=1
timeout 200 scripts/gpu-fmha run build/gpu/s12i/fmha --fmha 8,4096 > $OUT/fmha-final.txt 2>&1
echo "rc=$?"
grep -v check $OUT/fmha-final.txt
