#!/usr/bin/env bats
# scripts/compare-mma: the static tensor-core comparison with NVIDIA's cubins
# (docs/benchmarks.md). Needs NVIDIA's tileiras and cuobjdump (make venv).
load helpers

@test "compare-mma: tensor-core class, LDSM, registers and the K loop of both cubins (sm_80, sm_120)" {
	require_ptxas
	require_nvidia
	run "$ROOT/scripts/compare-mma" --gpu-name sm_80,sm_120 --json "$BATS_TEST_TMPDIR/c.json" \
		"$ROOT/tests/corpus/13.4/matmul.tileirbc"
	assert_success
	/usr/bin/python3 - "$BATS_TEST_TMPDIR/c.json" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))
assert [r["gpu"] for r in recs] == ["sm_80", "sm_120"], recs
for r in recs:
    for side in ("nv", "ours"):
        f = r[side]
        assert "rc" not in f, (r["gpu"], side, f)
        assert any(k.startswith("HMMA") for k in f["mma"]), (r["gpu"], side, f["mma"])
        # the K loop is found and holds tensor-core instructions
        assert f["kloop"] > 0 and f["kloop_mma"] > 0, (r["gpu"], side, f)
        assert f["regs"] > 0 and f["smem"] > 0, (r["gpu"], side, f)
    assert r["ours"]["ldsm"] > 0, r["ours"]          # our operands go through ldmatrix
PY
}
