# Shared setup for every Bats file: load with `load helpers`.
# BIN: directory of the built tools (make test sets it; defaults to build/bin).
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
BIN="${BIN:-$ROOT/build/bin}"
CORPUS="$ROOT/tests/corpus"
# NVIDIA's reader test files (a copy of ../shared/corpus/cuda-tile-tests, tests/read/nvidia/README.md)
NV_CORPUS="$ROOT/tests/read/nvidia"
export PATH="$BIN:$PATH"
# Where the build linked NVIDIA's PTX compiler library (a .venv with
# nvidia-nvptxcompiler), libtileiras.so assembles in process; its cubins
# differ from ptxas's in one note (the tool branch). Tests compare the API
# with the CLI byte for byte, so they use the ptxas process;
# libtileiras.bats tests the library path itself.
export TILEIRAS_NO_INPROC_PTXAS="${TILEIRAS_NO_INPROC_PTXAS-1}"

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

# ptxas ARGS: the real ptxas, with an -arch=sm_XY (or -arch sm_XY) turned
# into the PTX's own .target when that is its arch-specific variant
# (sm_90a: wgmma), as tile-pack picks it (tools/tile-pack/ptxas.c); ptxas
# refuses sm_90a PTX for -arch=sm_90.
ptxas() {
	local a f= t= out=()
	for a in "$@"; do case "$a" in *.ptx) f=$a;; esac; done
	[ -n "$f" ] && [ -f "$f" ] && t=$(sed -n 's/^\.target[[:space:]]*\(sm_[0-9]*a\).*/\1/p' "$f" | head -1)
	local next=0
	for a in "$@"; do
		if [ "$next" = 1 ]; then
			[ -n "$t" ] && [ "${t%a}" = "$a" ] && a=$t
			next=0
		elif [ "$a" = -arch ]; then
			next=1
		elif [ -n "$t" ] && [ "$a" = "-arch=${t%a}" ]; then
			a="-arch=$t"
		fi
		out+=("$a")
	done
	command ptxas "${out[@]}"
}

# The numeric checks: tile-run and Debian's numpy (/usr/bin/python3); tests
# needing them skip when either is missing.
PY=/usr/bin/python3
need_run() {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	"$PY" -c 'import numpy' 2>/dev/null || skip "no numpy for $PY (apt-get install python3-numpy)"
}

# tma_racecheck RUNS OFFSET TARGETS WARPS KERNEL...: run-corpus copies by TMA
# (tile-sched --tma) the KERNELs' loads, their arrays OFFSET elements off
# alignment, under racecheck: all pass, RUNS of them
tma_racecheck() {
	local runs=$1 off=$2 targets=$3 warps=$4
	shift 4
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets "$targets" --warps "$warps" --sched-flags=--tma \
		--check racecheck --array-offset "$off" "$@"
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq "$runs" ] || fail "offset $off: not $runs runs"
}

# plan_rejected SM MSG: tile-ptx for SM rejects $SCRATCH/bad.json (a schedule
# whose plan was edited by hand) as the input's error, saying MSG
plan_rejected() {
	run tile-ptx --gpu-name="$1" "$SCRATCH/bad.json"
	assert_failure
	assert_output --partial "$2"
	refute_output --partial "internal"
}

# planted_copy_rejected COPY MSG: the corpus matmul's sm_90 schedule with a
# plan edited by hand to copy its A operand by COPY ("tma", "cp_async"), which
# that load cannot be: plan_rejected, saying MSG
planted_copy_rejected() {
	tile-read "$CORPUS/13.4/matmul.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched |
		sed "s/\"a\": \"registers\"/\"a\": \"$1\"/" >"$SCRATCH/bad.json"
	grep -q "\"a\": \"$1\"" "$SCRATCH/bad.json" || fail "could not plant the copy"
	plan_rejected sm_90 "$2"
}

# int_matmul_inputs SEED M K N: in the current directory a.npy (MxK) and
# b.npy (KxN), f16 integers in [-4, 4] from numpy's generator SEED, and c.npy,
# MxN f32 zeros
int_matmul_inputs() {
	/usr/bin/python3 -c 'import numpy as np, sys
s, M, K, N = (int(x) for x in sys.argv[1:])
r = np.random.default_rng(s)
np.save("a.npy", r.integers(-4, 5, (M, K)).astype(np.float16))
np.save("b.npy", r.integers(-4, 5, (K, N)).astype(np.float16))
np.save("c.npy", np.zeros((M, N), np.float32))' "$@"
}

# ptx_ok PTX SM WHAT: the PTX uses no local memory, ptxas -v accepts it for SM
# (its own arch variant, as above) and reports no spills; WHAT names it in failures
ptx_ok() {
	if grep -q '\.local' "$1"; then fail "$3: local memory"; fi
	ptxas -arch="$2" -v "$1" -o "$1.cubin" 2>"$1.log" || fail "$3: ptxas: $(head -3 "$1.log")"
	if grep -E '[1-9][0-9]* bytes spill' "$1.log"; then fail "$3: spills"; fi
}

# The assembler every test of PTX uses; tests needing it skip when absent.
require_ptxas() {
	command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ] || skip "ptxas not installed"
	command -v ptxas >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
}

# assemble_named BYTECODE NAME: for every target, $SCRATCH/NAME.SM.ptx through
# the stages, with no local memory; ptxas -v accepts it ($SCRATCH/NAME.SM.cubin,
# log NAME.SM.log) and reports 0 spill bytes for every entry and nothing else.
assemble_named() {
	require_ptxas
	local bc=$1 name=$2 sm n
	for sm in $TARGETS; do
		pipe "$bc" "$sm" >"$SCRATCH/$name.$sm.ptx" || fail "$name: pipeline failed for $sm"
		if grep -q '\.local' "$SCRATCH/$name.$sm.ptx"; then fail "$name: local memory for $sm"; fi
		ptxas -v -arch="$sm" "$SCRATCH/$name.$sm.ptx" -o "$SCRATCH/$name.$sm.cubin" 2>"$SCRATCH/$name.$sm.log" ||
			fail "$name: ptxas rejected $sm: $(head -5 "$SCRATCH/$name.$sm.log")"
		if grep 'spill' "$SCRATCH/$name.$sm.log" | grep -qv ' 0 bytes spill stores, 0 bytes spill loads'; then
			fail "$name: spills for $sm: $(grep spill "$SCRATCH/$name.$sm.log")"
		fi
		n=$(grep -c ' 0 bytes spill stores, 0 bytes spill loads' "$SCRATCH/$name.$sm.log" || true)
		[ "$n" -ge 1 ] && [ "$n" -eq "$(grep -c '^\.visible \.entry' "$SCRATCH/$name.$sm.ptx")" ] ||
			fail "$name: $n spill reports for the entries of $sm: $(grep spill "$SCRATCH/$name.$sm.log")"
	done
}

# require_numpy: NUMPY_PY = a Python that has numpy, for the value checks:
# .venv's when it has one, else Debian's python3-numpy in /usr/bin/python3
# (scripts/install-deps installs it); skips naming what to install otherwise.
require_numpy() {
	local py
	for py in "$ROOT/.venv/bin/python" /usr/bin/python3; do
		if [ -x "$py" ] && "$py" -c 'import numpy' 2>/dev/null; then
			NUMPY_PY=$py
			return 0
		fi
	done
	skip "numpy not installed: run scripts/install-deps as root (it installs Debian's python3-numpy)"
}

# NVIDIA's own tools (tileiras, cuobjdump, ...) from the pip wheels in .venv,
# which is optional (~550 MB): `make venv` creates it.
NVBIN=$(ls -d "$ROOT"/.venv/lib/python3*/site-packages/nvidia/cu13/bin 2>/dev/null | head -1)
require_nvidia() {
	[ -n "$NVBIN" ] && [ -x "$NVBIN/tileiras" ] && [ -x "$NVBIN/cuobjdump" ] ||
		skip "NVIDIA's tileiras and cuobjdump not installed: run 'make venv' (creates .venv with NVIDIA's pip wheels, ~550 MB, needs the network)"
}

# same_abi NAME: $SCRATCH/nv.cubin (NVIDIA's) and $SCRATCH/ours.cubin have the
# same parameter layout and block size (cuobjdump's KPARAM_INFO, REQNTID and
# CBANK_PARAM_SIZE values); NAME is the kernel the failure names
same_abi() {
	local c
	for c in nv ours; do
		"$NVBIN/cuobjdump" -elf "$SCRATCH/$c.cubin" | grep -A2 'KPARAM_INFO\|REQNTID\|CBANK_PARAM_SIZE' |
			grep 'Value' | sed 's/cbank.*//' | sort >"$SCRATCH/$c.info"
	done
	[ -s "$SCRATCH/nv.info" ] || fail "no parameter info in NVIDIA's cubin"
	diff "$SCRATCH/nv.info" "$SCRATCH/ours.info" || fail "$1: ABI differs from NVIDIA's"
}
