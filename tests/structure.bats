#!/usr/bin/env bats
# One record per op (docs/architecture.md, "One record per op"): every fact a
# stage asks about a cuda_tile op is a column of its row in
# libcommon/dialect_cuda_tile.def (the verifier's rule, tile-read's wire
# layout, tile-ptx's emitter among them), each stage builds its table from
# that column, and no stage keeps a per-op list of its own. A new elementwise
# op is one row there plus its case in its emitter's family file.
# Source checks only: needs gcc's preprocessor, not a build.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

# rows FILE COLUMNS: each row of a libcommon .def, through the preprocessor,
# as one line of '~'-separated columns (COLUMNS: the X-macro's definition)
rows() {
	printf '%s\n#include "%s"\n' "$2" "$1" >"$SCRATCH/rows.c"
	gcc -E -P -I"$ROOT/libcommon" "$SCRATCH/rows.c" | grep '^@'
}

ct_rows() {
	rows dialect_cuda_tile.def \
		'#define OP(name, opcode, since, traits, lower, family, emit, rule, layout) @name~traits~lower~emit~#rule~#layout'
}

@test "structure: every cuda_tile row carries a verifier rule, a wire layout and an emitter" {
	ct_rows >"$SCRATCH/ct"
	[ "$(wc -l <"$SCRATCH/ct")" -gt 100 ]
	# the emitters families.h declares
	sed -n 's/^EmitFn \(.*\);.*/\1/p' "$ROOT/tools/tile-ptx/families.h" | tr ',' '\n' |
		sed 's/[[:space:]]//g' | sort -u >"$SCRATCH/declared"
	[ "$(wc -l <"$SCRATCH/declared")" -gt 20 ]
	run awk -F'[[:space:]]*~[[:space:]]*' -v ptx="$ROOT/tools/tile-ptx" -v declared="$SCRATCH/declared" '
	BEGIN { while ((getline d <declared) > 0) decl[d] = 1 }
	{
		name = substr($1, 2); traits = $2; lower = $3; emit = $4; rule = $5; layout = $6
		if (rule !~ /^"(SAME|SAMEI|SAMEF|CONV|ROW|IMPURE)\(/)
			{ print name ": no verifier rule: " rule; bad = 1 }
		if (layout !~ /^"(LAYOUT\(.*\)|NO_LAYOUT)"$/)
			{ print name ": no wire layout: " layout; bad = 1 }
		if ((layout ~ /NO_LAYOUT/) != (traits ~ /STRUCT/))
			{ print name ": NO_LAYOUT is for structure ops only, and they have no layout"; bad = 1 }
		if ((emit == "none") != (lower != "KEEP"))
			{ print name ": an emitter is for exactly the ops tile-lower keeps (emit " emit ", lower " lower ")"; bad = 1 }
		if (emit != "none" && !(("emit_" emit) in decl))
			{ print name ": emit_" emit " is not declared in families.h"; bad = 1 }
		# an elementwise op: its case in its emitter family file
		if (traits ~ /(^|\|)EW(\||$)/) {
			cmd = "grep -lw \"emit_" emit "\" " ptx "/op_*.c | xargs -r grep -lw \"CT_" name "\""
			file = ""; cmd | getline file; close(cmd)
			if (file == "") { print name ": no CT_" name " case in the file of emit_" emit; bad = 1 }
		}
		n++
	}
	END { print n " rows"; exit bad }' "$SCRATCH/ct"
	assert_success
	assert_output --regexp "^[0-9]+ rows$"
}

@test "structure: nv_tileas rows carry their emitter" {
	run rows dialect_nv_tile.def '#define NVOP(name, dialects, traits, check, emit) @name~emit'
	assert_success
	assert_line --regexp "^@convert_layout ?~ ?convert_layout$"
	refute_output --regexp '~ ?(none)?$'
}

@test "structure: no stage keeps a per-op list beside the .def rows" {
	cd "$ROOT"
	# the three tables are built from the row's columns ...
	for f in libcommon/verify_cuda_tile.c tools/tile-read/ops.c tools/tile-ptx/registry.c; do
		grep -q '^#include "dialect_cuda_tile.def"' "$f" || { echo "$f does not build from the .def"; false; }
	done
	# ... and no table is indexed by a spelled-out op code
	run grep -rnE '\[(CT|AA|AS)_[a-z0-9_]+\][[:space:]]*=' libcommon tools libtileiras --include='*.c' --include='*.h' --include='*.def'
	assert_failure 1
	assert_output ""
	# no wire-layout or rule rows outside the op record
	[ ! -e tools/tile-read/layouts.def ]
	run grep -rlE '^[[:space:]]*LAYOUT\([a-z_]+,' libcommon tools --include='*.c' --include='*.h' --include='*.def'
	assert_output ""
	run grep -rn 'const OpRule rules\[' libcommon
	assert_output --partial "verify_cuda_tile.c"
	assert_equal "$(grep -c '^#include "dialect_cuda_tile.def"' libcommon/verify_cuda_tile.c)" 1
}

@test "structure: the tools run their table checks against the record" {
	# tile-read checks the layout column on every run, tile-ptx its emit
	# column: a module through both proves the checks pass
	pipe "$CORPUS/13.1/elementwise_float.tileirbc" sm_80 >"$SCRATCH/k.ptx" 2>"$SCRATCH/err" || { cat "$SCRATCH/err"; false; }
	grep -q '^\.visible \.entry' "$SCRATCH/k.ptx"
}
