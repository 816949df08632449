#!/usr/bin/env bats
# The environment switches in one table (libcommon/knobs.def, knobs.h):
# docs/knobs.md is generated from it, only knobs.c (the switches) and
# toolkit.c (where programs and directories are) read the environment, every
# row is read by some code, and a switch reaches the passes through each
# kind of entry: a stage executable (tool_main), libtileiras's compile
# (tileiras-inproc) and tile-pack's --which-ptxas.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

@test "knobs: docs/knobs.md is what scripts/gen-knobs-doc writes from libcommon/knobs.def" {
	"$ROOT/scripts/gen-knobs-doc" >"$SCRATCH/knobs.md"
	diff -u "$ROOT/docs/knobs.md" "$SCRATCH/knobs.md" ||
		fail "docs/knobs.md is out of date: run scripts/gen-knobs-doc >docs/knobs.md"
}

@test "knobs: getenv only in libcommon/knobs.c and libcommon/toolkit.c" {
	run bash -c "cd '$ROOT' && grep -rlE 'getenv[[:space:]]*\(' --include=*.c --include=*.h tools libcommon libtileiras | sort"
	assert_success
	assert_output "$(printf 'libcommon/knobs.c\nlibcommon/toolkit.c')"
}

@test "knobs: every row of knobs.def is read by some code (knobs()->NAME, or a Knobs' .NAME)" {
	names=$(sed -n 's/^KNOB(\([A-Z0-9_]*\),.*/\1/p' "$ROOT/libcommon/knobs.def")
	[ "$(echo "$names" | wc -l)" -gt 30 ]
	for n in $names; do
		grep -rqE "(->|\.)$n\b" --include=*.c "$ROOT/tools" "$ROOT/libcommon" "$ROOT/libtileiras" ||
			fail "$n: a row of knobs.def that no code reads"
	done
}

@test "knobs: a stage executable honours a switch: TILE_SCHED_NO_SINK=1 keeps layer_norm's loads in program order; =0 and empty are off" {
	tile-read "$CORPUS/13.4/layer_norm.tileirbc" | tile-lower --gpu-name=sm_90 >"$SCRATCH/l.json"
	tile-sched --gpu-name=sm_90 "$SCRATCH/l.json" >"$SCRATCH/on.json"
	TILE_SCHED_NO_SINK=1 tile-sched --gpu-name=sm_90 "$SCRATCH/l.json" >"$SCRATCH/off.json"
	TILE_SCHED_NO_SINK=0 tile-sched --gpu-name=sm_90 "$SCRATCH/l.json" >"$SCRATCH/zero.json"
	TILE_SCHED_NO_SINK= tile-sched --gpu-name=sm_90 "$SCRATCH/l.json" >"$SCRATCH/empty.json"
	if cmp -s "$SCRATCH/on.json" "$SCRATCH/off.json"; then fail "TILE_SCHED_NO_SINK=1 changed nothing"; fi
	cmp "$SCRATCH/on.json" "$SCRATCH/zero.json"
	cmp "$SCRATCH/on.json" "$SCRATCH/empty.json"
}

@test "knobs: libtileiras's compile honours a switch: tileiras-inproc with TILE_PTX_BRANCHED_LOADS=1 predicates no load" {
	f=$CORPUS/13.4/vector_add.tileirbc
	tileiras-inproc "$f" --gpu-name=sm_90 --emit=ptx -o "$SCRATCH/a.ptx"
	TILE_PTX_BRANCHED_LOADS=1 tileiras-inproc "$f" --gpu-name=sm_90 --emit=ptx -o "$SCRATCH/b.ptx"
	grep -q '@p ld' "$SCRATCH/a.ptx"
	if grep -q '@p ld' "$SCRATCH/b.ptx"; then fail "a predicated load with TILE_PTX_BRANCHED_LOADS=1"; fi
}

@test "knobs: tile-pack --which-ptxas (an entry of its own) honours TILEIRAS_PTXAS" {
	printf '#!/bin/sh\necho "Cuda compilation tools, release 99.1, V99.1.2"\n' >"$SCRATCH/ptxas"
	chmod +x "$SCRATCH/ptxas"
	run env TILEIRAS_NO_CACHE=1 TILEIRAS_PTXAS="$SCRATCH/ptxas" tile-pack --which-ptxas
	assert_success
	assert_output "$SCRATCH/ptxas (release 99.1.2)"
}
