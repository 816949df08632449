#!/usr/bin/env bats
# tile-run's shape (issue 39): libcommon's allocation and messages, no file
# call cycle (fault() at the bottom, operand.c under both decoders), and a
# decoder that reads operands by ops.def's signature column. Source and
# object checks, plus the decoder's operand-count errors on hand-written PTX.
bats_require_minimum_version 1.5.0
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

R="$ROOT/tools/tile-run"

@test "tile-run: no allocator, die or message printer of its own, no global RUN" {
	run grep -nE '^[A-Za-z_ ]*\*?(xmalloc|xcalloc|xrealloc|xstrdup|xstrndup|die|run_error)\(' "$R"/*.c
	assert_failure
	run grep -nwE 'RUN|die|run_error' "$R"/*.c "$R"/*.h
	assert_failure
}

@test "include-graph: tile-run has no call or include cycle; fault.c and operand.c are bottoms" {
	run "$ROOT/scripts/include-graph" --obj "$BIN/../obj" tile-run
	assert_success
	assert_output --partial "include-graph: no cycles"
	assert_output --regexp "decode.c -> decode_async.c .*operand.c"
	assert_output --regexp "decode_async.c -> operand.c"
	# the calls part: fault.c and operand.c call no file of tile-run's
	echo "$output" | sed -n '/calls$/,/includes$/p' >"$SCRATCH/calls"
	grep -q "interp.c -> .*fault.c" "$SCRATCH/calls"
	run grep -E "^  (fault|operand)\.c -> " "$SCRATCH/calls"
	assert_failure
}

# rows: each ops.def row through the preprocessor as name~operands
rows() {
	printf '#define O(n, e, f, operands) @n~#operands\n#include "ops.def"\n' >"$SCRATCH/rows.c"
	gcc -E -P -I"$R" "$SCRATCH/rows.c" | grep '^@'
}

@test "ops.def: every row says how its operands are read, and decode.c has each named function" {
	rows >"$SCRATCH/rows"
	[ "$(wc -l <"$SCRATCH/rows")" -gt 80 ]
	run awk -F'~' -v dec="$R/decode.c" '
	{
		name = substr($1, 2); how = $2; gsub(/\\/, "", how)
		if (how ~ /^"SIG\("[dDstubpnax?]*"\)"$/ || how ~ /^"SIG_THEN\("(\*|[dDstubpnax?]*)", [a-z_]+\)"$/ ||
		    how ~ /^"SPECIAL\([a-z_]+\)"$/ || how == "\"ASYNC\"") {
			fn = ""
			if (how ~ /SIG_THEN/) { fn = how; sub(/.*, /, "check_", fn); sub(/\)"$/, "", fn) }
			if (how ~ /SPECIAL/) { fn = how; sub(/.*\(/, "dec_", fn); sub(/\)"$/, "", fn) }
			if (fn != "" && system("grep -q \"^static bool " fn "(Dec \\*x)$\" " dec) != 0)
				{ print name ": " fn " is not in decode.c"; bad = 1 }
		} else {
			print name ": bad operands column " how; bad = 1
		}
		n++
	}
	END { print n " rows"; exit bad }' "$SCRATCH/rows"
	assert_success
	assert_output --regexp "^[0-9]+ rows$"
}

@test "tile-run: the decoder has no function over 120 lines" {
	run awk '/^[a-zA-Z].*\(.*\)$/ { name = $0; start = FNR }
		/^}/ && start { if (FNR - start + 1 > 120) { print FILENAME ": " name ": " FNR - start + 1 " lines"; bad = 1 }; start = 0 }
		END { exit bad }' "$R/decode.c" "$R/decode_async.c" "$R/operand.c"
	assert_success
}

# ptx INSTRUCTION: a kernel around one instruction
ptx() {
	printf '.version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %%r<4>;\n  .reg .pred %%p<3>;\n  .reg .f32 %%f<4>;\n  %s\n  ret;\n}\n' "$1" >"$SCRATCH/k.ptx"
}

@test "tile-run: operands against the signature: counts, forms, negation" {
	need_run
	for bad in "add.s32 %r1, %r2;|wrong number of operands for 'add.s32'" \
		   "add.s32 %r1, %r2, %r3, %r1;|wrong number of operands for 'add.s32'" \
		   "selp.b32 %r1, %r2, %r3;|wrong number of operands for 'selp.b32'" \
		   "add.s32 %r1, %r2, [%r3];|unexpected operand form in 'add.s32'" \
		   "selp.b32 %r1, %r2, %r3, !%p1;|a negated predicate operand is not allowed in 'selp.b32'" \
		   "setp.lt.s32 %p1, %r1, %r2, %p2;|setp with a predicate operand needs .and/.or/.xor" \
		   "shfl.sync.b32 %r1, %r2, 1, 31, -1;|shfl without a mode" \
		   "elect.sync %r1;|wrong number of operands for 'elect.sync'"; do
		ptx "${bad%%|*}"
		run --separate-stderr tile-run "$SCRATCH/k.ptx" --grid 1
		assert_failure 1
		[ "$stderr" = "tile-run: error: $SCRATCH/k.ptx:9: ${bad#*|}" ] || fail "${bad%%|*}: $stderr"
	done
	# the forms a signature allows
	for good in "set.lt.and.u32.s32 %r1, %r2, %r3, !%p1;" "cvt.rn.f16x2.f32 %r1, %f1, %f2;" \
		    "setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p1;" "elect.sync %r1|%p1, -1;" "prefetch.global.L2 [%r1];"; do
		ptx "$good"
		run --separate-stderr tile-run "$SCRATCH/k.ptx" --grid 1 --block 32
		assert_success
	done
}
