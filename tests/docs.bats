#!/usr/bin/env bats
# The docs say how things are now (issue 39): every source file README.md and
# docs/*.md name exists, and the two documents a newcomer reads first stay
# short. docs/log/ (history) and docs/gpu-runs/ (raw reports) are not checked:
# they record what was true when they were written.
# Source checks only: no build needed.
load helpers

# Names that look like our files but are someone else's; each is compared
# with the name exactly as the docs write it.
ALLOWED='
k.py                          a user kernel file in examples of messages and locations
my_kernels.py                 the user program in the README cuTile recipe
vecadd.py                     a user kernel file in the IR examples (docs/ir.md)
kernels/add1.py               a user kernel file in tile-run sample output (docs/tile-run.md)
cuda/tile/_compile.py         cuTile Python (the cuda-tile wheel)
cuda/tile/_load_libcuda.py    cuTile Python: where it loads the CUDA driver
cuda/tile/_ir/ops_utils.py    cuTile Python: its conversion table
compilation/_name_mangling.py cuTile Python: kernel name mangling
'

# stale_names FILE...: "FILE:LINE: NAME" for every name of a file of ours
# that no file or directory in the tree has. A name is a word ending in .c,
# .h, .def, .bats, .bash, .py or .sh, or a path under one of our top-level
# directories. A path matches a file or directory with that path, or ending
# in /PATH, with or without its extension (tests/mma/mm_e4m3 is the kernel
# tests/mma/mm_e4m3.tileirbc); a bare name matches a basename anywhere in the
# tree. Skipped: patterns (*, {, <, $), paths outside the checkout (../),
# absolute and hidden ones, and build outputs (build/, build-*/).
stale_names() {
	(cd "$ROOT" && find tools libcommon libtileiras libtilerun scripts tests fuzz examples docs python \
		-name '.*' -prune -o -print) >"$SCRATCH/paths"
	printf '%s\n' "$ALLOWED" | awk 'NF { print $1 }' >"$SCRATCH/allowed"
	for f in "$@"; do
		grep -noE '[A-Za-z0-9_./+*{<$-]+' "$f" | sed "s|^|${f#"$ROOT"/}:|"
	done | awk -F: -v paths="$SCRATCH/paths" -v allowed="$SCRATCH/allowed" '
	BEGIN {
		while ((getline p < paths) > 0) {
			n = split(p, part, "/")
			for (i = 1; i <= n; i++) {
				tail = part[i]
				for (j = i + 1; j <= n; j++)
					tail = tail "/" part[j]
				have[tail] = 1
				stem = tail
				if (sub(/\.[^.\/]*$/, "", stem))
					have[stem] = 1
			}
		}
		while ((getline a < allowed) > 0)
			ok[a] = 1
	}
	{
		file = $1; line = $2; t = $3
		sub(/[.\/-]+$/, "", t)
		if (t ~ /[*{<$]/ || t ~ /^(\.|\/|build\/|build-)/)
			next
		if (t !~ /\.(c|h|def|bats|bash|py|sh)$/ &&
		    t !~ /^(scripts|tools|libcommon|libtileiras|libtilerun|tests|fuzz|examples|docs)\//)
			next
		if (!(t in have) && !(t in ok))
			print file ":" line ": " t
	}'
}

setup() { setup_scratch; }
teardown() { teardown_scratch; }

@test "docs: every source file README.md and docs/*.md name exists" {
	run stale_names "$ROOT/README.md" "$ROOT"/docs/*.md
	assert_success
	assert_output ''
}

@test "docs: the scan finds a stale name, skips patterns, paths outside the tree and allowed names" {
	cat >"$SCRATCH/doc.md" <<'EOF'
tile-ptx emits atomics in `atomic.c` (`tools/tile-ptx/op_atomic.c`, `op_atomic.c`).
Kernels: tests/mma/mm_e4m3, `tests/mma/small_*`, `tests/corpus/13.{1,2}`, tools/STAGE/*.c.
See ../shared/docs/ops.md, build/tests/read-truncate, .gpu/unpack.sh and cuda/tile/_compile.py.
A path that is gone: `tools/tile-sched/hoist.c`; one that is here: tile-sched/chunk.c.
EOF
	run stale_names "$SCRATCH/doc.md"
	assert_success
	assert_output --partial 'doc.md:1: atomic.c'
	assert_output --partial 'doc.md:4: tools/tile-sched/hoist.c'
	[ "${#lines[@]}" -eq 2 ]
}

@test "docs: docs/benchmarks.md is at most 400 lines, README.md at most 160" {
	n=$(wc -l <"$ROOT/docs/benchmarks.md")
	[ "$n" -le 400 ] || { echo "docs/benchmarks.md: $n lines (dated reports go to docs/log/)"; false; }
	n=$(wc -l <"$ROOT/README.md")
	[ "$n" -le 160 ] || { echo "README.md: $n lines (details go to docs/)"; false; }
}
