#!/usr/bin/env bats
# scripts/include-graph: tile-ptx and tile-sched have no file call or include
# cycle, and tile-ptx's calls go down its layers (docs/architecture.md,
# "tile-ptx and tile-sched source layout"). Reads the objects of the build
# that made $BIN.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

@test "include-graph: tile-ptx and tile-sched have no cycle and no upward call" {
	run "$ROOT/scripts/include-graph" --obj "$BIN/../obj"
	assert_success
	assert_output --partial "include-graph: no cycles"
	# it did read both stages' objects: the registry reaches every family,
	# tile-sched's driver calls its three lower files
	assert_output --partial "registry.c -> op_alloca.c op_arith.c"
	assert_output --regexp "sched.c -> (chunk.c )?classes.c (hints.c )?mma.c (plan.c )?shape.c"
	assert_output --regexp "shape.c -> classes.c"
	assert_output --regexp "mma.c -> classes.c"
	refute_output --regexp "op_[a-z_]*\.c -> [a-z_ .]*op_"
	# headers by layer: the context at the bottom, the utility layer and the
	# family emitters' declarations each over it only; the registry sees
	# the emitters, not the utility layer
	assert_output --regexp "  emit\.h -> context\.h"
	assert_output --regexp "  families\.h -> context\.h"$'\n'
	assert_output --regexp "  registry\.c -> families\.h"$'\n'
}

# fake STAGE FILE=BODY...: a stage of C files under $SCRATCH, compiled
fake() {
	local stage=$1
	shift
	mkdir -p "$SCRATCH/src/tools/$stage" "$SCRATCH/obj/tools/$stage"
	for fb in "$@"; do
		printf '%s\n' "${fb#*=}" >"$SCRATCH/src/tools/$stage/${fb%%=*}"
	done
	for c in "$SCRATCH/src/tools/$stage"/*.c; do
		gcc -c -I"$SCRATCH/src/tools/$stage" "$c" -o "$SCRATCH/obj/tools/$stage/$(basename "$c" .c).o" || return 1
	done
}

@test "include-graph: a call cycle between two files fails, naming it" {
	fake loop 'a.c=int b(void); int a(void) { return b(); }' 'b.c=int a(void); int b(void) { return a(); }'
	run "$ROOT/scripts/include-graph" --src "$SCRATCH/src" --obj "$SCRATCH/obj" loop
	assert_failure 1
	assert_output --regexp "loop: call cycle: (a.c -> b.c -> a.c|b.c -> a.c -> b.c)"
}

@test "include-graph: an include cycle fails" {
	fake inc 'x.h=#ifndef X
#define X
#include "y.h"
#endif' 'y.h=#ifndef Y
#define Y
#include "x.h"
#endif' 'm.c=#include "x.h"
int m(void) { return 0; }'
	run "$ROOT/scripts/include-graph" --src "$SCRATCH/src" --obj "$SCRATCH/obj" inc
	assert_failure 1
	assert_output --partial "inc: include cycle"
}

@test "include-graph: in tile-ptx a family file calling another fails" {
	fake tile-ptx 'op_a.c=int b1(void); int a1(void) { return b1(); }' 'op_b.c=int b1(void) { return 1; }' \
		'util_u.c=int a1(void); int u(void) { return a1(); }'
	run "$ROOT/scripts/include-graph" --src "$SCRATCH/src" --obj "$SCRATCH/obj" tile-ptx
	assert_failure 1
	assert_output --partial "layer crossed: op_a.c calls op_b.c"
	assert_output --partial "layer crossed: util_u.c calls op_a.c"
}

@test "include-graph: missing objects are a usage error" {
	run "$ROOT/scripts/include-graph" --obj "$SCRATCH/none" tile-ptx
	assert_failure 2
	assert_output --partial "build first"
}
