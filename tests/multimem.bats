#!/usr/bin/env bats
# 13.5's multimem ops (multimem_load_reduce_view_tko / multimem_reduce_view_tko
# / multimem_store_view_tko, opcodes 0x7B-0x7D) and the multicast pointer
# attribute: read and verified with NVIDIA's rules and exit codes, lowered on
# sm_100/sm_103 to NVIDIA's PTX (one multimem.* per element), rejected
# elsewhere with NVIDIA's message, and run on tile-run as on a single-GPU
# multicast group. Modules: tests/multimem/gen-multimem.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	cd "$SCRATCH"
	M="$ROOT/tests/multimem"
}
teardown() { teardown_scratch; }

GOOD="load_reduce_f32_add reduce_f32_add store_f32 reduce_i32_min load_reduce_i32_xor"

@test "multimem: read and verified; the multicast pointer and tensor_view types round-trip through JSON" {
	for k in $GOOD; do
		tile-read "$M/mm_$k.tileirbc" -o r.json
		tile-ir r.json -o r2.json
		cmp r.json r2.json
		grep -q '"tile<ptr<[a-z0-9]*, multicast>>"' r.json
		grep -q '"tensor_view<?x[a-z0-9]*, strides=\[1\], multicast>"' r.json
		grep -q '"op": "cuda_tile.multimem_' r.json
	done
	run tile-read --emit=text "$M/mm_load_reduce_f32_add.tileirbc"
	assert_output --partial 'cuda_tile.multimem_load_reduce_view_tko'
	assert_output --partial 'reduction = "add"'
}

@test "multimem: NVIDIA's rejections, exit codes and messages, at the op's line" {
	run tileiras --gpu-name sm_100 -o x.cubin "$M/mm_store_f32_attr0.tileirbc"
	assert_failure 3
	assert_output --partial "t/mm.py:3:1: error: 'cuda_tile.multimem_store_view_tko' op expected a multicast pointer, but got none"
	run tileiras --gpu-name sm_100 -o x.cubin "$M/mm_store_f32_attr1.tileirbc"
	assert_failure 3
	assert_output --partial "op expected a multicast pointer, but got unicast"
	run tileiras --gpu-name sm_100 -o x.cubin "$M/mm_load_reduce_f32_and.tileirbc"
	assert_failure 3
	assert_output --partial "'cuda_tile.multimem_load_reduce_view_tko' op and/or/xor/umin/umax reductions require integer element types"
	[ ! -e x.cubin ]
	# multicast memory only on sm_100 / sm_103 / sm_107 (NVIDIA's rule), at the view's line
	for g in sm_80 sm_90 sm_120; do
		run tileiras --gpu-name $g -o x.cubin "$M/mm_store_f32.tileirbc"
		assert_failure 5
		assert_output --partial "t/mm.py:2:1: error: Incompatibility with architecture '$g': multicast pointers require sm_100 or sm_103 or sm_107"
	done
	# a pointer attribute in a 13.4 file is not 13.4
	cp "$M/mm_store_f32.tileirbc" old.tileirbc
	printf '\x0d\x04' | dd of=old.tileirbc bs=1 seek=8 conv=notrunc 2>/dev/null
	run tile-read old.tileirbc -o /dev/null
	assert_failure 1
}

@test "multimem: NVIDIA's PTX on sm_100, sm_103 and sm_107 (one multimem.* per element), ptxas accepts" {
	for g in sm_100 sm_103 sm_107; do
		tileiras --gpu-name $g --emit=ptx -o a.ptx "$M/mm_load_reduce_f32_add.tileirbc"
		grep -q "multimem.ld_reduce.relaxed.sys.global.add.f32 %r[0-9]*, \[%rd[0-9]*\];" a.ptx
		tileiras --gpu-name $g --emit=ptx -o b.ptx "$M/mm_reduce_f32_add.tileirbc"
		grep -q "multimem.red.relaxed.sys.global.add.f32 \[%rd[0-9]*\], %r[0-9]*;" b.ptx
		tileiras --gpu-name $g --emit=ptx -o c.ptx "$M/mm_store_f32.tileirbc"
		grep -q "multimem.st.relaxed.sys.global.f32 \[%rd[0-9]*\], %r[0-9]*;" c.ptx
		tileiras --gpu-name $g --emit=ptx -o d.ptx "$M/mm_reduce_i32_min.tileirbc"
		grep -q "multimem.red.relaxed.sys.global.min.s32" d.ptx
		tileiras --gpu-name $g --emit=ptx -o e.ptx "$M/mm_load_reduce_i32_xor.tileirbc"
		grep -q "multimem.ld_reduce.relaxed.sys.global.xor.b32" e.ptx
		! grep -q "\.local" a.ptx b.ptx c.ptx d.ptx e.ptx
	done
	require_ptxas
	for k in $GOOD; do
		tileiras --gpu-name sm_100 -o k.cubin "$M/mm_$k.tileirbc" || fail "$k: no cubin for sm_100"
	done
}

# check_numerics MODULE|PTX KIND: it runs on tile-run for sm_100, 3 blocks of 128
# over 300 elements (ragged); the result (argument 2) against numpy
check_numerics() {
	local ptx_or_bc=$1 k=$2
	local x=a y=o
	case $k in *i32*) x=ai y=oi ;; esac
	rm -rf out
	run tile-run --gpu-name sm_100 --grid 3 --out out "$ptx_or_bc" $x.npy 300 $y.npy
	assert_success
	run "$PY" -c 'import numpy as np, sys
k, x, y = sys.argv[1:4]
a, o, got = np.load(x + ".npy"), np.load(y + ".npy"), np.load("out/2.npy")
if k.startswith("load_reduce"):
    want = a                      # one GPU in the group: the reduction of one copy
elif k == "reduce_f32_add":
    want = o + a
elif k == "reduce_i32_min":
    want = np.minimum(o, a)
else:
    want = a
sys.exit(0 if np.array_equal(got, want) else "%s: %d of %d differ" % (k, (got != want).sum(), got.size))' "$k" $x $y
	assert_success
}

make_inputs() {
	"$PY" -c 'import numpy' 2>/dev/null || skip "no numpy for $PY (apt-get install python3-numpy)"
	"$PY" -c 'import numpy as np
r = np.random.default_rng(3); n = 300
np.save("a.npy", r.standard_normal(n).astype(np.float32)); np.save("o.npy", r.standard_normal(n).astype(np.float32))
np.save("ai.npy", r.integers(-1000, 1000, n).astype(np.int32)); np.save("oi.npy", r.integers(-1000, 1000, n).astype(np.int32))'
}

@test "multimem: every kernel matches numpy on tile-run (single-GPU multicast group, ragged size)" {
	make_inputs
	for k in $GOOD; do
		check_numerics "$M/mm_$k.tileirbc" "$k"
	done
}

@test "multimem: NVIDIA's sm_100 PTX of the same kernels matches numpy on tile-run too" {
	require_nvidia
	make_inputs
	R=$(cd "$NVBIN/.." && pwd)
	mkdir -p tw/bin
	cp "$NVBIN/tileiras" tw/bin/
	ln -s "$R/lib" tw/lib
	[ -d "$R/nvvm" ] && ln -s "$R/nvvm" tw/nvvm
	printf '#!/bin/bash\nfor a in "$@"; do case "$a" in *.ptx) cp "$a" %q;; esac; done\nexec %q "$@"\n' \
		"$SCRATCH/nv.ptx" "$NVBIN/ptxas" >tw/bin/ptxas
	chmod +x tw/bin/ptxas
	for k in $GOOD; do
		rm -f nv.ptx
		env -u CUDA_HOME -u CUDA_PATH tw/bin/tileiras --gpu-name sm_100 -o nv.cubin "$M/mm_$k.tileirbc"
		grep -q "multimem\." nv.ptx
		check_numerics nv.ptx "$k"
	done
}
