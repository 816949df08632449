#!/usr/bin/env bats
# tile-run on thread-block clusters (docs/tile-run.md "Clusters"): the CTAs
# of a cluster run together, distributed shared memory through mapa and
# .shared::cluster (and generic addresses), barrier.cluster, remote
# mbarrier arrivals, multicast bulk and tensor copies, the cluster special
# registers, and the faults: races across CTAs, ranks outside the cluster,
# offsets past a CTA's shared memory, an exited CTA's shared memory,
# deadlocks. The kernels are hand-written sm_90a PTX (tests/cluster/, each
# accepted by ptxas); the faulty variants are made here by editing their
# lines tagged "@name" (variant), so the PTX lines the faults name are the
# kernels' own.
# NVIDIA's own cluster PTX: tests/cluster/nvidia/*.tileirbc (cuTile kernels
# with num_ctas=2, gen.py: a vector add, a wgmma matmul, and corpus kernels
# whose PTX reduces through distributed shared memory, checked against
# numpy by check-dsmem) through NVIDIA's tileiras (skipped without .venv).
bats_require_minimum_version 1.5.0
load helpers
load nvcapture

setup() { setup_scratch; }
teardown() { teardown_scratch; }

C="$ROOT/tests/cluster"

# variant KERNEL TAG LINE: $SCRATCH/v.ptx, KERNEL.ptx with its line tagged
# "// @TAG" replaced by LINE
variant() {
	grep -q "// @$2\$" "$C/$1.ptx" || fail "no line tagged @$2 in $1.ptx"
	awk -v tag="// @$2" -v repl="$3" 'index($0, tag) && substr($0, length($0) - length(tag) + 1) == tag { print "\t" repl; next } { print }' \
		"$C/$1.ptx" >"$SCRATCH/v.ptx"
}

# line KERNEL TAG: the PTX line number of KERNEL.ptx's line tagged @TAG
line() {
	grep -n "// @$2\$" "$C/$1.ptx" | cut -d: -f1
}

exchange_inputs() {
	"$PY" -c 'import numpy as np; np.save("'"$SCRATCH"'/out.npy", np.zeros((4 * 64, 8), np.uint32))'
}

@test "cluster: distributed shared memory: mapa + ld/st/red.shared::cluster and generic addresses, barrier.cluster (exchange.ptx, exact)" {
	need_run
	exchange_inputs
	for check in memcheck racecheck; do
		for seed in 0 1 2; do
			run tile-run "$C/exchange.ptx" --grid 4 --check $check --seed $seed --out "$SCRATCH/o" "$SCRATCH/out.npy"
			assert_success
			run "$PY" -c 'import numpy as np, sys
o = np.load(sys.argv[1]).reshape(4, 64, 8)
t = np.arange(64)
for c in range(4):
    n = c ^ 1                       # the neighbour in the cluster of 2
    want = np.stack([n * 1000 + t, n * 1000 + t, n * 100000 + 3 * t, np.full(64, 64),
                     np.full(64, n % 2), np.full(64, n % 2), np.zeros(64), np.ones(64)], 1)
    if not (o[c] == want).all():
        sys.exit("CTA %d: %s" % (c, o[c][:3]))
print("ok")' "$SCRATCH/o/0.npy"
			assert_output ok
		done
	done
}

@test "cluster: special registers with --cluster 2,2 and without a cluster (sregs.ptx, exact)" {
	need_run
	"$PY" -c 'import numpy as np; np.save("'"$SCRATCH"'/out.npy", np.zeros((8, 16), np.uint32))'
	for shape in 2,2 1,1 none; do
		opt=(--cluster "$shape")
		[ "$shape" = none ] && opt=()
		run tile-run "$C/sregs.ptx" --grid 4,2 "${opt[@]}" --out "$SCRATCH/o" "$SCRATCH/out.npy"
		assert_success
		run "$PY" -c 'import numpy as np, sys
o = np.load(sys.argv[1]); shape = sys.argv[2]
cx, cy = (2, 2) if shape == "2,2" else (1, 1)
explicit = shape != "none"
for y in range(2):
    for x in range(4):
        rank = x % cx + (y % cy) * cx
        want = [x, y, x // cx, y // cy, 4 // cx, 2 // cy, x % cx, y % cy, cx, cy, rank, cx * cy,
                int(explicit), 0, 1, rank]
        if list(o[y * 4 + x]) != want:
            sys.exit("CTA (%d,%d): %s, want %s" % (x, y, list(o[y * 4 + x]), want))
print("ok")' "$SCRATCH/o/0.npy" "$shape"
		assert_output ok
	done
}

@test "cluster: the cluster shape: .reqnctapercluster and --cluster must divide the grid and agree (exit 1 / 2)" {
	need_run
	exchange_inputs
	run --separate-stderr tile-run "$C/exchange.ptx" --grid 3 "$SCRATCH/out.npy"
	assert_failure 1
	[ "$stderr" = "tile-run: error: the grid 3x1x1 is not a whole number of 2x1x1 clusters (.reqnctapercluster)" ]
	run --separate-stderr tile-run "$C/exchange.ptx" --grid 4 --cluster 4 "$SCRATCH/out.npy"
	assert_failure 1
	[[ $stderr == *"requires a cluster of 2x1x1 (.reqnctapercluster), not 4x1x1"* ]]
	run tile-run "$C/exchange.ptx" --grid 4 --cluster 2 --out "$SCRATCH/o" "$SCRATCH/out.npy"
	assert_success
	"$PY" -c 'import numpy as np; np.save("'"$SCRATCH"'/s.npy", np.zeros((8, 16), np.uint32))'
	run --separate-stderr tile-run "$C/sregs.ptx" --grid 3,2 --cluster 2 "$SCRATCH/s.npy"
	assert_failure 2
	[ "$stderr" = "tile-run: error: the grid 3x2x1 is not a whole number of 2x1x1 clusters (--cluster)" ]
	for bad in 0 2,x 1,1,1,1 -1; do
		run --separate-stderr tile-run "$C/sregs.ptx" --grid 4,2 --cluster "$bad" "$SCRATCH/s.npy"
		assert_failure 2
		[[ $stderr == *"bad --cluster"* ]] || fail "--cluster $bad: $stderr"
	done
	run --separate-stderr tile-run "$C/sregs.ptx" --grid 32 --cluster 32 "$SCRATCH/s.npy"
	assert_failure 2
	[[ $stderr == *"1 to 16 CTAs"* ]]
	# .explicitcluster needs a shape; .maxclusterrank bounds it
	sed 's/^\.reqntid 32$/.reqntid 32\n.explicitcluster\n.maxclusterrank 2/' "$C/sregs.ptx" >"$SCRATCH/e.ptx"
	run --separate-stderr tile-run "$SCRATCH/e.ptx" --grid 4,2 "$SCRATCH/s.npy"
	assert_failure 1
	[[ $stderr == *"must be launched with a cluster (.explicitcluster)"* ]]
	run --separate-stderr tile-run "$SCRATCH/e.ptx" --grid 4,2 --cluster 2,2 "$SCRATCH/s.npy"
	assert_failure 1
	[[ $stderr == *"over the kernel's .maxclusterrank 2"* ]]
	run tile-run "$SCRATCH/e.ptx" --grid 4,2 --cluster 2 "$SCRATCH/s.npy"
	assert_success
}

@test "cluster: remote mbarrier arrivals order another CTA's writes (remote_mbar.ptx, exact, memcheck and racecheck)" {
	need_run
	"$PY" -c 'import numpy as np; np.save("'"$SCRATCH"'/out.npy", np.zeros(128, np.uint32))'
	for check in memcheck racecheck; do
		for seed in 0 3; do
			run tile-run "$C/remote_mbar.ptx" --grid 4 --check $check --seed $seed --out "$SCRATCH/o" "$SCRATCH/out.npy"
			assert_success
			"$PY" -c 'import numpy as np, sys
t = np.arange(64)
sys.exit(not (np.load(sys.argv[1]) == np.concatenate([7 * t + 5, 1000 + 7 * t + 5])).all())' "$SCRATCH/o/0.npy"
		done
	done
	# the consumer that does not wait for the phase reads what the other CTA writes: a race
	variant remote_mbar wait "// no wait"
	sed -i 's#^.*// @retry$#\t// no retry#' "$SCRATCH/v.ptx"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 --check racecheck "$SCRATCH/out.npy"
	assert_failure 3
	[[ $stderr == *"shared-memory race: "*" of CTA rank 0 by thread "*" of CTA rank "*" after a "*" by thread "*" of CTA rank "*"(PTX line $(line remote_mbar consume))"* || \
	   $stderr == *"shared-memory race: "*"(PTX line $(line remote_mbar produce))"* ]] || fail "$stderr"
}

@test "cluster: multicast cp.async.bulk.tensor and cp.async.bulk deliver data and complete_tx to every CTA of ctaMask (mcast.ptx, exact)" {
	need_run
	"$PY" -c 'import numpy as np
np.save("'"$SCRATCH"'/in.npy", (np.arange(24 * 32, dtype=np.float32) * 0.5 - 3).reshape(24, 32))
np.save("'"$SCRATCH"'/out.npy", np.zeros((4, 12, 32), np.float32))'
	for check in memcheck racecheck; do
		run tile-run "$C/mcast.ptx" --grid 4 --check $check --out "$SCRATCH/o" "$SCRATCH/in.npy" "$SCRATCH/out.npy" tmap:0,32x8
		assert_success
		run "$PY" -c 'import numpy as np, sys
i, o = np.load(sys.argv[1]), np.load(sys.argv[2])
for c in range(4):
    k = c // 2                      # the cluster
    if not (o[c] == np.concatenate([i[8 * k:8 * k + 8], i[16 + 4 * k:20 + 4 * k]])).all():
        sys.exit("CTA %d differs" % c)
print("ok")' "$SCRATCH/in.npy" "$SCRATCH/o/1.npy"
		assert_output ok
	done
	# ctaMask 1: rank 1 never receives the copies; its mbarrier phase never completes
	variant mcast mask "mov.u16 %rs0, 1;"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 "$SCRATCH/in.npy" "$SCRATCH/out.npy" tmap:0,32x8
	assert_failure 3
	[[ $stderr == *"deadlock: 32 threads wait"*"(this one: mbarrier), thread (0,0,0) of block (1,0,0)"* ]] || fail "$stderr"
	# ctaMask naming rank 2 of a cluster of 2
	variant mcast mask "mov.u16 %rs0, 5;"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 "$SCRATCH/in.npy" "$SCRATCH/out.npy" tmap:0,32x8
	assert_failure 3
	[[ $stderr == *"multicast ctaMask 0x5: ranks outside the cluster for a cluster of 2 CTAs"*"(PTX line "* ]]
}

@test "cluster: racecheck: another CTA's shared memory read or written without barrier.cluster (or with a .relaxed arrive) is a race" {
	need_run
	exchange_inputs
	# no cluster barrier between the writes and the neighbour's reads
	variant exchange arrive1 "// no arrive"
	sed -i 's#^.*// @wait1$#\t// no wait#' "$SCRATCH/v.ptx"
	for seed in 0 1 2; do
		run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 --check racecheck --seed $seed "$SCRATCH/out.npy"
		assert_failure 3
		[[ $stderr == *"shared-memory race: "*" of CTA rank "*"(PTX line $(line exchange own-write))"* || \
		   $stderr == *"shared-memory race: "*" of CTA rank "*"(PTX line $(line exchange remote-read))"* ]] || fail "seed $seed: $stderr"
	done
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 --check racecheck "$SCRATCH/out.npy"
	[[ $stderr == *"shared-memory race: write of shared offset 0x0 of CTA rank 1 by thread 0 of CTA rank 1 after a read by thread 0 of CTA rank 0 with no barrier between"* ]]
	# barrier.cluster.arrive.relaxed orders nothing
	variant exchange arrive1 "barrier.cluster.arrive.relaxed.aligned;"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 --check racecheck "$SCRATCH/out.npy"
	assert_failure 3
	[[ $stderr == *"shared-memory race: read of shared offset "*" of CTA rank "*" after a write by thread "*"(PTX line $(line exchange remote-read))"* ]] || fail "$stderr"
}

@test "cluster: memcheck: mapa to a rank outside the cluster, an offset past the CTA's shared memory, .shared::cta to another CTA, an exited CTA" {
	need_run
	exchange_inputs
	variant exchange neighbour "mov.u32 %r3, %cluster_nctarank;"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 "$SCRATCH/out.npy"
	assert_failure 3
	[[ $stderr == *"mapa to CTA rank 2, outside the cluster of 2 CTAs"*"(PTX line $(line exchange mapa))" ]] || fail "$stderr"
	variant exchange remote-read "ld.shared::cluster.u32 %r9, [%r8+4096];"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 "$SCRATCH/out.npy"
	assert_failure 3
	[[ $stderr == *"out-of-bounds shared read of 4 bytes at shared offset 0x10"*" of CTA rank "*" (the CTA has 516 bytes of shared memory)"*"(PTX line $(line exchange remote-read))" ]] || fail "$stderr"
	variant exchange remote-read "ld.shared.u32 %r9, [%r8];"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 "$SCRATCH/out.npy"
	assert_failure 3
	[[ $stderr == *"shared::cta read of 4 bytes at offset "*" of another CTA (rank "*"): that needs .shared::cluster"*"(PTX line $(line exchange remote-read))" ]] || fail "$stderr"
	# without the second barrier.cluster a CTA exits while its neighbour still reads its shared memory
	variant exchange arrive2 "// no arrive"
	sed -i 's#^.*// @wait2$#\t// no wait#' "$SCRATCH/v.ptx"
	run --separate-stderr tile-run "$SCRATCH/v.ptx" --grid 4 "$SCRATCH/out.npy"
	assert_failure 3
	[[ $stderr == *"shared::cluster read of 4 bytes at offset 0x0 of CTA rank 0, which has exited"*"(PTX line $(line exchange remote-read))" ]] || fail "$stderr"
}

@test "cluster: a barrier.cluster.wait nobody can complete is a deadlock, not a hang; an exited CTA does not hold the barrier up" {
	need_run
	run --separate-stderr timeout 20 tile-run "$C/deadlock.ptx" --grid 2
	assert_failure 3
	[ "$stderr" = "tile-run: error: deadlock: 64 threads wait at barriers, mbarriers or warp collectives that can never complete (this one: cluster barrier), thread (0,0,0) of block (0,0,0) (PTX line 35)" ]
	grep -n "barrier.cluster.wait" "$C/deadlock.ptx" | grep -q "^35:"
	variant deadlock stuck "exit;"
	run tile-run "$SCRATCH/v.ptx" --grid 4
	assert_success
	# a wait without an arrival, and two arrivals in one phase, are faults
	sed 's/^\tbarrier.cluster.arrive.aligned;$/\t\/\/ no arrive/' "$SCRATCH/v.ptx" >"$SCRATCH/w.ptx"
	run --separate-stderr tile-run "$SCRATCH/w.ptx" --grid 2
	assert_failure 3
	[[ $stderr == *"barrier.cluster.wait without a barrier.cluster.arrive before it"* ]]
	sed 's/^\tbarrier.cluster.wait.aligned;$/\tbarrier.cluster.arrive.aligned;/' "$SCRATCH/v.ptx" >"$SCRATCH/w.ptx"
	run --separate-stderr tile-run "$SCRATCH/w.ptx" --grid 2
	assert_failure 3
	[[ $stderr == *"barrier.cluster.arrive again before barrier.cluster.wait"* ]]
}

# nv_ptx NAME [SM]: NVIDIA's PTX (default sm_90) of tests/cluster/nvidia/NAME.tileirbc as $SCRATCH/NAME.ptx
nv_ptx() {
	env -u CUDA_HOME "$SCRATCH/tw/bin/tileiras" --gpu-name "${2:-sm_90}" "$C/nvidia/$1.tileirbc" -o "$SCRATCH/$1.cubin" ||
		fail "NVIDIA's tileiras on $1"
	mv "$SCRATCH/nv.ptx" "$SCRATCH/$1.ptx"
	grep -q '^\.reqnctapercluster 2$' "$SCRATCH/$1.ptx" || fail "$1: no .reqnctapercluster 2"
	grep -q '^\.blocksareclusters$' "$SCRATCH/$1.ptx" || fail "$1: no .blocksareclusters"
	grep -q '%cluster_ctaid.x' "$SCRATCH/$1.ptx" || fail "$1: no %cluster_ctaid"
	# the same PTX as 1-CTA clusters: the control that must come out wrong
	sed '/^\.reqnctapercluster/d; /^\.blocksareclusters$/d' "$SCRATCH/$1.ptx" >"$SCRATCH/$1.flat.ptx"
}

@test "cluster: NVIDIA's num_ctas=2 kernels (sm_90: .reqnctapercluster 2, .blocksareclusters) run exactly; as 1-CTA clusters they do not" {
	need_run
	require_nvidia
	nvidia_capture "$SCRATCH/tw"
	nv_ptx vadd2
	nv_ptx matmul2
	cd "$SCRATCH"
	"$PY" -c 'import numpy as np
r = np.random.default_rng(7)
np.save("a.npy", r.standard_normal(1000).astype(np.float32)); np.save("b.npy", r.standard_normal(1000).astype(np.float32))
np.save("c.npy", np.zeros(1000, np.float32))
np.save("ma.npy", r.integers(-4, 5, (256, 192)).astype(np.float16)); np.save("mb.npy", r.integers(-4, 5, (192, 256)).astype(np.float16))
np.save("mc.npy", np.zeros((256, 256), np.float32))'
	vadd_ok='import numpy as np, sys; sys.exit(not (np.load(sys.argv[1]) == np.load("a.npy") + np.load("b.npy")).all())'
	mm_ok='import numpy as np, sys
a, b = np.load("ma.npy").astype(np.float64), np.load("mb.npy").astype(np.float64)
sys.exit(not (np.load(sys.argv[1]) == a @ b).all())'
	for check in memcheck racecheck; do
		# --grid counts clusters (.blocksareclusters): 4 tile blocks of 256 = 8 CTAs of 128 elements
		run tile-run vadd2.ptx --grid 4 --check $check --out o a.npy 1000 1 b.npy 1000 1 c.npy 1000 1
		assert_success
		"$PY" -c "$vadd_ok" o/6.npy || fail "vadd2 ($check)"
		run tile-run matmul2.ptx --grid 2,2 --check $check --out o ma.npy 256 192 192 1 mb.npy 192 256 256 1 mc.npy 256 256 256 1
		assert_success
		"$PY" -c "$mm_ok" o/10.npy || fail "matmul2 ($check)"
	done
	run tile-run vadd2.flat.ptx --grid 4 --out o a.npy 1000 1 b.npy 1000 1 c.npy 1000 1
	assert_success
	if "$PY" -c "$vadd_ok" o/6.npy; then fail "vadd2 as 1-CTA clusters is right"; fi
	run tile-run matmul2.flat.ptx --grid 2,2 --out o ma.npy 256 192 192 1 mb.npy 192 256 256 1 mc.npy 256 256 256 1
	assert_success
	if "$PY" -c "$mm_ok" o/10.npy; then fail "matmul2 as 1-CTA clusters is right"; fi
}

@test "cluster: NVIDIA's num_ctas=2 corpus kernels that reduce through distributed shared memory (mapa, ld.shared::cluster, barrier.cluster) match numpy (sm_90 racecheck, sm_100 with the tcgen05 matmul)" {
	need_run
	require_nvidia
	run "$PY" "$C/nvidia/check-dsmem" "$BIN/tile-run" sm_90 racecheck "$SCRATCH/cache"
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -eq 17 ]
	# sm_100 with the matmul: tcgen05, its mbarriers arrived on from the other CTA
	run "$PY" "$C/nvidia/check-dsmem" "$BIN/tile-run" sm_100 memcheck "$SCRATCH/cache" \
		fft histogram loop_break prefix_sum reduce_sum matmul
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -eq 21 ]
}

@test "cluster: the kernels are PTX ptxas accepts for sm_90a" {
	require_ptxas
	for k in exchange sregs remote_mbar mcast deadlock; do
		ptxas -arch=sm_90a "$C/$k.ptx" -o "$SCRATCH/$k.cubin" || fail "$k"
	done
}

@test "cluster: NVIDIA's num_ctas=2 sm_100a matmul (tcgen05.mma.cta_group::2: A split by M over the CTA pair, B by N, each CTA's D in its own tensor memory; alloc, commit multicast) matches numpy exactly, memcheck and racecheck; as 1-CTA clusters it cannot run" {
	need_run
	require_nvidia
	nvidia_capture "$SCRATCH/tw"
	nv_ptx matmul2 sm_100
	grep -q 'tcgen05.mma.cta_group::2' "$SCRATCH/matmul2.ptx" || fail "NVIDIA's sm_100 matmul2 has no cta_group::2 product any more"
	cd "$SCRATCH"
	"$PY" -c 'import numpy as np
r = np.random.default_rng(7)
np.save("ma.npy", r.integers(-4, 5, (256, 192)).astype(np.float16)); np.save("mb.npy", r.integers(-4, 5, (192, 256)).astype(np.float16))
np.save("mc.npy", np.zeros((256, 256), np.float32))'
	mm_ok='import numpy as np, sys
a, b = np.load("ma.npy").astype(np.float64), np.load("mb.npy").astype(np.float64)
sys.exit(not (np.load(sys.argv[1]) == a @ b).all())'
	for check in memcheck "racecheck --seed 3"; do
		rm -rf o
		# shellcheck disable=SC2086
		run tile-run matmul2.ptx --grid 2,2 --check $check --out o ma.npy 256 192 192 1 mb.npy 192 256 256 1 mc.npy 256 256 256 1
		assert_success
		"$PY" -c "$mm_ok" o/10.npy || fail "sm_100 matmul2 ($check)"
	done
	run tile-run matmul2.flat.ptx --grid 2,2 ma.npy 256 192 192 1 mb.npy 192 256 256 1 mc.npy 256 256 256 1
	[ "$status" -eq 3 ]
}
