#!/usr/bin/env bats
# 13.5's DISubprogram flags: bit 0 (`declaration`, the only bit NVIDIA's
# tileirdisasm knows; it rejects the others as "unrecognized flag bits")
# kept by tile-read as the location's `func_flags` in the JSON IR and as
# `subprogram_flags = declaration` in the text form (docs/ir.md); other bits
# are the input's error. cuTile always writes 0, so the test sets the flags
# of tests/read/allops-13.5.tileirbc's two subprograms in a copy.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	cd "$SCRATCH"
}
teardown() { teardown_scratch; }

# flagged OUT MAIN HELPER: allops-13.5 with subprogram flags MAIN (allops,
# line 1) and HELPER (helper, line 40); each record is found by its bytes
# (tag 5, file, line, name, linkage, unit, scope line, flags 0) and must be unique
flagged() {
	python3 - "$ROOT/tests/read/allops-13.5.tileirbc" "$@" <<'PY'
import re, sys
src, out, main, helper = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(src, "rb").read())
for line, v in ((1, main), (40, helper)):
    L = re.escape(bytes([line]))
    ms = [m.start() for m in re.finditer(rb"\x05." + L + rb"..." + L + rb"\x00", b, re.S)]
    assert len(ms) == 1, (line, ms)
    b[ms[0] + 7] = v
open(out, "wb").write(b)
PY
}

@test "DISubprogram flags: declaration kept in the JSON IR (per location, call-site chains too) and the text form" {
	flagged f.tileirbc 0 1
	run tile-read f.tileirbc
	assert_success
	echo "$output" >f.json
	python3 -c 'import json, sys
d = json.load(open("f.json"))
locs = []
def walk(o):
    if isinstance(o, dict):
        l = o.get("loc")
        while isinstance(l, dict):
            locs.append(l)
            l = l.get("caller")
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(d)
helper = [l for l in locs if l.get("func") == "helper"]
main = [l for l in locs if l.get("func") == "allops"]
assert helper and main
assert all(l.get("func_flags") == 1 for l in helper), helper[:2]
assert all("func_flags" not in l for l in main), main[:2]'
	# the flags survive a JSON round trip through tile-ir and a stage
	run tile-ir f.json
	assert_success
	[ "$output" = "$(cat f.json)" ]
	run tile-read --emit=text f.tileirbc
	assert_success
	assert_output --partial 'loc("tests/read/allops.py":41:5 subprogram_flags = declaration called from "tests/read/allops.py":30:7)'
	refute_output --regexp 'allops.py":1:0 subprogram_flags'
	# without flags, nothing changes
	run tile-read "$ROOT/tests/read/allops-13.5.tileirbc"
	refute_output --partial func_flags
}

@test "DISubprogram flags: bits other than declaration are the input's error (NVIDIA rejects them too)" {
	for v in 2 5 64; do
		flagged f.tileirbc $v 0
		run tile-read f.tileirbc
		assert_failure 1
		assert_output --partial "DISubprogram has unknown flag bits 0x$(printf %x $((v & ~1)))"
		if [ -n "${NVBIN:-}" ] && [ -x "$NVBIN/tileirdisasm" ]; then
			run env -u CUDA_HOME "$NVBIN/tileirdisasm" f.tileirbc
			assert_failure
			assert_output --partial "unrecognized flag bits"
		fi
	done
	flagged f.tileirbc 1 1
	if [ -n "${NVBIN:-}" ] && [ -x "$NVBIN/tileirdisasm" ]; then
		run env -u CUDA_HOME "$NVBIN/tileirdisasm" -g f.tileirbc
		assert_success
		assert_output --partial "flags = declaration"
	fi
	run tile-read f.tileirbc
	assert_success
}

@test "DISubprogram flags: the JSON reader takes func_flags 1 only, and only beside a func" {
	tile-read "$ROOT/tests/read/allops-13.5.tileirbc" >a.json
	python3 -c 'import json
d = json.load(open("a.json"))
op = d["module"]["ops"][-1]
op["loc"]["func_flags"] = 2
json.dump(d, open("bad.json", "w"))'
	run tile-ir bad.json
	assert_failure
	assert_output --partial "func_flags needs a func and must be 1 (declaration)"
}
