#!/usr/bin/env bats
# Tiles larger than a CTA's registers (issue 42; docs/lowering.md §11 "Tiles
# of any size"): tile-sched computes a big tile's stores and reductions in a
# loop over chunks (tools/tile-sched/chunk.c), so the code and its compile
# time grow with the program, not with the tile. Values: run.bats's `big`
# family (tests/run/extra.py big_cases, every element against numpy).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

BIG="$ROOT/tests/big"

# sched MODULE SM: the module's scheduled IR as text
sched() {
	tile-read "$BIG/$1.tileirbc" | tile-lower --gpu-name="$2" | tile-sched --gpu-name="$2" | tile-ir --emit=text
}

# body_lines PTX ENTRY-SUFFIX: the lines of that entry's body
body_lines() {
	awk -v e="$2" '/^\.visible \.entry/ { on = index($0, e) > 0 } on { n++ } END { print n + 0 }' "$1"
}

@test "big tiles: a 16K, a 256K and a 1M-element exp compile to the same loop (PTX lines within 10%, each under 400)" {
	tile-read "$BIG/ew_exp.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --gpu-name=sm_90 |
		tile-ptx --gpu-name=sm_90 >"$SCRATCH/exp.ptx"
	a=$(body_lines "$SCRATCH/exp.ptx" _I16384)
	b=$(body_lines "$SCRATCH/exp.ptx" _I262144)
	c=$(body_lines "$SCRATCH/exp.ptx" _I1048576)
	echo "lines: $a $b $c"
	[ "$a" -gt 20 ] && [ "$a" -lt 400 ] && [ "$c" -lt 400 ]
	[ $((b * 10)) -le $((a * 11)) ] && [ $((c * 10)) -le $((a * 11)) ]
	# and without the pass the big tiles are not compiled at all (straight-line
	# code of 8192 elements a thread is refused: tile_limit.c), which the pass is for
	export TILE_SCHED_NO_CHUNK=1
	run sched ew_exp sm_90
	unset TILE_SCHED_NO_CHUNK
	assert_failure 1
	assert_output --partial "its tile<1048576xf32> result would be 8192 elements a thread over 128 threads"
}

@test "big tiles: one loop per reduction pass (row sums of squares: one an entry, layer norm 3, softmax 3), the store and sum of one tile share one" {
	for m in row_ssq:2 layer_norm:3 softmax_rows:3 scale_and_sum:1 col_sum:1 cast_rows:1 transpose:1 cumsum_1m:1 scans:2 every_other_1m:1; do
		run grep -c "cuda_tile.for" <(sched "${m%:*}" sm_80)
		[ "$output" = "${m#*:}" ] || fail "${m%:*}: $output loops, want ${m#*:}"
	done
	# a reduction's chunk keeps 8 elements a thread (its accumulators as many again): 64x8192 f32
	# over 128 threads is 64x16; a store's 16: 16K-element exp chunks of 2048
	sched row_ssq sm_90 | grep -q "tile = \[64, 16\]"
	sched ew_exp sm_90 | grep -q "tile = \[2048\]"
}

@test "big tiles: a kernel whose tiles fit the registers (the corpus softmax) is scheduled exactly as without the pass" {
	tile-read "$CORPUS/13.4/softmax.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --gpu-name=sm_90 >"$SCRATCH/a.json"
	tile-read "$CORPUS/13.4/softmax.tileirbc" | tile-lower --gpu-name=sm_90 | TILE_SCHED_NO_CHUNK=1 tile-sched --gpu-name=sm_90 >"$SCRATCH/b.json"
	cmp "$SCRATCH/a.json" "$SCRATCH/b.json"
}

@test "big tiles: every module passes ptxas on sm_80, sm_90, sm_100, sm_120 with no local memory and no spill" {
	for f in "$BIG"/*.tileirbc; do
		[ "$f" = "$BIG/swap_halves_1m.tileirbc" ] && continue     # refused (below)
		assemble_named "$f" "$(basename "$f" .tileirbc)"
	done
}

@test "big tiles: a 256x256 f32 transpose (256 KiB: more than any target's shared memory as one exchange) compiles on every target, its permute chunked" {
	for sm in sm_80 sm_90 sm_100 sm_120; do
		tileiras --gpu-name $sm "$BIG/transpose.tileirbc" -o "$SCRATCH/t.cubin" 2>"$SCRATCH/err" || fail "$sm: $(head -3 "$SCRATCH/err")"
	done
	sched transpose sm_90 | grep -q 'cuda_tile.permute .*: tile<8x256xf32>' || fail "no chunked permute"
}

@test "big tiles: TileGym 1.5.1's static persistent RMSNorm (4x4096 rows in a persistent loop, w loaded once outside it) in chunk loops: no spill, fewer registers than NVIDIA's (255 and 144 bytes of spill before)" {
	require_ptxas
	TG="$ROOT/tests/tilegym/v151/rms_norm_static_persistent.tileirbc"
	run grep -c "cuda_tile.for" <(tile-read "$TG" | tile-lower --gpu-name=sm_90 | tile-sched --gpu-name=sm_90 | tile-ir --emit=text)
	[ "$output" -ge 6 ] || fail "loops: $output"    # each entry: the persistent loop, the sum of squares, the store
	for sm in sm_90 sm_100; do
		tileiras --gpu-name=$sm --emit=ptx -o "$SCRATCH/r.ptx" "$TG"
		ptxas -v -arch="$(sed -n 's/^\.target \(.*\)/\1/p' "$SCRATCH/r.ptx")" "$SCRATCH/r.ptx" -o "$SCRATCH/r.cubin" 2>"$SCRATCH/log"
		if grep 'spill' "$SCRATCH/log" | grep -qv ' 0 bytes spill stores, 0 bytes spill loads'; then fail "$sm spills: $(cat "$SCRATCH/log")"; fi
		for r in $(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$SCRATCH/log"); do
			[ "$r" -le 104 ] || fail "$sm: $r registers (NVIDIA's 13.5: 168 and 202,008 bytes of shared memory)"
		done
	done
}

@test "big tiles: a tile no chunk loop takes and no thread can hold (a 1M-element cat: 8192 elements a thread) is a located user error with the numbers, no output" {
	run tileiras --gpu-name sm_90 "$BIG/swap_halves_1m.tileirbc" -o "$SCRATCH/c.cubin"
	assert_failure
	assert_output --partial 'tests/big/kernels.py:117:33: error: '
	assert_output --partial "'cuda_tile.cat' op: its tile<1048576xf32> result would be 8192 elements a thread over 128 threads"
	assert_output --partial "supported up to 1024 elements a thread"
	refute_output --partial 'internal error'
	[ ! -e "$SCRATCH/c.cubin" ] || fail "output written"
	# at 1024 threads (--num-warps 32 to tile-sched) it is 1024 a thread: the limit, accepted
	tile-read "$BIG/swap_halves_1m.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --num-warps=32 >/dev/null
}

@test "big tiles: Liger's LayerNorm forward from TileGym 1.5.1 (8192-wide rows summed in one-trip loops that carry the running sums) in chunk loops: no spill, under NVIDIA's 77 registers (168 before)" {
	require_ptxas
	LN="$ROOT/tests/tilegym/v151/liger_layer_norm_fwd.tileirbc"
	# the one-trip loops are inlined; the sums' loop and the scatter's loop each run over chunks
	run grep -c "cuda_tile.for" <(tile-read "$LN" | tile-lower --gpu-name=sm_90 | tile-sched --gpu-name=sm_90 | tile-ir --emit=text)
	[ "$output" = 2 ] || fail "loops: $output"
	for sm in sm_90 sm_100; do
		tileiras --gpu-name=$sm --emit=ptx -o "$SCRATCH/l.ptx" "$LN"
		ptxas -v -arch="$(sed -n 's/^\.target \(.*\)/\1/p' "$SCRATCH/l.ptx")" "$SCRATCH/l.ptx" -o "$SCRATCH/l.cubin" 2>"$SCRATCH/log"
		if grep 'spill' "$SCRATCH/log" | grep -qv ' 0 bytes spill stores, 0 bytes spill loads'; then fail "$sm spills: $(cat "$SCRATCH/log")"; fi
		r=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$SCRATCH/log")
		[ -n "$r" ] && [ "$r" -le 77 ] || fail "$sm: $r registers"
	done
}
