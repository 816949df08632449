#!/usr/bin/env bats
# tile-read: Tile IR bytecode (13.1-13.4) -> cuda_tile JSON IR.
# Real files decode and their JSON is canonical; NVIDIA's test files behave as
# NVIDIA's reader does; corrupt files are each rejected with one
# "offset 0x..." line, exit 1 and no output; golden text/JSON for small kernels.
# UPDATE_GOLDEN=1 rewrites tests/read/*.txt and *.json from the current output.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

GOLD="$BATS_TEST_DIRNAME/read"

# A hand-built 13.1 module, 102 bytes (tests/read/README.md has the byte map):
#   entry @k() { %0 = constant 42 : tile<i32>; %1 = addi %0, %0; return }
TINY='\x7f\x54\x69\x6c\x65\x49\x52\x00\x0d\x01\x00\x00\x82\x11\x08\xcb\x01\x00\x01\x02\x00\x0b\x10\x00\x00\x03\x00\x00\x00\x00\x5c\x00\x00\x84\x15\x08\xcb\xcb\xcb\xcb\x01\xcb\xcb\xcb\xcb\xcb\xcb\xcb\x00\x00\x00\x00\x00\x00\x00\x00\x04\x2a\x00\x00\x00\x85\x17\x04\x03\xcb\xcb\xcb\x00\x00\x00\x00\x03\x00\x00\x00\x06\x00\x00\x00\x0d\x02\x00\x10\x00\x00\x03\x81\x09\x04\xcb\xcb\x01\xcb\xcb\xcb\x00\x00\x00\x00\x6b\x00'

tiny() { printf "$TINY" >"$SCRATCH/tiny.bc"; }

# patch FILE OFFSET BYTE...: overwrite bytes in place (hex offset, \xNN bytes)
patch() {
	local f=$1 off=$2
	shift 2
	printf "$@" | dd of="$f" bs=1 seek=$((off)) conv=notrunc status=none
}

# reject FILE MESSAGE: exit 1, exactly one line naming an offset and MESSAGE,
# no output file
reject() {
	run tile-read "$1" -o "$SCRATCH/out.json"
	assert_failure 1
	assert_output --partial "$2"
	assert_output --regexp '^tile-read: [^ ]+: offset 0x[0-9a-f]+: error: '
	[ "${#lines[@]}" -eq 1 ]
	assert_file_not_exists "$SCRATCH/out.json"
}

# golden FILE GOLDEN-FILE [tile-read options]
golden() {
	local in=$1 gold=$2
	shift 2
	tile-read "$@" "$in" -o "$SCRATCH/got"
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$SCRATCH/got" "$gold"
	fi
	diff -u "$gold" "$SCRATCH/got"
}

# --- real files ---------------------------------------------------------------

corpus_version() {  # every file of tests/corpus/VERSION decodes; JSON is canonical
	local n=0
	for f in "$CORPUS/$1"/*.tileirbc; do
		tile-read "$f" -o "$SCRATCH/a.json" || { echo "rejected: $f"; return 1; }
		tile-ir "$SCRATCH/a.json" -o "$SCRATCH/b.json"
		cmp "$SCRATCH/a.json" "$SCRATCH/b.json" || { echo "not canonical: $f"; return 1; }
		grep -q "\"bytecode_version\": \"$1\"" "$SCRATCH/a.json"
		tile-read --emit=text "$f" >/dev/null
		n=$((n + 1))
	done
	[ "$n" -ge 20 ]
}

@test "corpus 13.1: every file decodes, verifies, and its JSON is canonical" { corpus_version 13.1; }
@test "corpus 13.2: every file decodes, verifies, and its JSON is canonical" { corpus_version 13.2; }
@test "corpus 13.3: every file decodes, verifies, and its JSON is canonical" { corpus_version 13.3; }
@test "corpus 13.4: every file decodes, verifies, and its JSON is canonical" { corpus_version 13.4; }
@test "corpus 13.5: every file decodes, verifies, and its JSON is canonical" { corpus_version 13.5; }

@test "all-ops modules (every opcode of each version, cuTile's writer): golden JSON" {
	for v in 13.1 13.2 13.3 13.4 13.5; do
		golden "$GOLD/allops-$v.tileirbc" "$GOLD/allops-$v.json"
	done
}

@test "all-ops 13.5: always-present entry hints (num_worker_warps_per_cta kept), atomic_red_view inbounds, DISubprogram flags" {
	run tile-read --emit=text "$GOLD/allops-13.5.tileirbc"
	assert_success
	assert_output --partial 'bytecode_version = "13.5"'
	assert_output --partial 'sm_100 = {num_cta_in_cga = 1 : i32, num_worker_warps_per_cta = 4 : i32, occupancy = 2 : i32}'
	assert_output --regexp 'cuda_tile.atomic_red_view_tko .*\{inbounds = \[true\]'
	# the same kernel in 13.4 has no inbounds there (13.4 cannot say it)
	run tile-read --emit=text "$GOLD/allops-13.4.tileirbc"
	refute_output --regexp 'cuda_tile.atomic_red_view_tko .*inbounds'
	# inbounds on atomic_red_view_tko is 13.5: the verifier refuses it in 13.4 JSON
	tile-read "$GOLD/allops-13.5.tileirbc" | sed 's/"bytecode_version": "13.5"/"bytecode_version": "13.4"/' >"$SCRATCH/old.json"
	run tile-ir --verify "$SCRATCH/old.json"
	assert_failure 1
	assert_output --partial "inbounds"
	# (every DISubprogram of the file carries 13.5's flags field: a reader without it fails)
}

@test "all-ops 13.4: the 13.4 ops, saturating, inbounds and the 13.4 type encoding" {
	run tile-read --emit=text "$GOLD/allops-13.4.tileirbc"
	assert_success
	for op in insert gdc_launch_dependents_tko gdc_wait_tko fpowi memory_fence_alias_tko; do
		assert_output --partial "cuda_tile.$op "
	done
	assert_output --partial 'saturating = true'
	assert_output --partial 'inbounds = [true]'
	assert_output --partial 'tensor_view<?xf32, strides=[1]>'
}

@test "13.1 print (no token) reads as print_tko with its token; negi gets overflow none" {
	run tile-read --emit=text "$NV_CORPUS/valid/print-op-13.1.tileirbc"
	assert_success
	assert_output --partial '= cuda_tile.print_tko {operand_segment_sizes = [0, 0], str = "Iteration result"} : token'
	run tile-read --emit=text "$NV_CORPUS/valid/negi-op-13.1.tileirbc"
	assert_success
	assert_output --partial 'cuda_tile.negi %0 {overflow = "none"} : tile<2xi32>'
}

@test "golden text: vector_add 13.4, reduce_sum 13.2, NVIDIA's print-op 13.1" {
	golden "$CORPUS/13.4/vector_add.tileirbc" "$GOLD/vector_add-13.4.txt" --emit=text
	golden "$CORPUS/13.2/reduce_sum.tileirbc" "$GOLD/reduce_sum-13.2.txt" --emit=text
	golden "$NV_CORPUS/valid/print-op-13.1.tileirbc" "$GOLD/print-op-13.1.txt" --emit=text
}

@test "the hand-built module decodes (the base of the corruption tests)" {
	tiny
	run tile-read --emit=text "$SCRATCH/tiny.bc"
	assert_success
	assert_output --partial '%0 = cuda_tile.constant {value = dense<"0x2A000000"> : tile<i32>} : tile<i32>'
	assert_output --partial '%1 = cuda_tile.addi %0, %0 {overflow = "none"} : tile<i32>'
}

@test "an empty module of every version is accepted (cuTile's version probe)" {
	for v in 13.1 13.2 13.3 13.4; do
		run tile-read "$CORPUS/$v/empty.tileirbc"
		assert_success
		assert_output --partial "\"bytecode_version\": \"$v\""
		assert_output --partial '"ops": []'
	done
}

@test "an unsupported version is rejected naming the versions we read" {
	cp "$CORPUS/13.4/empty.tileirbc" "$SCRATCH/v.bc"
	patch "$SCRATCH/v.bc" 9 '\x06'
	reject "$SCRATCH/v.bc" "unsupported Tile version 13.6.0; this reader supports bytecode versions 13.1, 13.2, 13.3, 13.4, 13.5"
	patch "$SCRATCH/v.bc" 8 '\x0c\x01'
	reject "$SCRATCH/v.bc" "unsupported Tile version 12.1.0"
	patch "$SCRATCH/v.bc" 8 '\x0d\x00'
	reject "$SCRATCH/v.bc" "unsupported Tile version 13.0.0"
}

# --- NVIDIA's reader tests (tests/read/nvidia/README.md) ----------------------

@test "NVIDIA invalid: invalid_magic_number" {
	reject "$NV_CORPUS/invalid/invalid_magic_number.tileirbc" "invalid magic number"
}
@test "NVIDIA invalid: unsupported_version" {
	reject "$NV_CORPUS/invalid/unsupported_version.tileirbc" "unsupported Tile version 18.0.0"
}
@test "NVIDIA invalid: invalid_section_id" {
	reject "$NV_CORPUS/invalid/invalid_section_id.tileirbc" "unknown section ID: 127"
}
@test "NVIDIA invalid: excessive_section_length (bytes after the end marker)" {
	reject "$NV_CORPUS/invalid/excessive_section_length.tileirbc" "end-of-bytecode marker is not the last section"
}
@test "NVIDIA invalid: f4e2m1fn-in-13.1" {
	reject "$NV_CORPUS/invalid/f4e2m1fn-in-13.1.tileirbc" "requires bytecode version 13.3+"
}
# The two .bc files are verifier failures in NVIDIA's tool. Our IR cannot
# hold either value (an empty dictionary key; INT32_MIN, reserved in i32
# arrays), so the reader itself rejects them, with NVIDIA's reader wording.
@test "NVIDIA invalid: invalid_attribute_name.bc (empty hints key)" {
	reject "$NV_CORPUS/invalid/invalid_attribute_name.bc" "empty attribute name for dictionary element 0"
}
@test "NVIDIA invalid: invalid_dense_map_value.bc (INT32_MIN in a permutation)" {
	reject "$NV_CORPUS/invalid/invalid_dense_map_value.bc" "array contains unsupported value -2147483648"
}

# --- corrupt files -------------------------------------------------------------

# The sweeps run in one process: $BIN/../tests/read-truncate (tests/read/truncate_test.c,
# built by make) decodes every prefix with tile_read_bytecode() and wants NULL
# and one "FILE: offset 0x...: error: MSG" line for each.
TRUNCATE="$BIN/../tests/read-truncate"

@test "truncation at every offset of the hand-built module is rejected" {
	tiny
	run "$TRUNCATE" "$SCRATCH/tiny.bc"
	assert_success
	assert_output "1 files, 102 prefixes: all rejected cleanly"
	# and through the tool: exit 1, one line, no output file
	head -c 50 "$SCRATCH/tiny.bc" >"$SCRATCH/t.bc"
	reject "$SCRATCH/t.bc" "offset 0x"
}

@test "truncation of every corpus file at every offset is rejected" {
	run "$TRUNCATE" "$CORPUS"/13.*/*.tileirbc "$GOLD"/allops-13.*.tileirbc "$NV_CORPUS"/valid/*.tileirbc
	assert_success
	assert_output --regexp '^1[0-9][0-9] files, [0-9]{6,} prefixes: all rejected cleanly$'
}

@test "the truncation sweep fails when a prefix is accepted or the whole file rejected" {
	tiny
	printf '\x00' >>"$SCRATCH/tiny.bc"
	run "$TRUNCATE" "$SCRATCH/tiny.bc"
	assert_failure 1
	assert_line --partial "length 103: the whole file is rejected: read-truncate: $SCRATCH/tiny.bc: offset 0x66: error: end-of-bytecode marker is not the last section"
	assert_line "$SCRATCH/tiny.bc: length 102: accepted"
	assert_line "2 of 103 prefixes not rejected cleanly"
}

@test "bad magic" {
	tiny; patch "$SCRATCH/tiny.bc" 3 'X'
	reject "$SCRATCH/tiny.bc" "offset 0x3: error: invalid magic number: byte 3 is 0x58, expected 0x6c"
}

@test "not bytecode at all / empty file" {
	printf '' >"$SCRATCH/e.bc"
	reject "$SCRATCH/e.bc" "the file is empty"
	printf '{"format": "tile-ir"}' >"$SCRATCH/j.bc"
	reject "$SCRATCH/j.bc" "invalid magic number"
}

@test "unknown section id" {
	tiny; patch "$SCRATCH/tiny.bc" 0x0c '\x89'
	reject "$SCRATCH/tiny.bc" "offset 0xc: error: unknown section ID: 9"
}

@test "duplicate section" {
	tiny
	head -c 101 "$SCRATCH/tiny.bc" >"$SCRATCH/d.bc"
	printf '\x81\x09\x04\x01\xcb\xcb\xcb\x00\x00\x00\x00\x6b\x00' >>"$SCRATCH/d.bc"
	reject "$SCRATCH/d.bc" "offset 0x65: error: duplicate string section"
}

@test "trailing bytes after the end marker" {
	tiny; printf '\x00' >>"$SCRATCH/tiny.bc"
	reject "$SCRATCH/tiny.bc" "offset 0x66: error: end-of-bytecode marker is not the last section (1 more byte)"
}

@test "missing end marker, missing mandatory section" {
	tiny; head -c 101 "$SCRATCH/tiny.bc" >"$SCRATCH/m.bc"
	reject "$SCRATCH/m.bc" "missing the end-of-bytecode marker"
	printf '\x7fTileIR\x00\x0d\x01\x00\x00\x00' >"$SCRATCH/m.bc"
	reject "$SCRATCH/m.bc" "missing string section"
}

@test "section length past the end of the file" {
	tiny; patch "$SCRATCH/tiny.bc" 0x58 '\x7f'
	reject "$SCRATCH/tiny.bc" "offset 0x58: error: string section length 127 runs past the end of the file"
}

@test "section alignment: not a power of two, and too small for the section" {
	tiny; patch "$SCRATCH/tiny.bc" 0x0e '\x03'
	reject "$SCRATCH/tiny.bc" "function section alignment 3 is not a power of two"
	tiny; patch "$SCRATCH/tiny.bc" 0x0e '\x04'
	reject "$SCRATCH/tiny.bc" "function section must have an alignment that is a multiple of 8 bytes"
}

@test "out-of-range indices: type, value, string, constant" {
	tiny; patch "$SCRATCH/tiny.bc" 0x17 '\x09'
	reject "$SCRATCH/tiny.bc" "offset 0x17: error: type index 9 out of range (3 types)"
	tiny; patch "$SCRATCH/tiny.bc" 0x1d '\x05'
	reject "$SCRATCH/tiny.bc" "offset 0x1d: error: cuda_tile.addi operand 1: value index 5 out of range (1 values defined here)"
	tiny; patch "$SCRATCH/tiny.bc" 0x11 '\x04'
	reject "$SCRATCH/tiny.bc" "string index 4 out of range (1 strings)"
	tiny; patch "$SCRATCH/tiny.bc" 0x18 '\x02'
	reject "$SCRATCH/tiny.bc" "offset 0x18: error: constant index 2 out of range (1 constants)"
}

@test "bad lengths: function body, constant size, table offsets" {
	tiny; patch "$SCRATCH/tiny.bc" 0x15 '\x40'
	reject "$SCRATCH/tiny.bc" "function 'k' body length 64 runs past the end of the function section"
	tiny; patch "$SCRATCH/tiny.bc" 0x38 '\x03'
	reject "$SCRATCH/tiny.bc" "constant 0: size 3 does not match the 4 bytes of its entry"
	tiny; patch "$SCRATCH/tiny.bc" 0x48 '\x09'
	reject "$SCRATCH/tiny.bc" "type table entry 1 starts at 9, outside [0, 7]"
	tiny; patch "$SCRATCH/tiny.bc" 0x40 '\x09'
	reject "$SCRATCH/tiny.bc" "type table count 9 exceeds"
}

@test "type recursion, and types nested too deeply" {
	tiny; patch "$SCRATCH/tiny.bc" 0x51 '\x00'
	reject "$SCRATCH/tiny.bc" "type 0 refers to itself"
	# t0 = tile of t1, t1 = ptr to t0: a cycle through two entries
	tiny; patch "$SCRATCH/tiny.bc" 0x50 '\x0d\x01\x00\x0c\x00\x00'
	reject "$SCRATCH/tiny.bc" "refers to itself"
}

@test "regions nested too deeply are rejected, not a stack overflow" {
	python3 - "$SCRATCH/deep.bc" <<'PY'
import sys
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f; n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n: return bytes(out)
def pad(b, a):
    while len(b) % a: b.append(0xcb)
# loop { loop { ... { continue } ... continue } continue }, 5000 deep
inner = bytes([0x11, 0, 0])                       # continue
for _ in range(5000):
    inner = bytes([0x41, 0, 0, 1, 1, 0, 2]) + inner + bytes([0x11, 0, 0])
body = inner + bytes([0x5c, 0, 0])
func = bytes([1, 0, 0, 2, 0]) + varint(len(body)) + body
out = bytearray(b"\x7fTileIR\x00\x0d\x01\x00\x00")
for sid, payload, align in ((2, func, 8),
                            (5, bytes([1, 0xcb, 0xcb, 0xcb, 0, 0, 0, 0, 0x10, 0, 0]), 4),
                            (1, bytes([1, 0xcb, 0xcb, 0xcb, 0, 0, 0, 0]) + b"k", 4)):
    out.append(0x80 | sid); out += varint(len(payload)); out.append(align); pad(out, align)
    out += payload
out.append(0)
open(sys.argv[1], "wb").write(out)
PY
	reject "$SCRATCH/deep.bc" "regions nested more than 64 deep"
}

@test "unknown opcode, opcode newer than the file, structural op in a body" {
	tiny; patch "$SCRATCH/tiny.bc" 0x19 '\x20'
	reject "$SCRATCH/tiny.bc" "offset 0x19: error: unknown opcode 0x20"
	tiny; patch "$SCRATCH/tiny.bc" 0x19 '\x79'
	reject "$SCRATCH/tiny.bc" "opcode 0x79 (cuda_tile.fpowi) requires bytecode version 13.4+, file version is 13.1"
	tiny; patch "$SCRATCH/tiny.bc" 0x19 '\x16'
	reject "$SCRATCH/tiny.bc" "cuda_tile.entry cannot appear in a function body"
}

@test "invalid enum value, invalid UTF-8 string, non-kernel function" {
	tiny; patch "$SCRATCH/tiny.bc" 0x1b '\x09'
	reject "$SCRATCH/tiny.bc" "offset 0x1b: error: invalid integer overflow value 9 for 'overflow'"
	tiny; patch "$SCRATCH/tiny.bc" 0x64 '\xff'
	reject "$SCRATCH/tiny.bc" "string 0 is not valid UTF-8"
	tiny; patch "$SCRATCH/tiny.bc" 0x13 '\x00'
	reject "$SCRATCH/tiny.bc" "function 0 is not a kernel entry"
}

@test "a block that does not end with a terminator" {
	tiny; patch "$SCRATCH/tiny.bc" 0x1e '\x01\x00\x00'   # return -> absi
	reject "$SCRATCH/tiny.bc" "function body ends with cuda_tile.absi, not a terminator"
}

@test "a 13.4 type encoding read as 13.3 fails cleanly" {
	cp "$GOLD/allops-13.4.tileirbc" "$SCRATCH/a.bc"
	patch "$SCRATCH/a.bc" 9 '\x03'
	run tile-read "$SCRATCH/a.bc" -o "$SCRATCH/out.json"
	assert_failure 1
	assert_output --regexp 'offset 0x[0-9a-f]+: error: '
	assert_file_not_exists "$SCRATCH/out.json"
}

@test "the verifier runs after decoding (and --no-verify skips it)" {
	tiny; patch "$SCRATCH/tiny.bc" 0x56 '\x07'            # i32 -> f32: addi on floats
	run tile-read "$SCRATCH/tiny.bc" -o "$SCRATCH/out.json"
	assert_failure 1
	assert_output --partial "'cuda_tile.addi' op"
	assert_file_not_exists "$SCRATCH/out.json"
	run tile-read --no-verify --emit=text "$SCRATCH/tiny.bc"
	assert_success
	assert_output --partial 'cuda_tile.addi %0, %0 {overflow = "none"} : tile<f32>'
}

@test "800 seeded single-byte mutations of real files: exit 0 or 1, never a crash" {
	python3 - "$SCRATCH" "$CORPUS" "$GOLD" <<'PY'
import glob, os, random, sys
scratch, corpus, gold = sys.argv[1:]
files = sorted(glob.glob(corpus + "/13.*/*.tileirbc")) + sorted(glob.glob(gold + "/allops-*.tileirbc"))
rnd = random.Random(1304)
for i in range(800):
    data = bytearray(open(rnd.choice(files), "rb").read())
    for _ in range(rnd.randint(1, 3)):
        data[rnd.randrange(len(data))] = rnd.choice([0, 1, 0x7f, 0x80, 0xff, rnd.randrange(256)])
    open("%s/m%03d.bc" % (scratch, i), "wb").write(data)
PY
	for f in "$SCRATCH"/m*.bc; do
		tile-read "$f" -o "$SCRATCH/out.json" 2>"$SCRATCH/err" && status=0 || status=$?
		[ "$status" -le 1 ] || { echo "$f: status $status"; cat "$SCRATCH/err"; return 1; }
		rm -f "$SCRATCH/out.json"
	done
}

@test "inputs that once crashed the fuzzer are rejected cleanly" {
	for f in "$GOLD"/fuzz-crashes/*; do
		run tile-read "$f" -o "$SCRATCH/out.json"
		[ "$status" -le 1 ] || { echo "$f: status $status: $output"; return 1; }
		rm -f "$SCRATCH/out.json"
	done
}

# --- hand-assembled modules (tests/read/mkbc) ------------------------------------

mk() { python3 "$GOLD/mkbc" "$SCRATCH/m.bc" "$@"; }

@test "entry hints: duplicate key, non-dictionary value, wrong tag" {
	mk --strings k,sm_90 --hints "0b 02 01 0a 00 01 0a 00" "5c 00 00"
	reject "$SCRATCH/m.bc" "duplicate dictionary key 'sm_90'"
	mk --strings k,sm_90 --hints "0b 01 01 03 01" "5c 00 00"
	reject "$SCRATCH/m.bc" "optimization hints for 'sm_90' must be a dictionary"
	mk --strings k,sm_90 --hints "0a 00" "5c 00 00"
	reject "$SCRATCH/m.bc" "optimization hints must be attribute tag 11, got 10"
	mk --strings k,sm_90,occupancy --hints "0b 01 01 0a 01 02 01 02 02" "5c 00 00"
	run tile-read --emit=text "$SCRATCH/m.bc"
	assert_success
	assert_output --partial 'optimization_hints = {sm_90 = {occupancy = 2 : i32}}'
}

@test "f64 float attributes: cuTile's 65-bit zig-zag and the signed form agree" {
	for enc in "80 80 80 80 80 80 80 80 80 02" "ff ff ff ff ff ff ff ff ff 01"; do
		mk --types "10 00 00,0d 02 00,03,09" --strings k,sm_90,x \
			--hints "0b 01 01 0a 01 02 02 03 $enc" "5c 00 00"
		run tile-read --emit=text "$SCRATCH/m.bc"
		assert_success
		assert_output --partial 'x = 0x8000000000000000 : f64'
	done
	mk --types "10 00 00,0d 02 00,03,09" --strings k,sm_90,x \
		--hints "0b 01 01 0a 01 02 02 03 ff ff ff ff ff ff ff ff ff 03" "5c 00 00"
	reject "$SCRATCH/m.bc" "float attribute bit pattern does not fit in 64 bits"
	mk --types "10 00 00,0d 02 00,03,05" --strings k,sm_90,x \
		--hints "0b 01 01 0a 01 02 02 03 80 80 08" "5c 00 00"
	reject "$SCRATCH/m.bc" "float attribute bit pattern 0x10000 does not fit in f16"
}

@test "nearest_away is a 13.4 rounding mode; unknown op flag bits are rejected" {
	body="10 01 00 02 01 00 07 00 00 5c 00 00"    # %0 = constant; addf %0, %0 rounding 7
	mk --version 13.3 --types "10 00 00,0d 02 00,07" --consts "00 00 80 3f" "$body"
	reject "$SCRATCH/m.bc" "invalid rounding mode value 7 for 'rounding_mode'"
	mk --version 13.4 --types "10 00 00,0d 02 00,07" --consts "00 00 80 3f" "$body"
	run tile-read --no-verify --emit=text "$SCRATCH/m.bc"
	assert_success
	assert_output --partial 'rounding_mode = "nearest_away"'
	mk --types "10 00 00,0d 02 00,07" --consts "00 00 80 3f" "10 01 00 02 01 02 00 00 00 5c 00 00"
	reject "$SCRATCH/m.bc" "cuda_tile.addf has unknown flag bits 0x2"
}

@test "13.4 pointer and tensor_view types carry optional flags and a pointer attribute" {
	mk --version 13.4 --types "10 01 02 00,0c 01 03 00,0d 01 00,07" "5c 00 00"
	run tile-read --emit=text "$SCRATCH/m.bc"
	assert_success
	assert_output --partial 'function_type = (tile<ptr<f32>>) -> ()'
	mk --version 13.4 --types "10 01 02 00,0c 01 03 01,0d 01 00,07" "5c 00 00"
	reject "$SCRATCH/m.bc" "pointer attribute 'unicast' requires bytecode version 13.5+, file version is 13.4"
	mk --version 13.4 --types "10 01 02 00,0c 01 03 03,0d 01 00,07" "5c 00 00"
	reject "$SCRATCH/m.bc" "unknown pointer attribute 3"
	mk --version 13.4 --types "10 01 02 00,0c 02 03,0d 01 00,07" "5c 00 00"
	reject "$SCRATCH/m.bc" "pointer type has unknown optional-field flags 0x2"
	mk --version 13.4 --types "10 01 01 00,0e 00 02 01 0000000000000080 01 0100000000000000,07" "5c 00 00"
	run tile-read --emit=text "$SCRATCH/m.bc"
	assert_success
	assert_output --partial 'function_type = (tensor_view<?xf32, strides=[1]>) -> ()'
	# tag 130: E5M3, spelled as NVIDIA's tileirdisasm does; only 13.4 has it
	mk --version 13.4 --types "10 00 00,82 01" "5c 00 00"
	run tile-read --emit=text "$SCRATCH/m.bc"
	assert_success
	mk --version 13.3 --types "10 00 00,82 01" "5c 00 00"
	reject "$SCRATCH/m.bc" "fnv8E5M3FNU"
}

@test "fnv8E5M3FNU (13.4): read and verified; no target of ours has it (NVIDIA: sm_107 only)" {
	# cuTile: ftof f32 -> float8_e5m3fnu -> f32, exported for sm_107
	run tile-read --emit=text "$BATS_TEST_DIRNAME/ops/e5m3_roundtrip.tileirbc"
	assert_success
	assert_output --partial 'cuda_tile.ftof %17 {rounding_mode = "nearest_even"} : tile<128xfnv8E5M3FNU>'
	run tileiras "$BATS_TEST_DIRNAME/ops/e5m3_roundtrip.tileirbc" -o "$SCRATCH/k.cubin" --gpu-name sm_100
	[ "$status" -ne 0 ]
	assert_output --partial "fnv8E5M3FNU is not supported on sm_100"
	[ ! -e "$SCRATCH/k.cubin" ]
}

@test "i1 constants: byte per element, 0xFF splat and bit-packed all read the same" {
	for c in "01 00 01 00 01 00 01 00" "ff" "55"; do
		case $c in
		ff) want='dense<splat "0x01"> : tile<8xi1>' ;;
		*) want='dense<"0x0100010001000100"> : tile<8xi1>' ;;
		esac
		mk --types "10 00 00,0d 02 01 0800000000000000,00" --consts "$c" "10 01 00 5c 00 00"
		run tile-read --no-verify --emit=text "$SCRATCH/m.bc"
		assert_success
		assert_output --partial "$want"
	done
	mk --types "10 00 00,0d 02 01 0800000000000000,00" --consts "01 02 03" "10 01 00 5c 00 00"
	reject "$SCRATCH/m.bc" "constant 0: 3 bytes do not encode a value of type 'tile<8xi1>'"
}

@test "producer section: module attr from 13.3, rejected before" {
	mk --version 13.3 --strings k,cuTile-1.7 --producer 1 "5c 00 00"
	run tile-read "$SCRATCH/m.bc"
	assert_success
	assert_output --partial '"producer": "cuTile-1.7"'
	mk --version 13.2 --strings k,cuTile-1.7 --producer 1 "5c 00 00"
	reject "$SCRATCH/m.bc" "producer section requires bytecode version 13.3+, file version is 13.2"
}

@test "globals: 13.1 four fields, 13.3 visibility and constant; bad values rejected" {
	# name "g" (string 1), type 1 tile<4xi32>... here type 3, constant 0, alignment 8
	T="10 00 00,0d 02 00,03,0d 02 01 0400000000000000"
	C="00000000 01000000 02000000 03000000"
	mk --strings k,g --types "$T" --consts "$C" --globals "01 01 03 00 08" "5c 00 00"
	run tile-read --emit=text "$SCRATCH/m.bc"
	assert_success
	assert_output --partial 'cuda_tile.global {alignment = 8, sym_name = "g", value = dense<"0x00000000010000000200000003000000"> : tile<4xi32>}'
	mk --version 13.3 --strings k,g --types "$T" --consts "$C" --globals "01 01 03 00 08 01 01" "5c 00 00"
	run tile-read --emit=text "$SCRATCH/m.bc"
	assert_success
	assert_output --partial 'cuda_tile.global {alignment = 8, constant = true, sym_name = "g", symbol_visibility = "private"'
	mk --version 13.3 --strings k,g --types "$T" --consts "$C" --globals "01 01 03 00 08 02 00" "5c 00 00"
	reject "$SCRATCH/m.bc" "global 'g' has invalid symbol visibility 2"
	mk --strings k,g --types "$T" --consts "00" --globals "01 01 03 00 08" "5c 00 00"
	reject "$SCRATCH/m.bc" "constant 0: 1 bytes do not encode a value of type 'tile<4xi32>'"
	mk --strings k, --types "$T" --consts "$C" --globals "01 01 03 00 08" "5c 00 00"
	reject "$SCRATCH/m.bc" "empty global name"
	mk --strings k,g --types "$T" --consts "$C" --globals "01 01 03 00 08 00" "5c 00 00"
	reject "$SCRATCH/m.bc" "1 unexpected trailing byte in global section"
}

@test "13.5 argument attributes: kept on the entry as arg_attrs; a count that differs from the arguments is refused" {
	run tile-read --emit=text "$GOLD/argattrs-13.5.tileirbc"
	assert_success
	assert_output --partial 'cuda_tile.entry {arg_attrs = [{tt.divisibility = 16 : i32}, {tt.divisibility = 16 : i32}], function_type'
	tile-read "$GOLD/argattrs-13.5.tileirbc" >"$SCRATCH/a.json"
	run tile-ir --verify "$SCRATCH/a.json"
	assert_success
	reject "$GOLD/argattrs-count-13.5.tileirbc" "function 'k' has 1 argument attributes for 2 arguments"
}
