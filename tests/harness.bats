#!/usr/bin/env bats
# The test machinery itself: scripts/run-tests reports bats' own status and
# one summary line.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

# suite NAME BODY...: a Bats file $SCRATCH/NAME.bats with the given test lines
suite() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$SCRATCH/$name.bats"
}

# run-tests outside this bats process (the outer run's BATS_* variables and
# its libexec directory on PATH would steer the inner bats)
run_tests() {
	local path
	path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v 'bats-core' | paste -sd:)
	run env -i PATH="$path" HOME="$HOME" BIN="$BIN" "$ROOT/scripts/run-tests" "$@"
}

@test "run-tests: exit 0 and the summary line when every test passes or skips" {
	suite ok '@test "a" { true; }' '@test "b" { skip "not here"; }'
	run_tests "$SCRATCH/ok.bats"
	assert_success
	assert_line "1 passed, 0 failed, 1 skipped"
}

@test "run-tests: a failing test is a non-zero exit and counted in the summary" {
	suite bad '@test "a" { true; }' '@test "b" { false; }'
	run_tests "$SCRATCH/bad.bats"
	assert_failure
	assert_line "1 passed, 1 failed, 0 skipped"
}

@test "run-tests: bats' own failure (a missing file) is the exit status, not tee's 0" {
	run_tests "$SCRATCH/none.bats"
	assert_failure
	assert_line "0 passed, 0 failed, 0 skipped"
}
