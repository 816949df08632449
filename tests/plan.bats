#!/usr/bin/env bats
# The MMA plan (issue 39; docs/ir.md §6.3, libcommon/mma_plan.def): every
# tile product in scheduled IR carries one typed record of what tile-sched
# decided for it, which tile-ptx reads and stagecheck verifies on entry; a
# plan that does not fit its product is the input's located error, never an
# internal one. Attention (tests/fmha) shows the choices made last
# (tools/tile-sched/plan.c): Q resident, P read from registers.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

FMHA="$BATS_TEST_DIRNAME/fmha/fmha_f16.tileirbc"
MM="$BATS_TEST_DIRNAME/mma/mm_f16_f16.tileirbc"

# plans ENTRY.json: one line per product: path a b stages
plans() {
	/usr/bin/python3 - "$1" <<-'EOF2'
		import json, sys
		def walk(x):
		    if isinstance(x, dict):
		        p = x.get("attrs", {}).get("plan")
		        if p:
		            d = p["dict"]
		            print(d["path"], d["a"], d["b"], d["stages"])
		        for v in x.values(): walk(v)
		    elif isinstance(x, list):
		        for v in x: walk(v)
		walk(json.load(open(sys.argv[1])))
	EOF2
}

# edit IN OUT PYTHON: apply the statement to each product's plan dictionary `d` (k: its index)
edit() {
	/usr/bin/python3 - "$1" "$2" "$3" <<-'EOF2'
		import json, sys
		doc = json.load(open(sys.argv[1])); stmt = sys.argv[3]; k = [0]
		def walk(x):
		    if isinstance(x, dict):
		        p = x.get("attrs", {}).get("plan")
		        if p:
		            exec(stmt, {"d": p["dict"], "k": k[0], "x": x}); k[0] += 1
		        for v in x.values(): walk(v)
		    elif isinstance(x, list):
		        for v in x: walk(v)
		walk(doc)
		json.dump(doc, open(sys.argv[2], "w"))
	EOF2
}

@test "plan: attention's products: Q resident (staged once before the K/V loop), P from registers on sm_90 (wgmma) and stored on sm_80 (ldmatrix); no working mark left; TILE_PTX_NO_RESIDENT=1 keeps Q in registers" {
	tile-read "$FMHA" | tile-lower --gpu-name=sm_80 | tile-sched >"$SCRATCH/80.json"
	run plans "$SCRATCH/80.json"
	assert_output $'ldmatrix resident registers 1\nldmatrix registers registers 1'
	tile-read "$FMHA" | tile-lower --gpu-name=sm_90 | tile-sched >"$SCRATCH/90.json"
	run plans "$SCRATCH/90.json"
	assert_output $'wgmma resident registers 1\nwgmma fragment registers 1'
	for f in 80 90; do
		run /usr/bin/python3 - "$SCRATCH/$f.json" <<-'EOF2'
			import json, sys
			marks = {"via_wgmma", "via_ldmatrix", "stages", "async_depth", "to_stage", "prefetch"}
			def walk(x):
			    if isinstance(x, dict):
			        for m in marks & set(x.get("attrs", {})): print(x.get("op"), m)
			        for v in x.values(): walk(v)
			    elif isinstance(x, list):
			        for v in x: walk(v)
			walk(json.load(open(sys.argv[1])))
		EOF2
		assert_output ""
	done
	tile-read "$FMHA" | tile-lower --gpu-name=sm_80 | TILE_PTX_NO_RESIDENT=1 tile-sched >"$SCRATCH/nr.json"
	run plans "$SCRATCH/nr.json"
	assert_output $'ldmatrix registers registers 1\nldmatrix registers registers 1'
	# and tile-ptx follows: the resident region is stored before the loop, so the PTX differs
	tile-ptx --gpu-name=sm_80 "$SCRATCH/80.json" >"$SCRATCH/a.ptx"
	tile-ptx --gpu-name=sm_80 "$SCRATCH/nr.json" >"$SCRATCH/b.ptx"
	! cmp -s "$SCRATCH/a.ptx" "$SCRATCH/b.ptx"
}

@test "plan: hand-edited plans that do not fit their product are located errors of the input (exit 1), never internal" {
	tile-read "$FMHA" | tile-lower --gpu-name=sm_80 | tile-sched >"$SCRATCH/s.json"
	tile-read "$MM" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 >"$SCRATCH/m.json"
	check() {     # check IN STATEMENT MESSAGE
		edit "$1" "$SCRATCH/bad.json" "$2"
		run tile-ptx --gpu-name=sm_80 "$SCRATCH/bad.json"
		[ "$status" -eq 1 ] || fail "$2: exit $status: $output"
		[[ "$output" == *'.py":'*"error: 'cuda_tile.mma"*"$3"* ]] || fail "$2: $output"
		[[ "$output" != *internal* ]] || fail "$2: $output"
	}
	# P is made in the loop: it cannot be resident
	check "$SCRATCH/s.json" 'if k == 1: d["a"] = "resident"' "keeps resident an operand that is not a loop-invariant operand"
	check "$SCRATCH/s.json" 'd["a"] = "fragment"' "reads from registers an operand that is not wgmma's A fragment"
	check "$SCRATCH/m.json" 'd["wm"] = 3' "its plan's tiling is not the product's on sm_80"
	check "$SCRATCH/m.json" 'd["stages"] = 0' "its plan's stages must be an integer from 1 to 8"
	check "$SCRATCH/m.json" 'd["atom"] = "M99"' "its plan's atom must name an MMA atom"
	check "$SCRATCH/m.json" 'd["path"] = "tcgen05"' "its plan's path must be a path"
	check "$SCRATCH/m.json" 'del d["kt"]' "its plan must be a dictionary of the 15 fields"
	check "$SCRATCH/m.json" 'd["b_prefetch"] = True' "prefetches an operand that is not a copy of a pipelined product"
	check "$SCRATCH/m.json" 'd["path"] = "registers"' "multiplies in registers an operand not in the atom's fragment layout"
	tile-read "$BATS_TEST_DIRNAME/mma/mm_f64.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 >"$SCRATCH/f64.json"
	check "$SCRATCH/f64.json" 'd["a"] = "cp_async"' "stages an operand of a product in registers"
	# a product with its plan removed
	check "$SCRATCH/m.json" 'del x["attrs"]["plan"]' "a tile product needs its MMA plan in scheduled IR"
}
