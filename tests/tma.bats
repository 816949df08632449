#!/usr/bin/env bats
# Tensor cores II, TMA (issue 16; docs/lowering.md "MMA", docs/abi.md
# §5.3.1): with tile-sched --tma on sm_90 a load of a wgmma operand whose
# view is an entry's (16-byte aligned) parameters is marked `tma` and goes by
# cp.async.bulk.tensor into the swizzled staging, through a hidden 128-byte
# tensor-map parameter noted in the PTX (// tileiras.tensormap), synchronised
# by an mbarrier per stage half; tile-pack's host callback fills the maps
# (as NVIDIA's does), tile-run fills them the same way. scripts/tileiras
# passes --tma only when tile-pack makes TILEIR cubins with that callback
# (ptxas 13.2+). Kernels: cuTile's launch bytecode (tests/mma/launch): with
# shape divisibility (ickz6ktd / xz3hjq93 128x128x32 f16 / bf16, z9tdbcda /
# yd8nx2s3 64x64x32) and without (UNALIGNED below), and the tf32 one (gqcn080s:
# f32 A through a tf32 map, whose copy rounds to nearest even).
load helpers
load nvcapture

setup() { setup_scratch; }
teardown() { teardown_scratch; }

L="$BATS_TEST_DIRNAME/mma/launch"
ALIGNED="ickz6ktd xz3hjq93 z9tdbcda yd8nx2s3"
# the launches whose shapes carry no divisibility (base and row stride 16-byte
# aligned all the same): 128x128 f16 / bf16, 64x64 f16 / bf16, f16 -> f16
UNALIGNED="5si_mkgq uz_q1cik cs2un56w aa5484a6 wca6jnu0"

# matches OUT REF TOL: array OUT (bf16 bits as uint16 widened) within TOL of REF,
# relative to REF's largest magnitude
matches() {
	run "$PY" -c 'import numpy as np, sys
o = np.load(sys.argv[1])
if o.dtype == np.uint16: o = (o.astype(np.uint32) << 16).view(np.float32)
ref = np.load(sys.argv[2]); d = np.abs(o.astype(np.float32) - ref).max() / np.abs(ref).max()
print(d); assert d <= float(sys.argv[3])' "$1" "$2" "$3"
	assert_success
}

# nv_launch_setup: the numeric runs of NVIDIA's launch PTX (tile-run, numpy,
# NVIDIA's tools), in $SCRATCH with the inputs of the aligned (256x128x256)
# and unaligned (prefix u, 200x72x136) products
nv_launch_setup() {
	need_run
	nvidia_tools
	cd "$SCRATCH"
	matmul_inputs 9 256,128,256, 200,72,136,u
}

# matmul_inputs SEED M,K,N,PREFIX...: for each size, integer-valued A (M x K) and
# B (K x N) as f16 (PREFIXa16, PREFIXb16) and bf16 bits (PREFIXab, PREFIXbb), their
# product (PREFIXref) and zeroed outputs (PREFIXc32, PREFIXcb bf16 bits, PREFIXc16), in .
matmul_inputs() {
	"$PY" -c 'import numpy as np, sys
r = np.random.default_rng(int(sys.argv[1]))
for spec in sys.argv[2:]:
    M, K, N, s = spec.split(",")
    M, K, N = int(M), int(K), int(N)
    a = r.integers(-4, 5, (M, K)).astype(np.float32); b = r.integers(-4, 5, (K, N)).astype(np.float32)
    np.save(s + "a16.npy", a.astype(np.float16)); np.save(s + "b16.npy", b.astype(np.float16))
    np.save(s + "ab.npy", (a.view(np.uint32) >> 16).astype(np.uint16))
    np.save(s + "bb.npy", (b.view(np.uint32) >> 16).astype(np.uint16))
    np.save(s + "ref.npy", a @ b)
    np.save(s + "c32.npy", np.zeros((M, N), np.float32)); np.save(s + "cb.npy", np.zeros((M, N), np.uint16))
    np.save(s + "c16.npy", np.zeros((M, N), np.float16))' "$@"
}

# nmaps HASH: the maps of a launch by TMA: A, B and, with shape facts, C (the store);
# the tf32 launch: A alone (its B goes through registers; its C view has no shape facts)
nmaps() {
	case " $UNALIGNED gqcn080s " in
	*" gqcn080s "*) [ "$1" = gqcn080s ] && { echo 1; return; } ;;
	esac
	case " $UNALIGNED " in *" $1 "*) echo 2 ;; *) echo 3 ;; esac
}

mod() {
	case $1 in
	wca6jnu0) echo "$L/mm.kernels.ln8.$1.tileirbc" ;;
	gqcn080s) echo "$L/mm_tf32.kernels.ln20.$1.tileirbc" ;;
	*) echo "$L/matmul.matmul.ln6.$1.tileirbc" ;;
	esac
}

# tf32_inputs SEED M,K,N,PREFIX...: f32 A (M x K) and B (K x N) with 23-bit mantissas
# (PREFIXa32, PREFIXb32), the product of their tf32 roundings to nearest even in
# float64 (PREFIXrn: what mm_tf32's ftofs ask for), the same truncated (PREFIXrz: what
# wgmma makes of unrounded f32) and a zeroed f32 output (PREFIXc32), in .
tf32_inputs() {
	"$PY" -c 'import numpy as np, sys
r = np.random.default_rng(int(sys.argv[1]))
def tf32(x, even):
    u = x.view(np.uint32).astype(np.uint64)
    if even: u = u + 0xfff + ((u >> 13) & 1)
    return (u & 0xffffe000).astype(np.uint32).view(np.float32).astype(np.float64)
for spec in sys.argv[2:]:
    M, K, N, s = spec.split(",")
    M, K, N = int(M), int(K), int(N)
    a = r.standard_normal((M, K)).astype(np.float32); b = r.standard_normal((K, N)).astype(np.float32)
    np.save(s + "a32.npy", a); np.save(s + "b32.npy", b)
    np.save(s + "rn.npy", tf32(a, True) @ tf32(b, True)); np.save(s + "rz.npy", tf32(a, False) @ tf32(b, False))
    np.save(s + "c32.npy", np.zeros((M, N), np.float32))' "$@"
}

# tf32_close OUT REF: OUT within 1e-5 of REF relative to REF's largest magnitude (f32
# accumulation; truncating instead of rounding to tf32 is off by about 1e-3)
tf32_close() {
	run "$PY" -c 'import numpy as np, sys
o = np.load(sys.argv[1]).astype(np.float64); ref = np.load(sys.argv[2])
d = np.abs(o - ref).max() / np.abs(ref).max(); print(d); assert d <= 1e-5' "$1" "$2"
	assert_success
}

tma_ptx() {   # tma_ptx HASH OUT [tile-ptx options]: the stages for sm_90, tile-sched --tma
	local f=$1 out=$2
	shift 2
	tile-read "$(mod $f)" | tile-lower --gpu-name=sm_90 | tile-sched --tma | tile-ptx --gpu-name=sm_90 "$@" >"$out"
}

@test "TMA: the launch matmuls copy A and B by cp.async.bulk.tensor through hidden tensor-map parameters and an mbarrier per stage; ptxas accepts, no spills, the parameter block is the notes' layout" {
	require_ptxas
	# the loads alone (the store by TMA: its own test below)
	export TILE_SCHED_NO_TMA_STORE=1
	for f in $ALIGNED $UNALIGNED; do
		tma_ptx $f "$SCRATCH/k.ptx" || fail "$f"
		grep -q '^\.target sm_90a' "$SCRATCH/k.ptx" || fail "$f: target"
		grep -q '^\.version 8\.8' "$SCRATCH/k.ptx" || fail "$f: .hidden needs PTX 8.8"
		[ "$(grep -c '^// tileiras.tensormap ' "$SCRATCH/k.ptx")" -eq 2 ] || fail "$f: not 2 notes"
		[ "$(grep -c '^	\.hidden	\.param \.align 64 \.b8 [A-Za-z0-9_]*_param_1[56]\[128\]' "$SCRATCH/k.ptx")" -eq 2 ] ||
			fail "$f: hidden parameters: $(grep -n 'param_1[56]' "$SCRATCH/k.ptx" | head -3)"
		# A: one 64-byte-swizzled box, B: 128-byte rows (one box per 64 columns of N)
		grep -q "base=p0 dims=p2,p1 stride=p3 box=32,[0-9]* swizzle=64" "$SCRATCH/k.ptx" || fail "$f: A's note"
		grep -q "base=p5 dims=p7,p6 stride=p8 box=64,32 swizzle=128" "$SCRATCH/k.ptx" || fail "$f: B's note"
		for p in 'mbarrier.init.shared::cta.b64' 'fence.mbarrier_init.release.cluster' 'prefetch.tensormap' \
			'mbarrier.arrive.expect_tx.shared::cta.b64 _' \
			'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes' \
			'mbarrier.try_wait.parity.shared::cta.b64' 'wgmma.mma_async'; do
			grep -q -- "$p" "$SCRATCH/k.ptx" || fail "$f: no $p"
		done
		# nothing by the threads' own copies any more
		if grep -q 'cp.async.cg\|cp.async.commit_group\|cp.async.wait' "$SCRATCH/k.ptx"; then fail "$f: cp.async left"; fi
		# a bar.sync before the prologue and one a step (before the copy), no stage releases;
		# TILE_PTX_TMA_RING=1: empty mbarriers instead, the only bar.sync the prologue's
		[ "$(grep -c 'bar.sync' "$SCRATCH/k.ptx")" -eq 2 ] || fail "$f: $(grep -c 'bar.sync' "$SCRATCH/k.ptx") bar.sync"
		if grep -q 'mbarrier.arrive.shared::cta.b64 st' "$SCRATCH/k.ptx"; then fail "$f: stage releases without the ring"; fi
		TILE_PTX_TMA_RING=1 tma_ptx $f "$SCRATCH/r.ptx" || fail "$f ring"
		grep -q 'mbarrier.arrive.shared::cta.b64 st' "$SCRATCH/r.ptx" || fail "$f: no stage release in the ring"
		[ "$(grep -c 'bar.sync' "$SCRATCH/r.ptx")" -eq 1 ] || fail "$f ring: $(grep -c 'bar.sync' "$SCRATCH/r.ptx") bar.sync"
		ptx_ok "$SCRATCH/r.ptx" sm_90 "$f ring"
		# one elected lane issues both operands' copies after one expect_tx, for each prologue
		# step (up to 6: 8 stages, a wgmma in flight) and once in the loop
		ne=$(grep -c 'elect.sync' "$SCRATCH/k.ptx")
		[ "$ne" -ge 2 ] && [ "$ne" -le 7 ] && [ "$(grep -c 'expect_tx' "$SCRATCH/k.ptx")" -eq "$ne" ] ||
			fail "$f: $ne elect.sync, $(grep -c 'expect_tx' "$SCRATCH/k.ptx") expect_tx"
		if grep -q 'st.shared' "$SCRATCH/k.ptx"; then fail "$f: operands through registers"; fi
		ptx_ok "$SCRATCH/k.ptx" sm_90 "$f"
		if grep -qi 'serializ' "$SCRATCH/k.ptx.log"; then fail "$f: $(grep -i serializ "$SCRATCH/k.ptx.log")"; fi
		# the cubin's parameter block ends where the last noted map does (sm_90: cbank 0x210, maps at 64)
		run python3 - "$ROOT/tests/gpu" "$SCRATCH/k.ptx.cubin" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import cubin
e = list(cubin.load(sys.argv[2]).entries.values())[0]
print(e.cbank_param_bytes)
PY
		assert_success
		assert_output "368"     # 72 user bytes, maps at 0x70 and 0xF0 (NVIDIA's first two), + 128
	done
}

@test "TMA: the copied products against numpy on tile-run (f16, bf16; 64 and 128 tiles; sizes that are and are not tile multiples), memcheck and racecheck" {
	need_run
	cd "$SCRATCH"
	matmul_inputs 5 256,128,256, 208,80,144,r
	for f in $ALIGNED; do
		tma_ptx $f k.ptx || fail "$f"
		case $f in ickz6ktd | z9tdbcda) in=16 c=c32 ;; *) in=b c=cb ;; esac
		case $f in ickz6ktd | xz3hjq93) g=2,2 rg=2,2 ;; *) g=4,4 rg=4,3 ;; esac
		for chk in memcheck racecheck; do
			rm -rf out
			run tile-run --grid $g --check $chk --out out k.ptx a$in.npy 256 128 128 1 b$in.npy 128 256 256 1 \
				$c.npy 256 256 256 1
			assert_success
			matches out/10.npy ref.npy "$([ $c = cb ] && echo 0.01 || echo 1e-7)"
		done
		rm -rf out
		run tile-run --grid $rg --out out k.ptx ra$in.npy 208 80 80 1 rb$in.npy 80 144 144 1 r$c.npy 208 144 144 1
		assert_success
		matches out/10.npy rref.npy "$([ $c = cb ] && echo 0.01 || echo 1e-7)"
	done
}

@test "TMA and cp.async: 2 to 4 stages (TILE_SCHED_STAGES; 5 to 8 for TMA) give exact products for K loops of 1 to 10 steps, fewer steps than stages included (sm_90 TMA, sm_80 cp.async)" {
	need_run
	cd "$SCRATCH"
	"$PY" -c 'import numpy as np
r = np.random.default_rng(11)
for K in (32, 64, 96, 160, 288, 320):
    a = r.integers(-4, 5, (64, K)).astype(np.float32); b = r.integers(-4, 5, (K, 64)).astype(np.float32)
    np.save("a%d.npy" % K, a.astype(np.float16)); np.save("b%d.npy" % K, b.astype(np.float16))
    np.save("ref%d.npy" % K, a @ b)
np.save("c.npy", np.zeros((64, 64), np.float32))'
	for n in 2 3 4 5 6 8; do
		for sm in sm_90 sm_80; do
			[ $n -gt 4 ] && [ $sm = sm_80 ] && continue   # deeper rings: TMA only
			tma=; [ $sm = sm_90 ] && tma=--tma
			tile-read "$(mod z9tdbcda)" | tile-lower --gpu-name=$sm | TILE_SCHED_STAGES=$n tile-sched $tma >s.json
			grep -q "\"stages\": $n" s.json || fail "$sm: not $n stages"
			tile-ptx --gpu-name=$sm s.json >k.ptx || fail "$sm $n"
			if [ $sm = sm_90 ]; then
				[ "$(grep -c 'mbarrier.init.shared' k.ptx)" -eq $((2 * n)) ] || fail "$n stages, not $n full and $n (ring) empty mbarriers"
				# 3+ stages: a step's wgmma stays in flight (wait_group 1), the exit waits for it
				if [ $n -ge 3 ]; then
					grep -q 'wgmma.wait_group.sync.aligned 1;' k.ptx || fail "$n stages: no wait_group 1"
				fi
				grep -q 'wgmma.wait_group.sync.aligned 0;' k.ptx || fail "$n stages: no final wait"
				# ptxas keeps the products asynchronous (it serializes them, with a warning,
				# when something touches an accumulator in flight)
				if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
					require_ptxas
					ptx_ok k.ptx sm_90 "$n stages"
					if grep -qi 'serializ' k.ptx.log; then fail "$n stages: $(grep -i serializ k.ptx.log)"; fi
				fi
			else
				grep -q "cp.async.wait_group $((n - 1));" k.ptx || fail "$sm $n: wait_group"
			fi
			[ $sm = sm_90 ] && TILE_PTX_TMA_RING=1 tile-ptx --gpu-name=$sm s.json >nr.ptx
			for K in 32 64 96 160 288 320; do
				if [ $sm = sm_90 ]; then   # the empty-barrier ring (TILE_PTX_TMA_RING=1) too
					rm -rf out
					run tile-run --grid 1,1 --check racecheck --out out nr.ptx a$K.npy 64 $K $K 1 b$K.npy $K 64 64 1 c.npy 64 64 64 1
					assert_success
					matches out/10.npy ref$K.npy 0
				fi
				rm -rf out
				run tile-run --grid 1,1 --check racecheck --out out k.ptx a$K.npy 64 $K $K 1 b$K.npy $K 64 64 1 c.npy 64 64 64 1
				assert_success
				matches out/10.npy ref$K.npy 0
			done
		done
	done
}

@test "TMA ring depth (sm_90 wgmma): about 64 KiB of copies in flight, 4 to 8 stages (64x64x32 f16: 8, 128x128x32: 4; cp.async keeps 4); ptxas accepts, no spills; stages outside 1..8 in the plan are a located error" {
	cd "$SCRATCH"
	for h in z9tdbcda:8 yd8nx2s3:8 ickz6ktd:4 xz3hjq93:4; do
		tile-read "$(mod ${h%%:*})" | tile-lower --gpu-name=sm_90 | tile-sched --tma >s.json
		grep -q "\"stages\": ${h#*:}," s.json || fail "${h%%:*}: $(grep -o '"stages": [0-9]*' s.json) (want ${h#*:})"
	done
	tile-read "$(mod z9tdbcda)" | tile-lower --gpu-name=sm_90 | tile-sched >c.json
	grep -q '"stages": 4,' c.json || fail "cp.async: $(grep -o '"stages": [0-9]*' c.json)"
	tile-read "$(mod z9tdbcda)" | tile-lower --gpu-name=sm_90 | tile-sched --tma >s.json
	tile-ptx --gpu-name=sm_90 s.json >k.ptx
	[ "$(grep -c 'mbarrier.init.shared' k.ptx)" -eq 16 ] || fail "8 stages: not 8 full and 8 empty mbarriers"
	if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
		require_ptxas
		ptx_ok k.ptx sm_90 "8 stages"
	fi
	for bad in 0 9 -3 40; do
		sed "s/\"stages\": 8,/\"stages\": $bad,/" s.json >bad.json
		run tile-ptx --gpu-name=sm_90 bad.json
		[ "$status" -eq 1 ] || fail "stages $bad: exit $status"
		[[ "$output" == *'matmul.py":'*"error: 'cuda_tile.mmaf' op: its plan's stages must be an integer from 1 to 8"* ]] || fail "stages $bad: $output"
	done
}

@test "TMA: launches without shape divisibility: ragged 200x72x136 against numpy on tile-run (the copies zero-fill past the view's edges), racecheck" {
	need_run
	cd "$SCRATCH"
	matmul_inputs 3 200,72,136,
	for f in $UNALIGNED; do
		tma_ptx $f k.ptx || fail "$f"
		[ "$(grep -c '^// tileiras.tensormap ' k.ptx)" -eq 2 ] || fail "$f: not by TMA"
		case $f in 5si_mkgq | cs2un56w) in=16 c=c32 ;; wca6jnu0) in=16 c=c16 ;; *) in=b c=cb ;; esac
		case $f in 5si_mkgq | uz_q1cik) g=2,2 ;; *) g=4,3 ;; esac
		rm -rf out
		run tile-run --grid $g --check racecheck --out out k.ptx a$in.npy 200 72 72 1 b$in.npy 72 136 136 1 \
			$c.npy 200 136 136 1
		assert_success
		matches out/10.npy ref.npy 0
	done
}

@test "TMA: the host callback (tile-pack --emit=nv-host) writes exactly the maps libcommon encodes, for random parameter blocks; NVIDIA's callback for the same kernels writes the same maps" {
	command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
	for f in gqcn080s $ALIGNED $UNALIGNED; do
		tma_ptx $f "$SCRATCH/k.ptx" || fail "$f"
		tile-pack --emit=nv-host "$SCRATCH/k.ptx" -o "$SCRATCH/host.o" || fail "$f: nv-host"
		harness "$SCRATCH/host.o" "$SCRATCH/cb" || fail "$f: harness"
		run "$SCRATCH/cb" "$SCRATCH/k.ptx" "$(entry_of "$SCRATCH/k.ptx")" 90 40
		assert_success
		assert_output "ok $(nmaps $f) maps x 40 rounds"
	done
	# a callback that wrote a wrong word would be caught: the harness against a
	# map with another box (the note edited, the object not)
	sed 's/box=64,32 swizzle=128/box=64,16 swizzle=128/' "$SCRATCH/k.ptx" >"$SCRATCH/edited.ptx"
	run "$SCRATCH/cb" "$SCRATCH/edited.ptx" "$(entry_of "$SCRATCH/k.ptx")" 90 2
	assert_failure
	assert_output --partial "parameter 16 differs"
	# NVIDIA's: its tileiras with a ptxas that keeps the --nv-host object
	nvidia_tools
	local tw="$SCRATCH/tw"
	for f in gqcn080s $ALIGNED $UNALIGNED; do
		rm -f "$SCRATCH/nv.o"
		env -u CUDA_HOME -u CUDA_PATH "$tw/bin/tileiras" --gpu-name sm_90 "$(mod $f)" \
			-o "$SCRATCH/nv.cubin" || fail "$f: NVIDIA's tileiras"
		# tf32: our A map (NVIDIA's first map, at the same offset; its B map we do not make)
		tma_ptx $f "$SCRATCH/k.ptx"
		harness "$SCRATCH/nv.o" "$SCRATCH/cbnv" || fail "$f: harness with NVIDIA's object"
		run "$SCRATCH/cbnv" "$SCRATCH/k.ptx" "$(entry_of "$SCRATCH/k.ptx")" 90 40
		assert_success
		assert_output "ok $(nmaps $f) maps x 40 rounds"
	done
}

@test "TMA: what keeps cp.async (no --tma; sm_80, sm_89: no TMA there; unaligned views); tile-pack refuses maps it cannot fill; malformed notes are errors" {
	require_ptxas
	f=ickz6ktd
	for sm in sm_90 sm_120; do
		tile-read "$(mod $f)" | tile-lower --gpu-name=$sm | tile-sched | tile-ptx --gpu-name=$sm >"$SCRATCH/plain.ptx"
		if grep -q 'tensormap\|\.hidden' "$SCRATCH/plain.ptx"; then fail "$sm: TMA without --tma"; fi
		grep -q 'cp.async.cg' "$SCRATCH/plain.ptx" || fail "$sm: no cp.async without --tma"
	done
	for sm in sm_80 sm_89; do
		tile-read "$(mod $f)" | tile-lower --gpu-name=$sm | tile-sched --tma | tile-ptx --gpu-name=$sm >"$SCRATCH/o.ptx"
		if grep -q 'tensormap' "$SCRATCH/o.ptx"; then fail "$sm: TMA"; fi
	done
	# the corpus matmul has no alignment facts: by TMA only in its versioned copy
	# (the next test); with versioning off, not at all
	tile-read "$CORPUS/13.4/matmul.tileirbc" | tile-lower --gpu-name=sm_90 | TILE_SCHED_NO_VERSION=1 tile-sched --tma |
		tile-ptx --gpu-name=sm_90 >"$SCRATCH/u.ptx"
	if grep -q 'tensormap' "$SCRATCH/u.ptx"; then fail "unaligned view by TMA"; fi
	# a plan written by hand that copies by TMA a load TMA cannot copy is the input's error
	planted_copy_rejected tma "its product's plan copies it by TMA, which TMA cannot"
	# a plain-PTX cubin (ptxas 13.0) or no callbacks: nobody would fill the maps
	tma_ptx $f "$SCRATCH/k.ptx"
	run env TILEIRAS_PTXAS="$(command -v ptxas)" tile-pack --language=ptx --gpu-name=sm_90 "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin"
	assert_failure
	assert_output --partial "only a TILEIR cubin's host callback fills"
	[ ! -e "$SCRATCH/k.cubin" ]
	run tile-pack --nv-host=none --gpu-name=sm_90 "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin"
	assert_failure
	assert_output --partial "host callback"
	run env TILEIRAS_PTXAS="$(command -v ptxas)" tile-pack --query-tensor-maps --language=ptx
	assert_success
	assert_output "no"
	# malformed notes
	sed 's/swizzle=128$/swizzle=96/' "$SCRATCH/k.ptx" >"$SCRATCH/bad.ptx"
	run tile-pack --emit=nv-host "$SCRATCH/bad.ptx" -o "$SCRATCH/h.o"
	assert_failure
	assert_output --partial "malformed tensor-map note"
	refute_output --partial "internal"
	if [ -x "$BIN/tile-run" ]; then
		run tile-run --grid 1 "$SCRATCH/bad.ptx" 1 2 3
		assert_failure
		assert_output --partial "malformed tensor-map note"
	fi
	# a note naming a parameter the kernel lacks
	sed 's/ 16 f16 base=p5/ 16 f16 base=p40/' "$SCRATCH/k.ptx" >"$SCRATCH/bad2.ptx"
	run tile-pack --emit=nv-host "$SCRATCH/bad2.ptx" -o "$SCRATCH/h.o"
	assert_failure
	assert_output --partial "does not fit the kernel's parameters"
}

@test "TMA, versioned on alignment (sm_90 wgmma, sm_100 / sm_120 mma.sync): the corpus matmul (no facts) tests its pointers and strides at run time: by TMA through an mbarrier ring when they allow, through registers when not; both against numpy on tile-run, each launch provably on its own path; ptxas accepts, no spills" {
	need_run
	cd "$SCRATCH"
	matmul_inputs 13 128,96,128,a 100,70,90,u
	for sm in sm_90 sm_100 sm_120; do
		tile-read "$CORPUS/13.5/matmul.tileirbc" | tile-lower --gpu-name=$sm | tile-sched --tma >s.json
		tile-ptx --gpu-name=$sm s.json >k.ptx
		# both arms: the copy's loads by TMA (pipelined), the loop's through registers
		[ "$(grep -c '"[ab]": "tma"' s.json)" -eq 4 ] || fail "$sm: not 2 TMA loads an entry"
		[ "$(grep -c '"nv_tileas.tiled_load"' s.json)" -eq 8 ] || fail "$sm: not 2 loops of 2 loads an entry"
		[ "$(grep -c '^// tileiras.tensormap ' k.ptx)" -eq 4 ] || fail "$sm: not 2 maps an entry"
		grep -q 'cp.async.bulk.tensor' k.ptx && grep -q 'mbarrier.try_wait' k.ptx || fail "$sm: no TMA ring"
		if [ $sm = sm_90 ]; then
			grep -q 'wgmma.mma_async' k.ptx || fail "no wgmma"
		else
			grep -q 'mma.sync' k.ptx && grep -q 'ldmatrix' k.ptx || fail "$sm: no ldmatrix + mma.sync"
		fi
		if grep -q '\.local' k.ptx; then fail "$sm: .local"; fi
		TILE_SCHED_NO_VERSION=1 tile-sched --tma <(tile-read "$CORPUS/13.5/matmul.tileirbc" | tile-lower --gpu-name=$sm) >n.json
		if grep -q '"[ab]": "tma"\|"tma": true' n.json; then fail "$sm: TILE_SCHED_NO_VERSION=1: still TMA"; fi
		for e in f16:16:c32:1e-7 bf16:b:cb:0.01; do
			IFS=: read -r ty in c tol <<<"$e"
			E=$(grep -o "matmul_Kt1_A2${ty}_[A-Za-z0-9_]*" k.ptx | head -1)
			# aligned (256-byte bases, rows of 96 and 128 elements): A and B by TMA; A 2 or
			# B 8 bytes off, or rows 70 elements long (140 bytes): through registers
			for args in "aa$in.npy 128 96 96 1 ab$in.npy 96 128 128 1 a$c.npy 128 128 128 1:a" \
				"aa$in.npy@2 128 96 96 1 ab$in.npy 96 128 128 1 a$c.npy 128 128 128 1:a" \
				"aa$in.npy 128 96 96 1 ab$in.npy@8 96 128 128 1 a$c.npy@4 128 128 128 1:a" \
				"ua$in.npy 100 70 70 1 ub$in.npy 70 90 90 1 u$c.npy 100 90 90 1:u"; do
				rm -rf out
				run tile-run --entry "$E" --grid 2,2 --check racecheck --out out k.ptx ${args%:*}
				assert_success
				matches out/10.npy "${args##*:}ref.npy" "$tol"
			done
			# which path ran: maps of the wrong array (B's, boxes as noted) make the TMA
			# path's product wrong and leave the register path's right
			wrong=$(sed -n "s/^\/\/ tileiras.tensormap $E \(1[56]\) .* box=\([0-9]*\),\([0-9]*\) swizzle=\([0-9]*\)$/tmap:5,\2x\3,swizzle=\4/p" k.ptx)
			[ "$(echo $wrong | wc -w)" -eq 2 ] || fail "$sm $ty: maps $wrong"
			rm -rf out
			run tile-run --entry "$E" --grid 2,2 --out out k.ptx aa$in.npy 128 96 96 1 ab$in.npy 96 128 128 1 \
				a$c.npy 128 128 128 1 $wrong
			assert_success
			"$PY" -c 'import numpy as np, sys
o = np.load(sys.argv[1])
if o.dtype == np.uint16: o = (o.astype(np.uint32) << 16).view(np.float32)
assert np.abs(o - np.load(sys.argv[2])).max() > 1' out/10.npy aref.npy || fail "$sm $ty: the wrong maps changed nothing"
			rm -rf out
			run tile-run --entry "$E" --grid 2,2 --out out k.ptx aa$in.npy@2 128 96 96 1 ab$in.npy 96 128 128 1 \
				a$c.npy 128 128 128 1 $wrong
			assert_success
			matches out/10.npy aref.npy "$tol"
		done
		if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
			require_ptxas
			ptx_ok k.ptx $sm "$sm versioned matmul"
		fi
	done
}

@test "TMA, versioned on alignment: the fact-less MMA kernels of tests/mma and tests/mma2 (f16 -> f16, tf32, a TN product's B^T, an epilogue) are versioned; both arms against numpy on tile-run (sm_90, sm_120; arrays aligned and 4 bytes off), racecheck" {
	need_run
	for k in mma/mm_f16_f16 mma/mm_tf32 mma2/mm_bt_f16 mma2/mm_epilogue_f16; do
		tile-read "$BATS_TEST_DIRNAME/$k.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --tma >"$SCRATCH/s.json"
		grep -q '"versioned_for_tma"' "$SCRATCH/s.json" || fail "$k: not versioned"
	done
	for off in 0 4; do
		tma_racecheck 8 $off sm_90,sm_120 4 mm_f16_f16 mm_tf32 mm_bt_f16 mm_epilogue_f16
	done
}

@test "TMA: tileiras copies by TMA on sm_90 only when its cubins fill the maps (TILEIR with callbacks: ptxas 13.2+), and the cubin carries them" {
	require_ptxas
	f="$L/matmul.matmul.ln6.ickz6ktd.tileirbc"
	# ptxas 13.0 (plain-PTX cubins): cp.async, never maps
	old=$(ls /usr/local/cuda/bin/ptxas 2>/dev/null || command -v ptxas)
	v=$("$old" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1\2/p')
	if [ "${v:-0}" -lt 132 ]; then
		run env TILEIRAS_PTXAS="$old" tileiras --gpu-name sm_90 --emit=ptx "$f" -o "$SCRATCH/a.ptx"
		assert_success
		if grep -q 'tensormap' "$SCRATCH/a.ptx"; then fail "maps with ptxas $v"; fi
		run env TILEIRAS_PTXAS="$old" tileiras --gpu-name sm_90 "$f" -o "$SCRATCH/a.cubin"
		assert_success
	fi
	require_nvidia
	run env TILEIRAS_PTXAS="$NVBIN/ptxas" tileiras --gpu-name sm_90 --emit=ptx "$f" -o "$SCRATCH/b.ptx"
	assert_success
	grep -q 'cp.async.bulk.tensor' "$SCRATCH/b.ptx" || fail "no TMA with ptxas 13.5"
	run env TILEIRAS_PTXAS="$NVBIN/ptxas" TILEIRAS_NO_TMA=1 tileiras --gpu-name sm_90 --emit=ptx "$f" -o "$SCRATCH/c.ptx"
	if grep -q 'tensormap' "$SCRATCH/c.ptx"; then fail "TILEIRAS_NO_TMA ignored"; fi
	# the cubin (one process and the stages give the same bytes) carries the callback that fills them
	run env TILEIRAS_PTXAS="$NVBIN/ptxas" tileiras --gpu-name sm_90 "$f" -o "$SCRATCH/b.cubin"
	assert_success
	run env TILEIRAS_PTXAS="$NVBIN/ptxas" TILEIRAS_NO_INPROC=1 tileiras --gpu-name sm_90 "$f" -o "$SCRATCH/b2.cubin"
	assert_success
	cmp "$SCRATCH/b.cubin" "$SCRATCH/b2.cubin" || fail "in-process and stages differ"
	run python3 - "$ROOT/tests/gpu" "$SCRATCH/b.cubin" "$SCRATCH/host.o" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import cubin
c = cubin.load(sys.argv[2])
assert c.has_nv_host
open(sys.argv[3], "wb").write(c.nv_host)
e = list(c.entries.values())[0]
print(e.language, e.cbank_param_bytes)
PY
	assert_success
	assert_output "TILEIR 496"     # 72 user bytes, A's, B's and C's maps
	command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
	harness "$SCRATCH/host.o" "$SCRATCH/cb" || fail "harness"
	run "$SCRATCH/cb" "$SCRATCH/b.ptx" "$(entry_of "$SCRATCH/b.ptx")" 90 20
	assert_success
	assert_output "ok 3 maps x 20 rounds"
}

# nv_launch_ptx HASH: NVIDIA's sm_90 PTX and host object of launch matmul HASH as nv.ptx, nv.o
# (nvidia_tools' capture in $SCRATCH/tw; the current directory $SCRATCH)
nv_launch_ptx() {
	rm -f nv.o nv.ptx
	env -u CUDA_HOME -u CUDA_PATH "$SCRATCH/tw/bin/tileiras" --gpu-name sm_90 "$(mod $1)" -o nv.cubin || fail "$1: NVIDIA's tileiras"
	grep -q 'cp.async.bulk.tensor' nv.ptx || fail "$1: NVIDIA's PTX has no TMA"
}

# launch_case HASH: for launch matmul HASH (inputs from matmul_inputs 9 256,128,256,
# 200,72,136,u) in/c the operand and C files' tags, p their prefix, M K N the sizes, g the grid
launch_case() {
	case $1 in ickz6ktd | z9tdbcda | 5si_mkgq | cs2un56w) in=16 c=c32 ;; wca6jnu0) in=16 c=c16 ;; *) in=b c=cb ;; esac
	case " $UNALIGNED " in
	*" $1 "*) p=u M=200 K=72 N=136 ;;
	*) p= M=256 K=128 N=256 ;;
	esac
	case $1 in ickz6ktd | xz3hjq93 | 5si_mkgq | uz_q1cik) g=$(((M + 127) / 128)),$(((N + 127) / 128)) ;;
	*) g=$(((M + 63) / 64)),$(((N + 63) / 64)) ;;
	esac
}

@test "TMA: NVIDIA's sm_90a PTX of the launch matmuls (warp-specialized: elect.sync, setmaxnreg, TMA loads and store through mbarriers) matches numpy on tile-run, its hidden maps as NVIDIA's callback builds them" {
	nv_launch_setup
	local ran=0
	for f in $ALIGNED $UNALIGNED; do
		nv_launch_ptx $f
		harness nv.o cbnv ||
			fail "$f: harness"
		maps=$(./cbnv --print-maps nv.ptx "$(entry_of nv.ptx)" 90) || fail "$f: NVIDIA's callback"
		launch_case $f
		rm -rf out
		# shellcheck disable=SC2086
		run tile-run --grid $g --check racecheck --out out nv.ptx $p"a$in.npy" $M $K $K 1 $p"b$in.npy" $K $N $N 1 \
			$p"$c.npy" $M $N $N 1 $maps
		echo "$f: $maps"
		assert_success
		matches out/10.npy "${p}ref.npy" "$([ $c = cb ] && echo 0.01 || echo 1e-7)"
		ran=$((ran + 1))
	done
	[ $ran -eq 9 ]
}

@test "TMA, tf32 (gqcn080s, f32 operands through ftof nearest_even): A copied by cp.async.bulk.tensor through a tf32 map (the copy rounds), no cvt of A; ptxas accepts, no serialization, no spills" {
	require_ptxas
	tma_ptx gqcn080s "$SCRATCH/k.ptx" || fail "tf32: stages"
	grep -q '^\.target sm_90a' "$SCRATCH/k.ptx" || fail "target"
	# A (64 x 16 f32, K-major: one 64-byte swizzled box of 16 x 64) by TMA, rounded by its map;
	# B (16 x 64, staged transposed for tf32) through registers as before
	[ "$(grep -c '^// tileiras.tensormap ' "$SCRATCH/k.ptx")" -eq 1 ] || fail "not one note"
	grep -q '^// tileiras.tensormap mm_tf32_[A-Za-z0-9_]* 15 tf32 base=p0 dims=p2,p1 stride=p3 box=16,64 swizzle=64$' \
		"$SCRATCH/k.ptx" || fail "A's note: $(grep tensormap "$SCRATCH/k.ptx")"
	for p in 'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes' \
		'mbarrier.try_wait.parity.shared::cta.b64' 'wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32'; do
		grep -q -- "$p" "$SCRATCH/k.ptx" || fail "no $p"
	done
	# the only conversions left are B's: 16 x 64 / 128 threads (before, A's 8 too)
	[ "$(grep -c 'cvt.rn.tf32.f32' "$SCRATCH/k.ptx")" -eq 8 ] || fail "$(grep -c 'cvt.rn.tf32.f32' "$SCRATCH/k.ptx") cvt.rn.tf32"
	ptx_ok "$SCRATCH/k.ptx" sm_90a tf32
	if grep -qi 'serializ' "$SCRATCH/k.ptx.log"; then fail "$(grep -i serializ "$SCRATCH/k.ptx.log")"; fi
	# the one NVIDIA's tools come with (13.5), if any
	if [ -n "$NVBIN" ] && [ -x "$NVBIN/ptxas" ]; then
		"$NVBIN/ptxas" -arch=sm_90a -v "$SCRATCH/k.ptx" -o "$SCRATCH/k5.cubin" 2>"$SCRATCH/k5.log" ||
			fail "ptxas 13.5: $(head -3 "$SCRATCH/k5.log")"
		if grep -qi 'serializ\|C751' "$SCRATCH/k5.log"; then fail "ptxas 13.5: $(grep -i 'serializ\|C751' "$SCRATCH/k5.log")"; fi
	fi
	# with rounding zero the copy could not round: the ftofs patched (bytes 250, 254 of the
	# bytecode: their rounding_mode, 0 nearest_even -> 1 zero) keep A in registers
	"$PY" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read()); assert b[248] == b[252] == 0x2A and b[250] == b[254] == 0
b[250] = b[254] = 1; open(sys.argv[2], "wb").write(b)' "$(mod gqcn080s)" "$SCRATCH/rz.tileirbc"
	tile-read "$SCRATCH/rz.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --tma | tile-ptx --gpu-name=sm_90 >"$SCRATCH/rz.ptx"
	if grep -q 'tensormap.* tf32 ' "$SCRATCH/rz.ptx"; then fail "rounding zero by a tf32 map"; fi
	grep -q 'and.b32.*-8192' "$SCRATCH/rz.ptx" || fail "rounding zero: no truncation"
}

@test "TMA, tf32: the launch against numpy on tile-run (tile multiples and ragged 200x72x136; products of the operands rounded to tf32, nearest even), racecheck and memcheck; NVIDIA's PTX with the maps its callback writes too" {
	need_run
	cd "$SCRATCH"
	tf32_inputs 21 256,128,256, 200,72,136,r
	tma_ptx gqcn080s k.ptx || fail "tf32"
	for chk in racecheck memcheck; do
		rm -rf out
		run tile-run --grid 4,4 --check $chk --out out k.ptx a32.npy 256 128 128 1 b32.npy 128 256 256 1 c32.npy 256 256 256 1
		assert_success
		tf32_close out/10.npy rn.npy
	done
	rm -rf out
	run tile-run --grid 4,3 --check racecheck --out out k.ptx ra32.npy 200 72 72 1 rb32.npy 72 136 136 1 rc32.npy 200 136 136 1
	assert_success
	tf32_close out/10.npy rrn.npy
	# the check can fail: truncated operands (what the copies would give without tf32 maps) are off
	run "$PY" -c 'import numpy as np
o = np.load("rrz.npy"); r = np.load("rrn.npy"); assert np.abs(o - r).max() / np.abs(r).max() > 1e-4'
	assert_success
	# NVIDIA's: its tileiras with a ptxas that keeps the PTX and the host object
	nvidia_tools
	rm -f nv.o nv.ptx
	env -u CUDA_HOME -u CUDA_PATH "$SCRATCH/tw/bin/tileiras" --gpu-name sm_90 "$(mod gqcn080s)" -o nv.cubin ||
		fail "NVIDIA's tileiras"
	[ "$(grep -c 'cp.async.bulk.tensor' nv.ptx)" -ge 2 ] || fail "NVIDIA's PTX has no TMA"
	if grep -q 'cvt.*tf32' nv.ptx; then fail "NVIDIA's PTX converts to tf32 itself"; fi
	harness nv.o cbnv || fail "harness"
	maps=$(./cbnv --print-maps nv.ptx "$(entry_of nv.ptx)" 90) || fail "NVIDIA's callback"
	[ "$(echo $maps)" = "tmap:0,16x64,swizzle=64,tf32 tmap:5,32x16,swizzle=128,tf32" ] || fail "NVIDIA's maps: $maps"
	rm -rf out
	# shellcheck disable=SC2086
	run tile-run --grid 4,3 --check racecheck --out out nv.ptx ra32.npy 200 72 72 1 rb32.npy 72 136 136 1 \
		rc32.npy 200 136 136 1 $maps
	assert_success
	tf32_close out/10.npy rrn.npy
}

# tma_ptx_on SM HASH OUT [tile-sched options]: the stages for SM with tile-sched --tma
tma_ptx_on() {
	local sm=$1 f=$2 out=$3
	shift 3
	tile-read "$(mod $f)" | tile-lower --gpu-name=$sm | tile-sched --tma "$@" | tile-ptx --gpu-name=$sm >"$out"
}

@test "TMA for mma.sync products (sm_100, sm_103, sm_110, sm_120, sm_121; sm_90 with one warp): cp.async.bulk.tensor into TMA's swizzled boxes, ldmatrix from them, sm_120a / .shared::cta as NVIDIA's; ptxas accepts, no stack, no spills" {
	require_ptxas
	export TILE_SCHED_NO_TMA_STORE=1     # the operands (the store: its own test)
	for sm in sm_100 sm_103 sm_110 sm_120 sm_121; do
		for f in ickz6ktd z9tdbcda aa5484a6 wca6jnu0; do
			tma_ptx_on $sm $f "$SCRATCH/k.ptx" || fail "$sm $f: stages"
			grep -q "^\.target ${sm}a" "$SCRATCH/k.ptx" || fail "$sm $f: $(grep '^.target' "$SCRATCH/k.ptx")"
			[ "$(grep -c '^// tileiras.tensormap ' "$SCRATCH/k.ptx")" -eq 2 ] || fail "$sm $f: not 2 maps"
			for p in 'cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes' \
				'mbarrier.try_wait.parity' 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' \
				'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16' 'mma.sync.aligned.m16n8k16.row.col'; do
				grep -q "$p" "$SCRATCH/k.ptx" || fail "$sm $f: no $p"
			done
			if grep -q 'wgmma\|\.local\|cp.async.cg' "$SCRATCH/k.ptx"; then fail "$sm $f: wgmma, local or cp.async"; fi
			ptxas -arch=${sm}a -v "$SCRATCH/k.ptx" -o "$SCRATCH/k.o" 2>"$SCRATCH/v" || fail "$sm $f: ptxas"
			grep -q ' 0 bytes stack frame, 0 bytes spill stores' "$SCRATCH/v" || fail "$sm $f: $(cat "$SCRATCH/v")"
		done
	done
	# sm_90 with one warp: no warpgroup, so mma.sync fed by TMA too (wgmma stays the 4-warp choice)
	tma_ptx_on sm_90 z9tdbcda "$SCRATCH/k.ptx" --num-warps=1
	grep -q 'ldmatrix' "$SCRATCH/k.ptx" && grep -q 'cp.async.bulk.tensor' "$SCRATCH/k.ptx" || fail "sm_90 one warp"
	if grep -q 'wgmma' "$SCRATCH/k.ptx"; then fail "sm_90 one warp: wgmma"; fi
	ptxas -arch=sm_90a "$SCRATCH/k.ptx" -o "$SCRATCH/k.o" || fail "sm_90 one warp: ptxas"
}

@test "TMA for mma.sync products against numpy on tile-run (sm_100, sm_120; sm_90 one warp): f16/bf16, 64 and 128 tiles, ragged 200x72x136 and tile multiples, 1 and 4 warps, racecheck" {
	need_run
	cd "$SCRATCH"
	matmul_inputs 5 256,128,256, 200,72,136,u
	for sm in sm_100 sm_120 sm_90; do
		ws="1 4"
		[ $sm = sm_90 ] && ws=1
		for w in $ws; do
			for f in 5si_mkgq z9tdbcda aa5484a6; do
				tma_ptx_on $sm $f k.ptx --num-warps=$w
				grep -q 'cp.async.bulk.tensor' k.ptx || fail "$sm $f w$w: no TMA"
				case $f in aa5484a6) in=b c=cb tol=0.01 ;; *) in=16 c=c32 tol=0 ;; esac
				for p in "" u; do
					if [ -z "$p" ]; then M=256 K=128 N=256; else M=200 K=72 N=136; fi
					case $f in 5si_mkgq) g=$(((M + 127) / 128)),$(((N + 127) / 128)) ;; *) g=$(((M + 63) / 64)),$(((N + 63) / 64)) ;; esac
					rm -rf out
					run tile-run --grid $g --check racecheck --out out k.ptx $p"a$in.npy" $M $K $K 1 $p"b$in.npy" $K $N $N 1 \
						$p"$c.npy" $M $N $N 1
					assert_success
					matches out/10.npy "${p}ref.npy" $tol
				done
			done
		done
	done
}

@test "TMA for mma.sync products: NVIDIA's sm_100/sm_103/sm_110/sm_120/sm_121 callbacks write the maps ours do (64x64 launches: same boxes), and NVIDIA's sm_120a PTX (TMA + ldmatrix + mma.sync) matches numpy on tile-run with them" {
	need_run
	nvidia_tools
	local tw="$SCRATCH/tw"
	cd "$SCRATCH"
	matmul_inputs 11 200,72,136,u
	for sm in sm_100 sm_103 sm_110 sm_120 sm_121; do
		for f in z9tdbcda aa5484a6 wca6jnu0; do
			rm -f nv.o nv.ptx
			env -u CUDA_HOME -u CUDA_PATH "$tw/bin/tileiras" --gpu-name $sm "$(mod $f)" -o nv.cubin || fail "$sm $f: NVIDIA's tileiras"
			harness nv.o cbnv || fail "$sm $f: harness"
			# the operands' maps (NVIDIA stores C by TMA on some of these, not all)
			TILE_SCHED_NO_TMA_STORE=1 tma_ptx_on $sm $f k.ptx
			run ./cbnv k.ptx "$(entry_of k.ptx)" "${sm#sm_}" 40
			assert_success
			assert_output "ok 2 maps x 40 rounds"
			[ $sm = sm_120 ] || continue
			grep -q 'cp.async.bulk.tensor' nv.ptx && grep -q 'ldmatrix' nv.ptx || fail "$f: NVIDIA's sm_120 PTX is not TMA + ldmatrix"
			maps=$(./cbnv --print-maps nv.ptx "$(entry_of nv.ptx)" 120) || fail "$f: NVIDIA's callback"
			case $f in aa5484a6) in=b c=cb tol=0.01 ;; wca6jnu0) in=16 c=c16 tol=0.001 ;; *) in=16 c=c32 tol=0 ;; esac
			rm -rf out
			# shellcheck disable=SC2086
			run tile-run --grid 4,3 --check racecheck --out out nv.ptx "ua$in.npy" 200 72 72 1 "ub$in.npy" 72 136 136 1 \
				"u$c.npy" 200 136 136 1 $maps
			assert_success
			matches out/10.npy uref.npy $tol
		done
	done
}

@test "TMA store: the launches with shape facts stage C in TMA's boxes and one thread stores them (64-row boxes, as NVIDIA's maps), fenced and waited; no st.global; ptxas accepts, no stack; NVIDIA's callbacks write the same C maps; without shape facts the threads store C (as NVIDIA's)" {
	require_ptxas
	for f in $UNALIGNED; do
		tma_ptx $f "$SCRATCH/k.ptx" || fail "$f"
		[ "$(grep -c '^// tileiras.tensormap ' "$SCRATCH/k.ptx")" -eq 2 ] || fail "$f: C by TMA"
		grep -q 'st.global' "$SCRATCH/k.ptx" || fail "$f: no st.global"
	done
	for f in $ALIGNED; do
		tma_ptx $f "$SCRATCH/k.ptx" || fail "$f"
		[ "$(grep -c '^// tileiras.tensormap ' "$SCRATCH/k.ptx")" -eq 3 ] || fail "$f: not 3 notes"
		case $f in
		xz3hjq93 | yd8nx2s3 | uz_q1cik | aa5484a6) c='17 bf16 base=p10 dims=p12,p11 stride=p13 box=64,64 swizzle=128' ;;
		wca6jnu0) c='17 f16 base=p10 dims=p12,p11 stride=p13 box=64,64 swizzle=128' ;;
		*) c='17 f32 base=p10 dims=p12,p11 stride=p13 box=32,64 swizzle=128' ;;
		esac
		grep -q "^// tileiras.tensormap [A-Za-z0-9_]* $c\$" "$SCRATCH/k.ptx" || fail "$f: C's note: $(grep 'tensormap.* 17 ' "$SCRATCH/k.ptx")"
		for p in 'fence.proxy.async.shared::cta' 'cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group' \
			'cp.async.bulk.commit_group' 'cp.async.bulk.wait_group 0'; do
			grep -q -- "$p" "$SCRATCH/k.ptx" || fail "$f: no $p"
		done
		if grep -q 'st.global' "$SCRATCH/k.ptx"; then fail "$f: C stored by the threads"; fi
		ptx_ok "$SCRATCH/k.ptx" sm_90 "$f"
		if grep -qi 'serializ' "$SCRATCH/k.ptx.log"; then fail "$f: $(grep -i serializ "$SCRATCH/k.ptx.log")"; fi
		# sm_120: C by TMA where it fits the staging budget (40 KiB: bf16 128x128 does, f32 does not)
	tma_ptx_on sm_120 xz3hjq93 "$SCRATCH/s.ptx"
	grep -q 'cp.async.bulk.tensor.2d.global.shared::cta' "$SCRATCH/s.ptx" || fail "sm_120 xz3hjq93: C not by TMA"
	ptx_ok "$SCRATCH/s.ptx" sm_120 "sm_120 xz3hjq93"
	tma_ptx_on sm_120 ickz6ktd "$SCRATCH/s.ptx"
	if grep -q 'cp.async.bulk.tensor.2d.global.shared::cta' "$SCRATCH/s.ptx"; then fail "sm_120 ickz6ktd: 64 KiB of C by TMA"; fi
	# TILE_SCHED_NO_TMA_STORE=1: the threads store C again
		TILE_SCHED_NO_TMA_STORE=1 tma_ptx $f "$SCRATCH/n.ptx"
		grep -q 'st.global' "$SCRATCH/n.ptx" || fail "$f: no st.global without the TMA store"
	done
	need_run
	nvidia_tools
	local tw="$SCRATCH/tw"
	cd "$SCRATCH"
	for f in $ALIGNED; do
		rm -f nv.o
		env -u CUDA_HOME -u CUDA_PATH "$tw/bin/tileiras" --gpu-name sm_90 "$(mod $f)" -o nv.cubin || fail "$f: NVIDIA's tileiras"
		harness nv.o cbnv || fail "$f: harness"
		tma_ptx $f k.ptx
		run ./cbnv k.ptx "$(entry_of k.ptx)" 90 40
		assert_success
		assert_output "ok 3 maps x 40 rounds"
	done
}

@test "TMA, K-major B (sm_90): a TN product's B — read through a transposed view, or a [N, K] tile transposed by a permute — copied by cp.async.bulk.tensor from B^T's own layout (boxes of K x N rows), staged K-major for wgmma; no per-thread copies; ptxas accepts, no spills; against numpy on tile-run, racecheck" {
	for k in mm_bt_f16_a16 mm_bt_view_f16_a16; do
		tile-read "$ROOT/tests/mma2/$k.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --tma | tile-ptx --gpu-name=sm_90 >"$SCRATCH/k.ptx" ||
			fail "$k"
		# A, B (both K x 32 f16: 64-byte swizzle) and the TMA-stored C
		[ "$(grep -c '^// tileiras.tensormap .* f16 .* box=32,64 swizzle=64$' "$SCRATCH/k.ptx")" -eq 2 ] ||
			fail "$k: $(grep tensormap "$SCRATCH/k.ptx")"
		if grep -q 'cp.async.cg\|ld.global' "$SCRATCH/k.ptx"; then fail "$k: per-thread copies"; fi
		grep -q 'wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {[^}]*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;' "$SCRATCH/k.ptx" ||
			fail "$k: B not K-major"
		if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
			require_ptxas
			ptx_ok "$SCRATCH/k.ptx" sm_90 "$k"
		fi
	done
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --sched-flags=--tma --check racecheck \
		mm_bt_f16_a16 mm_bt_view_f16_a16
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 6 ] || fail "not 6 runs"
}

# tile-run --nv-host (issue 36 item 1; tools/tile-run/nvhost.c): the cubin's host object
# linked and its callbacks run as the driver runs them, so a TMA kernel's hidden maps need
# no tmap: arguments
@test "TMA: tile-run --nv-host runs NVIDIA's sm_90a PTX of the launch matmuls with the maps its own host object writes (no harness, no tmap: arguments), against numpy under racecheck; ours with our host object too" {
	nv_launch_setup
	local ran=0
	for f in $ALIGNED $UNALIGNED; do
		nv_launch_ptx $f
		launch_case $f
		set -- $p"a$in.npy" $M $K $K 1 $p"b$in.npy" $K $N $N 1 $p"$c.npy" $M $N $N 1
		rm -rf out
		run tile-run --grid $g --check racecheck --nv-host nv.o --out out nv.ptx "$@"
		assert_success
		matches out/10.npy "${p}ref.npy" "$([ $c = cb ] && echo 0.01 || echo 1e-7)"
		# without the object: a usage error that names the flag
		run tile-run --grid $g nv.ptx "$@"
		assert_failure 1
		assert_output --partial "give the cubin's host object (--nv-host OBJ)"
		ran=$((ran + 1))
	done
	[ $ran -eq 9 ]
	# ours: tile-sched --tma's PTX and tile-pack's host object (its callback fills the maps;
	# the PTX's notes are not used when --nv-host is given)
	for f in ickz6ktd 5si_mkgq; do
		tma_ptx $f k.ptx || fail "$f"
		tile-pack --emit=nv-host k.ptx -o host.o || fail "$f: nv-host"
		case $f in ickz6ktd) p= M=256 K=128 N=256 ;; *) p=u M=200 K=72 N=136 ;; esac
		rm -rf out
		run tile-run --grid $(((M + 127) / 128)),$(((N + 127) / 128)) --check racecheck --nv-host host.o --out out k.ptx \
			$p"a16.npy" $M $K $K 1 $p"b16.npy" $K $N $N 1 $p"c32.npy" $M $N $N 1
		assert_success
		matches out/10.npy "${p}ref.npy" 1e-7
	done
}

@test "TMA: tile-run --nv-host refuses what is not a host object, one without callbacks or without the entry, and a callback that crashes or fails, each with one message (exit 1), no crash" {
	need_run
	command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
	cd "$SCRATCH"
	tma_ptx ickz6ktd k.ptx || fail "ptx"
	matmul_inputs 9 256,128,256,
	set -- a16.npy 256 128 128 1 b16.npy 128 256 256 1 c32.npy 256 256 256 1
	echo 'not an object' >junk.o
	run tile-run --grid 2,2 --nv-host junk.o k.ptx "$@"
	assert_failure 1
	assert_output --partial "--nv-host: junk.o does not link as a host object"
	printf 'int unrelated(void) { return 1; }\n' >plain.c
	"${CC:-cc}" -c -fPIC plain.c -o plain.o
	run tile-run --grid 2,2 --nv-host plain.o k.ptx "$@"
	assert_failure 1
	assert_output --partial "has no __CUDA_TILEIR_CALLBACKS"
	# a table with one entry of another name, then one whose callback crashes, then one that returns 7
	for what in other crash fail; do
		cat >cb.c <<-EOF2
			#include <stdint.h>
			#include <string.h>
			static int on_args(void *a, void *b, void *c, uint8_t *p) {
			    if (!strcmp("$what", "crash")) { volatile int *z = 0; *z = 1; }
			    return !strcmp("$what", "fail") ? 7 : 0;
			}
			static const char name[] = "$([ $what = other ] && echo another_kernel || entry_of k.ptx)";
			static const uint64_t recs[8] = { (uint64_t)(uintptr_t)name, 0, 0, 0, 0, (uint64_t)(uintptr_t)on_args, 0, 0 };
			const uint64_t __CUDA_TILEIR_CALLBACKS[9] = { 2, 0, 0, 0, 64, (uint64_t)(uintptr_t)recs, 1, 2, 0 };
		EOF2
		"${CC:-cc}" -c -fPIC cb.c -o cb.o || fail "cc"
		run tile-run --grid 2,2 --nv-host cb.o k.ptx "$@"
		assert_failure 1
		case $what in
		other) assert_output --partial "has no callback for entry $(entry_of k.ptx)" ;;
		crash) assert_output --partial "callback for $(entry_of k.ptx) was killed by signal 11" ;;
		fail) assert_output --partial "callback for $(entry_of k.ptx) returned 7" ;;
		esac
	done
}

@test "TMA: a batched product (rank-3 ct.mma, one batch a block, launch facts) copies A and B by TMA on sm_90 (tile-lower keeps a batch of one free of extracts), numpy-exact on tile-run under racecheck; on sm_80 through registers" {
	local B="$ROOT/tests/mma/bmm_f16_tb1_aligned.tileirbc"
	tile-read "$B" | tile-lower --gpu-name sm_90 --tma | tile-sched >"$SCRATCH/s.json"
	run grep -c '"a": "tma"' "$SCRATCH/s.json"
	assert_output 1
	run grep -c '"b": "tma"' "$SCRATCH/s.json"
	assert_output 1
	run grep -c '"op": "cuda_tile.extract"' "$SCRATCH/s.json"
	assert_output 0
	tile-ptx <"$SCRATCH/s.json" >"$SCRATCH/k.ptx"
	grep -q 'cp.async.bulk.tensor.3d' "$SCRATCH/k.ptx"
	tile-read "$B" | tile-lower --gpu-name sm_80 | tile-sched >"$SCRATCH/s80.json"
	run grep -c '"tma"' "$SCRATCH/s80.json"
	assert_output 0
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --sched-flags=--tma --check racecheck bmm_f16_tb1_aligned
	assert_success
	assert_output --partial "3 ok, 0 failed"
}

@test "TMA on sm_103, sm_110, sm_121: every launch matmul compiles to a TILEIR cubin whose SASS loads by TMA (UTMALDG), where it used to exit 5 for want of the parameters' constant-bank offset (targets.def param_cbank, measured from NVIDIA's cubins)" {
	require_nvidia
	for sm in sm_103 sm_110 sm_121; do
		for f in "$ROOT"/tests/mma/launch/matmul.*.tileirbc; do
			run env VIRTUAL_ENV="$ROOT/.venv" "$BIN/tileiras" --gpu-name $sm -o "$SCRATCH/k.cubin" "$f"
			[ "$status" -eq 0 ] || fail "$sm $(basename "$f"): $output"
			"$NVBIN/cuobjdump" -sass "$SCRATCH/k.cubin" | grep -q UTMALDG || fail "$sm $(basename "$f"): no UTMALDG"
		done
	done
}
