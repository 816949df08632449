#!/usr/bin/env bats
# 13.5's num_worker_warps hint (cuTile's @ct.kernel(num_worker_warps=N)):
# tile-sched makes the CTA 32 x N threads (.reqntid), the hint for the
# target before the default one, as NVIDIA's tileiras does; the kernels
# still compute what numpy does on tile-run. Kernels: tests/workers/README.md.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	cd "$SCRATCH"
	W="$ROOT/tests/workers"
}
teardown() { teardown_scratch; }


# same_eiattr ATTR FILE GPU: NVIDIA's tileiras and ours compile FILE for GPU;
# the cubins' EIATTR values of ATTR are present and equal
same_eiattr() {
	local nv ours
	env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name="$3" -o nv.cubin "$2"
	tileiras --gpu-name="$3" -o our.cubin "$2"
	nv=$("$NVBIN/cuobjdump" -elf nv.cubin | grep -A2 "$1" | grep Value)
	ours=$("$NVBIN/cuobjdump" -elf our.cubin | grep -A2 "$1" | grep Value)
	[ -n "$nv" ] && [ "$nv" = "$ours" ] || fail "$2 $3 $1: NVIDIA '$nv', ours '$ours'"
}

reqntid() {   # reqntid FILE GPU: the .reqntid of its (only) entry
	tileiras --gpu-name="$2" --emit=ptx -o - "$1" | sed -n 's/^\.reqntid \([0-9]*\).*/\1/p'
}

@test "workers: .reqntid is 32 x num_worker_warps on every target" {
	for g in sm_80 sm_90 sm_100 sm_120; do
		[ "$(reqntid "$W/vadd8_sm90.tileirbc" $g)" = 256 ] || fail "vadd8 on $g"
		[ "$(reqntid "$W/vadd2_sm90.tileirbc" $g)" = 64 ] || fail "vadd2 on $g"
	done
	# without the hint: the default 4 warps
	[ "$(reqntid "$CORPUS/13.5/vector_add.tileirbc" sm_90 | sort -u)" = 128 ]
}

@test "workers: the hint for the target wins over the default one" {
	[ "$(reqntid "$W/bytarget.tileirbc" sm_100)" = 256 ]
	[ "$(reqntid "$W/bytarget.tileirbc" sm_90)" = 64 ]
	[ "$(reqntid "$W/bytarget.tileirbc" sm_120)" = 64 ]
}

# hint_module N: bad.tileirbc, vadd2_sm90 with its hint (a one-byte varint at
# offset 29 of that file) made N; tile-read must read the hint back as N
hint_module() {
	$PY -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[29] = int(sys.argv[2])
open("bad.tileirbc", "wb").write(d)' "$W/vadd2_sm90.tileirbc" "$1"
	tileiras --gpu-name=sm_90 --emit=json --stop-after=tile-read -o r.json bad.tileirbc
	$PY -c 'import json, sys
d = json.load(open("r.json"))
assert d["module"]["ops"][0]["attrs"]["optimization_hints"]["dict"]["default"]["dict"]["num_worker_warps_per_cta"]["int"] == int(sys.argv[1])' "$1"
}

@test "workers: a hint out of range is NVIDIA's: not a power of two -> ignored, above 32 -> 32 warps, with a warning" {
	# NVIDIA's 13.5 (measured 2026-11-24): exit 0 and no message for every
	# one of these; REQNTID 128 (the default) for 0/3/5/127, 1024 for 64
	for nt in 0:128 3:128 5:128 127:128 64:1024; do
		n=${nt%%:*} t=${nt##*:}
		hint_module "$n"
		[ "$(reqntid bad.tileirbc sm_90)" = "$t" ] || fail "hint $n: .reqntid $(reqntid bad.tileirbc sm_90), want $t"
		run tileiras --gpu-name=sm_90 --emit=ptx -o x.ptx bad.tileirbc
		assert_success
		if [ "$n" = 64 ]; then
			assert_output --partial "tests/workers/workers.py:22:0: warning: num_worker_warps_per_cta 64 is more than 32: 32 warps"
		else
			assert_output --partial "tests/workers/workers.py:22:0: warning: num_worker_warps_per_cta $n is not a power of two from 1 to 32: ignored"
		fi
	done
}

@test "workers: an out-of-range hint gives NVIDIA's REQNTID" {
	require_ptxas
	require_nvidia
	for n in 3 64; do
		hint_module "$n"
		same_eiattr EIATTR_REQNTID bad.tileirbc sm_90 || fail "hint $n"
	done
}

# inputs SEED A C: 3001-element f32 arrays in .: a.npy (the expression A of
# numpy's generator r, seeded SEED, and n), b.npy (r's standard normal draws
# after A's) and c.npy (C)
inputs() {
	"$PY" -c 'import numpy as np, sys
r = np.random.default_rng(int(sys.argv[1]))
n = 3001
np.save("a.npy", eval(sys.argv[2]).astype(np.float32))
np.save("b.npy", r.standard_normal(n).astype(np.float32))
np.save("c.npy", eval(sys.argv[3]))' "$@"
}

@test "workers: 256- and 64-thread CTAs compute a + b and a - b as numpy does (tile-run, ragged size)" {
	need_run
	inputs 7 'r.standard_normal(n)' 'np.full(n, 9, np.float32)'
	for k in "vadd8_sm90:sm_90:3:+" "vadd8_sm100:sm_100:3:+" "vadd2_sm90:sm_90:12:+" "bytarget:sm_100:12:-" "bytarget:sm_90:12:-"; do
		IFS=: read -r f g grid op <<<"$k"
		rm -rf out
		run tile-run --gpu-name "$g" --grid "$grid" --out out "$W/$f.tileirbc" a.npy 3001 1 b.npy 3001 1 c.npy 3001 1
		assert_success
		run "$PY" -c 'import numpy as np, sys
a, b, c = np.load("a.npy"), np.load("b.npy"), np.load("out/6.npy")
want = a + b if sys.argv[1] == "+" else a - b
sys.exit(0 if np.array_equal(c, want) else "%s: %d of %d differ" % (sys.argv[2], (c != want).sum(), c.size))' "$op" "$f $g"
		assert_success
	done
}

@test "workers: our cubin's REQNTID is NVIDIA's" {
	require_ptxas
	require_nvidia
	for k in vadd8_sm90:sm_90 vadd2_sm90:sm_100 bytarget:sm_100 bytarget:sm_90; do
		same_eiattr EIATTR_REQNTID "$W/${k%%:*}.tileirbc" "${k##*:}"
	done
}

maxnreg() {   # maxnreg FILE GPU: the .maxnreg of its (only) entry, or "none"
	local v
	v=$(tileiras --gpu-name="$2" --emit=ptx -o - "$1" | sed -n 's/^\.maxnreg \([0-9]*\).*/\1/p')
	echo "${v:-none}"
}

@test "occupancy: the hint caps registers as NVIDIA's .maxnreg does (4 CTAs of 128 threads: 128; by target, 256 threads: sm_90's 3 -> 80, the default 16 -> the floor 48; none without)" {
	for g in sm_80 sm_90 sm_100 sm_120; do
		[ "$(maxnreg "$W/occ4_sm90.tileirbc" $g)" = 128 ] || fail "occ4 on $g: $(maxnreg "$W/occ4_sm90.tileirbc" $g)"
	done
	[ "$(maxnreg "$W/occ_bytarget.tileirbc" sm_90)" = 80 ]
	[ "$(maxnreg "$W/occ_bytarget.tileirbc" sm_80)" = 48 ]
	[ "$(maxnreg "$W/occ_bytarget.tileirbc" sm_100)" = 48 ]
	[ "$(maxnreg "$W/vadd8_sm90.tileirbc" sm_90)" = none ]
	# ptxas keeps to it: registers at most the cap
	require_ptxas
	tileiras --gpu-name=sm_90 --emit=ptx -o o.ptx "$W/occ_bytarget.tileirbc"
	ptxas -v -arch=sm_90 o.ptx -o o.cubin 2>log
	r=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' log)
	[ -n "$r" ] && [ "$r" -le 80 ] || fail "registers: $(cat log)"
}

@test "occupancy: our .maxnreg and cubin EIATTR_MAXREG_COUNT are NVIDIA's" {
	require_ptxas
	require_nvidia
	for k in occ4_sm90:sm_90 occ4_sm90:sm_80 occ_bytarget:sm_90 occ_bytarget:sm_120; do
		same_eiattr EIATTR_MAXREG_COUNT "$W/${k%%:*}.tileirbc" "${k##*:}"
	done
}

@test "occupancy: kernels under the cap compute exp(a) * b + sin(a) as numpy does (tile-run)" {
	need_run
	inputs 3 'r.uniform(-3, 3, n)' 'np.zeros(n, np.float32)'
	for k in occ4_sm90:sm_90 occ_bytarget:sm_90 occ_bytarget:sm_80; do
		f=${k%%:*} g=${k##*:}
		rm -rf out
		run tile-run --gpu-name "$g" --grid 3 --out out "$W/$f.tileirbc" a.npy 3001 1 b.npy 3001 1 c.npy 3001 1
		assert_success
		run "$PY" -c 'import numpy as np, sys
a, b, c = np.load("a.npy").astype(np.float64), np.load("b.npy"), np.load("out/6.npy")
want = np.exp(a) * b + np.sin(a)
sys.exit(0 if np.allclose(c, want, rtol=1e-5, atol=1e-5) else "%s: max error %g" % (sys.argv[1], abs(c - want).max()))' "$f $g"
		assert_success
	done
}
