#!/usr/bin/env bats
# tile-sched's load prefetch (tools/tile-sched/prefetch.c, docs/lowering.md
# §4 "Load prefetch"): in a loop that writes nothing, a load that moves with
# the counter is issued one iteration ahead and carried round the loop. The
# values (ragged rows, a loop that runs no iteration, racecheck) are checked
# on tile-run by tests/run.bats (tilegym, reduce: rowsum_loop/*, big).
load helpers
setup() { setup_scratch; }
teardown() { teardown_scratch; }

# sched MODULE [ENV...]: the scheduled IR of MODULE for sm_90 in $SCRATCH/s.json
sched() {
	local f=$1
	shift
	tile-read "$f" | tile-lower --gpu-name sm_90 >"$SCRATCH/l.json"
	env "$@" tile-sched <"$SCRATCH/l.json" >"$SCRATCH/s.json"
}

# shape ENTRY-SUBSTRING: for each `for` in the entry, "carried=N first=OP[:in_bounds]",
# and the ops just before it
shape() {
	"$PY" - "$SCRATCH/s.json" "$1" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["module"]
for e in m["ops"]:
    if sys.argv[2] not in e.get("attrs", {}).get("sym_name", ""):
        continue
    def walk(ops):
        prev = None
        for o in ops:
            if o["op"] == "cuda_tile.for":
                body = o["regions"][0][0]["ops"]
                ld = next((x for x in body if x["op"] == "nv_tileas.tiled_load"), None)
                print("for carried=%d before=%s first_load_at=%s in_bounds=%s" % (
                    len(o["operands"]) - 3, prev["op"] if prev else "-",
                    body.index(ld) if ld else "-", ld.get("attrs", {}).get("in_bounds") if ld else "-"))
            for r in o.get("regions", []):
                for b in r:
                    walk(b["ops"])
            prev = o
    walk(e["regions"][0][0]["ops"])
EOF
}

@test "prefetch: cross-entropy's chunk load is issued one iteration ahead (a load before the loop, the loop carries its tile, the next chunk's load first in the body, masked along the row)" {
	sched "$ROOT/tests/tilegym/cross_entropy_fwd.tileirbc"
	run shape A2f16
	assert_success
	assert_output "for carried=3 before=nv_tileas.tiled_load first_load_at=1 in_bounds=[1, 0]"
	sched "$ROOT/tests/tilegym/cross_entropy_fwd.tileirbc" TILE_SCHED_NO_LOAD_PREFETCH=1
	run shape A2f16
	assert_success
	assert_output "for carried=2 before=cuda_tile.constant first_load_at=0 in_bounds=[1, 0]"
}

@test "prefetch: a loop that stores is left as it is (big elementwise exp's chunk loops)" {
	sched "$ROOT/tests/big/ew_exp.tileirbc"
	cp "$SCRATCH/s.json" "$SCRATCH/on.json"
	sched "$ROOT/tests/big/ew_exp.tileirbc" TILE_SCHED_NO_LOAD_PREFETCH=1
	cmp "$SCRATCH/on.json" "$SCRATCH/s.json"
	grep -q '"cuda_tile.for"' "$SCRATCH/s.json"
}

@test "prefetch: a loop holding a product is mma.c's (the corpus matmul's K loop unchanged)" {
	sched "$ROOT/tests/corpus/13.4/matmul.tileirbc"
	cp "$SCRATCH/s.json" "$SCRATCH/on.json"
	sched "$ROOT/tests/corpus/13.4/matmul.tileirbc" TILE_SCHED_NO_LOAD_PREFETCH=1
	cmp "$SCRATCH/on.json" "$SCRATCH/s.json"
}

@test "prefetch: the loops' results are unchanged on tile-run (rowsum_loop with no iteration and with a ragged row, racecheck)" {
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" reduce --targets sm_90 --warps 4 --versions 13.4 --check racecheck
	assert_success
	assert_output --partial "ok   rowsum_loop/no_iteration"
	assert_output --partial "ok   rowsum_loop/ragged"
}
