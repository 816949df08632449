#!/usr/bin/env bats
# C unit tests of libcommon (tests/unit/*.c), built by make into $BIN/../tests.
load helpers

@test "libcommon unit tests: types, targets, subprocess" {
	run "$BIN/../tests/unit-libcommon"
	assert_success
	assert_output "all checks passed"
}
