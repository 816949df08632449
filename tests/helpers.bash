# Shared setup for every Bats file: load with `load helpers`.
# BIN: directory of the built tools (make test sets it; defaults to build/bin).
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
BIN="${BIN:-$ROOT/build/bin}"
CORPUS="$ROOT/tests/corpus"
NV_CORPUS="$ROOT/../shared/corpus/cuda-tile-tests"
export PATH="$BIN:$PATH"

# A fresh scratch directory per test.
setup_scratch() {
	SCRATCH="$(mktemp -d "${BATS_TMPDIR:-/tmp}/tile.XXXXXX")"
}
teardown_scratch() {
	[ -n "${SCRATCH:-}" ] && rm -rf "$SCRATCH"
}

# The four targets every stage test compiles for (one per GPU generation).
TARGETS="sm_80 sm_90 sm_100 sm_120"

# pipe BYTECODE SM [tile-sched options...]: the stages between bytecode and
# PTX, called directly (not through the driver); PTX on stdout.
pipe() {
	local bc=$1 sm=$2
	shift 2
	tile-read "$bc" | tile-lower --gpu-name="$sm" | tile-sched "$@" | tile-ptx --gpu-name="$sm"
}

# The assembler every test of PTX uses; tests needing it skip when absent.
require_ptxas() {
	command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ] || skip "ptxas not installed"
	command -v ptxas >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
}
