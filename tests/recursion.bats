#!/usr/bin/env bats
# Helper functions that call themselves (issue 43): cuTile inlines every
# call, so an op of the innermost call carries a call-site chain as deep as
# the recursion. cutile-python's test_accept_reasonable_recursion launches
# tests/recursion/kernels.py 109 deep (and cuTile allows up to 1000); tile-read
# refused anything past 32 as "refers to itself".
load helpers
setup() { setup_scratch; }
teardown() { teardown_scratch; }
R="$ROOT/tests/recursion"

# callers FILE: the longest call-site chain of any op in tile-read's JSON, and its outermost frame
callers() {
	tile-read "$1" >"$SCRATCH/r.json"
	"$PY" - "$SCRATCH/r.json" <<'PY'
import json, sys
sys.setrecursionlimit(10000)
best = (0, None)
def chain(l):
    n, last = 0, l
    while l.get("caller"):
        l = l["caller"]; n += 1; last = l
    return n, "%s:%s" % (last.get("file", "?").split("/")[-1], last.get("line"))
def walk(ops):
    global best
    for o in ops:
        if "loc" in o:
            c = chain(o["loc"])
            best = max(best, c, key=lambda x: x[0])
        for r in o.get("regions", []):
            for b in r:
                walk(b["ops"])
walk(json.load(open(sys.argv[1]))["module"]["ops"])
print(best[0], best[1])
PY
}

@test "recursion: tile-read keeps cuTile's call-site chain 109 calls deep, ending at the kernel's line" {
	run callers "$R/recursive_109.tileirbc"
	assert_success
	assert_output "109 kernels.py:20"
}

# The JSON IR repeats each op's whole chain: 990 deep, tile-read's JSON is
# 2.1 GB and the stages take minutes (in process: 0.1 s), so the stages
# compile the 109-deep module only.
@test "recursion: both compile on sm_80, sm_90, sm_100 and sm_120 in process, the 109-deep one through the stages too" {
	for sm in sm_80 sm_90 sm_100 sm_120; do
		for d in 109 990; do
			tileiras --gpu-name $sm "$R/recursive_$d.tileirbc" -o "$SCRATCH/a.cubin" || fail "in process: $d $sm"
		done
		TILEIRAS_NO_INPROC=1 tileiras --gpu-name $sm "$R/recursive_109.tileirbc" -o "$SCRATCH/b.cubin" ||
			fail "stages: 109 $sm"
	done
}

@test "recursion: on tile-run 100 becomes 209 (cutile-python's expected value)" {
	need_run
	cd "$SCRATCH"
	"$PY" -c 'import numpy as np; np.save("x.npy", np.array(100.0, np.float32)); np.save("y.npy", np.array(0.0, np.float32))'
	for d in 109; do      # 990 deep: tile-run compiles through the JSON (above); 1090 checked by hand
		rm -rf out
		run tile-run "$R/recursive_$d.tileirbc" --gpu-name sm_90 --grid 1 x.npy y.npy --out out
		assert_success
		run "$PY" -c 'import numpy as np; print(float(np.load("out/1.npy")))'
		assert_output "$((100 + d)).0"
	done
}

@test "recursion: a chain deeper than the JSON readers take is one located error, exit 1, no output" {
	"$PY" - "$R/recursive_109.tileirbc" >"$SCRATCH/deep.json" <<'PY'
import json, subprocess, sys
sys.setrecursionlimit(20000)
j = json.loads(subprocess.run(["tile-read", sys.argv[1]], capture_output=True, text=True, check=True).stdout)
def first_loc(ops):
    for o in ops:
        if "loc" in o and o["loc"].get("caller"):
            return o
        for r in o.get("regions", []):
            for b in r:
                x = first_loc(b["ops"])
                if x:
                    return x
op = first_loc(j["module"]["ops"])
l = {"file": "k.py", "line": 1, "col": 1}
for i in range(1600):
    l = {"file": "k.py", "line": i + 2, "col": 1, "caller": l}
op["loc"] = l
print(json.dumps(j))
PY
	run tile-lower --gpu-name sm_90 <"$SCRATCH/deep.json"
	assert_failure 1
	assert_output --partial "call-site chain deeper than 1536 calls"
}
