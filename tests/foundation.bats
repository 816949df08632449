#!/usr/bin/env bats
# The foundation: JSON IR reader/writer strictness and canonical output,
# the text printer, and the filter skeleton every stage shares (via tile-ir).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

IR="$BATS_TEST_DIRNAME/ir/vecadd.cuda_tile.json"

# Replace the JSON value at a jq-less path: tiny python edit helper.
edit() { python3 -c "import json,sys; d=json.load(open('$IR')); exec(sys.argv[1]); print(json.dumps(d))" "$1"; }

@test "canonical JSON round-trips byte for byte" {
	run tile-ir "$IR" -o "$SCRATCH/out.json"
	assert_success
	cmp "$IR" "$SCRATCH/out.json"
}

@test "non-canonical JSON is canonicalized, then stable" {
	# compact, reordered keys, values numbered out of order
	python3 - "$IR" >"$SCRATCH/in.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ops = d["module"]["ops"][0]["regions"][0][0]["ops"]
s = json.dumps(d, sort_keys=True).replace('"%6"', '"%60"')
print(s)
PY
	run tile-ir "$SCRATCH/in.json" -o "$SCRATCH/a.json"
	assert_success
	cmp "$IR" "$SCRATCH/a.json"
}

@test "stdin to stdout works and is the same as file to file" {
	tile-ir <"$IR" >"$SCRATCH/a.json"
	cmp "$IR" "$SCRATCH/a.json"
}

@test "the text printer prints ops, types, attributes and locations" {
	run tile-ir --emit=text "$IR"
	assert_success
	assert_line --index 0 "// stage: cuda_tile"
	assert_output --partial '%3, %4, %5 = cuda_tile.get_tile_block_id : tile<i32>, tile<i32>, tile<i32> loc("vecadd.py":7:10)'
	assert_output --partial '%7 = cuda_tile.addf %6, %6 {rounding_mode = "nearest_even"} : tile<128xf32>'
	assert_output --partial 'dense<splat "0x0000803F"> : tile<128xf32>'
	assert_output --partial '^bb(%0: tile<ptr<f32>>, %1: tile<ptr<f32>>, %2: tile<ptr<f32>>):'
}

# --- rejection paths: each names the JSON pointer of the bad node -----------

reject() {  # reject PYTHON-EDIT EXPECTED-MESSAGE
	edit "$1" >"$SCRATCH/bad.json"
	run tile-ir "$SCRATCH/bad.json" -o "$SCRATCH/out.json"
	assert_failure 1
	assert_output --partial "$2"
	assert_file_not_exists "$SCRATCH/out.json"
	[ "${#lines[@]}" -eq 1 ]
}

B='d["module"]["ops"][0]["regions"][0][0]["ops"]'

@test "reject: malformed JSON with line and column" {
	printf '{"format": "tile-ir", "version": 1,,}' >"$SCRATCH/bad.json"
	run tile-ir "$SCRATCH/bad.json"
	assert_failure 1
	assert_output --regexp 'line 1 column [0-9]+: error: malformed JSON'
}
@test "reject: duplicate key" {
	printf '{"format": "tile-ir", "format": "tile-ir"}' >"$SCRATCH/bad.json"
	run tile-ir "$SCRATCH/bad.json"
	assert_failure 1
	assert_output --partial "duplicate object key"
}
@test "reject: wrong format" {
	reject 'd["format"]="mlir"' "at /format: error: not a tile IR file"
}
@test "reject: wrong version" {
	reject 'd["version"]=2' "at /version: error: IR version 2 is not supported"
}
@test "reject: unknown stage" {
	reject 'd["stage"]="llvm"' "at /stage: error: this tool takes IR at stage"
}
@test "reject: unknown top key" {
	reject 'd["extra"]=1' "at /extra: error: unknown key 'extra'"
}
@test "reject: missing module ops" {
	reject 'del d["module"]["ops"]' "at /module: error: missing key 'ops'"
}
@test "reject: wrong JSON type" {
	reject 'd["module"]["name"]=3' "at /module/name: error: expected a string, got an integer"
}
@test "reject: unknown op" {
	reject "$B[2]['op']='cuda_tile.addz'" "at /module/ops/0/regions/0/0/ops/2/op: error: unknown op 'cuda_tile.addz'"
}
@test "reject: unknown op key" {
	reject "$B[2]['bogus']=1" "at /module/ops/0/regions/0/0/ops/2/bogus: error: unknown key 'bogus'"
}
@test "reject: undefined operand" {
	reject "$B[2]['operands'][1]='%40'" "ops/2/operands/1: error: value %40 is not defined here"
}
@test "reject: use before definition" {
	reject "$B[1]['attrs']={}; $B.insert(0, $B.pop(2))" "ops/0/operands/0: error: value %6 is not defined here"
}
@test "reject: value defined twice" {
	reject "$B[1]['results'][0]['id']='%3'" "ops/1/results/0/id: error: value %3 is defined twice"
}
@test "reject: bad value name" {
	reject "$B[2]['operands'][0]='x6'" "ops/2/operands/0: error: an operand is a value name"
}
@test "reject: non-canonical type" {
	reject "$B[2]['results'][0]['type']='tile<128 x f32>'" "results/0/type: error: bad type 'tile<128 x f32>'"
}
@test "reject: a parseable but non-canonical type names the canonical spelling" {
	reject "$B[2]['results'][0]['type']='partition_view<tile=(4), tensor_view<?xf32, strides=[1]>, dim_map=[0]>'" "type is not in canonical spelling (it is 'partition_view<tile=(4), tensor_view<?xf32, strides=[1]>>')"
}
@test "reject: unknown element type" {
	reject "$B[2]['results'][0]['type']='tile<128xf31>'" "unknown element type"
}
@test "reject: bad attribute object" {
	reject "$B[2]['attrs']['x']={'weird': 1}" "attrs/x: error: an attribute object must have one of the keys"
}
@test "reject: float attr not hex" {
	reject "$B[2]['attrs']['x']={'float': '1.0', 'type': 'f32'}" "attrs/x/float: error: expected the bit pattern"
}
@test "reject: float attr of int type" {
	reject "$B[2]['attrs']['x']={'float': '0x0', 'type': 'i32'}" "attrs/x/float: error: expected the bit pattern"
}
@test "reject: dense with odd hex" {
	reject "$B[1]['attrs']['value']['dense']='abc'" "dense data must be an even number of hex digits"
}
@test "reject: empty dict key" {
	reject "d['module']['ops'][0]['attrs']['optimization_hints']={'dict': {'': 1}}" "empty dictionary key"
}
@test "reject: bad location" {
	reject "$B[0]['loc']={'file': 'a.py', 'line': -1, 'col': 0}" "loc: error: line and col must be in"
}
@test "reject: region not an array" {
	reject "d['module']['ops'][0]['regions'][0]={}" "regions/0: error: a region is an array of blocks"
}
@test "reject: value from another kernel" {
	edit "d['module']['ops'].append(json.loads(json.dumps(d['module']['ops'][0]))); d['module']['ops'][1]['regions'][0][0]['ops'].pop(1)" >"$SCRATCH/bad.json"
	run tile-ir "$SCRATCH/bad.json"
	assert_failure 1
	assert_output --partial "at /module/ops/1/regions/0/0/ops/1/operands/0: error: value %6 is not defined here"
}
@test "reject: a region value is not visible after its op" {
	edit "$B.insert(3, {'op': 'cuda_tile.if', 'operands': ['%3'], 'regions': [[{'args': [{'id': '%50', 'type': 'tile<i32>'}], 'ops': [{'op': 'cuda_tile.yield'}]}], []]}); $B.insert(4, {'op': 'cuda_tile.absi', 'operands': ['%50'], 'results': [{'id': '%51', 'type': 'tile<i32>'}]})" >"$SCRATCH/bad.json"
	run tile-ir "$SCRATCH/bad.json"
	assert_failure 1
	assert_output --partial "ops/4/operands/0: error: value %50 is not defined here"
}
@test "reject: deep nesting is an error, not a crash" {
	python3 - >"$SCRATCH/deep.json" <<'PY'
n = 300
s = '{"op": "cuda_tile.yield"}'
for i in range(n):
    s = '{"op": "cuda_tile.loop", "regions": [[{"ops": [' + s + ']}]]}'
print('{"format": "tile-ir", "version": 1, "stage": "cuda_tile", "module": {"name": "k", "ops": [' + s + ']}}')
PY
	run tile-ir "$SCRATCH/deep.json"
	assert_failure 1
	assert_output --regexp "nested too deeply|too deep"
}

# --- the filter skeleton ----------------------------------------------------

@test "skeleton: --help and --version exit 0" {
	run tile-ir --help
	assert_success
	assert_output --partial "usage: tile-ir"
	assert_output --partial "exit status: 0 success, 1 bad input or I/O error, 2 bad usage"
	run tile-ir --version
	assert_success
	assert_output --regexp '^tile-ir \(open tileiras\) [0-9]+\.[0-9]+\.[0-9]+$'
}
@test "skeleton: unknown option is a usage error (2)" {
	run tile-ir --frobnicate
	assert_failure 2
	assert_output --partial "unknown option '--frobnicate'"
}
@test "skeleton: unknown --emit format is a usage error (2)" {
	run tile-ir --emit=llvm "$IR"
	assert_failure 2
}
@test "skeleton: two inputs is a usage error (2)" {
	run tile-ir "$IR" "$IR"
	assert_failure 2
}
@test "skeleton: -o without a file is a usage error (2)" {
	run tile-ir "$IR" -o
	assert_failure 2
}
@test "skeleton: missing input file is exit 1 with the OS reason" {
	run tile-ir "$SCRATCH/nope.json"
	assert_failure 1
	assert_output --partial "cannot open '$SCRATCH/nope.json': No such file or directory"
}
@test "skeleton: a directory as input is exit 1" {
	run tile-ir "$SCRATCH"
	assert_failure 1
	assert_output --partial "is a directory"
}
@test "skeleton: failure leaves an existing output file untouched" {
	echo precious >"$SCRATCH/out.json"
	echo '{}' >"$SCRATCH/bad.json"
	run tile-ir "$SCRATCH/bad.json" -o "$SCRATCH/out.json"
	assert_failure 1
	assert_equal "$(cat "$SCRATCH/out.json")" precious
	# and no temp file is left behind
	run ls "$SCRATCH"
	refute_output --partial ".tmp."
}
@test "skeleton: unwritable output directory is exit 1, no output" {
	run tile-ir "$IR" -o "$SCRATCH/no/such/dir/out.json"
	assert_failure 1
	assert_output --partial "cannot write"
}
@test "skeleton: writing to a full device is an error, and the device stays a device" {
	[ -c /dev/full ] && [ -w /dev/full ] || skip "no writable /dev/full"
	run tile-ir "$IR" -o /dev/full
	assert_failure 1
	assert_output --partial "No space left on device"
	[ -c /dev/full ]
}
@test "skeleton: -o /dev/stdout with stdout redirected to a file keeps /dev/stdout a link" {
	tile-ir "$IR" -o /dev/stdout >"$SCRATCH/out.json"
	[ -L /dev/stdout ]
	cmp "$IR" "$SCRATCH/out.json"
}
@test "skeleton: -o through a symlink to a file replaces the file, keeps the link" {
	echo old >"$SCRATCH/real.json"
	ln -s real.json "$SCRATCH/link.json"
	run tile-ir "$IR" -o "$SCRATCH/link.json"
	assert_success
	[ -L "$SCRATCH/link.json" ]
	cmp "$IR" "$SCRATCH/real.json"
}
@test "skeleton: -o to a FIFO-like path (/dev/stdout) writes in place" {
	run tile-ir "$IR" -o /dev/stdout
	assert_success
	assert_output --partial '"format": "tile-ir"'
}
@test "skeleton: --input-name names a piped input in messages" {
	run sh -c "echo '{}' | tile-ir --input-name=kernel.tileirbc"
	assert_failure 1
	assert_output --partial "tile-ir: kernel.tileirbc: at /: error:"
}
@test "every compiling stage parses --gpu-name and -O alike (one implementation)" {
	for s in tile-lower tile-sched tile-ptx tile-pack; do
		run "$s" --gpu-name=sm_99 "$IR"
		assert_failure 2
		assert_output --partial "$s: error: unsupported GPU 'sm_99' (supported: sm_75, sm_80,"
		run "$s" --opt-level 7 "$IR"
		assert_failure 2
		assert_output --partial "$s: error: invalid optimization level '7' (0 to 3)"
		run "$s" -O9 "$IR"
		assert_failure 2
		assert_output --partial "invalid optimization level '9'"
	done
}
